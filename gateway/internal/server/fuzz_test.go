package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolrpc"
	"ghops.dev/gateway/internal/toolschema"
)

// echoConn is an in-memory service: Fetch of "o/missing" is NotFound,
// everything else succeeds with an empty response.
type echoConn struct{}

func (echoConn) Invoke(_ context.Context, _ string, args, _ any, _ ...grpc.CallOption) error {
	if r, ok := args.(*ghopsv1.FetchRequest); ok && r.GetRepo() == "o/missing" {
		return status.Error(codes.NotFound, "Not Found")
	}
	_ = args.(proto.Message)
	return nil
}

func (echoConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "")
}

// FuzzRPC drives the whole /rpc handler with arbitrary bodies: never a
// panic, always a well-formed answer (204 with no body, or valid JSON that
// is one response object or a non-empty array of them, each with jsonrpc
// "2.0", an id member and exactly one of result and error).
func FuzzRPC(f *testing.F) {
	for _, s := range []string{
		fetch("1", "o/ok"), fetch("1", "o/missing"), call("1", "search", `{}`), `[]`, `[1]`, `{`,
		`[` + fetch("1", "o/ok") + `,` + fetch("", "o/ok") + `,` + call(`"x"`, "nope", `[]`) + `]`,
		call("1", "commit_files", `{"args":"{\"repo\":\"o/r\",\"branch\":\"b\",\"message\":\"m\",\"files\":[{\"path\":\"p\",\"content\":\"c\"}]}"}`),
		call("1e3", "get_pr_mergeability", `{"input":{"repo":"o/r","prNumber":2.0}}`),
	} {
		f.Add([]byte(s))
	}
	reg, err := toolschema.NewRegistry(ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService"))
	if err != nil {
		f.Fatal(err)
	}
	cfg := config.Default()
	cfg.MaxBody = 1 << 16
	logger := slog.New(slog.DiscardHandler)
	srv := New(Options{
		Config:   cfg,
		Pipeline: pipeline.New(pipeline.Options{MaxBody: cfg.MaxBody, Sink: rpcerror.NewSink(nil, logger), Logger: logger}),
		RPC:      toolrpc.New(toolcall.New(reg, echoConn{}), false),
		Logger:   logger,
	})
	h := srv.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/rpc", bytes.NewReader(body)))
		out := rec.Body.Bytes()
		if rec.Code == http.StatusNoContent {
			if len(out) != 0 {
				t.Fatalf("204 with a body: %q", out)
			}
			return
		}
		if rec.Code != http.StatusOK && rec.Code != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d", rec.Code)
		}
		var objs []map[string]json.RawMessage
		if len(out) > 0 && out[0] == '[' {
			if err := json.Unmarshal(out, &objs); err != nil || len(objs) == 0 {
				t.Fatalf("bad batch answer %q", out)
			}
		} else {
			var o map[string]json.RawMessage
			if err := json.Unmarshal(out, &o); err != nil {
				t.Fatalf("bad answer %q", out)
			}
			objs = append(objs, o)
		}
		for _, o := range objs {
			if string(o["jsonrpc"]) != `"2.0"` || o["id"] == nil || (o["result"] == nil) == (o["error"] == nil) {
				t.Fatalf("malformed response %v in %q", o, out)
			}
		}
	})
}
