package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/logtest"
)

// gatewayFiles parses every non-test Go file of the gateway module (the
// directory above internal/), keyed by its path relative to the module.
func gatewayFiles(t *testing.T) map[string]*ast.File {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found %d files under %s: not the gateway module", len(files), root)
	}
	return files
}

// calls lists the files (with a count each) that call a function or
// method named name.
func calls(files map[string]*ast.File, name string) map[string]int {
	found := map[string]int{}
	for path, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch fn := c.Fun.(type) {
			case *ast.Ident:
				if fn.Name == name {
					found[path]++
				}
			case *ast.SelectorExpr:
				if fn.Sel.Name == name {
					found[path]++
				}
			}
			return true
		})
	}
	return found
}

// TestCallPathStructure pins the shape of one call's path through the
// gateway (docs/architecture.md, "One call, one pass"), so that it stays
// true: one recover, in the pipeline's serveCall, which every goroutine
// that runs a handler goes through once per call; one lookup of the tool
// per call, in toolcall.Caller.Call; the tool-call chain's
// order declared once (toolcall's links, installed by New); no second
// chain type nor dispatcher package; and the error contract free of the
// validator.
func TestCallPathStructure(t *testing.T) {
	files := gatewayFiles(t)
	t.Run("one recover", func(t *testing.T) {
		if got, want := calls(files, "recover"), map[string]int{"internal/pipeline/middleware.go": 1}; !mapsEqual(got, want) {
			t.Errorf("recover() sites %v, want %v", got, want)
		}
	})
	t.Run("one lookup of the tool", func(t *testing.T) {
		// toolcall.go: Caller.Lookup itself and Caller.Call's one lookup
		// per call; app.go: counting the offered tools at start-up.
		want := map[string]int{"internal/toolcall/toolcall.go": 2, "internal/app/app.go": 1}
		if got := calls(files, "Lookup"); !mapsEqual(got, want) {
			t.Errorf("Lookup calls %v, want %v: a tool is looked up once per call, in Caller.Call", got, want)
		}
	})
	t.Run("chain order declared once", func(t *testing.T) {
		if got, want := calls(files, "links"), map[string]int{"internal/toolcall/toolcall.go": 1}; !mapsEqual(got, want) {
			t.Errorf("links() called in %v, want once, by toolcall.New", got)
		}
		if got, want := calls(files, "use"), map[string]int{"internal/toolcall/toolcall.go": 1}; !mapsEqual(got, want) {
			t.Errorf("a chain installed in %v, want once, by toolcall.New", got)
		}
	})
	t.Run("one chain type, no dispatcher package", func(t *testing.T) {
		for path, f := range files {
			if strings.HasPrefix(path, "internal/dispatch/") {
				t.Errorf("%s: the dispatcher is toolcall.Caller; MCP's rules are package mcp's", path)
			}
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok {
					continue
				}
				for _, s := range g.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == "Middleware" {
						t.Errorf("%s declares type Middleware: tool calls have one chain (toolcall.Interceptor)", path)
					}
				}
			}
		}
	})
	t.Run("rpcerror imports no validator", func(t *testing.T) {
		for path, f := range files {
			if !strings.HasPrefix(path, "internal/rpcerror/") {
				continue
			}
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); strings.HasSuffix(p, "/toolschema") {
					t.Errorf("%s imports %s", path, p)
				}
			}
		}
	})
}

// mapsEqual compares two counts.
func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestCallLinks: the app's caller runs toolcall's links, in their one
// declared order.
func TestCallLinks(t *testing.T) {
	cfg := config.Default()
	cfg.Addr = "127.0.0.1:0"
	cfg.ServiceAddr = "127.0.0.1:1" // dialled lazily: nothing is called
	a, err := New(cfg, &logtest.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	want := []string{"rate", "resolve", "policy", "confirm", "limits", "audit"}
	if got := a.Caller.Links(); !slices.Equal(got, want) {
		t.Fatalf("links %v, want %v", got, want)
	}
}
