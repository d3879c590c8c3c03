package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"
)

// keyGlob is the API key of a principal whose repos glob no search
// qualifier can state.
const keyGlob = "ghk_globber_0123456789abcdef01234"

// searchPolicy confines ci-bot to one repository, the globber to a name
// pattern, and leaves "limited" unconfined.
var searchPolicy = teamPolicy + `  - name: globber
    key_sha256: ` + sha256hex(keyGlob) + `
    repos: ["octo-org/hello-*"]
`

// hiddenWord occurs only in octo-org/lab, a repository none of the
// confined principals may see (twice in code, twice in pull requests).
const hiddenWord = "zanzibar"

// searchLog records the q parameter of every search request that reaches
// GitHub (fakehub), from a proxy between the service and fakehub.
type searchLog struct {
	mu      sync.Mutex
	queries []string
}

func (l *searchLog) add(q string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.queries = append(l.queries, q)
}

// take returns the queries recorded since the last take.
func (l *searchLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.queries
	l.queries = nil
	return q
}

// startSearchStack starts fakehub with octo-org/lab holding hiddenWord, a
// recording proxy in front of it, the real service against the proxy and
// the gateway under searchPolicy.
func startSearchStack(t *testing.T) (gatewayURL string, log *searchLog) {
	t.Helper()
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	if err := hub.Hub.CreateRepo(fakehub.RepoOptions{Owner: "octo-org", Name: "lab", Description: "Research", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	if _, err := hub.Hub.Commit("octo-org/lab", "main", "Notes", map[string]string{
		"a.md": "the " + hiddenWord + " plan\n", "b.md": "more of " + hiddenWord + "\n",
	}); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"one", "two"} {
		if err := hub.Hub.CreateBranch("octo-org/lab", b, "main"); err != nil {
			t.Fatal(err)
		}
		if _, err := hub.Hub.Commit("octo-org/lab", b, "Change "+b, map[string]string{b + ".md": b + "\n"}); err != nil {
			t.Fatal(err)
		}
		if _, err := hub.Hub.CreatePullRequest("octo-org/lab", b, "main", hiddenWord+" "+b, "", false); err != nil {
			t.Fatal(err)
		}
	}
	target, err := url.Parse(hub.URL)
	if err != nil {
		t.Fatal(err)
	}
	log = &searchLog{}
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/search/") {
			log.add(r.URL.Query().Get("q"))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: proxy.URL + "/", Token: fakehub.DemoToken})
	gw := gatewaytest.StartGateway(t, svc.Addr, gatewaytest.StackOptions{Policy: searchPolicy})
	return gw.URL, log
}

// searchPage is what the search tools answer, for the fields this test reads.
type searchPage struct {
	TotalCount        int               `json:"total_count"`
	IncompleteResults bool              `json:"incomplete_results"`
	Items             []json.RawMessage `json:"items"`
	Page              struct {
		HasNext bool `json:"has_next"`
	} `json:"page"`
}

// searchCall calls a search tool over /rpc or /mcp (the official SDK) as
// the principal of key: the page on success, else the error's code and
// data.policy.rule.
func searchCall(t *testing.T, transport, gatewayURL, key, tool string, args map[string]any) (page searchPage, code int, rule string) {
	t.Helper()
	var result []byte
	switch transport {
	case "rpc":
		b, _ := json.Marshal(args)
		_, out := rpcCall(t, gatewayURL, tool, string(b), "Authorization", "Bearer "+key)
		if _, failed := out["error"]; failed {
			code, data := errOf(t, out)
			var p struct {
				Rule string `json:"rule"`
			}
			_ = json.Unmarshal(data["policy"], &p)
			return page, code, p.Rule
		}
		result = out["result"]
	case "mcp":
		var e *sdkjsonrpc.Error
		if result, e = mcpCall(t, gatewayURL+"/mcp", key, tool, args); e != nil {
			var d struct {
				Policy struct {
					Rule string `json:"rule"`
				} `json:"policy"`
			}
			_ = json.Unmarshal(e.Data, &d)
			return page, int(e.Code), d.Policy.Rule
		}
	}
	if err := json.Unmarshal(result, &page); err != nil {
		t.Fatalf("%s: %v", result, err)
	}
	return page, 0, ""
}

