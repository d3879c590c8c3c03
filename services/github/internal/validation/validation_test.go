package validation

import (
	"context"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

type fakeStream struct {
	grpc.ServerStream
	msg proto.Message
}

func (f *fakeStream) Context() context.Context { return context.Background() }
func (f *fakeStream) RecvMsg(m any) error {
	proto.Merge(m.(proto.Message), f.msg)
	return nil
}

func TestInterceptors(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		req    proto.Message
		stream bool
		code   codes.Code
		field  string
	}{
		{name: "valid unary", req: &ghopsv1.FetchRequest{Repo: "o/r"}, code: codes.OK},
		{name: "invalid unary", req: &ghopsv1.FetchRequest{Repo: "o"}, code: codes.InvalidArgument, field: "repo"},
		{name: "valid stream message", req: &ghopsv1.FetchRequest{Repo: "o/r"}, stream: true, code: codes.OK},
		{name: "invalid stream message", req: &ghopsv1.GetPrMergeabilityRequest{Repo: "o/r"}, stream: true, code: codes.InvalidArgument, field: "pr_number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reached := false
			var err error
			if tt.stream {
				err = v.Stream(nil, &fakeStream{msg: tt.req}, &grpc.StreamServerInfo{FullMethod: "/ghops.v1.GitHubService/Fetch"}, func(_ any, ss grpc.ServerStream) error {
					m := proto.Clone(tt.req)
					proto.Reset(m)
					if err := ss.RecvMsg(m); err != nil {
						return err
					}
					reached = true
					return nil
				})
			} else {
				_, err = v.Unary(context.Background(), tt.req, &grpc.UnaryServerInfo{FullMethod: "/ghops.v1.GitHubService/Fetch"}, func(context.Context, any) (any, error) {
					reached = true
					return nil, nil
				})
			}
			if status.Code(err) != tt.code {
				t.Fatalf("code = %v (%v), want %v", status.Code(err), err, tt.code)
			}
			if tt.code == codes.OK {
				if !reached {
					t.Error("valid request did not reach the handler")
				}
				return
			}
			if reached {
				t.Error("invalid request reached the handler")
			}
			var br *errdetails.BadRequest
			var info *errdetails.ErrorInfo
			for _, d := range status.Convert(err).Details() {
				switch x := d.(type) {
				case *errdetails.BadRequest:
					br = x
				case *errdetails.ErrorInfo:
					info = x
				}
			}
			if br == nil || br.FieldViolations[0].Field != tt.field || info.GetReason() != "ERROR_REASON_INVALID_ARGUMENT" || info.Metadata["tool"] != "fetch" {
				t.Errorf("details: %v %v", br, info)
			}
		})
	}
}

func TestToolOf(t *testing.T) {
	tests := []struct {
		name, method, want string
	}{
		{name: "read", method: "/ghops.v1.GitHubService/ReadFile", want: "read_file"},
		{name: "write", method: "/ghops.v1.GitHubService/CommitFiles", want: "commit_files"},
		{name: "list", method: "/ghops.v1.GitHubService/ListPullRequests", want: "list_pull_requests"},
		{name: "unknown method", method: "/ghops.v1.GitHubService/Nope", want: ""},
		{name: "not a method", method: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ToolOf(tt.method); got != tt.want {
				t.Errorf("ToolOf(%q) = %q, want %q", tt.method, got, tt.want)
			}
		})
	}
}

// TestSharedRules checks that the contract's shared string rules
// (proto/ghops/v1/rules.proto) reach the service's answer in words, with
// their ids as the BadRequest reasons.
func TestSharedRules(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		req     proto.Message
		message string
		reasons []string
	}{
		{"branch through another repository", &ghopsv1.ApplyPatchRequest{Repo: "o/r", Branch: "a/../../../../o/secret/git/ref/heads/main", Message: "m", Patch: "p"},
			`invalid request: branch: must not contain ".."; branch: no segment may start with "."`, []string{"ref_name.dot_dot", "ref_name.dot_segment"}},
		{"ref ending in .lock", &ghopsv1.GetTreeRequest{Repo: "o/r", Ref: ptr("main.lock")},
			`invalid request: ref: no segment may end with ".lock"`, []string{"ref_name.lock_suffix"}},
		{"head with an empty segment", &ghopsv1.CreatePullRequestRequest{Repo: "o/r", Title: "t", Head: "a//b", Base: "main"},
			`invalid request: head: must not contain an empty segment ("//")`, []string{"ref_name.empty_segment"}},
		{"base starting with a slash", &ghopsv1.CreatePullRequestRequest{Repo: "o/r", Title: "t", Head: "a", Base: "/main"},
			`invalid request: base: must not start or end with "/"`, []string{"ref_name.slash_edge"}},
		{"repository ../..", &ghopsv1.FetchRequest{Repo: "../.."},
			`invalid request: repo: owner and name must not be "." or ".."`, []string{"repo_name.dot_segment"}},
		{"optional repository o/.", &ghopsv1.ValidateEnvironmentRequest{Repo: ptr("o/.")},
			`invalid request: repo: owner and name must not be "." or ".."`, []string{"repo_name.dot_segment"}},
		{"names that only look like dots pass", &ghopsv1.GetCommitsRequest{Repo: "o/r", Branch: ptr("release/v1.2")}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Check(tt.req, "/ghops.v1.GitHubService/ApplyPatch")
			if tt.message == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument || st.Message() != tt.message {
				t.Fatalf("got %v %q, want InvalidArgument %q", st.Code(), st.Message(), tt.message)
			}
			var got []string
			for _, d := range st.Details() {
				if br, ok := d.(*errdetails.BadRequest); ok {
					for _, fv := range br.FieldViolations {
						got = append(got, fv.Reason)
					}
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.reasons, ",") {
				t.Errorf("reasons %v, want %v", got, tt.reasons)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
