package rpcerror

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"ghops.dev/gateway/internal/jsonrpc"
)

// fixedNow pins the clock for the duration of a test.
func fixedNow(t *testing.T) {
	t.Helper()
	old := now
	now = func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 49_000_000, time.UTC) }
	t.Cleanup(func() { now = old })
}

func TestReasonTable(t *testing.T) {
	// The rows of proto/ghops/v1/errors.proto, one by one.
	want := map[string]int{
		"ERROR_REASON_INVALID_ARGUMENT":       -32602,
		"ERROR_REASON_UNAUTHENTICATED":        -32001,
		"ERROR_REASON_PERMISSION_DENIED":      -32001,
		"ERROR_REASON_NOT_FOUND":              -32002,
		"ERROR_REASON_GITHUB_VALIDATION":      -32003,
		"ERROR_REASON_RATE_LIMITED":           -32004,
		"ERROR_REASON_SECONDARY_RATE_LIMITED": -32004,
		"ERROR_REASON_PR_NOT_MERGEABLE":       -32005,
		"ERROR_REASON_HEAD_SHA_MISMATCH":      -32006,
		"ERROR_REASON_BRANCH_MOVED":           -32006,
		"ERROR_REASON_EMPTY_REPOSITORY":       -32002,
		"ERROR_REASON_UPSTREAM_UNAVAILABLE":   -32603,
		"ERROR_REASON_DEADLINE_EXCEEDED":      -32603,
		"ERROR_REASON_CANCELED":               -32603,
		"ERROR_REASON_INTERNAL":               -32603,
		"ERROR_REASON_CALLER_UNAUTHENTICATED": -32603,
		"ERROR_REASON_PATCH_REJECTED":         -32003,
		"ERROR_REASON_PATCH_FILE_NOT_FOUND":   -32002,
	}
	for num, name := range ghopsv1.ErrorReason_name {
		t.Run(name, func(t *testing.T) {
			got, ok := ReasonCode(ghopsv1.ErrorReason(num))
			if name == "ERROR_REASON_UNSPECIFIED" {
				if ok {
					t.Fatalf("UNSPECIFIED must not map, got %d", got)
				}
				return
			}
			w, known := want[name]
			if !known {
				t.Fatalf("reason %s has no row in this test: add it to errors.proto's table", name)
			}
			if !ok || got != w {
				t.Fatalf("ReasonCode = %d, %v; want %d", got, ok, w)
			}
			// And through FromStatus, with a status code that alone would say otherwise.
			st, _ := status.New(codes.Unknown, "m").WithDetails(&errdetails.ErrorInfo{Reason: name, Domain: "ghops.dev"})
			if e := FromStatus("search", st.Err(), "rid"); e.Code != w {
				t.Fatalf("FromStatus code = %d want %d", e.Code, w)
			}
		})
	}
}

func TestGRPCCodeTable(t *testing.T) {
	want := map[codes.Code]int{
		codes.PermissionDenied: -32001, codes.Unauthenticated: -32001, codes.NotFound: -32002,
		codes.FailedPrecondition: -32003, codes.ResourceExhausted: -32004, codes.Aborted: -32006,
		codes.InvalidArgument: -32602,
	}
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		t.Run(c.String(), func(t *testing.T) {
			w, ok := want[c]
			if !ok {
				w = -32603
			}
			if got := GRPCCode(c); got != w {
				t.Fatalf("GRPCCode(%v) = %d want %d", c, got, w)
			}
		})
	}
}

// TestStandardCodes: the generated constants of JSON-RPC's own codes agree
// with package jsonrpc's, which the parser uses.
func TestStandardCodes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want int
	}{
		{"ParseError", ParseError, jsonrpc.CodeParseError},
		{"InvalidRequest", InvalidRequest, jsonrpc.CodeInvalidRequest},
		{"MethodNotFound", MethodNotFound, jsonrpc.CodeMethodNotFound},
		{"InvalidParamsCode", InvalidParamsCode, jsonrpc.CodeInvalidParams},
		{"InternalError", InternalError, jsonrpc.CodeInternalError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s = %d, jsonrpc says %d", tc.name, tc.got, tc.want)
			}
		})
	}
	// An unknown code falls back to the internal error row.
	if HTTPStatus(-1) != 500 || New(-1, "", Tool("x")).Message != "Internal error" {
		t.Errorf("unknown code: status %d message %q", HTTPStatus(-1), New(-1, "", Tool("x")).Message)
	}
}

