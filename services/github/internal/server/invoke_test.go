package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"ghops.dev/services/github/servicetest"
)

// invoke calls method with req through CallService/Invoke on conn and
// returns the progress it streamed and its response (decoded into resp).
func invoke(ctx context.Context, conn grpc.ClientConnInterface, method string, req, resp proto.Message) ([]*ghopsv1.Progress, error) {
	a, err := anypb.New(req)
	if err != nil {
		return nil, err
	}
	stream, err := ghopsv1.NewCallServiceClient(conn).Invoke(ctx, &ghopsv1.InvokeRequest{Method: method, Request: a}, grpc.MaxCallRecvMsgSize(64<<20))
	if err != nil {
		return nil, err
	}
	var events []*ghopsv1.Progress
	answered := false
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			if !answered {
				return events, errors.New("the stream ended without a response")
			}
			return events, nil
		}
		if err != nil {
			return events, err
		}
		switch {
		case answered:
			return events, errors.New("a message after the response")
		case m.GetProgress() != nil:
			events = append(events, m.GetProgress())
		case m.GetResponse() != nil:
			if err := m.GetResponse().UnmarshalTo(resp); err != nil {
				return events, err
			}
			answered = true
		}
	}
}

// checkProgress fails unless events grow and the last is done (and, when
// total > 0, done of total).
func checkProgress(t *testing.T, events []*ghopsv1.Progress, done, total float64) {
	t.Helper()
	if len(events) == 0 {
		t.Fatal("no progress")
	}
	for i := 1; i < len(events); i++ {
		if events[i].Done <= events[i-1].Done {
			t.Fatalf("progress does not grow at %d: %v", i, events)
		}
	}
	last := events[len(events)-1]
	if last.Done != done || (total > 0 && last.Total != total) {
		t.Fatalf("last progress %v, want %v of %v (events %v)", last, done, total, events)
	}
}

func TestInvokeCommitFilesReportsProgress(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	tests := []struct {
		name      string
		files     int
		base64    int // of files, the first ones
		message   string
		wantTotal float64
		minEvents int
	}{
		// GraphQL's createCommitOnBranch: the head and one mutation.
		{name: "twenty text files", files: 20, message: "progress", wantTotal: 2, minEvents: 2},
		{name: "twenty files, ten of them binary", files: 20, base64: 10, message: "progress", wantTotal: 2, minEvents: 2},
		// A message the mutation would not keep byte for byte: the git
		// data API, a blob per binary file.
		{name: "git data API, text", files: 20, message: "progress\nsecond line", wantTotal: 5, minEvents: 3},
		{name: "git data API, ten binary", files: 20, base64: 10, message: "progress\nsecond line", wantTotal: 15, minEvents: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := e.hub.BranchSHA(repo, "main")
			var files []*ghopsv1.FileChange
			for i := range tt.files {
				f := &ghopsv1.FileChange{Path: fmt.Sprintf("progress/%d-%d/f%02d.txt", tt.files, tt.base64, i), Content: ptr(fmt.Sprintf("file %d\n", i))}
				if i < tt.base64 {
					f.Encoding, f.Content = ptr("base64"), ptr("AAEC/w==")
				}
				files = append(files, f)
			}
			e.hub.ResetStats()
			var resp ghopsv1.CommitFilesResponse
			events, err := invoke(ctx(t), e.svc.Conn, ghopsv1.GitHubService_CommitFiles_FullMethodName,
				&ghopsv1.CommitFilesRequest{Repo: repo, Branch: "main", Message: tt.message, Files: files}, &resp)
			if err != nil {
				t.Fatal(err)
			}
			checkProgress(t, events, tt.wantTotal, tt.wantTotal)
			if len(events) < tt.minEvents {
				t.Fatalf("%d events, want at least %d: %v", len(events), tt.minEvents, events)
			}
			for _, ev := range events {
				if ev.Total != tt.wantTotal {
					t.Fatalf("event %v: the total is known from the start, want %v", ev, tt.wantTotal)
				}
			}
			after, _ := e.hub.BranchSHA(repo, "main")
			if resp.CommitSha != after || resp.ParentSha != before || resp.FilesChanged != int32(tt.files) {
				t.Fatalf("response %v, branch %s -> %s", &resp, before, after)
			}
		})
	}
}

