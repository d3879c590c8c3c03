package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/services/fakehub"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/httpcall"
)

const (
	keyCareful = "ghk_careful_0123456789abcdef01234"
	keyOther   = "ghk_other_0123456789abcdef0123456"
)

// confirmPolicy: careful must have a person confirm merges and issue
// updates; other, issue updates.
var confirmPolicy = `principals:
  - name: careful
    key_sha256: ` + sha256hex(keyCareful) + `
    confirm: [merge_pull_request, update_issue]
  - name: other
    key_sha256: ` + sha256hex(keyOther) + `
    confirm: ["update_*"]
`

// confirmRepo is where the tests retitle an issue.
const confirmRepo = "octo-org/hello-world"

// hubIssue reads issue n's title from fakehub itself (GitHub's state, not
// the gateway's answer).
func hubIssue(t *testing.T, st *gatewaytest.Stack, n int) string {
	t.Helper()
	resp, b := httpcall.Do(t, http.MethodGet, st.HubURL+"/repos/"+confirmRepo+"/issues/"+strconv.Itoa(n), "", "Authorization", "Bearer "+fakehub.DemoToken)
	var is struct {
		Title string `json:"title"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &is) != nil {
		t.Fatalf("fakehub issue %d: %d %s", n, resp.StatusCode, b)
	}
	return is.Title
}

// firstIssue is the number of the demo's first open issue.
func firstIssue(t *testing.T, st *gatewaytest.Stack) int {
	t.Helper()
	_, b := httpcall.Do(t, http.MethodGet, st.HubURL+"/repos/"+confirmRepo+"/issues?state=open&per_page=100", "", "Authorization", "Bearer "+fakehub.DemoToken)
	var list []struct {
		Number int    `json:"number"`
		Title  string `json:"title"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatalf("fakehub issues: %v %s", err, b)
	}
	for _, is := range list {
		if is.Title == "Greeting ignores empty names" {
			return is.Number
		}
	}
	t.Fatalf("no demo issue in %s", b)
	return 0
}

// issueWrites counts the writes to issues that reached fakehub.
func issueWrites(st *gatewaytest.Stack) int {
	n := 0
	for _, r := range st.Hub.Requests() {
		if r.Method == http.MethodPatch && strings.Contains(r.Path, "/issues/") {
			n++
		}
	}
	return n
}

// keyTransport adds an API key.
type keyTransport struct{ key string }

func (k keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

// TestConfirmWithSDK: the official Go SDK client, through the real gateway
// and service over fakehub, with an elicitation handler: at 2025-11-25 the
// gateway asks with elicitation/create on the answer's event stream, at
// 2026-07-28 (the SDK's default) with an input-required result the SDK
// fulfils and retries. Accept retitles the issue on GitHub; decline and
// cancel write nothing; a client without an elicitation handler gets
// -32001 naming the rule, and nothing is written. The person sees the
// tool, the repository and the new title.
func TestConfirmWithSDK(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: confirmPolicy})
	n := firstIssue(t, st)
	versions := []struct{ name, pin string }{
		{"elicitation 2025-11-25", "2025-11-25"},
		{"multi round trip 2026-07-28", ""},
	}
	answers := []struct {
		name    string
		action  string // "" : the client has no elicitation handler
		confirm bool
		writes  bool
		inMsg   string
	}{
		{"accept", "accept", true, true, ""},
		{"accept unticked", "accept", false, false, "declined"},
		{"decline", "decline", false, false, "declined"},
		{"cancel", "cancel", false, false, "cancelled"},
		{"client cannot ask", "", false, false, "cannot ask"},
	}
	for _, v := range versions {
		for _, a := range answers {
			t.Run(v.name+"/"+a.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				var (
					mu    sync.Mutex
					asked []string
				)
				opts := &sdk.ClientOptions{}
				if a.action != "" {
					opts.ElicitationHandler = func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
						mu.Lock()
						asked = append(asked, req.Params.Message)
						mu.Unlock()
						res := &sdk.ElicitResult{Action: a.action}
						if a.action == "accept" {
							res.Content = map[string]any{"confirm": a.confirm}
						}
						return res, nil
					}
				}
				var so *sdk.ClientSessionOptions
				if v.pin != "" {
					so = &sdk.ClientSessionOptions{ProtocolVersion: v.pin}
				}
				s, err := sdk.NewClient(&sdk.Implementation{Name: "e2e-confirm", Version: "1"}, opts).Connect(ctx,
					&sdk.StreamableClientTransport{Endpoint: st.URL + "/mcp", HTTPClient: &http.Client{Transport: keyTransport{keyCareful}}, DisableStandaloneSSE: true, MaxRetries: -1}, so)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				title := "Retitled " + strings.ReplaceAll(t.Name(), "/", " ")
				before, writes := hubIssue(t, st, n), issueWrites(st)
				res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "update_issue", Arguments: map[string]any{
					"repo": confirmRepo, "issueNumber": n, "title": title,
				}})
				if err != nil {
					t.Fatalf("CallTool: %v", err)
				}
				if a.action != "" {
					if len(asked) != 1 {
						t.Fatalf("the person was asked %d times, want once", len(asked))
					}
					for _, want := range []string{"update_issue", confirmRepo, strconv.Quote(title)} {
						if !strings.Contains(asked[0], want) {
							t.Errorf("the person reads %q, without %q", asked[0], want)
						}
					}
				}
				got := hubIssue(t, st, n)
				if a.writes {
					if res.IsError || got != title || issueWrites(st) != writes+1 {
						t.Fatalf("accepted: isError %v, GitHub's title %q (want %q), %d writes", res.IsError, got, title, issueWrites(st)-writes)
					}
					return
				}
				if got != before || issueWrites(st) != writes {
					t.Fatalf("not confirmed, yet GitHub's title is %q (was %q), %d writes", got, before, issueWrites(st)-writes)
				}
				var o outcome
				if !res.IsError {
					t.Fatalf("not confirmed, yet the call succeeded")
				}
				o.fromErrorResult(res.Meta)
				if o.code != -32001 || !strings.Contains(string(o.errObj), `"rule":"confirm"`) || !strings.Contains(string(o.errObj), a.inMsg) {
					t.Fatalf("error %d %s, want -32001 rule confirm saying %q", o.code, o.errObj, a.inMsg)
				}
			})
		}
	}
}

