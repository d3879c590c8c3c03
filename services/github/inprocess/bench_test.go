package inprocess_test

import (
	"context"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/inprocess"
)

// BenchmarkInProcessCall measures a call of the embedded service through
// its connection (docs/benchmarks.md, "-embedded"): "refused" is a call
// protovalidate refuses, so the transport and the interceptor chain are
// all it costs; "read_file" reads a file fakehub serves (the service's
// cache revalidates it each time).
func BenchmarkInProcessCall(b *testing.B) {
	hub := fakehubtest.Start(b, fakehub.Config{Seed: "demo"})
	svc, err := inprocess.Start(inprocess.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = svc.Close() })
	client := ghopsv1.NewGitHubServiceClient(svc.Conn())
	ctx := context.Background()
	b.Run("refused", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := client.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: "octo-org/hello-world"}); err == nil {
				b.Fatal("a read without a path was not refused")
			}
		}
	})
	b.Run("read_file", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := client.ReadFile(ctx, &ghopsv1.ReadFileRequest{Repo: "octo-org/hello-world", Path: "README.md"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
