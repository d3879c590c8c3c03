package redact

import (
	"encoding/json"
	"testing"
)

// The benchmarks measure what every error answer pays: a few short clean
// strings (tool, message, resource id), sometimes a secret, and the
// validation value of a -32602. Run: go test -run '^$' -bench . -benchmem ./redact
func BenchmarkString(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"tool name", "merge_pull_request"},
		{"clean message", "Validation Failed: No commits between main and feature/x (see https://docs.github.com/rest/pulls/pulls#create-a-pull-request)"},
		{"clean log line", "jsonrpc_error tool=fetch code=-32002 repo=octo-org/hello-world pr=- sha=- state=- msg=\"Not Found\""},
		{"token", "GitHub rejected the credentials: bad token " + classic},
		{"url with secrets", "GET https://u:p@api.github.com/repos/o/r?access_token=abc&page=2 failed"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.in)))
			for b.Loop() {
				_ = String(bc.in)
			}
		})
	}
}

func BenchmarkValue(b *testing.B) {
	var clean, dirty any
	_ = json.Unmarshal([]byte(`{"path":"/files/3/path","keyword":"maxLength","params":{"limit":500},"value":{"path":"docs/readme.md","content":"hello world, this is a file"}}`), &clean)
	_ = json.Unmarshal([]byte(`{"path":"/files/3/path","keyword":"maxLength","params":{"limit":500},"value":{"path":"docs/readme.md","content":"token `+classic+`"}}`), &dirty)
	for _, bc := range []struct {
		name string
		v    any
	}{{"clean violation", clean}, {"violation with a token", dirty}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Value(bc.v)
			}
		})
	}
}

func BenchmarkJSON(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"clean data", `{"tool":"fetch","github":{"status":404,"message":"Not Found","documentation_url":"https://docs.github.com/rest/repos/repos#get-a-repository"},"resource":{"type":"repository","id":"o/missing"},"timestamp":"2026-11-22T10:00:00.000Z"}`},
		{"data with a token", `{"tool":"fetch","resource":{"type":"repository","id":"` + classic + `"},"timestamp":"2026-11-22T10:00:00.000Z"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.in)))
			raw := []byte(bc.in)
			for b.Loop() {
				_ = JSON(raw)
			}
		})
	}
}
