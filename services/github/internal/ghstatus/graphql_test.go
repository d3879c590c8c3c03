package ghstatus

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestGraphQLErrors maps GraphQL error types: NOT_FOUND and FORBIDDEN like
// REST's 404 and 403, RATE_LIMITED as a rate limit, everything else to
// GITHUB_VALIDATION, text sanitised.
func TestGraphQLErrors(t *testing.T) {
	const secret = "ghp_abcdefghijklmnop1234"
	pr := &ghopsv1.Resource{Type: "pr", Id: "o/r#1"}
	tests := []struct {
		name     string
		err      error
		code     codes.Code
		reason   ghopsv1.ErrorReason
		msg      string
		resource bool
	}{
		{name: "not found", err: &GraphQLErrors{Errors: []GraphQLError{{Type: "NOT_FOUND", Message: "Could not resolve to a node with the global id of 'PR_x'."}}},
			code: codes.NotFound, reason: ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, msg: "pr o/r#1 not found (or not visible to this token)", resource: true},
		{name: "forbidden", err: &GraphQLErrors{Errors: []GraphQLError{{Type: "FORBIDDEN", Message: "Resource not accessible by personal access token"}}},
			code: codes.PermissionDenied, reason: ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, msg: "GitHub refused access: Resource not accessible by personal access token"},
		{name: "rate limited", err: &GraphQLErrors{Errors: []GraphQLError{{Type: "RATE_LIMITED", Message: "API rate limit exceeded for user ID 1."}}},
			code: codes.ResourceExhausted, reason: ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, msg: "GitHub GraphQL rate limit exhausted; retry after 60s"},
		{name: "insufficient scopes", err: &GraphQLErrors{Errors: []GraphQLError{{Type: "INSUFFICIENT_SCOPES", Message: "Your token has not been granted the required scopes to execute this query. The 'projectV2' field requires one of the following scopes: ['read:project']."}}},
			code: codes.PermissionDenied, reason: ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, msg: "GitHub refused the token's scopes: Your token has not been granted the required scopes to execute this query. The 'projectV2' field requires one of the following scopes: ['read:project']."},
		{name: "rate limited with headers", err: &GraphQLErrors{Errors: []GraphQLError{{Type: "RATE_LIMITED", Message: "API rate limit exceeded"}}, Response: &http.Response{Header: http.Header{
			"X-Ratelimit-Limit": {"5000"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(time.Now().Add(90*time.Second).Unix(), 10)}, "X-Ratelimit-Resource": {"graphql"}}}},
			code: codes.ResourceExhausted, reason: ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, msg: "GitHub rate limit exhausted; retry after 90s"},
		{name: "other type, sanitised", err: &GraphQLErrors{Errors: []GraphQLError{{Type: "UNPROCESSABLE", Message: "bad " + secret + " see https://x.test/p?token=1"}, {Type: "NOT_FOUND"}}},
			code: codes.FailedPrecondition, reason: ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, msg: "GitHub validation failed (UNPROCESSABLE): bad [REDACTED] see https://x.test/p"},
		{name: "wrapped, no type", err: fmt.Errorf("draft: %w", &GraphQLErrors{Errors: []GraphQLError{{Message: "Something went wrong"}}}),
			code: codes.FailedPrecondition, reason: ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, msg: "GitHub validation failed: Something went wrong"},
		{name: "empty list is internal", err: &GraphQLErrors{}, code: codes.Internal, reason: ghopsv1.ErrorReason_ERROR_REASON_INTERNAL, msg: "internal error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := status.Convert(FromError(tt.err, Context{Tool: "update_pull_request", Repo: "o/r", PR: 1, Resource: pr}))
			if st.Code() != tt.code || st.Message() != tt.msg {
				t.Fatalf("status %v %q, want %v %q", st.Code(), st.Message(), tt.code, tt.msg)
			}
			var info *errdetails.ErrorInfo
			var gh *ghopsv1.GitHubError
			var ri *errdetails.ResourceInfo
			for _, d := range st.Details() {
				switch x := d.(type) {
				case *errdetails.ErrorInfo:
					info = x
				case *ghopsv1.GitHubError:
					gh = x
				case *errdetails.ResourceInfo:
					ri = x
				}
			}
			if info.GetReason() != tt.reason.String() || info.GetMetadata()["pr"] != "1" {
				t.Errorf("ErrorInfo = %v", info)
			}
			if tt.code != codes.Internal && (gh == nil || gh.Status != 200 || strings.Contains(gh.Message, secret)) {
				t.Errorf("GitHubError = %v", gh)
			}
			if tt.resource && (ri.GetResourceName() != "o/r#1" || gh.GetResource().GetId() != "o/r#1") {
				t.Errorf("ResourceInfo = %v, GitHubError.resource = %v", ri, gh.GetResource())
			}
			if strings.Contains(st.String(), secret) || strings.Contains(tt.err.Error(), secret) {
				t.Errorf("token leaked: %v / %v", st, tt.err)
			}
		})
	}
}

// TestGraphQLType names a GraphQL failure by its first error's type, and
// createCommitOnBranch's moved-head refusal as STALE_DATA by its wording
// whatever its type, so that commit_files can answer it as a lost race.
func TestGraphQLType(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{name: "stale data", err: &GraphQLErrors{Errors: []GraphQLError{{Type: "STALE_DATA", Message: `Expected branch to point to "abc" but it did not. Pull and try again.`}}}, want: GraphQLStaleData},
		{name: "moved head under another type", err: &GraphQLErrors{Errors: []GraphQLError{{Type: "UNPROCESSABLE", Message: `Expected branch to point to "abc" but it did not. Pull and try again.`}}}, want: GraphQLStaleData},
		{name: "not found, wrapped", err: fmt.Errorf("commit: %w", &GraphQLErrors{Errors: []GraphQLError{{Type: "NOT_FOUND", Message: "Could not resolve"}}}), want: "NOT_FOUND"},
		{name: "first error decides", err: &GraphQLErrors{Errors: []GraphQLError{{Type: "FORBIDDEN"}, {Type: "NOT_FOUND"}}}, want: "FORBIDDEN"},
		{name: "empty list", err: &GraphQLErrors{}, want: ""},
		{name: "not GraphQL", err: fmt.Errorf("boom"), want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := GraphQLType(tt.err); got != tt.want {
				t.Errorf("GraphQLType = %q, want %q", got, tt.want)
			}
		})
	}
}
