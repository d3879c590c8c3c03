package toolschema

import (
	"bytes"
	"encoding/json"
	"flag"
	"strings"
	"sync"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

var (
	regOnce sync.Once
	reg     *Registry
	regErr  error
)

// registry returns the registry of the real service, built once per test binary.
func registry(tb testing.TB) *Registry {
	tb.Helper()
	regOnce.Do(func() {
		reg, regErr = NewRegistry(ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService"))
	})
	if regErr != nil {
		tb.Fatalf("NewRegistry: %v", regErr)
	}
	return reg
}

func tool(tb testing.TB, name string) *Tool {
	tb.Helper()
	t, ok := registry(tb).Lookup(name)
	if !ok {
		tb.Fatalf("no tool %q", name)
	}
	return t
}

func compactJSON(tb testing.TB, s string) string {
	tb.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		tb.Fatalf("bad JSON in test: %v\n%s", err, s)
	}
	return b.String()
}

func mustMarshal(tb testing.TB, v any) string {
	tb.Helper()
	return marshalPlain(tb, v)
}

// marshalPlain marshals without HTML escaping, as the expectations are written.
func marshalPlain(tb testing.TB, v any) string {
	tb.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatalf("marshal: %v", err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
