package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var allSentinels = []error{ErrParse, ErrInvalidRequest, ErrMethodNotFound, ErrInvalidParams, ErrInternal,
	ErrPermissionDenied, ErrNotFound, ErrValidation, ErrRateLimited, ErrNotMergeable, ErrHeadSHAMismatch,
	ErrHeaderMismatch, ErrUnsupportedProtocolVersion}

// TestErrorCodes checks that every documented code, answered by a gateway,
// becomes its typed error and matches its sentinel and no other.
func TestErrorCodes(t *testing.T) {
	tests := []struct {
		name  string
		reply reply
		want  error
		check func(t *testing.T, err error)
	}{
		{"-32700 parse error", errorReply(CodeParseError, "Parse error", ""), ErrParse, nil},
		{"-32600 invalid request", errorReply(CodeInvalidRequest, "Invalid Request", ""), ErrInvalidRequest, nil},
		{"-32601 method not found", errorReply(CodeMethodNotFound, "Method not found", `{"tool":"nope","timestamp":"2026-11-22T10:00:00Z"}`), ErrMethodNotFound, nil},
		{"-32602 invalid params", errorReply(CodeInvalidParams, "Validation errors: must have required property 'query'",
			`{"tool":"search","validation_errors":[{"message":"must have required property 'query'","path":"root","keyword":"required","params":{"missingProperty":"query"},"value":{}}],"timestamp":"2025-10-12T15:49:21.049Z"}`),
			ErrInvalidParams, func(t *testing.T, err error) {
				var ip *InvalidParamsError
				if !errors.As(err, &ip) {
					t.Fatalf("%v is not an *InvalidParamsError", err)
				}
				if len(ip.Violations) != 1 || ip.Violations[0].Keyword != "required" || ip.Violations[0].Path != "root" ||
					ip.Violations[0].GetParams().AsMap()["missingProperty"] != "query" {
					t.Errorf("violations = %+v", ip.Violations)
				}
				if ip.RPC.Data.Tool != "search" || ip.RPC.Data.Timestamp == "" {
					t.Errorf("data = %+v", ip.RPC.Data)
				}
			}},
		{"-32001 permission denied", errorReply(CodePermissionDenied, "Permission denied",
			`{"tool":"commit_files","github":{"status":403,"message":"Resource not accessible by personal access token","documentation_url":"https://docs.github.com/rest"},"resource":{"type":"repository","id":"octo-org/secret"}}`),
			ErrPermissionDenied, func(t *testing.T, err error) {
				var e *Error
				if !errors.As(err, &e) || e.Data.Github == nil || e.Data.Github.Status != 403 || e.Data.Resource == nil || e.Data.Resource.Id != "octo-org/secret" {
					t.Errorf("data = %+v", e)
				}
			}},
		{"-32002 not found", errorReply(CodeNotFound, "Not Found", `{"tool":"fetch","resource":{"type":"repository","id":"o/missing"}}`), ErrNotFound, nil},
		{"-32003 github validation", errorReply(CodeValidation, "Validation Failed", `{"tool":"create_pull_request","github":{"status":422,"message":"A pull request already exists"}}`), ErrValidation, nil},
		{"-32004 rate limit from data.retryAfter", reply{header: map[string]string{"Retry-After": "99"},
			body: `{"jsonrpc":"2.0","id":ID,"error":{"code":-32004,"message":"API rate limit exceeded","data":{"tool":"search","retryAfter":42,"rateLimit":{"limit":5000,"remaining":0,"reset":1795000000,"retryAfter":42}}}}`},
			ErrRateLimited, func(t *testing.T, err error) {
				var rl *RateLimitError
				if !errors.As(err, &rl) {
					t.Fatalf("%v is not a *RateLimitError", err)
				}
				if rl.RetryAfter != 42*time.Second || rl.Limit != 5000 || rl.Remaining != 0 || rl.Reset.Unix() != 1795000000 {
					t.Errorf("rate limit = %+v", rl)
				}
				if rl.RPC.RetryAfterHeader != 99*time.Second {
					t.Errorf("RetryAfterHeader = %v, want 99s", rl.RPC.RetryAfterHeader)
				}
			}},
		{"-32004 rate limit from the header only", reply{header: map[string]string{"Retry-After": "7"},
			body: `{"jsonrpc":"2.0","id":ID,"error":{"code":-32004,"message":"rate limited"}}`},
			ErrRateLimited, func(t *testing.T, err error) {
				var rl *RateLimitError
				if !errors.As(err, &rl) || rl.RetryAfter != 7*time.Second {
					t.Errorf("err = %#v, want RetryAfter 7s", err)
				}
			}},
		{"-32005 not mergeable", errorReply(CodeNotMergeable, "Pull Request is not mergeable", `{"tool":"merge_pull_request","mergeable_state":"dirty"}`),
			ErrNotMergeable, func(t *testing.T, err error) {
				var e *Error
				if !errors.As(err, &e) || e.Data.MergeableState != "dirty" {
					t.Errorf("err = %v, want mergeable_state dirty", err)
				}
			}},
		{"-32006 head sha mismatch", errorReply(CodeHeadSHAMismatch, "Head branch was modified", `{"tool":"merge_pull_request","expected_sha":"aaaaaaa","actual_sha":"bbbbbbb"}`),
			ErrHeadSHAMismatch, func(t *testing.T, err error) {
				var e *Error
				if !errors.As(err, &e) || e.Data.ExpectedSha != "aaaaaaa" || e.Data.ActualSha != "bbbbbbb" {
					t.Errorf("err = %v, want the shas", err)
				}
			}},
		{"-32603 internal", errorReply(CodeInternal, "Internal error", `{"tool":"fetch","requestId":"req-1"}`),
			ErrInternal, func(t *testing.T, err error) {
				var e *Error
				if !errors.As(err, &e) || e.Data.RequestId != "req-1" {
					t.Errorf("err = %v, want requestId", err)
				}
			}},
		{"-32001 policy refusal", errorReply(CodePermissionDenied, "Permission denied: the repository is not allowed",
			`{"tool":"fetch","policy":{"principal":"ci","rule":"repos","detail":"octo-org/*"},"timestamp":"2026-11-22T10:00:00.000Z","later":{"x":1}}`),
			ErrPermissionDenied, func(t *testing.T, err error) {
				var e *Error
				if !errors.As(err, &e) || e.Data.GetPolicy().GetRule() != "repos" || e.Data.GetPolicy().GetPrincipal() != "ci" || e.Data.GetTimestamp() == "" {
					t.Errorf("data = %v, want the policy (and an unknown member skipped)", e.Data)
				}
			}},
		{"-32020 header mismatch", errorReply(CodeHeaderMismatch, "Header mismatch: Mcp-Method", `{"tool":"","timestamp":"2026-11-22T10:00:00.000Z"}`),
			ErrHeaderMismatch, nil},
		{"-32022 unsupported protocol version", errorReply(CodeUnsupportedProtocolVersion, "Unsupported protocol version",
			`{"tool":"","protocol":{"requested":"1999-01-01","supported":["2025-06-18","2026-07-28"]},"supported":["2025-06-18","2026-07-28"],"requested":"1999-01-01","timestamp":"2026-11-22T10:00:00.000Z"}`),
			ErrUnsupportedProtocolVersion, func(t *testing.T, err error) {
				var e *Error
				if !errors.As(err, &e) || e.Data.GetProtocol().GetRequested() != "1999-01-01" || len(e.Data.GetProtocol().GetSupported()) != 2 ||
					e.Data.GetRequested() != "1999-01-01" || len(e.Data.GetSupported()) != 2 {
					t.Errorf("data = %v, want the versions", e.Data)
				}
			}},
		{"unknown code keeps code message and data", errorReply(-32099, "Something new", `{"anything":[1,2]}`), nil,
			func(t *testing.T, err error) {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%v is not an *Error", err)
				}
				if e.Code != -32099 || e.Message != "Something new" || string(e.RawData) != `{"anything":[1,2]}` {
					t.Errorf("e = %+v", e)
				}
			}},
		{"data that is not an object is kept raw", errorReply(CodeNotFound, "nf", `["x"]`), ErrNotFound,
			func(t *testing.T, err error) {
				var e *Error
				if !errors.As(err, &e) || string(e.RawData) != `["x"]` {
					t.Errorf("e = %+v", e)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, serve(t, &recorder{replies: []reply{tc.reply}}))
			_, err := c.CallRaw(context.Background(), "fetch", nil)
			if err == nil {
				t.Fatal("CallRaw succeeded, want an error")
			}
			for _, s := range allSentinels {
				if got := errors.Is(err, s); got != (s == tc.want) {
					t.Errorf("errors.Is(err, %q) = %v", s, got)
				}
			}
			if errors.Is(err, ErrTransport) || errors.Is(err, ErrProtocol) {
				t.Errorf("%v is a transport or protocol error", err)
			}
			if tc.check != nil {
				tc.check(t, err)
			}
		})
	}
}

