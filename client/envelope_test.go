package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

const testToken = "tok-SECRET-1234"

// TestCallMalformedAnswers checks that every broken answer to a single call
// gives a distinct, clear error of the right family.
func TestCallMalformedAnswers(t *testing.T) {
	tests := []struct {
		name    string
		reply   reply
		wantIs  []error
		wantMsg string
	}{
		{"missing jsonrpc", reply{body: `{"id":ID,"result":{}}`}, []error{ErrProtocol, ErrBadVersion}, "jsonrpc member is missing"},
		{"wrong jsonrpc version", reply{body: `{"jsonrpc":"1.0","id":ID,"result":{}}`}, []error{ErrProtocol, ErrBadVersion}, `jsonrpc is "1.0"`},
		{"both result and error", reply{body: `{"jsonrpc":"2.0","id":ID,"result":{},"error":{"code":-32603,"message":"x"}}`}, []error{ErrProtocol, ErrResultAndError}, "both result and error present"},
		{"neither result nor error", reply{body: `{"jsonrpc":"2.0","id":ID}`}, []error{ErrProtocol, ErrNoResultNorError}, "neither result nor error"},
		{"wrong id", reply{body: `{"jsonrpc":"2.0","id":999,"result":{}}`}, []error{ErrProtocol, ErrIDMismatch}, "got id 999, want "},
		{"id of another type", reply{body: `{"jsonrpc":"2.0","id":"ID","result":{}}`}, []error{ErrProtocol, ErrIDMismatch}, "got id \""},
		{"missing id", reply{body: `{"jsonrpc":"2.0","result":{}}`}, []error{ErrProtocol, ErrIDMismatch}, "id member is missing"},
		{"result with null id", reply{body: `{"jsonrpc":"2.0","id":null,"result":{}}`}, []error{ErrProtocol, ErrIDMismatch}, "id null answers no request"},
		{"error code not integer", reply{body: `{"jsonrpc":"2.0","id":ID,"error":{"code":"-32002","message":"x"}}`}, []error{ErrProtocol, ErrMalformedError}, "error.code"},
		{"error code fractional", reply{body: `{"jsonrpc":"2.0","id":ID,"error":{"code":-32002.5,"message":"x"}}`}, []error{ErrProtocol, ErrMalformedError}, "not an integer"},
		{"error message missing", reply{body: `{"jsonrpc":"2.0","id":ID,"error":{"code":-32002}}`}, []error{ErrProtocol, ErrMalformedError}, "error.message is missing"},
		{"error not an object", reply{body: `{"jsonrpc":"2.0","id":ID,"error":"boom"}`}, []error{ErrProtocol, ErrMalformedError}, "error must be an object, got a string"},
		{"array answers a single call", reply{body: `[{"jsonrpc":"2.0","id":ID,"result":{}}]`}, []error{ErrProtocol, ErrBadShape}, "batch (array) answered a single request"},
		{"json scalar", reply{body: `42`}, []error{ErrProtocol, ErrBadShape}, "got a number"},
		{"empty 204", reply{status: http.StatusNoContent}, []error{ErrProtocol, ErrMissingResponse}, "empty body"},
		{"html from a proxy with 200", reply{contentType: "text/html", body: "<html><body><h1>Login required</h1></body></html>"}, []error{ErrTransport, ErrNotJSON}, `body starts "<html><body><h1>Login`},
		{"truncated json", reply{body: `{"jsonrpc":"2.0","id":ID,"result":{"full_na`}, []error{ErrTransport, ErrTruncated}, "response truncated"},
		{"413", reply{status: http.StatusRequestEntityTooLarge, body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request body over 1048576 bytes"}}`}, []error{ErrTransport, ErrPayloadTooLarge}, "HTTP 413"},
		{"502 html", reply{status: http.StatusBadGateway, contentType: "text/html", body: "<html>\n<head><title>502 Bad Gateway</title></head></html>"}, []error{ErrTransport, ErrHTTPStatus}, "HTTP 502, text/html"},
		{"503 html", reply{status: http.StatusServiceUnavailable, contentType: "text/html", body: "<h1>Service Unavailable</h1>"}, []error{ErrTransport, ErrHTTPStatus}, "HTTP 503"},
		{"500 empty", reply{status: http.StatusInternalServerError}, []error{ErrTransport, ErrHTTPStatus}, "HTTP 500"},
		{"502 json from a proxy", reply{status: http.StatusBadGateway, body: `{"message":"upstream connect error"}`}, []error{ErrTransport, ErrHTTPStatus}, "upstream connect error"},
		{"token echoed by a proxy is redacted", reply{status: http.StatusBadGateway, contentType: "text/html", body: "<p>bad header Bearer " + testToken + "</p>"}, []error{ErrTransport, ErrHTTPStatus}, "[REDACTED]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{replies: []reply{tc.reply}}
			c := newTestClient(t, serve(t, rec), WithToken(testToken))
			res, err := c.CallRaw(context.Background(), "fetch", json.RawMessage(`{"repo":"o/r"}`))
			if err == nil {
				t.Fatalf("CallRaw = %s, want an error", res)
			}
			assertIs(t, err, tc.wantIs...)
			var rpcErr *Error
			if errors.As(err, &rpcErr) {
				t.Errorf("error %v is also a JSON-RPC *Error", err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tc.wantMsg)
			}
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("error %q contains the token", err)
			}
		})
	}
}