// mcpCall calls tool over /mcp with the official SDK and returns its
// structured result, or the contract error of a failure (an error result's
// or a JSON-RPC error's).
func mcpCall(t *testing.T, url, key, tool string, args map[string]any) ([]byte, *sdkjsonrpc.Error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e-search", Version: "1"}, nil)
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{key}}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	var we *sdkjsonrpc.Error
	if errors.As(err, &we) {
		return nil, we
	}
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	if res.IsError {
		b, _ := json.Marshal(res.Meta[errorMetaKey])
		var e sdkjsonrpc.Error
		if err := json.Unmarshal(b, &e); err != nil || e.Code == 0 {
			t.Fatalf("call %s: an error result without the contract error: %+v", tool, res)
		}
		return nil, &e
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil || string(b) == "null" {
		t.Fatalf("call %s: no structured content: %+v", tool, res)
	}
	return b, nil
}

// TestSearchIsNarrowed: a principal limited to some repositories searches
// only them. The attack that read hidden repositories through search (a
// word only a hidden repository holds: no items, but has_next true) now
// finds nothing at all, has_next false and total_count 0, because the
// query GitHub receives carries the principal's repo: qualifier; an
// unconfined principal's same search shows the hidden matches are there.
// The caller's own qualifiers outside its repositories, ambiguous queries
// and globs no qualifier states are refused with -32001 (rule repos)
// before anything reaches GitHub; qualifiers inside are kept as written.
// Over /rpc and /mcp.
func TestSearchIsNarrowed(t *testing.T) {
	gw, log := startSearchStack(t)
	tests := []struct {
		name, key, tool, query string
		wantCode               int
		wantHasNext            bool
		wantTotal              int
		wantSent               string // the q GitHub received; "" for none
	}{
		{"hidden word in code", keyBot, "search_code", hiddenWord, 0, false, 0, hiddenWord + " repo:octo-org/hello-world"},
		{"hidden word in pull requests", keyBot, "search_issues", hiddenWord, 0, false, 0, hiddenWord + " repo:octo-org/hello-world"},
		{"hidden word, unconfined principal", keyLimit, "search_issues", hiddenWord, 0, true, 2, hiddenWord},
		{"repositories search", keyBot, "search", "greeter", 0, false, 1, "greeter repo:octo-org/hello-world"},
		{"own qualifier inside kept", keyBot, "search_code", "greeting repo:Octo-Org/Hello-World", 0, true, 1, "greeting repo:Octo-Org/Hello-World"},
		{"own qualifier outside", keyBot, "search_code", hiddenWord + " repo:octo-org/lab", -32001, false, 0, ""},
		{"own owner qualifier wider than the repositories", keyBot, "search_issues", hiddenWord + " org:octo-org", -32001, false, 0, ""},
		{"OR would escape the qualifier", keyBot, "search_issues", hiddenWord + " OR x", -32001, false, 0, ""},
		{"glob no qualifier states", keyGlob, "search_issues", hiddenWord, -32001, false, 0, ""},
		{"glob made usable by the caller's own repo:", keyGlob, "search_issues", hiddenWord + " repo:octo-org/hello-world", 0, false, 0, hiddenWord + " repo:octo-org/hello-world"},
	}
	for _, transport := range []string{"rpc", "mcp"} {
		for _, tc := range tests {
			t.Run(transport+"/"+tc.name, func(t *testing.T) {
				log.take()
				page, code, rule := searchCall(t, transport, gw, tc.key, tc.tool, map[string]any{"query": tc.query, "per_page": 1})
				if code != tc.wantCode {
					t.Fatalf("code %d, want %d", code, tc.wantCode)
				}
				sent := log.take()
				if tc.wantSent == "" {
					if rule != "repos" || len(sent) != 0 {
						t.Fatalf("rule %q, GitHub received %q: want rule repos and nothing sent", rule, sent)
					}
					return
				}
				if len(sent) != 1 || sent[0] != tc.wantSent {
					t.Fatalf("GitHub received %q, want %q", sent, tc.wantSent)
				}
				if page.Page.HasNext != tc.wantHasNext || page.TotalCount != tc.wantTotal || page.IncompleteResults {
					t.Fatalf("has_next %v total_count %d incomplete %v, want %v %d false", page.Page.HasNext, page.TotalCount, page.IncompleteResults, tc.wantHasNext, tc.wantTotal)
				}
			})
		}
	}
}