func TestInvokeGetTreeReportsProgress(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	// Deeper than get_tree's GraphQL document reaches (ten levels): the
	// commit and the top of the tree from GraphQL, then the tree from REST.
	files := map[string]string{}
	for i := range 3000 {
		files[fmt.Sprintf("big/a/b/c/d/e/f/g/h/i/d%02d/f%04d.txt", i%50, i)] = "x\n"
	}
	if _, err := e.hub.Commit(repo, "big", "a large tree", files); err != nil {
		t.Fatal(err)
	}
	req := &ghopsv1.GetTreeRequest{Repo: repo, Branch: ptr("big")}
	unary, err := e.svc.Client.GetTree(ctx(t), req, grpc.MaxCallRecvMsgSize(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	var resp ghopsv1.GetTreeResponse
	events, err := invoke(ctx(t), e.svc.Conn, ghopsv1.GitHubService_GetTree_FullMethodName, req, &resp)
	if err != nil {
		t.Fatal(err)
	}
	// Read again: the list of commits (the head) and the recursive tree by
	// its SHA, two requests, counted as they complete without a line of
	// get_tree's own (the total is unknown until the call ends).
	checkProgress(t, events, 2, 0)
	if !proto.Equal(&resp, unary) || len(resp.Entries) < 3000 {
		t.Fatalf("Invoke answered %d entries, the unary call %d", len(resp.Entries), len(unary.Entries))
	}
}

func TestInvokeApplyPatchReportsProgress(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	files := map[string]string{}
	patch := ""
	for i := range 6 {
		p := fmt.Sprintf("patched/f%d.txt", i)
		files[p] = "one\ntwo\n"
		patch += fmt.Sprintf("diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n", p, p, p, p)
	}
	if _, err := e.hub.Commit(repo, "main", "files to patch", files); err != nil {
		t.Fatal(err)
	}
	var resp ghopsv1.ApplyPatchResponse
	events, err := invoke(ctx(t), e.svc.Conn, ghopsv1.GitHubService_ApplyPatch_FullMethodName,
		&ghopsv1.ApplyPatchRequest{Repo: repo, Branch: "main", Message: "patch", Patch: patch}, &resp)
	if err != nil {
		t.Fatal(err)
	}
	// The head, its commit, its tree, one blob (the six files are the same
	// blob), the tree, the commit, the ref update.
	checkProgress(t, events, 7, 7)
	if len(resp.Files) != 6 || resp.CommitSha == "" {
		t.Fatalf("response %v", &resp)
	}
}

// TestInvokeErrorsMatchUnary: a call through Invoke fails with the very
// status of the same unary call, details included, whatever refuses it:
// validation, the repository guard, GitHub, the handler.
func TestInvokeErrorsMatchUnary(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	tests := []struct {
		name   string
		method string
		req    proto.Message
		resp   func() proto.Message
		code   codes.Code
	}{
		{"invalid request (validation)", ghopsv1.GitHubService_GetTree_FullMethodName, &ghopsv1.GetTreeRequest{Repo: "not a repo"},
			func() proto.Message { return &ghopsv1.GetTreeResponse{} }, codes.InvalidArgument},
		{"unknown repository (GitHub)", ghopsv1.GitHubService_GetTree_FullMethodName, &ghopsv1.GetTreeRequest{Repo: "octo-org/nope"},
			func() proto.Message { return &ghopsv1.GetTreeResponse{} }, codes.NotFound},
		{"unknown branch (commit_files)", ghopsv1.GitHubService_CommitFiles_FullMethodName,
			&ghopsv1.CommitFilesRequest{Repo: repo, Branch: "nope", Message: "m", Files: []*ghopsv1.FileChange{{Path: "a.txt", Content: ptr("a")}}},
			func() proto.Message { return &ghopsv1.CommitFilesResponse{} }, codes.NotFound},
		{"a path given twice (handler)", ghopsv1.GitHubService_CommitFiles_FullMethodName,
			&ghopsv1.CommitFilesRequest{Repo: repo, Branch: "main", Message: "m", Files: []*ghopsv1.FileChange{{Path: "a.txt", Content: ptr("a")}, {Path: "a.txt", Content: ptr("b")}}},
			func() proto.Message { return &ghopsv1.CommitFilesResponse{} }, codes.InvalidArgument},
		{"head moved (apply_patch)", ghopsv1.GitHubService_ApplyPatch_FullMethodName,
			&ghopsv1.ApplyPatchRequest{Repo: repo, Branch: "main", Message: "m", Sha: ptr("0000000000000000000000000000000000000000"),
				Patch: "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-x\n+y\n"},
			func() proto.Message { return &ghopsv1.ApplyPatchResponse{} }, codes.Aborted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uerr := e.svc.Conn.Invoke(ctx(t), tt.method, tt.req, tt.resp())
			_, ierr := invoke(ctx(t), e.svc.Conn, tt.method, tt.req, tt.resp())
			sameStatus(t, uerr, ierr, tt.code)
		})
	}
}

// sameStatus fails unless both errors are the status code with identical
// messages and details (each detail compared decoded: the bytes of a map,
// ErrorInfo's metadata, are in no fixed order).
func sameStatus(t *testing.T, unary, invoked error, code codes.Code) {
	t.Helper()
	if status.Code(unary) != code {
		t.Fatalf("unary call: %v, want %v", unary, code)
	}
	u, i := status.Convert(unary), status.Convert(invoked)
	ud, id := detailsWithoutRemaining(t, u), detailsWithoutRemaining(t, i)
	same := u.Code() == i.Code() && u.Message() == i.Message() && len(ud) == len(id)
	for k := 0; same && k < len(ud); k++ {
		same = proto.Equal(ud[k], id[k])
	}
	if !same {
		t.Fatalf("through Invoke:\n%v\nthe unary call:\n%v", i.Proto(), u.Proto())
	}
}

// TestInvokeIsNoWayAround: a caller the unary call refuses is refused
// through Invoke with the same status (no caller secret, the caller's own
// token without -allow-caller-token).
func TestInvokeIsNoWayAround(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{CallerSecret: "s3cret-for-the-gateway"})
	anonymous, err := grpc.NewClient(e.svc.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = anonymous.Close() })
	req := &ghopsv1.GetTreeRequest{Repo: repo}
	tests := []struct {
		name string
		conn grpc.ClientConnInterface
		md   metadata.MD
		code codes.Code
	}{
		{"without the caller secret", anonymous, nil, codes.Unauthenticated},
		{"with the caller's own token, not allowed", e.svc.Conn, metadata.Pairs("x-github-token", "ghp_callerstoken0000000000000000000000"), codes.PermissionDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := metadata.NewOutgoingContext(ctx(t), tt.md)
			uerr := tt.conn.Invoke(c, ghopsv1.GitHubService_GetTree_FullMethodName, req, &ghopsv1.GetTreeResponse{})
			events, ierr := invoke(c, tt.conn, ghopsv1.GitHubService_GetTree_FullMethodName, req, &ghopsv1.GetTreeResponse{})
			sameStatus(t, uerr, ierr, tt.code)
			if len(events) != 0 {
				t.Fatalf("a refused call reported progress: %v", events)
			}
		})
	}
}

