package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkRPCCall measures one tool call through /rpc (HTTP, parsing,
// normalisation, schema validation, gRPC to an in-process fake service,
// result encoding).
func BenchmarkRPCCall(b *testing.B) {
	f := newFixture(b)
	gw := f.newGateway(b, nil)
	body := fetch("1", "o/ok")
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.Post(gw.url+"/rpc", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatal(resp.Status)
		}
	}
}