func TestHTTPStatusTable(t *testing.T) {
	want := map[int]int{-32700: 400, -32600: 400, -32601: 404, -32602: 400, -32001: 403, -32002: 404,
		-32003: 422, -32004: 429, -32005: 409, -32006: 409, -32020: 400, -32022: 400, -32603: 500}
	if len(Table()) != len(want) {
		t.Fatalf("table has %d rows, want %d", len(Table()), len(want))
	}
	for _, r := range Table() {
		t.Run(r.Message, func(t *testing.T) {
			if want[r.Code] != r.HTTPStatus || HTTPStatus(r.Code) != r.HTTPStatus {
				t.Fatalf("code %d: status %d want %d", r.Code, r.HTTPStatus, want[r.Code])
			}
		})
	}
}

// withDetails builds a status error with details.
func withDetails(t testing.TB, c codes.Code, msg string, ds ...protoadapt.MessageV1) error {
	t.Helper()
	st, err := status.New(c, msg).WithDetails(ds...)
	if err != nil {
		t.Fatal(err)
	}
	return st.Err()
}

func reason(r ghopsv1.ErrorReason, md map[string]string) *errdetails.ErrorInfo {
	return &errdetails.ErrorInfo{Reason: r.String(), Domain: "ghops.dev", Metadata: md}
}

