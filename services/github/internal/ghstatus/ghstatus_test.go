package ghstatus

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/reposcope"
	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
)

var update = flag.Bool("update", false, "rewrite golden files")

func errResp(code int, msg string, errs ...github.Error) error {
	return &github.ErrorResponse{Response: &http.Response{StatusCode: code, Header: http.Header{}, Request: &http.Request{Method: "GET"}}, Message: msg, Errors: errs}
}

// TestGolden pins the wire shape of the statuses the gateway decodes.
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		err  error
		c    Context
	}{
		{name: "not_found", err: errResp(404, "Not Found"), c: Context{Tool: "read_file", Repo: "o/r", Resource: &ghopsv1.Resource{Type: "file", Id: "o/r:a.txt"}}},
		{name: "github_validation", err: errResp(422, "Validation Failed", github.Error{Resource: "PullRequest", Code: "custom", Message: "No commits between main and x"}), c: Context{Tool: "create_pull_request", Repo: "o/r"}},
		// GitHub refuses an unknown milestone number with 422 naming the field: -32003, with
		// data.resource the milestone the call named for that field.
		{name: "unknown_milestone", err: errResp(422, "Validation Failed", github.Error{Resource: "Issue", Field: "milestone", Code: "invalid"}),
			c: Context{Tool: "update_issue", Repo: "o/r", Resource: &ghopsv1.Resource{Type: "issue", Id: "o/r#4"},
				FieldResources: map[string]*ghopsv1.Resource{"milestone": {Type: "milestone", Id: "o/r/milestones/42"}}}},
		{name: "pr_not_mergeable", err: errResp(405, "Pull Request is not mergeable"), c: Context{Tool: ToolMerge, Repo: "o/r", PR: 2, MergeableState: "dirty"}},
		{name: "head_sha_mismatch", err: errResp(409, "Head branch was modified. Review and try the merge again."), c: Context{Tool: ToolMerge, Repo: "o/r", PR: 1, SHA: "abcdef0", ExpectedSHA: "abcdef0", ActualSHA: "1234567"}},
		{name: "branch_moved", err: errResp(422, "Update is not a fast forward"), c: Context{Tool: ToolCommitFiles, Repo: "o/r", ExpectedSHA: "aaa", ActualSHA: "bbb"}},
		{name: "internal", err: errors.New("boom with secret ghp_0123456789abcdefghij"), c: Context{Tool: "fetch", Repo: "o/r"}},
		{name: "path_refused", err: &url.Error{Op: "Get", URL: "x", Err: &ghpath.Error{Field: "branch", Rule: ghpath.RuleDotSegment, Reason: `must not have a "." or ".." segment`}},
			c: Context{Tool: "apply_patch", Repo: "o/r"}},
		{name: "outside_repository", err: &url.Error{Op: "Get", URL: "https://api.github.com/repos/o/secret", Err: &reposcope.Refused{Method: "GET", Path: "/repos/o/secret", Why: "not the repository of the call"}},
			c: Context{Tool: "read_file", Repo: "o/r"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := status.Convert(FromError(tt.err, tt.c))
			got, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(st.Proto())
			if err != nil {
				t.Fatal(err)
			}
			// protojson output is deliberately unstable in spacing; normalise it.
			got = bytes.ReplaceAll(got, []byte(":  "), []byte(": "))
			path := filepath.Join("testdata", tt.name+".golden.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("status differs from %s:\n%s", path, got)
			}
		})
	}
}

