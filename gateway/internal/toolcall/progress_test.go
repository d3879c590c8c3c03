package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ghops.dev/gateway/internal/rpcerror"
)

const progressRepo = "octo-org/hello-world"

// startService runs fakehub and the GitHub service (the code the binary
// runs) on 127.0.0.1 and returns a Caller over it.
func startService(t *testing.T) (*Caller, *fakehub.Hub) {
	t.Helper()
	hs := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: hs.URL, Token: fakehub.DemoToken})
	return New(registry(t), svc.Conn), hs.Hub
}

func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// commitArgs are commit_files' arguments for n files, the first binary
// ones base64.
func commitArgs(branch string, n, binary int) json.RawMessage {
	var files []string
	for i := range n {
		if i < binary {
			files = append(files, fmt.Sprintf(`{"path":"progress/%d/b%02d.bin","content":"AAEC/w==","encoding":"base64"}`, n, i))
			continue
		}
		files = append(files, fmt.Sprintf(`{"path":"progress/%d/f%02d.txt","content":"file %d\n"}`, n, i, i))
	}
	return json.RawMessage(fmt.Sprintf(`{"repo":%q,"branch":%q,"message":"progress","files":[%s]}`, progressRepo, branch, strings.Join(files, ",")))
}

// TestCallReportsTheServicesProgress: with a ProgressFunc in the context,
// Call hands it the service's progress of the call (real, from the GitHub
// service running against fakehub), growing and ending at the total, and
// answers as the unary call does.
func TestCallReportsTheServicesProgress(t *testing.T) {
	c, hub := startService(t)
	tests := []struct {
		name      string
		tool      string
		args      json.RawMessage
		wantDone  float64
		wantTotal float64 // 0: unknown until the end
		want      string  // in the result
	}{
		// Through GraphQL's createCommitOnBranch: the head and the mutation.
		{name: "commit_files, twenty files", tool: "commit_files", args: commitArgs("main", 20, 10), wantDone: 2, wantTotal: 2, want: `"files_changed":20`},
		// By ref, through REST: the commit list and the recursive tree (on a
		// branch not read before, get_tree is one GraphQL request).
		{name: "get_tree", tool: "get_tree", args: json.RawMessage(`{"repo":"` + progressRepo + `","ref":"main"}`), wantDone: 2, want: `"entries":[`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := hub.BranchSHA(progressRepo, "main")
			var got []Progress
			ctx := WithProgress(callCtx(t), func(p Progress) { got = append(got, p) })
			res, _, e := c.Call(ctx, Request{Name: tt.tool, Args: tt.args})
			if e != nil {
				t.Fatal(e)
			}
			if !strings.Contains(string(res), tt.want) {
				t.Fatalf("result %s, want %s in it", res, tt.want)
			}
			if len(got) == 0 {
				t.Fatal("no progress")
			}
			for i := 1; i < len(got); i++ {
				if got[i].Done <= got[i-1].Done {
					t.Fatalf("progress does not grow at %d: %+v", i, got)
				}
			}
			last := got[len(got)-1]
			if last.Done != tt.wantDone || (tt.wantTotal > 0 && last.Total != tt.wantTotal) {
				t.Fatalf("last progress %+v, want %v of %v (all %+v)", last, tt.wantDone, tt.wantTotal, got)
			}
			if tt.tool == "commit_files" {
				after, _ := hub.BranchSHA(progressRepo, "main")
				if after == before || !strings.Contains(string(res), after) {
					t.Fatalf("result %s, branch %s -> %s", res, before, after)
				}
			}
		})
	}
}

