// Package sdkvariant is a measurement, not a part of the gateway: it serves
// MCP end to end through the official Go SDK (the stateless
// StreamableHTTPHandler with JSON responses, the registry's tools added as
// SDK tools, the gateway's cross-cutting concerns as SDK middleware) over the
// same call path (toolcall.Caller) as the gateway, so that issue 21's rule
// can be applied to measured numbers: serve through the SDK if its gateway
// CPU per call is at most 15% above today's. It is made of _test.go files
// only, so nothing of it can enter the gateway binary; scripts/sdk-compare.sh
// builds it with go test -c and loads it beside ghops-gateway, and
// docs/benchmarks.md ("MCP through the SDK or our own (issue 21)") has the
// results.
package sdkvariant

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/guard"
	"ghops.dev/gateway/internal/mcp"
	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/requestid"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/server"
	"ghops.dev/gateway/internal/toolcall"
	"ghops.dev/gateway/internal/toolschema"
)

// callKey is the context key of a request's callInfo, set by the request-id
// middleware.
type callKey struct{}

// callInfo is what the middleware learned about one request, for the tool
// handler: its id and the protocol version it named.
type callInfo struct {
	requestID string
	version   string // the MCP-Protocol-Version header, else the session's
	named     bool   // the request named a protocol version
}

// newHandler returns the SDK variant's HTTP handler for a: /mcp served by
// the SDK's stateless Streamable HTTP handler with JSON responses, behind
// the same browser guard and authentication as the gateway's /mcp, with
// the body cap of -max-body.
func newHandler(a *app.App, metrics *server.Metrics) http.Handler {
	srv := newServer(a.Registry, a.Caller, a.Config.Version, a.Logger, metrics, a.Auth.Enabled())
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	g := guard.New(guard.Options{ListenAddr: a.Config.Addr, AllowedHosts: a.Config.AllowedHosts,
		AllowedOrigins: a.Config.AllowedOrigins, Sink: a.Sink})
	maxBody := a.Config.MaxBody
	capped := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if maxBody > 0 {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		h.ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", g.Handler(a.Auth.Handler(capped)))
	return mux
}

// newServer returns an SDK server with reg's tools (those caller offers)
// calling caller, and the gateway's concerns as receiving middleware,
// outermost first: recovery, request id, caller (required when
// authenticated), metrics.
func newServer(reg *toolschema.Registry, caller *toolcall.Caller, version string, log *slog.Logger, metrics *server.Metrics, authenticated bool) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: mcp.ServerName, Version: version}, &sdk.ServerOptions{
		Logger:       slog.New(slog.DiscardHandler),
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	for _, t := range reg.Tools() {
		if _, ok := caller.Lookup(t.Name); !ok {
			continue
		}
		srv.AddTool(&sdk.Tool{
			Name: t.Name, Title: t.Title, Description: t.Description,
			InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: t.Annotations.ReadOnlyHint},
		}, toolHandler(reg, caller, t.Name))
	}
	// AddReceivingMiddleware applies its arguments outermost first.
	srv.AddReceivingMiddleware(recoveryMiddleware(log), requestIDMiddleware, callerMiddleware(authenticated), metricsMiddleware(metrics))
	return srv
}

// recoveryMiddleware turns a panic in any method into an internal error, as
// the gateway's pipeline does.
func recoveryMiddleware(log *slog.Logger) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					log.Error("panic in an MCP method", "method", method, "panic", fmt.Sprint(p))
					res, err = nil, &jsonrpc.Error{Code: rpcerror.InternalError, Message: "Internal error"}
				}
			}()
			return next(ctx, method, req)
		}
	}
}

// requestIDMiddleware names the request (the client's X-Request-Id when
// plain, else a fresh one) and records the protocol version it named.
func requestIDMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		ci := &callInfo{}
		var hdr http.Header
		if ex := req.GetExtra(); ex != nil {
			hdr = ex.Header
		}
		ci.requestID = requestid.Accept(hdr.Get(requestid.Header))
		if v := hdr.Get("MCP-Protocol-Version"); v != "" {
			ci.version, ci.named = v, true
		} else if s, ok := req.GetSession().(*sdk.ServerSession); ok && s != nil {
			if p := s.InitializeParams(); p != nil {
				ci.version = p.ProtocolVersion
			}
		}
		return next(context.WithValue(ctx, callKey{}, ci), method, req)
	}
}

// callerMiddleware is the caller concern on the SDK side. The SDK's
// stateless handler serves each request under the HTTP request's context, so
// the caller authn put there (policy.WithCaller) is already where the call
// path looks for it; when authentication is on, this refuses a request that
// arrives without one, so that a change in how the SDK derives its contexts
// fails closed instead of calling tools as nobody.
func callerMiddleware(required bool) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if required && policy.CallerFrom(ctx) == nil {
				return nil, &jsonrpc.Error{Code: rpcerror.InternalError, Message: "Internal error: no authenticated caller"}
			}
			return next(ctx, method, req)
		}
	}
}

// metricsMiddleware counts every request by method and JSON-RPC code, as
// the gateway's pipeline does (server.Metrics.ObserveCall).
func metricsMiddleware(m *server.Metrics) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			code := 0
			if je, ok := err.(*jsonrpc.Error); ok {
				code = int(je.Code)
			} else if err != nil {
				code = rpcerror.InternalError
			}
			m.ObserveCall("mcp", method, code)
			return res, err
		}
	}
}

// toolHandler is tool name's SDK handler: the shared call path and the
// tool-error rule, answering the result shape of the gateway's /mcp (text
// content, structuredContent from 2025-06-18, failures as isError results
// with the contract error in _meta when the request named a version).
func toolHandler(reg *toolschema.Registry, caller *toolcall.Caller, name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		ci, _ := ctx.Value(callKey{}).(*callInfo)
		if ci == nil {
			ci = &callInfo{requestID: requestid.New()}
		}
		res, _, e := caller.Call(ctx, toolcall.Request{Name: name, Args: arguments(req.Params.Arguments), RequestID: ci.requestID})
		if e != nil {
			wire := e.JSONRPC()
			if !ci.named {
				data, _ := json.Marshal(wire.Data)
				return nil, &jsonrpc.Error{Code: int64(wire.Code), Message: wire.Message, Data: data}
			}
			obj, err := json.Marshal(wire)
			if err != nil {
				obj = []byte(`{"code":-32603,"message":"Internal error"}`)
			}
			return &sdk.CallToolResult{
				IsError: true,
				Content: []sdk.Content{&sdk.TextContent{Text: mcp.RenderError(e, reg)}},
				Meta:    sdk.Meta{mcp.ErrorMetaKey: json.RawMessage(obj)},
			}, nil
		}
		r := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(res)}}}
		if ci.version >= "2025-06-18" {
			r.StructuredContent = res
		}
		return r, nil
	}
}

// arguments is a call's arguments without the request-level _meta that
// 2026-07-28 clients may put there, as the gateway's /mcp passes them.
func arguments(args json.RawMessage) json.RawMessage {
	if len(args) == 0 || string(args) == "null" {
		return json.RawMessage("{}")
	}
	if args[0] != '{' || !strings.Contains(string(args), `"_meta"`) {
		return args
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args
	}
	delete(m, "_meta")
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}