// TestCallTransportFailures covers failures before or while reading a body.
func TestCallTransportFailures(t *testing.T) {
	closedURL := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		return "http://user:" + testToken + "@" + addr
	}
	cutBody := func(t *testing.T) string {
		return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "500")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0",`))
		}))
	}
	big := func(t *testing.T) string {
		return serve(t, &recorder{replies: []reply{{body: `{"jsonrpc":"2.0","id":ID,"result":{"x":"` + strings.Repeat("a", 2000) + `"}}`}}})
	}
	tests := []struct {
		name    string
		url     func(t *testing.T) string
		opts    []Option
		wantIs  []error
		wantMsg string
	}{
		{"connection refused", closedURL, nil, []error{ErrTransport, ErrConnection}, "connection failed"},
		{"body cut short", cutBody, nil, []error{ErrTransport, ErrTruncated}, "unexpected EOF"},
		{"response over the limit", big, []Option{WithMaxResponseBytes(1000)}, []error{ErrTransport, ErrResponseTooLarge}, "over 1000 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, tc.url(t), append(tc.opts, WithToken(testToken))...)
			_, err := c.CallRaw(context.Background(), "fetch", nil)
			if err == nil {
				t.Fatal("CallRaw succeeded, want an error")
			}
			assertIs(t, err, tc.wantIs...)
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tc.wantMsg)
			}
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("error %q contains the token", err)
			}
		})
	}
}

// TestCallCancelled checks that a call cancelled while in flight reports
// the context's error inside a connection failure.
func TestCallCancelled(t *testing.T) {
	arrived := make(chan struct{})
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server notices the client going away only once the body is read.
		_, _ = io.ReadAll(r.Body)
		close(arrived)
		<-r.Context().Done()
	}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	_, err := newTestClient(t, url).CallRaw(ctx, "fetch", nil)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrConnection) {
		t.Fatalf("err = %v, want a connection failure caused by cancellation", err)
	}
}

