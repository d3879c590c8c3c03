// Package openapisubset cuts the operations fakehub emulates out of GitHub's published OpenAPI
// description (the dereferenced api.github.com.deref.json of the npm package @octokit/openapi), so
// that the conformance test validates fakehub against GitHub's own response schemas from a small
// committed file (testdata/openapi-subset.json) instead of the 70 MB original.
package openapisubset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Operation is one HTTP method on one path template of the description, as written there
// (for example GET /repos/{owner}/{repo}/git/blobs/{file_sha}).
type Operation struct {
	Method string
	Path   string
}

// String is the operation as the operations file writes it.
func (o Operation) String() string { return o.Method + " " + o.Path }

// ReadOperations reads an operations file: one "METHOD /path" a line; blank lines and lines
// starting with # are ignored, so the file can say why each operation is there.
func ReadOperations(r io.Reader) ([]Operation, error) {
	var ops []Operation
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		method, p, ok := strings.Cut(line, " ")
		p = strings.TrimSpace(p)
		if !ok || !strings.HasPrefix(p, "/") || strings.ContainsAny(p, " \t") || method != strings.ToUpper(method) {
			return nil, fmt.Errorf("openapisubset: line %d: want \"METHOD /path\", got %q", n, line)
		}
		ops = append(ops, Operation{Method: method, Path: p})
	}
	return ops, sc.Err()
}

// Extract returns a description holding only ops, taken from the dereferenced description doc,
// with examples left out (they are most of the size and nothing validates against them). Every
// operation must exist in doc: a typo or a path GitHub renamed fails here rather than leaving a
// silent hole in the conformance test. The output is indented JSON with sorted keys, so a refresh
// shows as a readable diff.
func Extract(doc io.Reader, ops []Operation) ([]byte, error) {
	dec := json.NewDecoder(doc)
	dec.UseNumber() // keep numbers (limits, minimums) exactly as GitHub wrote them
	var full struct {
		OpenAPI string                               `json:"openapi"`
		Info    map[string]any                       `json:"info"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	if err := dec.Decode(&full); err != nil {
		return nil, fmt.Errorf("openapisubset: read description: %w", err)
	}
	paths := map[string]map[string]any{}
	var missing []string
	for _, op := range ops {
		item, ok := full.Paths[op.Path][strings.ToLower(op.Method)]
		if !ok {
			missing = append(missing, op.String())
			continue
		}
		if paths[op.Path] == nil {
			paths[op.Path] = map[string]any{}
		}
		paths[op.Path][strings.ToLower(op.Method)] = withoutExamples(item)
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("openapisubset: not in the description: %s", strings.Join(missing, ", "))
	}
	out := map[string]any{"openapi": full.OpenAPI, "paths": paths}
	if v, ok := full.Info["version"]; ok {
		out["info"] = map[string]any{"title": full.Info["title"], "version": v}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("openapisubset: write: %w", err)
	}
	return buf.Bytes(), nil
}

// withoutExamples drops "example" and "examples" keywords. A "properties" map is walked without
// dropping its keys, since there they name fields of GitHub's objects, not keywords.
func withoutExamples(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			switch k {
			case "example", "examples":
				continue
			case "properties":
				if props, ok := val.(map[string]any); ok {
					kept := make(map[string]any, len(props))
					for name, schema := range props {
						kept[name] = withoutExamples(schema)
					}
					out[k] = kept
					continue
				}
			}
			out[k] = withoutExamples(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = withoutExamples(x[i])
		}
		return out
	}
	return v
}
