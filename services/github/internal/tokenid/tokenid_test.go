package tokenid

import (
	"net/http"
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	req := func(auth string) *http.Request {
		r, _ := http.NewRequest("GET", "http://127.0.0.1/x", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		return r
	}
	tests := []struct {
		name      string
		a, b      string
		wantEqual bool
	}{
		{name: "same token", a: "Bearer ghp_aaaa", b: "Bearer ghp_aaaa", wantEqual: true},
		{name: "other token", a: "Bearer ghp_aaaa", b: "Bearer ghp_bbbb"},
		{name: "anonymous", a: "", b: "", wantEqual: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, y := Of(req(tt.a)), Of(req(tt.b))
			if (x == y) != tt.wantEqual || len(x) != 32 {
				t.Errorf("Of = %q, %q", x, y)
			}
			if strings.Contains(x, "ghp_") {
				t.Errorf("identity %q holds the token", x)
			}
		})
	}
}
