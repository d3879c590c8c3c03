package ghstatus

import (
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestMismatch: a handler's own NOT_FOUND (get_issue given a pull request's number, an answer of
// another repository) carries the same data as GitHub's 404 would: the resource in GitHubError and
// ResourceInfo, the reason, and the message that says what the value names instead.
func TestMismatch(t *testing.T) {
	tests := []struct {
		name           string
		c              Context
		status         int
		wantType, want string
	}{
		{name: "issue", c: Context{Tool: "get_issue", Repo: "o/r", Resource: &ghopsv1.Resource{Type: "issue", Id: "o/r#1"}}, wantType: "issue", want: "o/r#1"},
		{name: "pull request GitHub did not find", c: Context{Tool: "get_pull_request", Repo: "o/r", PR: 3, Resource: &ghopsv1.Resource{Type: "pr", Id: "o/r#3"}}, status: 404, wantType: "pr", want: "o/r#3"},
		{name: "repository when no resource", c: Context{Tool: "get_issue", Repo: "o/r"}, wantType: "repository", want: "o/r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := status.Convert(Mismatch(tt.c, tt.status, "why"))
			if st.Code() != codes.NotFound || st.Message() != "why" {
				t.Fatalf("code %v, message %q", st.Code(), st.Message())
			}
			var gh *ghopsv1.GitHubError
			var ri *errdetails.ResourceInfo
			var info *errdetails.ErrorInfo
			for _, d := range st.Details() {
				switch v := d.(type) {
				case *ghopsv1.GitHubError:
					gh = v
				case *errdetails.ResourceInfo:
					ri = v
				case *errdetails.ErrorInfo:
					info = v
				}
			}
			if gh.GetResource().GetType() != tt.wantType || gh.GetResource().GetId() != tt.want ||
				ri.GetResourceType() != tt.wantType || ri.GetResourceName() != tt.want || ri.GetDescription() != "why" || gh.GetStatus() != int32(tt.status) ||
				info.GetReason() != ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND.String() || info.GetMetadata()["tool"] != tt.c.Tool {
				t.Errorf("GitHubError %v, ResourceInfo %v, ErrorInfo %v", gh, ri, info)
			}
		})
	}
}
