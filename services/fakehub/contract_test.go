package fakehub_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"ghops.dev/services/fakehub/internal/router"
)

// contract validates responses against testdata/openapi-subset.json.
type contract struct {
	paths   map[string]any
	rt      *router.Router
	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema
	checked map[string]int
}

var (
	contractOnce sync.Once
	theContract  *contract
)

func loadContract(t testing.TB) *contract {
	contractOnce.Do(func() {
		data, err := os.ReadFile("testdata/openapi-subset.json")
		if err != nil {
			panic(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			panic(err)
		}
		c := &contract{paths: doc["paths"].(map[string]any), rt: router.New("path", "ref", "branch", "tree_sha"),
			schemas: map[string]*jsonschema.Schema{}, checked: map[string]int{}}
		// Shorter templates first, so that /branches wins over /branches/{branch} for a bare path,
		// except that a template ending in a parameter that spans segments goes after the others,
		// so that /commits/{ref} does not take /commits/{ref}/check-runs.
		var tmpls []string
		for p := range c.paths {
			tmpls = append(tmpls, p)
		}
		greedyEnd := func(p string) bool {
			for _, g := range []string{"{path}", "{ref}", "{branch}", "{tree_sha}"} {
				if strings.HasSuffix(p, g) {
					return true
				}
			}
			return false
		}
		sort.Slice(tmpls, func(i, j int) bool {
			if gi, gj := greedyEnd(tmpls[i]), greedyEnd(tmpls[j]); gi != gj {
				return gj
			}
			return len(tmpls[i]) < len(tmpls[j]) || len(tmpls[i]) == len(tmpls[j]) && tmpls[i] < tmpls[j]
		})
		for _, p := range tmpls {
			for m := range c.paths[p].(map[string]any) {
				c.rt.Add(strings.ToUpper(m), p)
			}
		}
		theContract = c
	})
	return theContract
}

// toJSONSchema rewrites OpenAPI 3.0 "nullable" into JSON Schema and drops annotation-only keywords.
func toJSONSchema(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			switch k {
			case "nullable", "example", "examples", "discriminator", "xml", "externalDocs", "deprecated", "readOnly", "writeOnly", "format":
				continue
			}
			if k == "properties" {
				props := map[string]any{}
				for pk, pv := range val.(map[string]any) {
					props[pk] = toJSONSchema(pv)
				}
				out[k] = props
				continue
			}
			if k == "oneOf" {
				// GitHub's description writes oneOf where its alternatives overlap (a 422 is a
				// validation error or a rule violation whose schema requires nothing, so every
				// error matches both); JSON Schema's oneOf would then refuse every answer.
				k = "anyOf"
			}
			out[k] = toJSONSchema(val)
		}
		if n, _ := x["nullable"].(bool); n {
			if typ, ok := out["type"].(string); ok {
				out["type"] = []any{typ, "null"}
				if e, ok := out["enum"].([]any); ok {
					out["enum"] = append(e, nil)
				}
			} else {
				return map[string]any{"anyOf": []any{map[string]any{"type": "null"}, out}}
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = toJSONSchema(x[i])
		}
		return out
	}
	return v
}

func (c *contract) schema(method, tmpl string, status int) (*jsonschema.Schema, bool, error) {
	return c.schemaFor(method, tmpl, status, "application/json")
}

// schemaFor is the response schema of one operation, status and media type; has is false when
// the description documents that status without a body in that media type.
func (c *contract) schemaFor(method, tmpl string, status int, mediaType string) (*jsonschema.Schema, bool, error) {
	key := fmt.Sprintf("%s %s %d %s", method, tmpl, status, mediaType)
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.schemas[key]; ok {
		return s, s != nil, nil
	}
	op := c.paths[tmpl].(map[string]any)[strings.ToLower(method)].(map[string]any)
	resp, ok := op["responses"].(map[string]any)[strconv.Itoa(status)].(map[string]any)
	if !ok {
		return nil, false, fmt.Errorf("status %d is not documented for %s %s", status, method, tmpl)
	}
	content, _ := resp["content"].(map[string]any)
	media, _ := content[mediaType].(map[string]any)
	if media == nil {
		c.schemas[key] = nil
		return nil, false, nil
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("mem://schema.json", toJSONSchema(media["schema"])); err != nil {
		return nil, false, err
	}
	s, err := comp.Compile("mem://schema.json")
	if err != nil {
		return nil, false, err
	}
	c.schemas[key] = s
	return s, true, nil
}

// check validates one response; undocumented statuses that fakehub adds on purpose (401, 403 rate
// limits, 5xx faults) are checked against GitHub's basic error shape instead.
func (c *contract) check(t testing.TB, method, path string, status int, body []byte) {
	t.Helper()
	p := strings.TrimPrefix(path, "/api/v3")
	r, _, _ := c.rt.Match(method, p)
	if r == nil || status == 304 || status == 204 {
		return
	}
	s, has, err := c.schema(method, r.Template, status)
	if err != nil {
		if status >= 400 {
			checkBasicError(t, method, path, status, body)
			return
		}
		t.Errorf("contract: %v", err)
		return
	}
	c.mu.Lock()
	c.checked[fmt.Sprintf("%s %s %d", method, r.Template, status)]++
	c.mu.Unlock()
	if !has {
		return
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Errorf("contract: %s %s %d: body is not JSON: %v", method, path, status, err)
		return
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("contract: %s %s %d does not match the schema: %v", method, path, status, err)
	}
}

func checkBasicError(t testing.TB, method, path string, status int, body []byte) {
	t.Helper()
	var e struct {
		Message          *string `json:"message"`
		DocumentationURL *string `json:"documentation_url"`
		Status           *string `json:"status"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Message == nil || e.DocumentationURL == nil || e.Status == nil || *e.Status != strconv.Itoa(status) {
		t.Errorf("contract: %s %s %d: not a GitHub error body: %s", method, path, status, body)
	}
}

// checkingTransport validates every response that passes through it.
type checkingTransport struct {
	t testing.TB
	c *contract
}

func (ct checkingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if !strings.Contains(req.URL.Path, "/_fakehub/") && !strings.Contains(req.URL.Path, "/raw/") {
		ct.c.check(ct.t, req.Method, req.URL.EscapedPath(), resp.StatusCode, body)
	}
	return resp, nil
}

type recordingTB struct {
	testing.TB
	failed bool
}

func (r *recordingTB) Errorf(string, ...any) { r.failed = true }
func (r *recordingTB) Helper()               {}

// TestContractCheckerRejects shows the contract check can fail.
func TestContractCheckerRejects(t *testing.T) {
	c := loadContract(t)
	tests := []struct {
		name, path string
		status     int
		body       string
		wantFail   bool
	}{
		{"missing fields", "/repos/o/r/git/ref/heads/main", 200, `{"ref":"refs/heads/main"}`, true},
		{"valid ref", "/repos/o/r/git/ref/heads/main", 200, `{"ref":"refs/heads/main","node_id":"x","url":"u","object":{"type":"commit","sha":"0123456789012345678901234567890123456789","url":"u"}}`, false},
		{"error status as number", "/repos/o/r", 404, `{"message":"Not Found","documentation_url":"d","status":404}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			c.check(rec, "GET", tc.path, tc.status, []byte(tc.body))
			if rec.failed != tc.wantFail {
				t.Fatalf("failed = %v, want %v", rec.failed, tc.wantFail)
			}
		})
	}
}