func TestFromStatus(t *testing.T) {
	fixedNow(t)
	ts := `"timestamp":"2026-11-22T10:00:00.049Z"`
	tests := []struct {
		name      string
		err       error
		wantJSON  string
		wantLine  string
		wantRetry int
	}{
		{
			name: "not found with resource",
			err: withDetails(t, codes.NotFound, "Not Found",
				reason(ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, map[string]string{"repo": "octo/x"}),
				&ghopsv1.GitHubError{Status: 404, Message: "Not Found", DocumentationUrl: "https://docs.github.com/rest",
					Resource: &ghopsv1.Resource{Type: "repository", Id: "octo/x"}}),
			wantJSON: `{"code":-32002,"message":"Not Found","data":{"tool":"fetch","github":{"status":404,"message":"Not Found","documentation_url":"https://docs.github.com/rest"},"resource":{"type":"repository","id":"octo/x"},` + ts + `}}`,
			wantLine: `jsonrpc_error tool=fetch code=-32002 repo=octo/x pr=- sha=- state=- msg="Not Found"`,
		},
		{
			name: "resource from ResourceInfo",
			err: withDetails(t, codes.NotFound, "gone",
				&errdetails.ResourceInfo{ResourceType: "file", ResourceName: "octo/x:README.md"}),
			wantJSON: `{"code":-32002,"message":"gone","data":{"tool":"fetch","resource":{"type":"file","id":"octo/x:README.md"},` + ts + `}}`,
			wantLine: `jsonrpc_error tool=fetch code=-32002 repo=- pr=- sha=- state=- msg="gone"`,
		},
		{
			name: "rate limited",
			err: withDetails(t, codes.ResourceExhausted, "API rate limit exceeded",
				reason(ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, nil),
				&ghopsv1.GitHubError{Status: 403, Message: "API rate limit exceeded",
					RateLimit: &ghopsv1.RateLimit{Limit: 5000, Remaining: 0, Reset_: 1795000000, RetryAfterSeconds: 41}},
				&errdetails.RetryInfo{RetryDelay: durationpb.New(41500 * time.Millisecond)}),
			wantJSON:  `{"code":-32004,"message":"API rate limit exceeded","data":{"tool":"fetch","github":{"status":403,"message":"API rate limit exceeded"},"retryAfter":42,"rateLimit":{"limit":5000,"remaining":0,"reset":1795000000,"retryAfter":42},` + ts + `}}`,
			wantLine:  `jsonrpc_error tool=fetch code=-32004 repo=- pr=- sha=- state=- msg="API rate limit exceeded"`,
			wantRetry: 42,
		},
		{
			name:      "rate limited without figures",
			err:       status.Error(codes.ResourceExhausted, "slow down"),
			wantJSON:  `{"code":-32004,"message":"slow down","data":{"tool":"fetch","retryAfter":60,"rateLimit":{"limit":0,"remaining":0,"reset":0,"retryAfter":60},` + ts + `}}`,
			wantLine:  `jsonrpc_error tool=fetch code=-32004 repo=- pr=- sha=- state=- msg="slow down"`,
			wantRetry: 60,
		},
		{
			name: "not mergeable",
			err: withDetails(t, codes.FailedPrecondition, "Pull Request is not mergeable",
				reason(ghopsv1.ErrorReason_ERROR_REASON_PR_NOT_MERGEABLE, map[string]string{"repo": "o/r", "pr": "7", "sha": "abc1234"}),
				&ghopsv1.GitHubError{Status: 405, Message: "Pull Request is not mergeable", MergeableState: "dirty", ExpectedSha: "abc1234"}),
			wantJSON: `{"code":-32005,"message":"Pull Request is not mergeable","data":{"tool":"fetch","github":{"status":405,"message":"Pull Request is not mergeable"},"mergeable_state":"dirty",` + ts + `}}`,
			wantLine: `jsonrpc_error tool=fetch code=-32005 repo=o/r pr=7 sha=abc1234 state=dirty msg="Pull Request is not mergeable"`,
		},
		{
			name: "head sha mismatch",
			err: withDetails(t, codes.Aborted, "Head branch was modified. Review and try the merge again.",
				reason(ghopsv1.ErrorReason_ERROR_REASON_HEAD_SHA_MISMATCH, map[string]string{"repo": "o/r", "pr": "7"}),
				&ghopsv1.GitHubError{Status: 409, Message: "Head branch was modified. Review and try the merge again.", ExpectedSha: "aaaaaaa", ActualSha: "bbbbbbb"}),
			wantJSON: `{"code":-32006,"message":"Head branch was modified. Review and try the merge again.","data":{"tool":"fetch","github":{"status":409,"message":"Head branch was modified. Review and try the merge again."},"expected_sha":"aaaaaaa","actual_sha":"bbbbbbb",` + ts + `}}`,
			wantLine: `jsonrpc_error tool=fetch code=-32006 repo=o/r pr=7 sha=aaaaaaa state=- msg="Head branch was modified. Review and try the merge again."`,
		},
		{
			name: "service invalid argument",
			err: withDetails(t, codes.InvalidArgument, "invalid request",
				&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
					{Field: "files[3].path", Description: "value length must be at most 500 characters", Reason: "string.max_len"}}}),
			wantJSON: `{"code":-32602,"message":"Validation errors: value length must be at most 500 characters","data":{"tool":"fetch","validation_errors":[{"message":"value length must be at most 500 characters","path":"/files/3/path","keyword":"maxLength","params":{},"value":null}],` + ts + `}}`,
			wantLine: `jsonrpc_error tool=fetch code=-32602 repo=- pr=- sha=- state=- msg="Validation errors: value length must be at most 500 characters"`,
		},
		{
			name:     "internal hides the cause",
			err:      withDetails(t, codes.Unavailable, "dial tcp 10.0.0.1: secret detail", reason(ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE, nil)),
			wantJSON: `{"code":-32603,"message":"Internal error","data":{"tool":"fetch","requestId":"rid",` + ts + `}}`,
			wantLine: `jsonrpc_error tool=fetch code=-32603 repo=- pr=- sha=- state=- msg="Internal error"`,
		},
		{
			name:     "context deadline",
			err:      fmt.Errorf("call: %w", context.DeadlineExceeded),
			wantJSON: `{"code":-32603,"message":"Internal error","data":{"tool":"fetch","requestId":"rid",` + ts + `}}`,
			wantLine: `jsonrpc_error tool=fetch code=-32603 repo=- pr=- sha=- state=- msg="Internal error"`,
		},
		{
			name:     "plain error",
			err:      errors.New("boom"),
			wantJSON: `{"code":-32603,"message":"Internal error","data":{"tool":"fetch","requestId":"rid",` + ts + `}}`,
			wantLine: `jsonrpc_error tool=fetch code=-32603 repo=- pr=- sha=- state=- msg="Internal error"`,
		},
		{
			name: "service refused the gateway's credentials",
			err: withDetails(t, codes.Unauthenticated, "caller not authenticated: wrong bearer secret",
				reason(ghopsv1.ErrorReason_ERROR_REASON_CALLER_UNAUTHENTICATED, nil)),
			wantJSON: `{"code":-32603,"message":"Service unavailable","data":{"tool":"fetch","requestId":"rid",` + ts + `}}`,
			wantLine: `jsonrpc_error tool=fetch code=-32603 repo=- pr=- sha=- state=- msg="Service unavailable"`,
		},
		{
			name:     "permission denied by code alone",
			err:      status.Error(codes.Unauthenticated, "Bad credentials"),
			wantJSON: `{"code":-32001,"message":"Bad credentials","data":{"tool":"fetch",` + ts + `}}`,
			wantLine: `jsonrpc_error tool=fetch code=-32001 repo=- pr=- sha=- state=- msg="Bad credentials"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := FromStatus("fetch", tc.err, "rid")
			got, err := json.Marshal(e.JSONRPC())
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.wantJSON {
				t.Errorf("JSON\n got %s\nwant %s", got, tc.wantJSON)
			}
			if line := e.LogLine(); line != tc.wantLine {
				t.Errorf("line\n got %s\nwant %s", line, tc.wantLine)
			}
			if e.RetryAfter != tc.wantRetry {
				t.Errorf("RetryAfter = %d want %d", e.RetryAfter, tc.wantRetry)
			}
			if e.Code == InternalError && e.Cause == nil {
				t.Error("internal error lost its cause")
			}
		})
	}
	if FromStatus("x", nil, "") != nil {
		t.Error("nil error must map to nil")
	}
}

func TestInvalidParamsMessage(t *testing.T) {
	fixedNow(t)
	e := InvalidParams("search", []Violation{{Message: "must have required property 'query'", Path: "root", Keyword: "required",
		Params: map[string]any{"missingProperty": "query"}, Value: map[string]any{}}})
	got, _ := json.Marshal(e.JSONRPC())
	want := `{"code":-32602,"message":"Validation errors: must have required property 'query'","data":{"tool":"search","validation_errors":[{"message":"must have required property 'query'","path":"root","keyword":"required","params":{"missingProperty":"query"},"value":{}}],"timestamp":"2026-11-22T10:00:00.049Z"}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestLogLineEscaping(t *testing.T) {
	tests := []struct {
		name string
		e    *Error
		want string
	}{
		{"quotes backslashes newlines", &Error{Code: -32003, Message: "a \"b\"\\c\nd\r\te\u2028", Data: &Data{Tool: "create_pull_request"}},
			`jsonrpc_error tool=create_pull_request code=-32003 repo=- pr=- sha=- state=- msg="a \"b\"\\c\nd\r\te\u2028"`},
		{"hostile tool name", &Error{Code: -32601, Message: "Method not found", Data: &Data{Tool: "x y=\"z\"\n"}},
			`jsonrpc_error tool=x_y__z__ code=-32601 repo=- pr=- sha=- state=- msg="Method not found"`},
		{"token redacted", &Error{Code: -32001, Message: "bad token ghp_abcdefghijklmnop1234", Data: &Data{Tool: "search"}, Log: LogFields{Repo: "o/r"}},
			`jsonrpc_error tool=search code=-32001 repo=o/r pr=- sha=- state=- msg="bad token [REDACTED]"`},
		{"all fields", &Error{Code: -32005, Message: "m", Data: &Data{Tool: "merge_pull_request"}, Log: LogFields{Repo: "o/r", PR: "2", SHA: "abcdef0", State: "blocked"}},
			`jsonrpc_error tool=merge_pull_request code=-32005 repo=o/r pr=2 sha=abcdef0 state=blocked msg="m"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.e.LogLine()
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if strings.ContainsAny(got, "\n\r") {
				t.Error("line breaks")
			}
		})
	}
}

func TestSinkOneLinePerError(t *testing.T) {
	var lines, records bytes.Buffer
	s := NewSink(&lines, slog.New(slog.NewJSONHandler(&records, nil)))
	ctx := context.Background()
	s.Response(ctx, json.RawMessage(`1`), New(NotFound, "", Tool("fetch")))
	s.Response(ctx, nil, Internal("search", "rid", errors.New("db password=ghp_abcdefghijklmnop1234")))
	got := strings.Split(strings.TrimSuffix(lines.String(), "\n"), "\n")
	if len(got) != 2 || !strings.HasPrefix(got[0], "jsonrpc_error tool=fetch code=-32002 ") || !strings.HasPrefix(got[1], "jsonrpc_error tool=search code=-32603 ") {
		t.Fatalf("lines: %q", got)
	}
	if strings.Contains(records.String(), "ghp_") || !strings.Contains(records.String(), "[REDACTED]") {
		t.Errorf("cause not logged redacted: %s", records.String())
	}
	// Each failure is logged once: the -32002 by its line alone, the -32603
	// by its line and the one record of its cause (the line has none).
	recs := strings.Split(strings.TrimSuffix(records.String(), "\n"), "\n")
	if len(recs) != 1 || !strings.Contains(recs[0], `"msg":"internal error"`) || !strings.Contains(recs[0], `"request_id":"rid"`) || !strings.Contains(recs[0], `"tool":"search"`) {
		t.Errorf("records: %q, want one internal error record", recs)
	}
	var nilSink *Sink
	nilSink.Report(ctx, New(NotFound, "", Tool("x"))) // must not panic
}
