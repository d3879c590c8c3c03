package httpcache

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"ghops.dev/services/github/internal/jsonmemo"
)

func TestTransport(t *testing.T) {
	var notModified atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		etag := `"v1-` + r.URL.Path + `"`
		if r.Header.Get("If-None-Match") == etag {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		fmt.Fprint(w, "body of "+r.URL.Path+" for "+r.Header.Get("Authorization"))
	}))
	t.Cleanup(ts.Close)
	tr := New(nil, 2, 1<<20)
	get := func(t *testing.T, path, auth string) string {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Authorization", auth)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		return string(b)
	}
	tests := []struct {
		name, path, auth string
		want304          int32
	}{
		{name: "first read", path: "/a", auth: "token A", want304: 0},
		{name: "repeat is a 304", path: "/a", auth: "token A", want304: 1},
		{name: "other token not shared", path: "/a", auth: "token B", want304: 1},
		{name: "third entry evicts LRU", path: "/b", auth: "token A", want304: 1},
		{name: "evicted entry refetched", path: "/a", auth: "token A", want304: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := get(t, tt.path, tt.auth); got != "body of "+tt.path+" for "+tt.auth {
				t.Errorf("body = %q", got)
			}
			if got := notModified.Load(); got != tt.want304 {
				t.Errorf("304s = %d, want %d", got, tt.want304)
			}
			if tr.Len() > 2 {
				t.Errorf("cache holds %d entries, bound is 2", tr.Len())
			}
		})
	}
}

// The cache stamps each body it keeps with its digest, so that decoding can
// be memoized, and drops a digest sent by the server: only the cache's own
// can name a decoded value.
func TestDigestStamp(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(jsonmemo.DigestHeader, "forged")
		if r.URL.Path == "/etag" {
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", `"v1"`)
		}
		if r.URL.Path == "/missing" {
			w.WriteHeader(http.StatusNotFound)
		}
		fmt.Fprint(w, "body of "+r.URL.Path)
	}))
	t.Cleanup(ts.Close)
	tr := New(nil, 16, 1<<20)
	tests := []struct {
		name, method, path string
		want               string
	}{
		{name: "cached answer stamped", method: "GET", path: "/etag", want: jsonmemo.Digest([]byte("body of /etag"))},
		{name: "revalidated answer keeps the stamp", method: "GET", path: "/etag", want: jsonmemo.Digest([]byte("body of /etag"))},
		{name: "uncacheable 200 stamped", method: "GET", path: "/plain", want: jsonmemo.Digest([]byte("body of /plain"))},
		{name: "error not stamped", method: "GET", path: "/missing", want: ""},
		{name: "write passed through, forged digest dropped", method: "POST", path: "/etag", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, ts.URL+tt.path, nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if got := resp.Header.Get(jsonmemo.DigestHeader); got != tt.want {
				t.Errorf("digest = %q, want %q", got, tt.want)
			}
		})
	}
}
