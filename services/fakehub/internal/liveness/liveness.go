// Package liveness gives the fakehub binary its liveness endpoint, GET
// /healthz, outside the emulated API, so that probes ("fakehub
// healthcheck", ghops.dev/probe) never count in the hub's request
// statistics or rate limits.
package liveness

import (
	"io"
	"net/http"
)

// Path is the liveness endpoint.
const Path = "/healthz"

// Handler answers GET Path with 200 "ok" and passes every other request to
// next.
func Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == Path && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, "ok\n")
			return
		}
		next.ServeHTTP(w, r)
	})
}