// TestCallWithProgressFailsAsUnary: a failing call answers the same
// contract error with a ProgressFunc as without (rpcerror.FromStatus of the
// same status), and reports no progress of a call refused before GitHub.
func TestCallWithProgressFailsAsUnary(t *testing.T) {
	c, _ := startService(t)
	tests := []struct {
		name     string
		tool     string
		args     json.RawMessage
		wantCode int
	}{
		{name: "unknown branch", tool: "commit_files", args: commitArgs("nope", 2, 0), wantCode: -32002},
		{name: "unknown repository", tool: "get_tree", args: json.RawMessage(`{"repo":"octo-org/nope"}`), wantCode: -32002},
		{name: "a path given twice", tool: "commit_files", wantCode: -32602,
			args: json.RawMessage(`{"repo":"` + progressRepo + `","branch":"main","message":"m","files":[{"path":"a","content":"1"},{"path":"a","content":"2"}]}`)},
		{name: "head moved", tool: "apply_patch", wantCode: -32006,
			args: json.RawMessage(`{"repo":"` + progressRepo + `","branch":"main","message":"m","sha":"0000000000000000000000000000000000000000","patch":"diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-x\n+y\n"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, unary := c.Call(callCtx(t), Request{Name: tt.tool, Args: tt.args, RequestID: "req-1"})
			var got []Progress
			_, _, streamed := c.Call(WithProgress(callCtx(t), func(p Progress) { got = append(got, p) }), Request{Name: tt.tool, Args: tt.args, RequestID: "req-1"})
			if unary == nil || unary.Code != tt.wantCode {
				t.Fatalf("unary call: %v, want %d", unary, tt.wantCode)
			}
			if u, s := wireOf(t, unary), wireOf(t, streamed); u != s {
				t.Fatalf("with progress:\n%s\nwithout:\n%s", s, u)
			}
			if tt.wantCode == -32602 && len(got) != 0 {
				t.Fatalf("progress of a call refused before GitHub: %+v", got)
			}
		})
	}
}

// wireOf is e as the wire carries it, without what two identical calls
// cannot share (GitHub's rate-limit remaining count, which each request
// lowers, and the time of the answer), plus its HTTP status and log fields.
func wireOf(t *testing.T, e *rpcerror.Error) string {
	t.Helper()
	if e == nil {
		return "<nil>"
	}
	b, err := json.Marshal(e.JSONRPC())
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var drop func(any)
	drop = func(v any) {
		if m, ok := v.(map[string]any); ok {
			delete(m, "remaining")
			delete(m, "timestamp")
			for _, x := range m {
				drop(x)
			}
		}
	}
	drop(v)
	b, _ = json.Marshal(v)
	return fmt.Sprintf("%s http=%d retry=%d log=%+v", b, rpcerror.HTTPStatus(e.Code), e.RetryAfter, e.Log)
}

// TestCallWithoutProgressStaysUnary: only a call with a ProgressFunc opens
// a stream; every other call is the unary call it always was. A service
// without CallService (older than the gateway) gets the unary call after
// its Unimplemented.
func TestCallWithoutProgressStaysUnary(t *testing.T) {
	tests := []struct {
		name                string
		progress            bool
		code                codes.Code // the conn's answer to every call
		wantStreams, wantUn int
	}{
		{name: "without a ProgressFunc", code: codes.Unavailable, wantUn: 1},
		{name: "with a ProgressFunc", progress: true, code: codes.Unavailable, wantStreams: 1},
		{name: "with a ProgressFunc, a service without CallService", progress: true, code: codes.Unimplemented, wantStreams: 1, wantUn: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := &countingConn{code: tt.code}
			c := New(registry(t), conn)
			ctx := context.Background()
			if tt.progress {
				ctx = WithProgress(ctx, func(Progress) {})
			}
			_, _, e := c.Call(ctx, Request{Name: "get_tree", Args: json.RawMessage(`{"repo":"o/r"}`), RequestID: "r"})
			if conn.streams != tt.wantStreams || conn.unary != tt.wantUn {
				t.Fatalf("%d streams, %d unary calls; want %d and %d", conn.streams, conn.unary, tt.wantStreams, tt.wantUn)
			}
			if want := rpcerror.FromStatus("get_tree", status.Error(tt.code, "x"), "r"); e == nil || e.Code != want.Code {
				t.Fatalf("got %v, want %d", e, want.Code)
			}
		})
	}
}

// countingConn counts the calls made on it and answers each with code.
type countingConn struct {
	code           codes.Code
	unary, streams int
}

func (c *countingConn) Invoke(context.Context, string, any, any, ...grpc.CallOption) error {
	c.unary++
	return status.Error(c.code, "unary")
}

func (c *countingConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	c.streams++
	return nil, status.Error(c.code, "stream")
}
