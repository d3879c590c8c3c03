package toolcall

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"ghops.dev/gateway/internal/rpcerror"
)

// recording is a link that notes when a call enters and leaves it; stop
// makes it answer without calling next.
func recording(name string, trail *[]string, stop bool) Interceptor {
	return Interceptor{Name: name, Wrap: func(next Handler) Handler {
		return func(ctx context.Context, r *Request) *rpcerror.Error {
			*trail = append(*trail, name+">")
			defer func() { *trail = append(*trail, "<"+name) }()
			if stop {
				return rpcerror.New(rpcerror.PermissionDenied, "", rpcerror.Tool(r.Name))
			}
			return next(ctx, r)
		}
	}}
}

// TestUseRunsLinksInDeclaredOrder: a call enters the links first to last
// and leaves them last to first; a link that answers stops the call there,
// and Call gives its error the call's request id.
func TestUseRunsLinksInDeclaredOrder(t *testing.T) {
	tests := []struct {
		name  string
		stop  int // index of the link that answers
		trail []string
	}{
		{"innermost answers", 2, []string{"a>", "b>", "c>", "<c", "<b", "<a"}},
		{"outermost answers", 0, []string{"a>", "<a"}},
		{"middle answers", 1, []string{"a>", "b>", "<b", "<a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var trail []string
			c := New(registry(t), fakeConn{})
			var links []Interceptor
			for i, n := range []string{"a", "b", "c"} {
				links = append(links, recording(n, &trail, i == tc.stop))
			}
			c.Use(links...)
			if got := c.Links(); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Fatalf("Links %v", got)
			}
			res, e := c.Call(context.Background(), "get_branches", json.RawMessage(`{}`), CallInfo{RequestID: "rid-1"})
			if res != nil || e == nil || e.Code != rpcerror.PermissionDenied || e.RequestID != "rid-1" {
				t.Fatalf("Call = %s, %+v", res, e)
			}
			if !slices.Equal(trail, tc.trail) {
				t.Fatalf("trail %v, want %v", trail, tc.trail)
			}
		})
	}
}

// TestStandardLinks: New installs the gateway's links in their order.
func TestStandardLinks(t *testing.T) {
	c := New(registry(t), fakeConn{})
	want := []string{"recover", "rate", "resolve", "policy", "confirm", "limits", "audit"}
	if got := c.Links(); !slices.Equal(got, want) {
		t.Fatalf("Links %v, want %v", got, want)
	}
}

// TestRecoverLink: a panic in a link inside Recover is -32603 naming the
// tool, with the call's request id.
func TestRecoverLink(t *testing.T) {
	c := New(registry(t), fakeConn{})
	boom := Interceptor{Name: "boom", Wrap: func(Handler) Handler {
		return func(context.Context, *Request) *rpcerror.Error { panic("boom") }
	}}
	c.Use(c.Recover(), boom)
	res, e := c.Call(context.Background(), "get_branches", nil, CallInfo{RequestID: "rid-2"})
	if res != nil || e == nil || e.Code != rpcerror.InternalError || e.RequestID != "rid-2" {
		t.Fatalf("Call = %s, %+v", res, e)
	}
}
