package ghstatus_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ghops.dev/services/github/internal/budget"
	"ghops.dev/services/github/internal/callcap"
	"ghops.dev/services/github/internal/ghstatus"
)

// TestRefusals: a request the budget did not send says so, until when, and
// carries no GitHub status (GitHub said nothing).
func TestRefusals(t *testing.T) {
	reset := time.Now().Add(90 * time.Second).Truncate(time.Second)
	wrap := func(err error) error { return &url.Error{Op: "Get", URL: "https://api.github.com/repos/o/r", Err: err} }
	tests := []struct {
		name       string
		err        error
		wantCode   codes.Code
		wantReason ghopsv1.ErrorReason
		wantText   []string
		wantRate   bool
	}{
		{name: "primary limit spent", err: wrap(&budget.Exhausted{Snapshot: budget.Snapshot{Resource: "core", Limit: 5000, Reset: reset}}),
			wantCode: codes.ResourceExhausted, wantReason: ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED,
			wantText: []string{"not sent", reset.UTC().Format(time.RFC3339)}, wantRate: true},
		{name: "concurrency slots taken", err: wrap(&budget.Busy{Limit: 50}),
			wantCode: codes.ResourceExhausted, wantReason: ghopsv1.ErrorReason_ERROR_REASON_SECONDARY_RATE_LIMITED, wantText: []string{"not sent", "50"}},
		{name: "write paced past the deadline", err: wrap(&budget.Paced{Wait: 3 * time.Second}),
			wantCode: codes.ResourceExhausted, wantReason: ghopsv1.ErrorReason_ERROR_REASON_SECONDARY_RATE_LIMITED, wantText: []string{"not sent", "retry after 3s"}},
		{name: "shared budget unreachable, failing closed", err: wrap(budget.ErrUnavailable),
			wantCode: codes.Unavailable, wantReason: ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE, wantText: []string{"not sent"}},
		{name: "principal's share spent", err: wrap(&budget.Spent{Principal: "apikey:ci-bot", Resource: "core", Share: 2500, Percent: 50, Limit: 5000, Reset: reset}),
			wantCode: codes.ResourceExhausted, wantReason: ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED,
			wantText: []string{"not sent", "principal apikey:ci-bot", "-principal-share 50%", "2500 of the token's 5000", reset.UTC().Format(time.RFC3339), "retry after"}},
		{name: "per-call request cap", err: wrap(&callcap.Exceeded{Limit: 200}),
			wantCode: codes.InvalidArgument, wantReason: ghopsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT,
			wantText: []string{"not sent", "more than 200 GitHub requests", "-max-requests-per-call", "narrow the call"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := status.Convert(ghstatus.FromError(tt.err, ghstatus.Context{Tool: "read_file", Repo: "o/r"}))
			if st.Code() != tt.wantCode {
				t.Fatalf("code %v: %s", st.Code(), st.Message())
			}
			if strings.Contains(st.Message(), "m=") {
				t.Errorf("message shows the monotonic clock: %s", st.Message())
			}
			for _, w := range tt.wantText {
				if !strings.Contains(st.Message(), w) {
					t.Errorf("message %q lacks %q", st.Message(), w)
				}
			}
			var gh *ghopsv1.GitHubError
			var info *errdetails.ErrorInfo
			for _, d := range st.Details() {
				switch d := d.(type) {
				case *ghopsv1.GitHubError:
					gh = d
				case *errdetails.ErrorInfo:
					info = d
				}
			}
			if info == nil || info.Reason != tt.wantReason.String() {
				t.Errorf("reason %v", info)
			}
			if gh.GetStatus() != 0 || gh.GetMessage() != "" {
				t.Errorf("claims GitHub answered: %v", gh)
			}
			if tt.wantRate {
				r := gh.GetRateLimit()
				if r.GetLimit() != 5000 || r.GetRemaining() != 0 || r.GetReset_() != reset.Unix() || r.GetRetryAfterSeconds() < 80 || r.GetRetryAfterSeconds() > 91 {
					t.Errorf("rate limit %v", r)
				}
			}
		})
	}
	if !errors.Is(wrap(budget.ErrUnavailable), budget.ErrUnavailable) {
		t.Fatal("wrapping lost the refusal")
	}
}

// TestGoGitHubOwnRefusal: go-github refuses by itself during a secondary
// limit's retry-after with a made-up 403 without headers; that is not
// GitHub's answer.
func TestGoGitHubOwnRefusal(t *testing.T) {
	wait := 30 * time.Second
	tests := []struct {
		name       string
		header     http.Header
		wantStatus int32
		wantText   string
	}{
		{name: "made up by go-github", header: http.Header{}, wantStatus: 0, wantText: "not sent"},
		{name: "sent by GitHub", header: http.Header{"Retry-After": {"30"}}, wantStatus: 403, wantText: "secondary rate limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := &github.AbuseRateLimitError{Response: &http.Response{StatusCode: 403, Header: tt.header, Request: &http.Request{Method: "GET", URL: &url.URL{Path: "/x"}}},
				Message: "You have exceeded a secondary rate limit", RetryAfter: &wait}
			st := status.Convert(ghstatus.FromError(err, ghstatus.Context{Tool: "get_branches"}))
			var gh *ghopsv1.GitHubError
			for _, d := range st.Details() {
				if g, ok := d.(*ghopsv1.GitHubError); ok {
					gh = g
				}
			}
			if st.Code() != codes.ResourceExhausted || gh.GetStatus() != tt.wantStatus || !strings.Contains(st.Message(), tt.wantText) ||
				gh.GetRateLimit().GetRetryAfterSeconds() != 30 {
				t.Errorf("%v %q %v", st.Code(), st.Message(), gh)
			}
		})
	}
}