// TestInvokeRunsToolsOnly: Invoke runs GitHubService's tools and nothing
// else, each with its own request type.
func TestInvokeRunsToolsOnly(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	tests := []struct {
		name   string
		method string
		req    proto.Message
	}{
		{"the health check", "/grpc.health.v1.Health/Check", &ghopsv1.GetTreeRequest{Repo: repo}},
		{"Invoke itself", ghopsv1.CallService_Invoke_FullMethodName, &ghopsv1.InvokeRequest{}},
		{"an unknown method", "/ghops.v1.GitHubService/Nope", &ghopsv1.GetTreeRequest{Repo: repo}},
		{"a method name without its service", "GetTree", &ghopsv1.GetTreeRequest{Repo: repo}},
		{"another method's request", ghopsv1.GitHubService_GetTree_FullMethodName, &ghopsv1.ReadFileRequest{Repo: repo, Path: "README.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.hub.ResetStats()
			_, err := invoke(ctx(t), e.svc.Conn, tt.method, tt.req, &ghopsv1.GetTreeResponse{})
			if status.Code(err) != codes.InvalidArgument {
				t.Fatalf("got %v, want InvalidArgument", err)
			}
			assertCalls(t, e.hub, map[string]int{})
		})
	}
	t.Run("no request at all", func(t *testing.T) {
		stream, err := ghopsv1.NewCallServiceClient(e.svc.Conn).Invoke(ctx(t), &ghopsv1.InvokeRequest{Method: ghopsv1.GitHubService_GetTree_FullMethodName})
		if err == nil {
			_, err = stream.Recv()
		}
		if status.Code(err) != codes.InvalidArgument {
			t.Fatalf("got %v, want InvalidArgument", err)
		}
	})
}

