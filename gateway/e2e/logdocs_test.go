package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ghops.dev/gateway/gatewaytest"
)

// logBlockRE finds docs/errors.md's block of log lines taken from this test.
var logBlockRE = regexp.MustCompile("(?s)<!-- log-lines: gateway/e2e TestDocsLogLines -->\n```text\n(.*?)\n```")

// TestDocsLogLines makes the five failing calls of docs/errors.md ("The log
// line") against fakehub's demo data and compares the jsonrpc_error lines
// the gateway writes with the block there, byte for byte; and checks the
// stream's one exception: every other line is a JSON record, and no failure
// has a record besides its line but the write audit trail's (issue 23).
func TestDocsLogLines(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	for _, c := range []struct{ tool, params string }{
		{"search", `{}`},
		{"fetch", `{"repo":"octo-org/nope"}`},
		{"merge_pull_request", `{"repo":"octo-org/hello-world","prNumber":2}`},
		{"merge_pull_request", `{"repo":"octo-org/hello-world","prNumber":1,"sha":"0000000"}`},
		{"create_pull_request", `{"repo":"octo-org/hello-world","title":"t","head":"main","base":"main"}`},
	} {
		if _, out := rpcCall(t, st.URL, c.tool, c.params); out["error"] == nil {
			t.Fatalf("%s %s did not fail", c.tool, c.params)
		}
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(st.Gateway.Logs()), "\n") {
		if strings.HasPrefix(line, "jsonrpc_error ") {
			lines = append(lines, line)
			continue
		}
		var rec struct{ Msg string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("a line is neither JSON nor a jsonrpc_error line: %q", line)
			continue
		}
		switch rec.Msg {
		case "gateway listening", "audit":
		default:
			t.Errorf("a failure logged besides its line: %s", line)
		}
	}
	got := strings.Join(lines, "\n")

	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "errors.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := logBlockRE.FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/errors.md has no block marked <!-- log-lines: gateway/e2e TestDocsLogLines -->")
	}
	if want := string(m[1]); got != want {
		t.Errorf("docs/errors.md shows lines the gateway does not write; it writes:\n%s\n\ndocs show:\n%s", got, want)
	}
}