// modernCall posts one 2026-07-28 tools/call of update_issue as JSON with
// key, declaring elicitation or not, plus extra params members (raw JSON
// "name":value pairs), and decodes the answer.
func modernCall(t *testing.T, st *gatewaytest.Stack, key, args string, elicit bool, extra string) (int, map[string]json.RawMessage) {
	t.Helper()
	caps := `{}`
	if elicit {
		caps = `{"elicitation":{}}`
	}
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"update_issue","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}` + extra + `}}`
	resp, b := httpcall.Do(t, http.MethodPost, st.URL+"/mcp", body, "Content-Type", "application/json", "Accept", "application/json, text/event-stream",
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "update_issue", "Authorization", "Bearer "+key)
	var out struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(b, &out) != nil || out.Result == nil {
		t.Fatalf("answer %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return resp.StatusCode, out.Result
}

// refusedWith checks that a 2026-07-28 result is the isError -32001 of the
// confirm rule, saying want.
func refusedWith(t *testing.T, res map[string]json.RawMessage, want string) {
	t.Helper()
	var meta map[string]any
	_ = json.Unmarshal(res["_meta"], &meta)
	var o outcome
	o.fromErrorResult(meta)
	if string(res["isError"]) != "true" || o.code != -32001 || !strings.Contains(string(o.errObj), `"rule":"confirm"`) || !strings.Contains(string(o.errObj), want) {
		t.Fatalf("result %v, want isError -32001 rule confirm saying %q", res, want)
	}
}

// TestConfirmRawMRTR: the two round trips of 2026-07-28 as plain JSON
// bodies: the first call is answered with an input-required result (an
// elicitation/create input request naming the tool, the repository and
// the title, and a sealed requestState) and writes nothing; the retry with
// the person's "accept" and the state writes. A tampered state, the state
// with other arguments or from another principal, the state used again
// after its confirmed call, a decline and a client without the elicitation
// capability are each refused with -32001 (rule confirm), and write
// nothing.
func TestConfirmRawMRTR(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: confirmPolicy})
	n := firstIssue(t, st)
	args := func(title string) string {
		return `{"repo":"` + confirmRepo + `","issueNumber":` + strconv.Itoa(n) + `,"title":` + strconv.Quote(title) + `}`
	}
	answer := func(state, action string) string {
		content := ""
		if action == "accept" {
			content = `,"content":{"confirm":true}`
		}
		return `,"inputResponses":{"confirm":{"action":"` + action + `"` + content + `}},"requestState":` + strconv.Quote(state)
	}
	ask := func(title, key string) string {
		t.Helper()
		writes := issueWrites(st)
		status, res := modernCall(t, st, key, args(title), true, "")
		var ir struct {
			ResultType    string `json:"resultType"`
			RequestState  string `json:"requestState"`
			InputRequests map[string]struct {
				Method string `json:"method"`
				Params struct {
					Mode            string          `json:"mode"`
					Message         string          `json:"message"`
					RequestedSchema json.RawMessage `json:"requestedSchema"`
				} `json:"params"`
			} `json:"inputRequests"`
		}
		b, _ := json.Marshal(res)
		if err := json.Unmarshal(b, &ir); err != nil || status != http.StatusOK || ir.ResultType != "input_required" || ir.RequestState == "" || res["content"] != nil {
			t.Fatalf("round one: %d %s", status, b)
		}
		c := ir.InputRequests["confirm"]
		if c.Method != "elicitation/create" || c.Params.Mode != "form" || !strings.Contains(string(c.Params.RequestedSchema), `"confirm":{"type":"boolean"`) {
			t.Fatalf("input request %s", b)
		}
		for _, want := range []string{"update_issue", confirmRepo, strconv.Quote(title)} {
			if !strings.Contains(c.Params.Message, want) {
				t.Errorf("the person reads %q, without %q", c.Params.Message, want)
			}
		}
		if issueWrites(st) != writes {
			t.Fatal("asking wrote to GitHub")
		}
		return ir.RequestState
	}
	before := hubIssue(t, st, n)
	state := ask("Confirmed title", keyCareful)
	tampered := []byte(state)
	tampered[len(tampered)-3] ^= 0x01
	refusals := []struct {
		name, key, args, extra, want string
		elicit                       bool
	}{
		{"tampered state", keyCareful, args("Confirmed title"), answer(string(tampered), "accept"), "not valid for update_issue", true},
		{"garbage state", keyCareful, args("Confirmed title"), answer("c1.x.y", "accept"), "not valid for update_issue", true},
		{"other arguments", keyCareful, args("Another title"), answer(state, "accept"), "not valid for update_issue", true},
		{"another principal", keyOther, args("Confirmed title"), answer(state, "accept"), "not valid for update_issue", true},
		{"no elicitation capability", keyCareful, args("Confirmed title"), "", "cannot ask", false},
		{"no elicitation capability, answer attached", keyCareful, args("Confirmed title"), answer(state, "accept"), "cannot ask", false},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			writes := issueWrites(st)
			_, res := modernCall(t, st, tc.key, tc.args, tc.elicit, tc.extra)
			refusedWith(t, res, tc.want)
			if issueWrites(st) != writes || hubIssue(t, st, n) != before {
				t.Fatal("a refused confirmation wrote to GitHub")
			}
		})
	}
	t.Run("answer without state is asked again", func(t *testing.T) {
		_, res := modernCall(t, st, keyCareful, args("Confirmed title"), true, `,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`)
		if string(res["resultType"]) != `"input_required"` {
			t.Fatalf("an answer without the gateway's state was taken: %v", res)
		}
	})
	t.Run("accept", func(t *testing.T) {
		writes := issueWrites(st)
		_, res := modernCall(t, st, keyCareful, args("Confirmed title"), true, answer(state, "accept"))
		if string(res["resultType"]) != `"complete"` || res["isError"] != nil || hubIssue(t, st, n) != "Confirmed title" || issueWrites(st) != writes+1 {
			t.Fatalf("accepted call: %v; GitHub's title %q", res, hubIssue(t, st, n))
		}
	})
	t.Run("replayed after use", func(t *testing.T) {
		writes := issueWrites(st)
		_, res := modernCall(t, st, keyCareful, args("Confirmed title"), true, answer(state, "accept"))
		refusedWith(t, res, "not valid for update_issue")
		if issueWrites(st) != writes {
			t.Fatal("a replayed confirmation wrote to GitHub")
		}
	})
	t.Run("decline", func(t *testing.T) {
		s := ask("Declined title", keyCareful)
		writes := issueWrites(st)
		_, res := modernCall(t, st, keyCareful, args("Declined title"), true, answer(s, "decline"))
		refusedWith(t, res, "declined")
		if issueWrites(st) != writes || hubIssue(t, st, n) != "Confirmed title" {
			t.Fatal("a declined confirmation wrote to GitHub")
		}
		var found bool
		for _, line := range strings.Split(st.Gateway.Logs(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "confirmation" && rec["verdict"] == "declined" &&
				rec["principal"] == "careful" && rec["tool"] == "update_issue" && rec["repo"] == confirmRepo {
				found = true
			}
		}
		if !found {
			t.Fatalf("no confirmation record of the decline in the audit trail:\n%s", st.Gateway.Logs())
		}
	})
	t.Run("plain JSON-RPC cannot ask", func(t *testing.T) {
		writes := issueWrites(st)
		_, out := rpcCall(t, st.URL, "update_issue", args("RPC title"), "Authorization", "Bearer "+keyCareful)
		code, data := errOf(t, out)
		if code != -32001 || !strings.Contains(string(data["policy"]), `"rule":"confirm"`) || issueWrites(st) != writes {
			t.Fatalf("/rpc: %d %s", code, data["policy"])
		}
	})
}