// TestSanitize: upstream text loses every secret (package redact decides
// what a secret is; its own tests and fuzzers cover the shapes).
func TestSanitize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "classic token", in: "bad ghp_abcdefghijklmnop1234 here", want: "bad [REDACTED] here"},
		{name: "token after a word character", in: "bad x_ghp_abcdefghijklmnop1234", want: "bad x_[REDACTED]"},
		{name: "fine-grained token", in: "github_pat_11ABCDEFG0123456789_abcdef", want: "[REDACTED]"},
		{name: "bearer", in: "Authorization: Bearer abc.def-123456", want: "Authorization: [REDACTED]"},
		{name: "url query", in: "see https://api.github.com/x?access_token=s3cret#frag now", want: "see https://api.github.com/x#frag now"},
		{name: "url credentials", in: "https://user:pw@example.com/p", want: "https://example.com/p"},
		{name: "plain", in: "Resource not accessible by personal access token", want: "Resource not accessible by personal access token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestTokenAfterWordCharacter is issue 9's finding: GitHub's message quoting
// "x_ghp_..." reached the status message and GitHubError.message in clear.
func TestTokenAfterWordCharacter(t *testing.T) {
	const token = "ghp_abcdefghijklmnop1234"
	for _, code := range []int{401, 403, 404, 422} {
		st := status.Convert(FromError(errResp(code, "Bad credentials for x_"+token), Context{Tool: "read_file", Repo: "o/r"}))
		var all strings.Builder
		all.WriteString(st.Message())
		for _, d := range st.Details() {
			if gh, ok := d.(*ghopsv1.GitHubError); ok {
				all.WriteString(gh.GetMessage())
			}
		}
		if strings.Contains(all.String(), token) || !strings.Contains(all.String(), "x_[REDACTED]") {
			t.Errorf("HTTP %d: %q", code, all.String())
		}
	}
}

func TestCodes(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		c      Context
		code   string
		reason ghopsv1.ErrorReason
	}{
		{name: "deadline", err: context.DeadlineExceeded, code: "DeadlineExceeded", reason: ghopsv1.ErrorReason_ERROR_REASON_DEADLINE_EXCEEDED},
		{name: "wrapped deadline", err: &url.Error{Op: "Get", URL: "http://x/?token=abc", Err: context.DeadlineExceeded}, code: "DeadlineExceeded", reason: ghopsv1.ErrorReason_ERROR_REASON_DEADLINE_EXCEEDED},
		{name: "canceled", err: context.Canceled, code: "Canceled", reason: ghopsv1.ErrorReason_ERROR_REASON_CANCELED},
		{name: "transport", err: &url.Error{Op: "Get", URL: "http://x/?token=abc", Err: errors.New("connection refused")}, code: "Unavailable", reason: ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE},
		{name: "abuse without retry-after", err: &github.AbuseRateLimitError{Response: &http.Response{StatusCode: 403, Header: http.Header{}}, Message: "secondary"}, code: "ResourceExhausted", reason: ghopsv1.ErrorReason_ERROR_REASON_SECONDARY_RATE_LIMITED},
		{name: "merge 405", err: errResp(405, "Pull Request is not mergeable"), c: Context{Tool: ToolMerge, MergeableState: "blocked"}, code: "FailedPrecondition", reason: ghopsv1.ErrorReason_ERROR_REASON_PR_NOT_MERGEABLE},
		{name: "other 405 is internal", err: errResp(405, "nope"), c: Context{Tool: "fetch"}, code: "Internal", reason: ghopsv1.ErrorReason_ERROR_REASON_INTERNAL},
		{name: "status passes through", err: status.Error(codes.Aborted, "x"), code: "Aborted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := status.Convert(FromError(tt.err, tt.c))
			if st.Code().String() != tt.code {
				t.Fatalf("code = %v, want %s", st.Code(), tt.code)
			}
			if strings.Contains(st.Message(), "token=abc") {
				t.Errorf("message leaks query: %q", st.Message())
			}
			if tt.reason == 0 {
				return
			}
			var info *errdetails.ErrorInfo
			for _, d := range st.Details() {
				if x, ok := d.(*errdetails.ErrorInfo); ok {
					info = x
				}
			}
			if info.GetReason() != tt.reason.String() || info.GetDomain() != Domain {
				t.Errorf("ErrorInfo = %v", info)
			}
		})
	}
}
