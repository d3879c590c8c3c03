package httpcache

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"ghops.dev/services/github/internal/cachestore"
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

// Answers share their entry's sealed header: marked as from the cache, and
// without rate-limit figures when immutable. An entry stored unsealed (by
// an older version, in Redis) is answered with a sealed copy and left as
// it was.
func TestSealedHeader(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Remaining", "4999")
		w.Header().Set("ETag", `"e"`)
		fmt.Fprint(w, `{"path":"README.md"}`)
	}))
	t.Cleanup(ts.Close)
	tr := New(nil, 16, 1<<20)
	tests := []struct {
		name, path    string
		wantRateLimit bool
	}{
		{name: "immutable read", path: "/repos/o/r/contents/README.md?ref=" + sha},
		{name: "immutable read again", path: "/repos/o/r/contents/README.md?ref=" + sha},
		{name: "changing read keeps the figures", path: "/repos/o/r/pulls", wantRateLimit: true},
		{name: "changing read again", path: "/repos/o/r/pulls", wantRateLimit: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", ts.URL+tt.path, nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.Header.Get(FromCacheHeader) != "1" {
				t.Errorf("answer not marked %s: %v", FromCacheHeader, resp.Header)
			}
			if got := resp.Header.Get("X-RateLimit-Remaining") != ""; got != tt.wantRateLimit {
				t.Errorf("rate-limit figures present %v, want %v", got, tt.wantRateLimit)
			}
		})
	}
	t.Run("unsealed entry", func(t *testing.T) {
		e := &cachestore.Entry{Status: 200, Immutable: true, Body: []byte("{}"), Header: http.Header{"X-Ratelimit-Remaining": {"1"}}}
		resp := response(nil, e)
		if resp.Header.Get(FromCacheHeader) != "1" || resp.Header.Get("X-RateLimit-Remaining") != "" {
			t.Errorf("answer header %v, want sealed", resp.Header)
		}
		if len(e.Header) != 1 || e.Header.Get("X-RateLimit-Remaining") != "1" {
			t.Errorf("entry header changed: %v", e.Header)
		}
	})
}