// TestConfirmOverStdio: over stdio, with the gateway-wide -confirm and no
// policy file, the Go SDK client is asked with elicitation/create on the
// stream at 2025-11-25 (its answer comes back as a line of its own) and
// with an input-required result at 2026-07-28; accept writes, decline
// writes nothing.
func TestConfirmOverStdio(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	n := firstIssue(t, st)
	cfg := config.Default()
	cfg.ServiceAddr = st.Service.Addr
	cfg.Confirm = []string{"update_issue"}
	tests := []struct {
		name, pin, action string
		writes            bool
	}{
		{"elicitation accept", "2025-11-25", "accept", true},
		{"elicitation decline", "2025-11-25", "decline", false},
		{"multi round trip accept", "", "accept", true},
		{"multi round trip decline", "", "decline", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := app.New(cfg, &gatewaytest.SyncBuffer{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = a.Close() })
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			go func() {
				_ = a.ServeStdio(context.Background(), inR, outW)
				_ = outW.Close()
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			asked := 0
			c := sdk.NewClient(&sdk.Implementation{Name: "e2e-stdio-confirm", Version: "1"}, &sdk.ClientOptions{
				ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					asked++
					if tc.action == "accept" {
						return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
					}
					return &sdk.ElicitResult{Action: tc.action}, nil
				},
			})
			var so *sdk.ClientSessionOptions
			if tc.pin != "" {
				so = &sdk.ClientSessionOptions{ProtocolVersion: tc.pin}
			}
			s, err := c.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, so)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			title := "Stdio " + tc.name
			before, writes := hubIssue(t, st, n), issueWrites(st)
			res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "update_issue", Arguments: map[string]any{"repo": confirmRepo, "issueNumber": n, "title": title}})
			if err != nil {
				t.Fatal(err)
			}
			if asked != 1 {
				t.Fatalf("asked %d times", asked)
			}
			if tc.writes {
				if res.IsError || hubIssue(t, st, n) != title || issueWrites(st) != writes+1 {
					t.Fatalf("accepted: %+v, GitHub's title %q", res, hubIssue(t, st, n))
				}
				return
			}
			if !res.IsError || hubIssue(t, st, n) != before || issueWrites(st) != writes {
				t.Fatalf("declined: %+v, GitHub's title %q", res, hubIssue(t, st, n))
			}
		})
	}
}

// TestConfirmOutlivesWriteTimeout: a person who takes longer to answer
// than the HTTP server's write timeout (sized to one call: here 1s calls,
// an 8s timeout) still gets the call's answer over the elicitation's
// event stream, and the write happens once.
func TestConfirmOutlivesWriteTimeout(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: confirmPolicy, CallTimeout: time.Second})
	n := firstIssue(t, st)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e-slow-person", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			time.Sleep(9 * time.Second)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
	})
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: st.URL + "/mcp", HTTPClient: &http.Client{Transport: keyTransport{keyCareful}}, DisableStandaloneSSE: true, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writes := issueWrites(st)
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "update_issue", Arguments: map[string]any{"repo": confirmRepo, "issueNumber": n, "title": "Slowly confirmed"}})
	if err != nil || res.IsError {
		t.Fatalf("CallTool: %v %+v", err, res)
	}
	if hubIssue(t, st, n) != "Slowly confirmed" || issueWrites(st) != writes+1 {
		t.Fatalf("GitHub's title %q, %d writes", hubIssue(t, st, n), issueWrites(st)-writes)
	}
}
