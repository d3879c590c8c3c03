package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/servicetest"
)

const secretToken = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// stub is a tiny GitHub stand-in for answers fakehub cannot give.
type stub struct {
	calls atomic.Int32
	url   string
}

func startStub(t *testing.T, h http.HandlerFunc) *stub {
	t.Helper()
	s := &stub{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		h(w, r)
	}))
	t.Cleanup(ts.Close)
	s.url = ts.URL + "/"
	return s
}

func answer(status int, headers map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = fmt.Fprint(w, body)
	}
}

func TestErrorMapping(t *testing.T) {
	reset := strconv.FormatInt(time.Now().Add(90*time.Second).Unix(), 10)
	tests := []struct {
		name      string
		h         http.HandlerFunc
		code      codes.Code
		reason    ghopsv1.ErrorReason
		ghStatus  int32
		wantRetry bool
		check     func(t *testing.T, d details)
	}{
		{name: "401 unauthenticated", h: answer(401, nil, `{"message":"Bad credentials `+secretToken+`","documentation_url":"https://docs.github.com/rest?token=`+secretToken+`"}`),
			code: codes.Unauthenticated, reason: ghopsv1.ErrorReason_ERROR_REASON_UNAUTHENTICATED, ghStatus: 401,
			check: func(t *testing.T, d details) {
				if d.gh.DocumentationUrl != "https://docs.github.com/rest" {
					t.Errorf("documentation_url = %q, want query stripped", d.gh.DocumentationUrl)
				}
			}},
		{name: "403 permission", h: answer(403, map[string]string{"X-RateLimit-Remaining": "4999", "X-RateLimit-Limit": "5000"}, `{"message":"Resource not accessible by personal access token"}`),
			code: codes.PermissionDenied, reason: ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, ghStatus: 403},
		{name: "403 primary rate limit", h: answer(403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "5000", "X-RateLimit-Reset": reset, "X-RateLimit-Resource": "core"}, `{"message":"API rate limit exceeded"}`),
			code: codes.ResourceExhausted, reason: ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, ghStatus: 403, wantRetry: true,
			check: func(t *testing.T, d details) {
				rl := d.gh.GetRateLimit()
				if rl.GetLimit() != 5000 || rl.GetRemaining() != 0 || rl.GetReset_() == 0 || rl.GetRetryAfterSeconds() < 60 {
					t.Errorf("rate_limit = %v", rl)
				}
			}},
		{name: "403 secondary typed", h: answer(403, map[string]string{"Retry-After": "120"}, `{"message":"You have exceeded a secondary rate limit","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`),
			code: codes.ResourceExhausted, reason: ghopsv1.ErrorReason_ERROR_REASON_SECONDARY_RATE_LIMITED, ghStatus: 403, wantRetry: true,
			check: func(t *testing.T, d details) {
				if d.gh.GetRateLimit().GetRetryAfterSeconds() != 120 {
					t.Errorf("retry_after_seconds = %d, want 120", d.gh.GetRateLimit().GetRetryAfterSeconds())
				}
			}},
		{name: "429 untyped primary", h: answer(429, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "30", "X-RateLimit-Reset": reset, "X-RateLimit-Resource": "search"}, `{"message":"API rate limit exceeded"}`),
			code: codes.ResourceExhausted, reason: ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, ghStatus: 429, wantRetry: true,
			check: func(t *testing.T, d details) {
				if d.gh.GetRateLimit().GetResource() != "search" {
					t.Errorf("resource = %q", d.gh.GetRateLimit().GetResource())
				}
			}},
		{name: "429 untyped secondary long retry-after", h: answer(429, map[string]string{"Retry-After": "300"}, `{"message":"You have exceeded a secondary rate limit"}`),
			code: codes.ResourceExhausted, reason: ghopsv1.ErrorReason_ERROR_REASON_SECONDARY_RATE_LIMITED, ghStatus: 429, wantRetry: true},
		{name: "404 not found", h: answer(404, nil, `{"message":"Not Found"}`),
			code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, ghStatus: 404,
			check: func(t *testing.T, d details) {
				if d.res == nil || d.res.ResourceType != "file" || !strings.HasPrefix(d.res.ResourceName, "o/r:") {
					t.Errorf("ResourceInfo = %v", d.res)
				}
			}},
		{name: "409 empty repository", h: answer(409, nil, `{"message":"Git Repository is empty."}`),
			code: codes.FailedPrecondition, reason: ghopsv1.ErrorReason_ERROR_REASON_EMPTY_REPOSITORY, ghStatus: 409},
		{name: "422 field errors", h: answer(422, nil, `{"message":"Validation Failed","errors":[{"resource":"PullRequest","code":"custom","message":"No commits between main and x"}]}`),
			code: codes.FailedPrecondition, reason: ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, ghStatus: 422,
			check: func(t *testing.T, d details) {
				if len(d.gh.FieldErrors) != 1 || d.gh.FieldErrors[0].Code != "custom" || d.br == nil || len(d.br.FieldViolations) != 1 {
					t.Errorf("field errors = %v, bad request = %v", d.gh.FieldErrors, d.br)
				}
			}},
		{name: "5xx after retries", h: answer(502, nil, `<html>bad gateway</html>`),
			code: codes.Unavailable, reason: ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE, ghStatus: 502},
		{name: "dropped connection", h: func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		}, code: codes.Unavailable, reason: ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE},
		{name: "unexpected status is internal without upstream text", h: answer(418, nil, `{"message":"teapot secret detail"}`),
			code: codes.Internal, reason: ghopsv1.ErrorReason_ERROR_REASON_INTERNAL,
			check: func(t *testing.T, d details) {
				if strings.Contains(d.st.Message(), "teapot") || d.gh != nil {
					t.Errorf("internal leaks upstream text: %q %v", d.st.Message(), d.gh)
				}
			}},
		{name: "garbage body is internal", h: answer(200, nil, `{"type":`),
			code: codes.Internal, reason: ghopsv1.ErrorReason_ERROR_REASON_INTERNAL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startStub(t, tt.h)
			svc := servicetest.Start(t, servicetest.Options{GitHubURL: s.url, Token: secretToken})
			_, err := svc.Client.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: "o/r", Path: "a.txt"})
			d := wantStatus(t, err, tt.code, tt.reason)
			if tt.ghStatus != 0 && d.gh.GetStatus() != tt.ghStatus {
				t.Errorf("GitHubError.status = %d, want %d", d.gh.GetStatus(), tt.ghStatus)
			}
			if tt.wantRetry && (d.rty == nil || d.rty.RetryDelay.AsDuration() <= 0) {
				t.Errorf("RetryInfo = %v", d.rty)
			}
			if d.info.Metadata["tool"] != "read_file" || d.info.Metadata["repo"] != "o/r" {
				t.Errorf("ErrorInfo.metadata = %v", d.info.Metadata)
			}
			all := fmt.Sprint(d.st.Proto())
			if strings.Contains(all, secretToken) || strings.Contains(all, "?token") || strings.Contains(all, s.url) {
				t.Errorf("status leaks a token or upstream URL: %s", all)
			}
			if tt.check != nil {
				tt.check(t, d)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name      string
		call      func(svc *servicetest.Service, t *testing.T) error
		failFirst int
		status    int
		headers   map[string]string
		wantCalls int32
		wantCode  codes.Code
	}{
		{name: "read retried on 5xx", failFirst: 2, status: 503, wantCalls: 3, wantCode: codes.OK,
			call: func(svc *servicetest.Service, t *testing.T) error {
				_, err := svc.Client.GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: "o/r"})
				return err
			}},
		{name: "read waits out short secondary limit", failFirst: 1, status: 403, wantCalls: 2, wantCode: codes.OK,
			headers: map[string]string{"Retry-After": "0"},
			call: func(svc *servicetest.Service, t *testing.T) error {
				_, err := svc.Client.GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: "o/r"})
				return err
			}},
		{name: "mutation never retried", failFirst: 5, status: 502, wantCalls: 1, wantCode: codes.Unavailable,
			call: func(svc *servicetest.Service, t *testing.T) error {
				_, err := svc.Client.CreatePullRequest(ctx(t), &ghopsv1.CreatePullRequestRequest{Repo: "o/r", Title: "t", Head: "h", Base: "main"})
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			s := startStub(t, func(w http.ResponseWriter, r *http.Request) {
				if int(n.Add(1)) <= tt.failFirst {
					answer(tt.status, tt.headers, `{"message":"You have exceeded a secondary rate limit"}`)(w, r)
					return
				}
				answer(200, nil, `[{"name":"main","commit":{"sha":"abc"}}]`)(w, r)
			})
			svc := servicetest.Start(t, servicetest.Options{GitHubURL: s.url, Token: "t"})
			err := tt.call(svc, t)
			if got := statusCode(err); got != tt.wantCode {
				t.Fatalf("code = %v (%v), want %v", got, err, tt.wantCode)
			}
			if got := s.calls.Load(); got != tt.wantCalls {
				t.Errorf("GitHub calls = %d, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestPrimaryLimitBlocksLocally(t *testing.T) {
	reset := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	s := startStub(t, answer(403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "5000", "X-RateLimit-Reset": reset}, `{"message":"API rate limit exceeded"}`))
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: s.url, Token: "t"})
	for i := range 2 {
		_, err := svc.Client.GetBranches(ctx(t), &ghopsv1.GetBranchesRequest{Repo: "o/r"})
		d := wantStatus(t, err, codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED)
		if d.rty == nil || d.rty.RetryDelay.AsDuration() < 30*time.Minute {
			t.Errorf("call %d: RetryInfo = %v, want about an hour", i, d.rty)
		}
	}
	if got := s.calls.Load(); got != 1 {
		t.Errorf("GitHub calls = %d, want 1 (the second is blocked locally by go-github)", got)
	}
}

func TestDeadline(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s := startStub(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: s.url, Token: "t", CallTimeout: 300 * time.Millisecond})
	_, err := svc.Client.Fetch(ctx(t), &ghopsv1.FetchRequest{Repo: "o/r"})
	wantStatus(t, err, codes.DeadlineExceeded, ghopsv1.ErrorReason_ERROR_REASON_DEADLINE_EXCEEDED)
}
