package progress

import (
	"context"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
)

// recordingStream is the server side of one Invoke stream, in memory.
type recordingStream struct {
	grpc.ServerStream
	ctx  context.Context
	sent []*ghopsv1.InvokeResponse
}

func (s *recordingStream) Context() context.Context { return s.ctx }

func (s *recordingStream) Send(m *ghopsv1.InvokeResponse) error {
	s.sent = append(s.sent, m)
	return nil
}

// echoService answers get_tree with the request's repo as the sha, after
// one step of progress; every other method is unimplemented.
type echoService struct {
	ghopsv1.UnimplementedGitHubServiceServer
}

func (echoService) GetTree(ctx context.Context, req *ghopsv1.GetTreeRequest) (*ghopsv1.GetTreeResponse, error) {
	Report(ctx, 1, 1, "read")
	return &ghopsv1.GetTreeResponse{Sha: req.GetRepo()}, nil
}

func newEchoInvoker(chain grpc.UnaryServerInterceptor) *Invoker {
	return NewInvoker(&ghopsv1.GitHubService_ServiceDesc, ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService"), echoService{}, chain)
}

// TestInvokerRunsTheChain: the chain sees the tool's own method and
// request, and its refusal is Invoke's status, verbatim.
func TestInvokerRunsTheChain(t *testing.T) {
	refusal := status.Error(codes.PermissionDenied, "refused by the chain")
	tests := []struct {
		name       string
		refuse     bool
		wantErr    error
		wantEvents int // progress messages before the response
	}{
		{name: "admitted", wantEvents: 1},
		{name: "refused", refuse: true, wantErr: refusal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen string
			iv := newEchoInvoker(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
				seen = info.FullMethod + " " + req.(*ghopsv1.GetTreeRequest).GetRepo()
				if tt.refuse {
					return nil, refusal
				}
				return handler(ctx, req)
			})
			a, _ := anypb.New(&ghopsv1.GetTreeRequest{Repo: "o/r"})
			s := &recordingStream{ctx: context.Background()}
			err := iv.Invoke(&ghopsv1.InvokeRequest{Method: ghopsv1.GitHubService_GetTree_FullMethodName, Request: a}, s)
			if err != tt.wantErr {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if seen != ghopsv1.GitHubService_GetTree_FullMethodName+" o/r" {
				t.Fatalf("the chain saw %q", seen)
			}
			if tt.refuse {
				if len(s.sent) != 0 {
					t.Fatalf("sent %v after a refusal", s.sent)
				}
				return
			}
			if len(s.sent) != tt.wantEvents+1 || s.sent[0].GetProgress().GetDone() != 1 {
				t.Fatalf("sent %v", s.sent)
			}
			var resp ghopsv1.GetTreeResponse
			if err := s.sent[len(s.sent)-1].GetResponse().UnmarshalTo(&resp); err != nil || resp.Sha != "o/r" {
				t.Fatalf("response %v, %v", &resp, err)
			}
		})
	}
}

// FuzzInvoke: whatever method, type and bytes a caller sends, Invoke
// answers a status (never a panic) and sends nothing unless the request
// decodes as the method's.
func FuzzInvoke(f *testing.F) {
	f.Add(ghopsv1.GitHubService_GetTree_FullMethodName, "type.googleapis.com/ghops.v1.GetTreeRequest", []byte("\x0a\x03o/r"))
	f.Add(ghopsv1.GitHubService_GetTree_FullMethodName, "type.googleapis.com/ghops.v1.GetTreeRequest", []byte("\x0a\xff"))
	f.Add(ghopsv1.GitHubService_ReadFile_FullMethodName, "type.googleapis.com/ghops.v1.ReadFileRequest", []byte{})
	f.Add("/ghops.v1.CallService/Invoke", "type.googleapis.com/ghops.v1.InvokeRequest", []byte{})
	f.Add("", "", []byte(nil))
	f.Add("/ghops.v1.GitHubService/GetTree/", "ghops.v1.GetTreeRequest", []byte("\x00"))
	iv := newEchoInvoker(nil)
	f.Fuzz(func(t *testing.T, method, typeURL string, value []byte) {
		s := &recordingStream{ctx: context.Background()}
		err := iv.Invoke(&ghopsv1.InvokeRequest{Method: method, Request: &anypb.Any{TypeUrl: typeURL, Value: value}}, s)
		if err != nil {
			if _, ok := status.FromError(err); !ok {
				t.Fatalf("not a status: %v", err)
			}
			if status.Code(err) == codes.InvalidArgument && len(s.sent) != 0 {
				t.Fatalf("a refused request sent %v", s.sent)
			}
			return
		}
		if method != ghopsv1.GitHubService_GetTree_FullMethodName || len(s.sent) == 0 || s.sent[len(s.sent)-1].GetResponse() == nil {
			t.Fatalf("%q answered %v", method, s.sent)
		}
	})
}
