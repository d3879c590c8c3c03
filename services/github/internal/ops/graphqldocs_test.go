package ops

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ghops.dev/services/fakehub/graphqlschema"
)

// graphqlDocument matches the start of an executable GraphQL document.
var graphqlDocument = regexp.MustCompile(`^\s*((query|mutation|subscription)\s*(\w+\s*)?(\([^)]*\)\s*)?\{|fragment\s+\w+\s+on\s+\w+)`)

// documentLiteral is a string literal holding a GraphQL document, and where it is.
type documentLiteral struct {
	pos  token.Position
	text string
	// concatenated is set when the literal is an operand of +: part of a document assembled
	// at run time, which no test can validate.
	concatenated bool
}

// graphqlLiterals finds the GraphQL documents among a file's string literals.
func graphqlLiterals(fset *token.FileSet, file *ast.File) []documentLiteral {
	var out []documentLiteral
	joined := map[*ast.BasicLit]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && b.Op == token.ADD {
			for _, side := range []ast.Expr{b.X, b.Y} {
				if lit, ok := side.(*ast.BasicLit); ok {
					joined[lit] = true
				}
			}
		}
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		text, err := strconv.Unquote(lit.Value)
		if err == nil && graphqlDocument.MatchString(text) {
			out = append(out, documentLiteral{pos: fset.Position(lit.Pos()), text: text, concatenated: joined[lit]})
		}
		return true
	})
	return out
}

// TestGraphQLDocuments validates every GraphQL document in the service's code against GitHub's
// published schema (the one copy, in fakehub's graphqlschema), as GitHub validates it before
// running it; and refuses any document assembled with +, since its text exists only at run time.
func TestGraphQLDocuments(t *testing.T) {
	fset := token.NewFileSet()
	var docs []documentLiteral
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		docs = append(docs, graphqlLiterals(fset, file)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// createCommitOnBranch, convertPullRequestToDraft, markPullRequestReadyForReview at least:
	// fewer means the search is broken.
	if len(docs) < 3 {
		t.Fatalf("found %d GraphQL documents, want at least 3: %+v", len(docs), docs)
	}
	for _, d := range docs {
		t.Run(d.pos.String(), func(t *testing.T) {
			if d.concatenated {
				t.Fatalf("GraphQL document assembled with +: %q", d.text)
			}
			if err := graphqlschema.Validate(d.text); err != nil {
				t.Fatalf("GitHub would refuse %q: %v", d.text, err)
			}
		})
	}
}

// TestGraphQLLiterals shows the search finds documents and concatenations, and passes other
// strings by.
func TestGraphQLLiterals(t *testing.T) {
	tests := []struct {
		name, src string
		want      int
		joined    bool
	}{
		{name: "constant", src: "const q = `mutation($id: ID!) { x(id: $id) { y } }`", want: 1},
		{name: "query keyword", src: `var q = "query Q { viewer { login } }"`, want: 1},
		{name: "assembled", src: `func f(n string) string { return "mutation($id: ID!) { " + n + "(input: {}) { y } }" }`, want: 1, joined: true},
		{name: "not GraphQL", src: `var s = "mutation testing is {fun}"; var t = "{\"a\":1}"`},
		{name: "fragment", src: "const f = `fragment F on Commit { oid }`", want: 1},
		{name: "plain strings", src: `var s = "query"; var u = "mutations"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, "x.go", "package x\n"+tc.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := graphqlLiterals(fset, file)
			if len(got) != tc.want || (tc.want > 0 && got[0].concatenated != tc.joined) {
				t.Fatalf("found %+v, want %d (concatenated %v)", got, tc.want, tc.joined)
			}
		})
	}
}