// detailsWithoutRemaining are the details of st, decoded, without GitHub's
// rate-limit remaining count, which each request lowers: the one figure
// two identical calls cannot share.
func detailsWithoutRemaining(t *testing.T, st *status.Status) []proto.Message {
	t.Helper()
	var out []proto.Message
	for _, d := range st.Proto().GetDetails() {
		m, err := d.UnmarshalNew()
		if err != nil {
			t.Fatal(err)
		}
		if gh, ok := m.(*ghopsv1.GitHubError); ok && gh.GetRateLimit() != nil {
			gh.RateLimit.Remaining = 0
		}
		out = append(out, m)
	}
	return out
}

// logBuf is a buffer safe for the service's concurrent log writes.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// records are the "rpc" records of request id.
func (l *logBuf) records(t *testing.T, id string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if r["msg"] == "rpc" && r["request_id"] == id {
			out = append(out, r)
		}
	}
	return out
}

// TestInvokeLogsOnce: a call through Invoke is logged once, as the tool it
// ran (or, refused before any tool ran, as Invoke).
func TestInvokeLogsOnce(t *testing.T) {
	var logs logBuf
	e := start(t, fakehub.Config{}, servicetest.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	tests := []struct {
		name       string
		method     string
		repo       string
		wantMethod string
		wantTool   string
		wantCode   string
	}{
		{"a tool that succeeds", ghopsv1.GitHubService_GetTree_FullMethodName, repo, ghopsv1.GitHubService_GetTree_FullMethodName, "get_tree", "OK"},
		{"a tool that fails", ghopsv1.GitHubService_GetTree_FullMethodName, "octo-org/nope", ghopsv1.GitHubService_GetTree_FullMethodName, "get_tree", "NotFound"},
		{"not a tool", "/ghops.v1.GitHubService/Nope", repo, ghopsv1.CallService_Invoke_FullMethodName, "", "InvalidArgument"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := fmt.Sprintf("invoke-log-%d", i)
			c := metadata.NewOutgoingContext(ctx(t), metadata.Pairs("x-request-id", id))
			_, _ = invoke(c, e.svc.Conn, tt.method, &ghopsv1.GetTreeRequest{Repo: tt.repo}, &ghopsv1.GetTreeResponse{})
			recs := logs.records(t, id)
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1: %v", len(recs), recs)
			}
			r := recs[0]
			if r["method"] != tt.wantMethod || r["tool"] != tt.wantTool || r["code"] != tt.wantCode {
				t.Fatalf("record %v, want method %s, tool %q, code %s", r, tt.wantMethod, tt.wantTool, tt.wantCode)
			}
		})
	}
}
