package server

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/rpcerror"
)

// docsPath is the contract's documentation, kept true by this test.
var docsPath = filepath.Join("..", "..", "..", "docs", "errors.md")

var (
	codeRowRE = regexp.MustCompile(`(?m)^\| (-32\d{3}) \| ([^|]+?) \|[^|]*\| (\d{3}) \| (\d{3}) \|$`)
	exampleRE = regexp.MustCompile("(?s)<!-- golden: (\\w+) -->\n```json\n(.*?)\n```")
	logLineRE = regexp.MustCompile(`^jsonrpc_error tool=[^\s"=]+ code=-\d+ repo=[^\s"=]+ pr=[^\s"=]+ sha=[^\s"=]+ state=[^\s"=]+ msg="(?:[^"\\]|\\.)*"$`)
	docCodeRE = regexp.MustCompile(`"code": (-\d+)`)
)

func readDocs(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDocsCodeTable(t *testing.T) {
	rows := codeRowRE.FindAllStringSubmatch(readDocs(t), -1)
	table := rpcerror.Table()
	if len(rows) != len(table) {
		t.Fatalf("docs list %d codes, the code %d", len(rows), len(table))
	}
	for i, r := range table {
		t.Run(strconv.Itoa(r.Code), func(t *testing.T) {
			row := rows[i]
			if row[1] != strconv.Itoa(r.Code) || row[2] != r.Message || row[3] != "200" || row[4] != strconv.Itoa(r.HTTPStatus) {
				t.Errorf("docs row %q, code says %d %q 200 %d", row[0], r.Code, r.Message, r.HTTPStatus)
			}
		})
	}
}

func TestDocsExamplesMatchGoldens(t *testing.T) {
	docs := readDocs(t)
	examples := exampleRE.FindAllStringSubmatch(docs, -1)
	if len(examples) < 10 {
		t.Fatalf("only %d examples found", len(examples))
	}
	covered := map[int]bool{}
	for _, ex := range examples {
		name, body := ex[1], ex[2]
		t.Run(name, func(t *testing.T) {
			var compact bytes.Buffer
			if err := json.Compact(&compact, []byte(body)); err != nil {
				t.Fatalf("example does not decode: %v", err)
			}
			g, err := os.ReadFile(filepath.Join("testdata", "rpc", "default", name+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(g)), "\n")
			want := normalise([]byte(lines[len(lines)-1]))
			if got := normalise(compact.Bytes()); !bytes.Equal(got, want) {
				t.Errorf("docs example differs from the golden wire shape\n docs   %s\n golden %s", got, want)
			}
			for _, m := range docCodeRE.FindAllStringSubmatch(body, -1) {
				c, _ := strconv.Atoi(m[1])
				covered[c] = true
			}
		})
	}
	// The MCP-only codes never travel on /rpc: their wire shapes are the
	// goldens of gateway/internal/mcp/testdata/wire/protocol.
	covered[rpcerror.HeaderMismatch] = true
	covered[rpcerror.UnsupportedProtocolVersion] = true
	for _, r := range rpcerror.Table() {
		if !covered[r.Code] {
			t.Errorf("no example of %d", r.Code)
		}
	}
}

func TestDocsLogLines(t *testing.T) {
	n := 0
	for _, line := range strings.Split(readDocs(t), "\n") {
		if !strings.HasPrefix(line, "jsonrpc_error tool=") || strings.Contains(line, "<") {
			continue
		}
		n++
		if !logLineRE.MatchString(line) {
			t.Errorf("docs log line breaks the format: %s", line)
		}
	}
	if n == 0 {
		t.Fatal("no log line examples in docs")
	}
	// And the code writes what the docs show.
	e := &rpcerror.Error{Code: -32003, Message: "Validation Failed: \"quoted\"\nsecond line",
		Data: &rpcerror.Data{Tool: "create_pull_request"}, Log: rpcerror.LogFields{Repo: "octo-org/hello-world"}}
	want := `jsonrpc_error tool=create_pull_request code=-32003 repo=octo-org/hello-world pr=- sha=- state=- msg="Validation Failed: \"quoted\"\nsecond line"`
	if e.LogLine() != want || !strings.Contains(readDocs(t), want) {
		t.Errorf("LogLine %s; docs must show %s", e.LogLine(), want)
	}
}
