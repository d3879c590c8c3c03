package client

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// FuzzDecodeSingle feeds arbitrary bodies to the single-response validator:
// it never panics, and accepts only well-formed answers with exactly one of
// result and error.
func FuzzDecodeSingle(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"m","data":{"validation_errors":[{"path":"root"}]}}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`,
		`{"id":1,"result":1}`, `[{"jsonrpc":"2.0","id":1,"result":{}}]`, `<html>`, `{"jsonrpc":"2.0","id":1,"res`, ``, `null`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1e3,"message":"m"}}`, `{"jsonrpc":"2.0","id":true,"result":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_ = classifyNonJSON(body)
		env, err := decodeSingle(body, "1")
		if err != nil {
			var pe *ProtocolError
			if !errors.As(err, &pe) || pe.Kind == nil {
				t.Fatalf("error %v is not a *ProtocolError with a kind", err)
			}
			return
		}
		if (env.result == nil) == (env.rpcErr == nil) {
			t.Fatalf("accepted %q with result %q and error %v", body, env.result, env.rpcErr)
		}
		if env.rpcErr != nil {
			e := env.rpcErr.toError(time.Second)
			var rpcErr *Error
			if !errors.As(e, &rpcErr) || rpcErr.Code != env.rpcErr.code {
				t.Fatalf("error object %q mapped to %v", body, e)
			}
		} else if env.id != "1" {
			t.Fatalf("accepted result with id %s", env.id)
		}
	})
}

// FuzzDecodeBatch feeds arbitrary bodies to the batch validator: it never
// panics, and a success answers every request exactly once.
func FuzzDecodeBatch(f *testing.F) {
	for _, s := range []string{
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"nf"}}]`,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`, `[]`, `[1]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}`,
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":1,"result":{}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		envs, err := decodeBatch(body, []string{"1", "2"}, 0)
		if err != nil {
			return
		}
		if len(envs) != 2 || envs[0].id != "1" || envs[1].id != "2" {
			t.Fatalf("accepted %q as %+v", body, envs)
		}
	})
}

// FuzzToolResult feeds arbitrary tools/call results and SSE bodies: no panic,
// and a success is JSON.
func FuzzToolResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"{}"}],"structuredContent":{"a":1}}`,
		`{"isError":true,"structuredContent":{"code":-32002,"message":"nf"}}`,
		`{"isError":true,"content":[{"type":"text","text":"boom"}]}`,
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_ = sseMessage(body, "1")
		res, err := toolResult(body, 0)
		if err == nil && !json.Valid(res) {
			t.Fatalf("result %q is not JSON", res)
		}
	})
}

// FuzzErrorData: whatever data member a gateway (or anything in front of
// it) sends, NewError keeps it raw, never panics, and gives a non-nil Data
// holding only what protojson could decode.
func FuzzErrorData(f *testing.F) {
	for _, s := range []string{
		`{"tool":"search","validation_errors":[{"message":"m","path":"root","keyword":"required","params":{"missingProperty":"query"},"value":{}}],"timestamp":"t"}`,
		`{"tool":"x","retryAfter":42,"rateLimit":{"limit":5000,"remaining":0,"reset":1795000000,"retryAfter":42}}`,
		`{"policy":{"rule":"repos"},"protocol":{"requested":"x","supported":["y"]},"unknown":[1]}`,
		`{"retryAfter":"soon"}`, `{"validation_errors":[{"params":[1]}]}`, `[]`, `null`, `"s"`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := NewError(CodeRateLimited, "m", data, 0)
		var e *Error
		if !errors.As(err, &e) || e.Data == nil {
			t.Fatalf("NewError(%q) = %v", data, err)
		}
		if len(data) > 0 && string(data) != "null" && string(e.RawData) != string(data) {
			t.Fatalf("raw data %q, want %q", e.RawData, data)
		}
	})
}
