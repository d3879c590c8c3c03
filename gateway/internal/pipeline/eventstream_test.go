package pipeline

import (
	"net/http"
	"testing"
)

// TestAcceptsEventStream: an answer becomes an event stream only when the
// client's Accept allows text/event-stream (wildcards included, parameters
// and case ignored).
func TestAcceptsEventStream(t *testing.T) {
	tests := []struct {
		name   string
		accept []string
		want   bool
	}{
		{"none", nil, false},
		{"json only", []string{"application/json"}, false},
		{"streamable http", []string{"application/json, text/event-stream"}, true},
		{"separate headers", []string{"application/json", "text/event-stream"}, true},
		{"parameters and case", []string{"Text/Event-Stream; q=0.5"}, true},
		{"any", []string{"*/*"}, true},
		{"any text", []string{"text/*"}, true},
		{"look-alike", []string{"text/event-streams"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tc.accept {
				h.Add("Accept", v)
			}
			if got := acceptsEventStream(h); got != tc.want {
				t.Errorf("acceptsEventStream(%q) = %v, want %v", tc.accept, got, tc.want)
			}
		})
	}
}