// TestErrorMarshalJSON checks that an *Error renders as the wire object.
func TestErrorMarshalJSON(t *testing.T) {
	err := NewError(CodeNotFound, "Not Found", json.RawMessage(`{"tool":"fetch"}`), 0)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatal("not an *Error")
	}
	b, mErr := json.Marshal(e)
	if mErr != nil || string(b) != `{"code":-32002,"message":"Not Found","data":{"tool":"fetch"}}` {
		t.Errorf("json = %s, %v", b, mErr)
	}
}

// Example_errorMapping shows how a program acts on the gateway's codes.
func Example_errorMapping() {
	for _, obj := range []struct {
		code int
		msg  string
		data string
	}{
		{-32002, "Not Found", `{"tool":"fetch"}`},
		{-32602, "Validation errors: must have required property 'query'", `{"tool":"search","validation_errors":[{"message":"must have required property 'query'","path":"root","keyword":"required"}]}`},
		{-32004, "API rate limit exceeded", `{"tool":"search","retryAfter":30}`},
		{-32006, "Head branch was modified", `{"expected_sha":"abc1234","actual_sha":"def5678"}`},
		{-32042, "a code the client does not know", `{"hint":1}`},
	} {
		err := NewError(obj.code, obj.msg, json.RawMessage(obj.data), 0)
		var ip *InvalidParamsError
		var rl *RateLimitError
		var e *Error
		switch {
		case errors.Is(err, ErrNotFound):
			fmt.Println("not found:", err)
		case errors.As(err, &ip):
			fmt.Printf("fix %s: %s\n", ip.Violations[0].Path, ip.Violations[0].Message)
		case errors.As(err, &rl):
			fmt.Println("wait", rl.RetryAfter)
		case errors.Is(err, ErrHeadSHAMismatch) && errors.As(err, &e):
			fmt.Println("head moved to", e.Data.ActualSha)
		case errors.As(err, &e):
			fmt.Println("other:", e.Code, e.Message, string(e.RawData))
		}
	}
	// Output:
	// not found: jsonrpc error -32002 (not found): Not Found
	// fix root: must have required property 'query'
	// wait 30s
	// head moved to def5678
	// other: -32042 a code the client does not know {"hint":1}
}

