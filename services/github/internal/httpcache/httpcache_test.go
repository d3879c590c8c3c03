package httpcache

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
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
