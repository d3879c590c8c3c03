package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/gateway/internal/fakeservicetest"
	"ghops.dev/gateway/internal/rpcerror"
)

// losingService is a GitHub service whose answers to writes get lost the
// way the mode says; it counts the requests it received.
type losingService struct {
	ghopsv1.UnimplementedGitHubServiceServer
	mode     string
	server   *grpc.Server
	received atomic.Int32
}

// lose ends a received call the way s.mode says.
func (s *losingService) lose(ctx context.Context) error {
	s.received.Add(1)
	switch s.mode {
	case "drop":
		// The service dies mid-write: every connection is closed while
		// the call is in its hands.
		go s.server.Stop()
	case "refuse":
		return fakeservicetest.Status(codes.FailedPrecondition, "Validation Failed", ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, nil)
	}
	<-ctx.Done()
	return ctx.Err()
}

func (s *losingService) CommitFiles(ctx context.Context, _ *ghopsv1.CommitFilesRequest) (*ghopsv1.CommitFilesResponse, error) {
	return nil, s.lose(ctx)
}

func (s *losingService) Fetch(ctx context.Context, _ *ghopsv1.FetchRequest) (*ghopsv1.FetchResponse, error) {
	return nil, s.lose(ctx)
}

// TestLostAnswer: a write whose answer is lost after the service received
// it (the connection dropped, the deadline passed) is audited as "unknown"
// and answered with the contract's "outcome unknown" error saying how to
// check; a write the service refused is a known failure; a read whose
// answer is lost stays a plain -32603. Real gRPC server on 127.0.0.1.
func TestLostAnswer(t *testing.T) {
	const write = `{"repo":"o/r","branch":"main","message":"m","files":[{"path":"a","content":"b"}]}`
	tests := []struct {
		name, mode, tool, args string
		wantCode               int
		wantUnknown            bool
		wantAudit              string // "" for no record
	}{
		{"connection dropped mid-write", "drop", "commit_files", write, rpcerror.InternalError, true, "unknown"},
		{"deadline passed mid-write", "hang", "commit_files", write, rpcerror.InternalError, true, "unknown"},
		{"write refused", "refuse", "commit_files", write, rpcerror.GitHubValidation, false, "-32003"},
		{"read whose answer was lost", "drop", "fetch", `{"repo":"o/r"}`, rpcerror.InternalError, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &losingService{mode: tc.mode}
			conn := fakeservicetest.Serve(t, svc, func(gs *grpc.Server) { svc.server = gs })
			var audit bytes.Buffer
			c := New(registry(t), conn, WithTimeout(300*time.Millisecond), WithAudit(slog.New(slog.NewJSONHandler(&audit, nil))))
			_, _, e := c.Call(context.Background(), Request{Name: tc.tool, Args: json.RawMessage(tc.args), RequestID: "rid"})
			t.Logf("cause: %v", e.Cause)
			if svc.received.Load() != 1 {
				t.Fatalf("the service received %d requests", svc.received.Load())
			}
			if e == nil || e.Code != tc.wantCode {
				t.Fatalf("got %+v, want code %d", e, tc.wantCode)
			}
			w := e.JSONRPC()
			unknown := w.Message == rpcerror.OutcomeUnknownMessage && e.Data.Outcome == rpcerror.OutcomeUnknown && e.Data.Check == rpcerror.OutcomeUnknownCheck
			if unknown != tc.wantUnknown || (!tc.wantUnknown && (e.Data.Outcome != "" || e.Data.Check != "")) {
				t.Errorf("outcome unknown = %v, want %v: %q %+v", unknown, tc.wantUnknown, w.Message, e.Data)
			}
			if tc.wantUnknown && e.Data.RequestId != "rid" {
				t.Errorf("request id %q", e.Data.RequestId)
			}
			var rec struct {
				Msg     string `json:"msg"`
				Outcome string `json:"outcome"`
			}
			if tc.wantAudit == "" {
				if audit.Len() != 0 {
					t.Errorf("a read was audited: %s", audit.String())
				}
				return
			}
			if err := json.Unmarshal(audit.Bytes(), &rec); err != nil || rec.Msg != "audit" || rec.Outcome != tc.wantAudit {
				t.Errorf("audit record %q (%v), want outcome %s", strings.TrimSpace(audit.String()), err, tc.wantAudit)
			}
		})
	}
}
