package mcp

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"ghops.dev/gateway/internal/fakeservicetest"
	"ghops.dev/gateway/internal/goldentest"
	"ghops.dev/gateway/internal/logtest"
	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
)

// principalHeader names, in these tests only, the tools the request's
// principal may call (comma-separated); without it the caller has no
// principal (a gateway without a policy).
const principalHeader = "X-Test-Principal-Tools"

// newPrincipalServer is newTestServer with the principal principalHeader
// names put into each request's context, as authn does.
func newPrincipalServer(t testing.TB, opts ...Option) *testServer {
	t.Helper()
	reg := newRegistry(t)
	caller := toolcall.New(reg, fakeservicetest.Serve(t, fakeService{}), toolcall.WithTimeout(5*time.Second))
	log := &logtest.Buffer{}
	logger := slog.New(slog.NewJSONHandler(log, nil))
	opts = append([]Option{WithSessionSecret([]byte("test-secret")), WithLogger(logger)}, opts...)
	s, err := New(reg, caller, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	p := pipeline.New(pipeline.Options{MaxBody: 1 << 16, MaxBatch: 10, Sink: rpcerror.NewSink(log, logger), Logger: logger})
	h := p.Handler(s.HTTP())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get(principalHeader); v != "" {
			pr := &policy.Principal{Name: "bot", Rules: policy.Rules{Tools: strings.Split(v, ",")}}
			r = r.WithContext(policy.WithCaller(r.Context(), &policy.Caller{Principal: pr, Via: policy.KindAPIKey}))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return &testServer{s: s, p: p, srv: srv, log: log}
}

// cursorRE finds a tools/list page's next cursor.
var cursorRE = regexp.MustCompile(`"nextCursor":"([^"]*)"`)

// initializeWith is an initialize request asking for version v.
func initializeWith(v string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

// listAt is a tools/list request with params.
func listAt(params string) string {
	return `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":` + params + `}`
}

// TestMethodsGolden pins the exact answers of the protocol's own methods
// (initialize at every version, ping, tools/list at every version and
// page, narrowed per principal, server/discover) and of malformed params
// to them: the gateway's own MCP implementation answers them byte for byte
// as pinned here.
func TestMethodsGolden(t *testing.T) {
	s := newPrincipalServer(t)
	narrow := []string{principalHeader, "search,read_file,get_branches"}
	var cases []wireCase
	for _, v := range append(append([]string{}, legacyVersions...), V20260728, "1999-01-01") {
		cases = append(cases, wireCase{name: "initialize_" + v, body: initializeWith(v)})
	}
	cases = append(cases,
		wireCase{name: "initialize_no_params", body: `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, errs: 1},
		wireCase{name: "initialize_params_array", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":[]}`, errs: 1},
		wireCase{name: "initialize_version_number", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5,"capabilities":{}}}`, errs: 1},
		wireCase{name: "initialize_empty_params", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`},
		wireCase{name: "ping_params", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1}}}`, headers: v1125},
		wireCase{name: "ping_null_params", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, headers: v1125},
		wireCase{name: "ping_params_array", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}`, headers: v1125, errs: 1},
		wireCase{name: "list_narrowed_1125", body: listAt(`{}`), headers: append(append([]string{}, v1125...), narrow...)},
		wireCase{name: "list_narrowed_2026", body: listAt(`{` + statelessMeta + `}`), headers: append(statelessHeaders("tools/list", ""), narrow...)},
		wireCase{name: "list_narrowed_none", body: listAt(`{}`), headers: narrow},
		wireCase{name: "list_no_params", body: `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, headers: append(append([]string{}, v1125...), narrow...)},
		wireCase{name: "list_params_array", body: listAt(`[]`), headers: v1125, errs: 1},
		wireCase{name: "list_cursor_number", body: listAt(`{"cursor":5}`), headers: v1125, errs: 1},
		wireCase{name: "list_empty_cursor", body: listAt(`{"cursor":""}`), headers: append(append([]string{}, v1125...), narrow...)},
		wireCase{name: "discover_params_missing", body: `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, headers: v1125, errs: 1},
		wireCase{name: "discover_narrowed", body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + statelessMeta + `}}`, headers: append(statelessHeaders("server/discover", ""), narrow...)},
		wireCase{name: "initialized_notification", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		wireCase{name: "unknown_notification", body: `{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}`, headers: v1125},
		wireCase{name: "cancelled_unknown", body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`, headers: v1125},
		wireCase{name: "unknown_method_2026", body: `{"jsonrpc":"2.0","id":1,"method":"nope/nothing","params":{` + statelessMeta + `}}`, headers: statelessHeaders("nope/nothing", ""), errs: 1},
		wireCase{name: "tasks_list_1125", body: `{"jsonrpc":"2.0","id":1,"method":"tasks/list"}`, headers: v1125, errs: 1},
		wireCase{name: "sampling_1125", body: `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`, headers: v1125, errs: 1},
	)
	for _, v := range []string{"", V20241105, V20250326, V20250618, V20251125} {
		var h []string
		if v != "" {
			h = []string{"MCP-Protocol-Version", v}
		}
		cases = append(cases, wireCase{name: "list_full_" + strings.ReplaceAll(v, "-", ""), body: listAt(`{}`), headers: h})
	}
	cases = append(cases, wireCase{name: "list_full_2026", body: listAt(`{` + statelessMeta + `}`), headers: statelessHeaders("tools/list", "")})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			compareWire(t, s, "methods/"+tc.name+".txt", tc)
		})
	}
}

// TestToolsListPages walks tools/list three tools a page, at 2025-11-25
// and at 2026-07-28, narrowed and not: the pages are pinned (their cursors
// are opaque and replaced), and each cursor leads to the next page.
func TestToolsListPages(t *testing.T) {
	s := newPrincipalServer(t, WithPageSize(3))
	runs := []struct {
		name    string
		meta    bool
		headers []string
	}{
		{"1125", false, v1125},
		{"1125_narrowed", false, append(append([]string{}, v1125...), principalHeader, "search,read_file,get_branches,get_tree")},
		{"2026", true, statelessHeaders("tools/list", "")},
	}
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			var b strings.Builder
			cursor := ""
			for page := 0; ; page++ {
				if page > 50 {
					t.Fatal("more than 50 pages")
				}
				var members []string
				if cursor != "" {
					members = append(members, `"cursor":"`+cursor+`"`)
				}
				if run.meta {
					members = append(members, statelessMeta)
				}
				r := s.post(t, listAt(`{`+strings.Join(members, ",")+`}`), run.headers...)
				if r.status != http.StatusOK {
					t.Fatalf("page %d: HTTP %d: %s", page, r.status, r.body)
				}
				m := cursorRE.FindSubmatch(r.body)
				fmt.Fprintf(&b, "%s\n", cursorRE.ReplaceAll(normalize(r.body), []byte(`"nextCursor":"<cursor>"`)))
				if m == nil {
					break
				}
				cursor = string(m[1])
			}
			goldentest.Compare(t, "pages/"+run.name+".txt", []byte(b.String()))
		})
	}
}
