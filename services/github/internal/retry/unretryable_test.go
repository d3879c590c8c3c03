package retry

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

type refusal struct{}

func (refusal) Error() string     { return "not sent" }
func (refusal) Unretryable() bool { return true }

func TestUnretryableNotRetried(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		wantCalls int
	}{
		{name: "a refusal is returned at once", err: refusal{}, wantCalls: 1},
		{name: "a connection failure is retried", err: errors.New("connection reset"), wantCalls: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			tr := &Transport{Retries: 2, BaseDelay: time.Millisecond, Base: rtFunc(func(*http.Request) (*http.Response, error) {
				calls++
				return nil, tt.err
			})}
			req, _ := http.NewRequest("GET", "http://127.0.0.1/x", nil)
			if _, err := tr.RoundTrip(req); !errors.Is(err, tt.err) || calls != tt.wantCalls {
				t.Errorf("err %v, calls %d, want %d", err, calls, tt.wantCalls)
			}
		})
	}
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
