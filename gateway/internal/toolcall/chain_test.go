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

// TestLinksRunInDeclaredOrder: a call enters the links first to last
// and leaves them last to first; a link that answers stops the call there,
// and Call gives its error the call's request id.
func TestLinksRunInDeclaredOrder(t *testing.T) {
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
			c.use(links...)
			if got := c.Links(); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Fatalf("Links %v", got)
			}
			res, tool, e := c.Call(context.Background(), Request{Name: "get_branches", Args: json.RawMessage(`{}`), RequestID: "rid-1"})
			if res != nil || e == nil || e.Code != rpcerror.PermissionDenied || e.RequestID != "rid-1" {
				t.Fatalf("Call = %s, %+v", res, e)
			}
			if tool == nil || tool.Name != "get_branches" {
				t.Fatalf("Call's tool %v, want get_branches", tool)
			}
			if !slices.Equal(trail, tc.trail) {
				t.Fatalf("trail %v, want %v", trail, tc.trail)
			}
		})
	}
}

// TestStandardLinks: New installs the gateway's links in their order; no
// link recovers (the pipeline does, once per call).
func TestStandardLinks(t *testing.T) {
	c := New(registry(t), fakeConn{})
	want := []string{"rate", "resolve", "policy", "confirm", "limits", "audit"}
	if got := c.Links(); !slices.Equal(got, want) {
		t.Fatalf("Links %v, want %v", got, want)
	}
}

// TestUnknownLookedUpOnce: a tool the gateway does not offer reaches the
// links with no Tool (Call's one lookup), is refused by Resolve as the
// request's Unknown says, and Call returns no tool.
func TestUnknownLookedUpOnce(t *testing.T) {
	tests := []struct {
		name    string
		unknown Unknown
		code    int
	}{
		{"as params (MCP)", UnknownAsParams, rpcerror.InvalidParamsCode},
		{"as method (/rpc)", UnknownAsMethod, rpcerror.MethodNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(registry(t), fakeConn{})
			res, tool, e := c.Call(context.Background(), Request{Name: "no_such_tool", RequestID: "rid-3", Unknown: tc.unknown})
			if res != nil || tool != nil || e == nil || e.Code != tc.code || e.RequestID != "rid-3" {
				t.Fatalf("Call = %s, %v, %+v", res, tool, e)
			}
		})
	}
}
