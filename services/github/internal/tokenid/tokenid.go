// Package tokenid names the GitHub identity a request speaks for without
// holding its token: a SHA-256 of the Authorization header. The cache and
// the budget both key by it, so that nothing shared between replicas (or
// written to Redis) ever contains a token.
package tokenid

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
)

// Of returns the identity of req: 32 hex characters of the SHA-256 of its
// Authorization header ("" and anonymous requests share one identity).
func Of(req *http.Request) string {
	sum := sha256.Sum256([]byte(req.Header.Get("Authorization")))
	return hex.EncodeToString(sum[:16])
}
