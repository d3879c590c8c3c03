package sdkvariant

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
)

// TestCallerMiddleware checks that an authenticated variant refuses a
// request whose context has no caller and passes one that has.
func TestCallerMiddleware(t *testing.T) {
	reader := &policy.Caller{Principal: &policy.Principal{Name: "reader"}, Via: policy.KindAPIKey}
	tests := []struct {
		name     string
		required bool
		ctx      context.Context
		wantErr  bool
	}{
		{"authenticated with a caller", true, policy.WithCaller(context.Background(), reader), false},
		{"authenticated without a caller", true, context.Background(), true},
		{"unauthenticated without a caller", false, context.Background(), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reached := false
			next := func(ctx context.Context, _ string, _ sdk.Request) (sdk.Result, error) {
				reached = true
				return &sdk.CallToolResult{}, nil
			}
			_, err := callerMiddleware(tc.required)(next)(tc.ctx, "tools/call", &sdk.CallToolRequest{})
			var je *jsonrpc.Error
			if tc.wantErr != (err != nil) || reached == tc.wantErr {
				t.Fatalf("err %v, handler reached %v; want a refusal: %v", err, reached, tc.wantErr)
			}
			if tc.wantErr && (!errors.As(err, &je) || je.Code != rpcerror.InternalError) {
				t.Fatalf("err %v, want a JSON-RPC internal error", err)
			}
		})
	}
}

// TestRecoveryMiddleware checks that a panic in a method becomes an internal
// error.
func TestRecoveryMiddleware(t *testing.T) {
	tests := []struct {
		name    string
		next    sdk.MethodHandler
		wantErr bool
	}{
		{"panic", func(context.Context, string, sdk.Request) (sdk.Result, error) { panic("boom") }, true},
		{"answer", func(context.Context, string, sdk.Request) (sdk.Result, error) { return &sdk.CallToolResult{}, nil }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := recoveryMiddleware(discardLogger())(tc.next)(context.Background(), "tools/call", &sdk.CallToolRequest{})
			var je *jsonrpc.Error
			if tc.wantErr && (!errors.As(err, &je) || je.Code != rpcerror.InternalError || res != nil) {
				t.Fatalf("res %v, err %v, want an internal error", res, err)
			}
			if !tc.wantErr && (err != nil || res == nil) {
				t.Fatalf("res %v, err %v, want the answer", res, err)
			}
		})
	}
}

// discardLogger is a logger that writes nothing.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
