package telemetry_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"ghops.dev/telemetry"
)

func onProvider(t testing.TB) *telemetry.Provider {
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return telemetry.New(tp)
}

func TestFromMeta(t *testing.T) {
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	tests := []struct {
		name, meta, trace, state string
	}{
		{name: "traceparent", meta: `{"traceparent":"` + tp + `"}`, trace: "0af7651916cd43dd8448eb211c80319c"},
		{name: "with tracestate and others", meta: `{"progressToken":1,"traceparent":"` + tp + `","tracestate":"vendor=x"}`, trace: "0af7651916cd43dd8448eb211c80319c", state: "vendor=x"},
		{name: "none", meta: `{"progressToken":1}`},
		{name: "malformed traceparent", meta: `{"traceparent":"00-zz-b7ad6b7169203331-01"}`},
		{name: "all-zero trace id", meta: `{"traceparent":"00-00000000000000000000000000000000-b7ad6b7169203331-01"}`},
		{name: "traceparent not a string", meta: `{"traceparent":42}`},
		{name: "not an object", meta: `["traceparent"]`},
		{name: "empty", meta: ``},
		{name: "broken JSON", meta: `{"traceparent":`},
	}
	p := onProvider(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := p.FromMeta([]byte(tt.meta))
			if tt.trace == "" {
				if sc.IsValid() {
					t.Fatalf("span context %v from %s", sc, tt.meta)
				}
				return
			}
			if !sc.IsValid() || !sc.IsRemote() || sc.TraceID().String() != tt.trace || sc.SpanID().String() != "b7ad6b7169203331" {
				t.Fatalf("span context %v, want trace %s remote", sc, tt.trace)
			}
			if got := sc.TraceState().String(); got != tt.state {
				t.Fatalf("tracestate %q, want %q", got, tt.state)
			}
		})
	}
}

// FuzzFromMeta: _meta is the caller's JSON; reading it never panics, and
// whatever it yields is a valid remote span context or nothing.
func FuzzFromMeta(f *testing.F) {
	f.Add([]byte(`{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"a=b"}`))
	f.Add([]byte(`{"traceparent":"ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`))
	f.Add([]byte(`{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01"}`))
	f.Add([]byte(`{"tracestate":"` + string(make([]byte, 600)) + `"}`))
	f.Add([]byte(`null`))
	p := onProvider(f)
	f.Fuzz(func(t *testing.T, meta []byte) {
		sc := p.FromMeta(meta)
		if sc.IsValid() && !sc.IsRemote() {
			t.Fatalf("a span context from _meta that is not remote: %v", sc)
		}
	})
}
