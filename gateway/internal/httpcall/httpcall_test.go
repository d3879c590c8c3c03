package httpcall

import (
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

func TestDo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header()["Got-Accept"] = r.Header.Values("Accept")
		w.Header().Set("Got-Method", r.Method)
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		name       string
		method     string
		body       string
		header     []string
		wantAccept []string
	}{
		{name: "post without headers", method: http.MethodPost, body: `{"a":1}`},
		{name: "pairs are added in order", method: http.MethodPost, body: "x", header: []string{"Accept", "a", "Accept", "b"}, wantAccept: []string{"a", "b"}},
		{name: "unpaired name ignored", method: http.MethodDelete, header: []string{"Accept", "a", "Accept"}, wantAccept: []string{"a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := Do(t, tc.method, srv.URL, tc.body, tc.header...)
			if resp.StatusCode != http.StatusTeapot || string(b) != tc.body {
				t.Fatalf("got %d %q", resp.StatusCode, b)
			}
			if got := resp.Header.Get("Got-Method"); got != tc.method {
				t.Errorf("method %q", got)
			}
			if got := resp.Header.Values("Got-Accept"); !reflect.DeepEqual(got, tc.wantAccept) && len(got)+len(tc.wantAccept) > 0 {
				t.Errorf("Accept %q, want %q", got, tc.wantAccept)
			}
		})
	}
}
