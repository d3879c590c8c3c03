package ops_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"
)

// TestNoToolNameLiterals keeps tool names out of the service's hand-written
// code: a name is written once, in proto, and reaches Go as ghopsv1's
// generated Tool constants (gen/ghops/v1/tools.gen.go), so that renaming a
// tool or adding one needs no string here. "search" is also GitHub's name
// of its search rate limit, so that literal is refused only where it names
// a tool (a Tool field).
func TestNoToolNameLiterals(t *testing.T) {
	names := map[string]bool{}
	methods := ghopsv1.File_ghops_v1_github_service_proto.Services().Get(0).Methods()
	for i := range methods.Len() {
		if to, ok := proto.GetExtension(methods.Get(i).Options(), ghopsv1.E_Tool).(*ghopsv1.ToolOptions); ok && to.GetName() != "" {
			names[to.GetName()] = true
		}
	}
	if !names[ghopsv1.ToolGetCommit] {
		t.Fatal("the descriptors' tool names are not read")
	}
	root := filepath.Join("..", "..") // the services/github module
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Tool" {
					if lit, ok := n.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						t.Errorf("%s: Tool: %s: use ghopsv1's Tool constant", fset.Position(lit.Pos()), lit.Value)
					}
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && names[s] && s != ghopsv1.ToolSearch {
					t.Errorf("%s: the tool name %s is a literal: use ghopsv1.Tool…", fset.Position(n.Pos()), n.Value)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
