package rpcerror

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
)

// secret is a token-shaped value a client or GitHub could send.
const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

// fill sets every string reachable from v (a pointer) to secret: fields,
// pointed-to structs, slice elements, and an any or map holding a secret
// under a plain key. A field added to Data (errors.proto's ErrorData) later
// is filled too, so the test below fails if the encoder's walk misses it.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.String:
		v.SetString("x_" + secret)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fill(k)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Interface:
		if v.Type().NumMethod() == 0 { // any; the error (Cause) stays nil: it is never sent
			v.Set(reflect.ValueOf(map[string]any{"plain": []any{"x_" + secret}}))
		}
	}
}

func TestRedactedCoversEveryField(t *testing.T) {
	var e Error
	fill(reflect.ValueOf(&e))
	wire, err := json.Marshal(e.JSONRPC())
	if err != nil {
		t.Fatal(err)
	}
	red := e.Encoded()
	copyJSON := red.DataJSON
	var lines, records bytes.Buffer
	NewSink(&lines, slog.New(slog.NewJSONHandler(&records, nil))).Report(context.Background(), &e)
	for name, out := range map[string]string{
		"JSONRPC": string(wire), "Encoded data": string(copyJSON), "Encoded message": red.Message,
		"Encoded log fields": red.Log.Repo + red.Log.PR + red.Log.SHA + red.Log.State + red.RequestID,
		"LogLine":            e.LogLine(), "Sink": lines.String() + records.String(),
	} {
		t.Run(name, func(t *testing.T) {
			if strings.Contains(out, "ghp_") || !strings.Contains(out, "[REDACTED]") {
				t.Errorf("not redacted: %s", out)
			}
		})
	}
	// The original is left as it was (the caller may still log its cause).
	if e.Data.Resource.Id != "x_"+secret || e.Violations[0].Value == nil {
		t.Error("encoding modified the error")
	}
}

// TestErrorDataRedacted is issue 9's list: a token echoed in data.tool,
// data.resource.id, validation_errors[].value (and params), the message and
// data.github never reaches the wire or the log line.
func TestErrorDataRedacted(t *testing.T) {
	fixedNow(t)
	tests := []struct {
		name string
		e    *Error
	}{
		{"data.tool of an unknown method", New(MethodNotFound, "", Tool(secret))},
		{"validation value and params", InvalidParams("fetch", []Violation{
			{Message: "must match pattern", Path: "/repo", Keyword: "pattern", Params: map[string]any{"pattern": "^x$"}, Value: "x_" + secret},
			{Message: "must NOT have additional properties", Path: "root", Keyword: "additionalProperties", Params: map[string]any{"additionalProperty": secret}, Value: map[string]any{secret: 1}},
		})},
		{"status message, github and resource", FromStatus("fetch", withDetails(t, codes.NotFound, "Not Found: "+secret,
			reason(ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, map[string]string{"repo": "o/" + secret}),
			&ghopsv1.GitHubError{Status: 404, Message: "no repo x_" + secret, DocumentationUrl: "https://u:" + secret + "@docs.github.com/x?token=abc",
				Resource: &ghopsv1.Resource{Type: "repository", Id: "o/x_" + secret}}), "rid")},
		{"resource from ResourceInfo", FromStatus("fetch", withDetails(t, codes.NotFound, "gone",
			&errdetails.ResourceInfo{ResourceType: "file", ResourceName: "o/r:" + secret}), "rid")},
		{"service validation", FromStatus("fetch", withDetails(t, codes.InvalidArgument, "bad",
			&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "repo", Description: "value " + secret + " is bad", Reason: "string.pattern"}}}), "rid")},
		{"request id", Internal("fetch", secret, nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wire, err := json.Marshal(tc.e.JSONRPC())
			if err != nil {
				t.Fatal(err)
			}
			for what, out := range map[string]string{"wire": string(wire), "log line": tc.e.LogLine(), "error": tc.e.Error()} {
				if strings.Contains(out, secret) || strings.Contains(out, "abc") && strings.Contains(out, "token=abc") {
					t.Errorf("%s leaks: %s", what, out)
				}
			}
			if !strings.Contains(string(wire), "[REDACTED]") {
				t.Errorf("nothing redacted on the wire: %s", wire)
			}
			// What a transport renders from the encoded error (the MCP text
			// content) is clean too.
			enc := tc.e.Encoded()
			var texts string
			for _, v := range enc.Violations {
				texts += v.Text() + v.Message + v.Path + fmt.Sprint(v.Params, v.Value)
			}
			if strings.Contains(string(enc.DataJSON)+enc.Message+texts, secret) {
				t.Errorf("encoded error holds the token: %s %s %s", enc.Message, enc.DataJSON, texts)
			}
		})
	}
}