// TestErrorTextRedacted: what the client prints of an answer holds no token
// shape, whoever echoed it.
func TestErrorTextRedacted(t *testing.T) {
	const echoed = "ghp_echoedechoedechoed0123456789"
	tests := []struct {
		name string
		err  error
	}{
		{"error object", NewError(CodeNotFound, "Not Found: x_"+echoed, nil, 0)},
		{"invalid params", NewError(CodeInvalidParams, "Validation errors: bad "+echoed, nil, 0)},
		{"rate limit", NewError(CodeRateLimited, "slow down Bearer abcdefghijkl", nil, 0)},
		{"undocumented code", NewError(-1, echoed, nil, 0)},
		{"protocol error", &ProtocolError{Kind: ErrIDMismatch, Detail: "id " + echoed}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if s := tc.err.Error(); strings.Contains(s, "echoed") || strings.Contains(s, "abcdefghijkl") || !strings.Contains(s, "[REDACTED]") {
				t.Errorf("Error() = %q", s)
			}
		})
	}
}

// TestOutcomeUnknown: a -32603 whose data.outcome is "unknown" (a write whose
// answer was lost, docs/errors.md) matches ErrOutcomeUnknown and
// ErrInternal, says what to check, and no other error matches it.
func TestOutcomeUnknown(t *testing.T) {
	const check = "Before retrying, read the branch head (get_branches)."
	tests := []struct {
		name    string
		code    int
		data    string
		unknown bool
	}{
		{"lost answer of a write", -32603, `{"tool":"commit_files","requestId":"r","outcome":"unknown","check":"` + check + `","timestamp":"t"}`, true},
		{"plain internal error", -32603, `{"tool":"commit_files","requestId":"r","timestamp":"t"}`, false},
		{"outcome on another code", -32003, `{"tool":"commit_files","outcome":"unknown","timestamp":"t"}`, false},
		{"no data", -32603, ``, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := NewError(tc.code, "Outcome unknown: the write may have landed", json.RawMessage(tc.data), 0)
			if got := errors.Is(err, ErrOutcomeUnknown); got != tc.unknown {
				t.Fatalf("errors.Is(ErrOutcomeUnknown) = %v, want %v", got, tc.unknown)
			}
			var e *Error
			if !errors.As(err, &e) || e.OutcomeUnknown() != tc.unknown {
				t.Fatalf("OutcomeUnknown() wrong for %v", err)
			}
			if tc.unknown {
				if !errors.Is(err, ErrInternal) || e.Data.Check != check || !strings.Contains(err.Error(), check) {
					t.Errorf("%v: check %q", err, e.Data.Check)
				}
			}
		})
	}
}