// TestBatchAnswers checks id correlation of batches.
func TestBatchAnswers(t *testing.T) {
	calls := []BatchCall{{Tool: "fetch", Args: json.RawMessage(`{"repo":"o/a"}`)}, {Tool: "fetch", Args: json.RawMessage(`{"repo":"o/b"}`)}}
	tests := []struct {
		name    string
		reply   reply
		wantIs  []error
		wantMsg string
		check   func(t *testing.T, res []BatchResult)
	}{
		{"answers out of order are matched by id",
			reply{body: `[{"jsonrpc":"2.0","id":ID2,"error":{"code":-32002,"message":"Not Found"}},{"jsonrpc":"2.0","id":ID,"result":{"n":1}}]`}, nil, "",
			func(t *testing.T, res []BatchResult) {
				if string(res[0].Result) != `{"n":1}` || res[0].Err != nil {
					t.Errorf("res[0] = %s, %v; want the result", res[0].Result, res[0].Err)
				}
				if !errors.Is(res[1].Err, ErrNotFound) || res[1].Result != nil {
					t.Errorf("res[1] = %s, %v; want ErrNotFound", res[1].Result, res[1].Err)
				}
			}},
		{"missing reply", reply{body: `[{"jsonrpc":"2.0","id":ID,"result":{}}]`}, []error{ErrProtocol, ErrMissingResponse}, "no response for request id", nil},
		{"extra reply", reply{body: `[{"jsonrpc":"2.0","id":ID,"result":{}},{"jsonrpc":"2.0","id":ID2,"result":{}},{"jsonrpc":"2.0","id":77,"result":{}}]`}, []error{ErrProtocol, ErrExtraResponse}, "id 77 matches no request", nil},
		{"duplicate ids", reply{body: `[{"jsonrpc":"2.0","id":ID,"result":{}},{"jsonrpc":"2.0","id":ID,"result":{}}]`}, []error{ErrProtocol, ErrDuplicateID}, "answered twice", nil},
		{"empty array", reply{body: `[]`}, []error{ErrProtocol, ErrMissingResponse}, "0 of 2 answered", nil},
		{"invalid element", reply{body: `[{"jsonrpc":"2.0","id":ID,"result":{}},{"id":ID2,"result":{}}]`}, []error{ErrProtocol, ErrBadVersion}, "jsonrpc member is missing", nil},
		{"single object for a batch", reply{body: `{"jsonrpc":"2.0","id":ID,"result":{}}`}, []error{ErrProtocol, ErrBadShape}, "single response", nil},
		{"one error answers the whole batch", reply{body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch over 50 requests"}}`}, []error{ErrInvalidRequest}, "batch over 50", nil},
		{"html", reply{status: http.StatusBadGateway, contentType: "text/html", body: "<html>bad gateway</html>"}, []error{ErrTransport, ErrHTTPStatus}, "HTTP 502", nil},
		{"413", reply{status: http.StatusRequestEntityTooLarge, body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"too large"}}`}, []error{ErrTransport, ErrPayloadTooLarge}, "413", nil},
		{"truncated", reply{body: `[{"jsonrpc":"2.0","id":ID,"res`}, []error{ErrTransport, ErrTruncated}, "truncated", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, serve(t, &recorder{replies: []reply{tc.reply}}))
			res, err := c.Batch(context.Background(), calls)
			if tc.wantIs == nil {
				if err != nil {
					t.Fatalf("Batch: %v", err)
				}
				if len(res) != len(calls) {
					t.Fatalf("got %d results, want %d", len(res), len(calls))
				}
				tc.check(t, res)
				return
			}
			if err == nil {
				t.Fatalf("Batch = %v, want an error", res)
			}
			assertIs(t, err, tc.wantIs...)
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tc.wantMsg)
			}
		})
	}
}

// TestMappedStatusKeepsJSONRPCError checks that a JSON-RPC body on an HTTP
// error status (the gateway's optional status mapping) is a JSON-RPC error,
// not a transport failure.
func TestMappedStatusKeepsJSONRPCError(t *testing.T) {
	tests := []struct {
		name   string
		status int
		code   int
		want   error
	}{
		{"404 not found", http.StatusNotFound, CodeNotFound, ErrNotFound},
		{"429 rate limit", http.StatusTooManyRequests, CodeRateLimited, ErrRateLimited},
		{"500 internal", http.StatusInternalServerError, CodeInternal, ErrInternal},
		{"409 not mergeable", http.StatusConflict, CodeNotMergeable, ErrNotMergeable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := errorReply(tc.code, "x", `{"tool":"fetch"}`)
			rep.status = tc.status
			c := newTestClient(t, serve(t, &recorder{replies: []reply{rep}}))
			_, err := c.CallRaw(context.Background(), "fetch", nil)
			if !errors.Is(err, tc.want) || errors.Is(err, ErrTransport) {
				t.Fatalf("err = %v, want %v and no transport error", err, tc.want)
			}
		})
	}
}

func assertIs(t *testing.T, err error, targets ...error) {
	t.Helper()
	for _, target := range targets {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(%q, %q) = false", err, target)
		}
	}
	var te *TransportError
	var pe *ProtocolError
	if errors.Is(err, ErrTransport) != errors.As(err, &te) || errors.Is(err, ErrProtocol) != errors.As(err, &pe) {
		t.Errorf("error %q: sentinel and type disagree", err)
	}
}
