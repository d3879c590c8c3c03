package toolschema

import (
	"encoding/json"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

func BenchmarkDecode(b *testing.B) {
	cases := []struct{ name, tool, args string }{
		{"search/valid", "search", `{"query":"language:go","page":2,"per_page":50}`},
		{"get_branches/valid", "get_branches", `{"repo":"octo-org/hello-world"}`},
		{"read_file/valid", "read_file", `{"repo":"octo-org/hello-world","path":"README.md","branch":"main"}`},
		{"read_file/ref", "read_file", `{"repo":"octo-org/hello-world","path":"docs/guide.md","ref":"v1.2.0"}`},
		{"search/invalid", "search", `{"page":0,"foo":1}`},
		{"commit_files/valid", "commit_files", `{"repo":"o/r","branch":"main","message":"m","files":[{"path":"a","content":"hello"},{"path":"b","content":"aGk=","encoding":"base64"},{"path":"c/d.txt","content":"x"}]}`},
	}
	for _, c := range cases {
		tl := tool(b, c.tool)
		// general is the tool without the one pass: Decode as it is when
		// the one pass declines (onepass.go); library is also without the
		// fast check: Decode as it is when that does not vouch either.
		general := *tl
		general.pass = nil
		library := general
		library.fast = nil
		args := json.RawMessage(c.args)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tl.Decode(args)
			}
		})
		b.Run(c.name+"/general", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				general.Decode(args)
			}
		})
		b.Run(c.name+"/library", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				library.Decode(args)
			}
		})
	}
}

func BenchmarkNewRegistry(b *testing.B) {
	sd := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewRegistry(sd); err != nil {
			b.Fatal(err)
		}
	}
}