// TestJSONRPCRedactsLateFields: a field a transport sets after construction
// is redacted on the way out.
func TestJSONRPCRedactsLateFields(t *testing.T) {
	e := New(InvalidRequest, "")
	e.Message = "Invalid Request: bearer " + secret
	e.Data.Protocol = &Protocol{Requested: secret, Supported: []string{"2025-06-18"}}
	wire, _ := json.Marshal(e.JSONRPC())
	if strings.Contains(string(wire), secret) || !strings.Contains(string(wire), `"supported":["2025-06-18"]`) {
		t.Errorf("wire: %s", wire)
	}
}

func BenchmarkJSONRPC(b *testing.B) {
	clean := FromStatus("fetch", withDetails(b, codes.NotFound, "Not Found",
		reason(ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, map[string]string{"repo": "octo-org/hello-world"}),
		&ghopsv1.GitHubError{Status: 404, Message: "Not Found", DocumentationUrl: "https://docs.github.com/rest/repos/repos#get-a-repository",
			Resource: &ghopsv1.Resource{Type: "repository", Id: "octo-org/hello-world"}}), "rid")
	invalid := InvalidParams("search", []Violation{{Message: "must have required property 'query'", Path: "root", Keyword: "required",
		Params: map[string]any{"missingProperty": "query"}, Value: map[string]any{"page": 1.0}}})
	for _, bc := range []struct {
		name string
		e    *Error
	}{{"not found", clean}, {"invalid params", invalid}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				// encode, not JSONRPC: an error keeps its encoding, and the
				// cost measured is that of the one pass (redact, bound, write).
				_ = bc.e.encode()
			}
		})
	}
}

// TestRedactionRunsOnce: an error is redacted once, when it is first
// encoded, however many times it is written (the answer, the log line, the
// internal-error record, a text rendering), and a secret in any field set
// after construction is still redacted by that one pass.
func TestRedactionRunsOnce(t *testing.T) {
	fixedNow(t)
	tests := []struct {
		name string
		e    func() *Error
	}{
		{"not found from a status", func() *Error {
			return FromStatus("fetch", withDetails(t, codes.NotFound, "Not Found: "+secret,
				reason(ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, map[string]string{"repo": "o/" + secret}),
				&ghopsv1.GitHubError{Status: 404, Message: "no repo x_" + secret}), "rid")
		}},
		{"invalid params", func() *Error {
			return InvalidParams("fetch", []Violation{{Message: "bad " + secret, Path: "/repo", Keyword: "pattern",
				Params: map[string]any{"pattern": secret}, Value: json.RawMessage(`{"b":"` + secret + `","a":1.50}`)}})
		}},
		{"internal with a cause", func() *Error { return Internal("fetch", "rid-"+secret, errors.New("dial: "+secret)) }},
		{"policy set late", func() *Error {
			e := New(PermissionDenied, "", Tool("fetch"))
			e.Data.Policy = &Policy{Principal: secret, Rule: "repos", Detail: "x_" + secret}
			return e
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.e()
			before := encodings.Load()
			var lines, records bytes.Buffer
			sink := NewSink(&lines, slog.New(slog.NewJSONHandler(&records, nil)))
			resp := sink.Response(context.Background(), json.RawMessage("1"), e)
			wire, err := json.Marshal(resp.Error)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := json.Marshal(e.JSONRPC())
			out := string(wire) + string(again) + lines.String() + records.String() + e.LogLine() + e.Error()
			if n := encodings.Load() - before; n != 1 {
				t.Errorf("redacted %d times, want once", n)
			}
			if strings.Contains(out, secret) {
				t.Errorf("a secret reached the output: %s", out)
			}
			if !bytes.Equal(wire, again) {
				t.Errorf("two encodings differ:\n%s\n%s", wire, again)
			}
		})
	}
}
