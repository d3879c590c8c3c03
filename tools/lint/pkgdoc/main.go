// Command pkgdoc fails when a Go package has no package doc comment or has
// more than one. revive's package-comments rule checks each file on its own,
// so it cannot see a doc comment repeated across files; go doc then
// concatenates the copies in file order, and they drift apart over time.
//
// Usage:
//
//	pkgdoc DIR...
//
// Every directory under each DIR is checked, except testdata, vendor and
// directories whose names start with "." or "_". A package's _test.go files
// in the same package count too (a doc comment there is a second copy);
// external test packages (name_test) may have at most one. The doc comment of
// a command (package main) must start with "Command <directory name> ".
// Findings go to standard output as file:line: message; the exit status is 1
// when there are any, 2 on a read or parse error.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: pkgdoc DIR...")
		os.Exit(2)
	}
	var findings []string
	for _, root := range os.Args[1:] {
		f, err := checkTree(root)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pkgdoc:", err)
			os.Exit(2)
		}
		findings = append(findings, f...)
	}
	for _, f := range findings {
		fmt.Println(f)
	}
	if len(findings) > 0 {
		os.Exit(1)
	}
}

// checkTree checks every package directory under root and returns the
// findings in directory order.
func checkTree(root string) ([]string, error) {
	var findings []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		f, err := checkDir(path)
		findings = append(findings, f...)
		return err
	})
	return findings, err
}

// docFile is one file's package clause: the package name and where its doc
// comment starts, if it has one.
type docFile struct {
	name string
	doc  *ast.CommentGroup
	pos  token.Position
}

// checkDir checks the packages of one directory. Only package clauses and
// the comments before them are parsed, which keeps a whole-repo run fast.
func checkDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	byPkg := map[string][]docFile{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		f, err := parser.ParseFile(fset, path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return nil, err
		}
		df := docFile{name: path, doc: f.Doc, pos: fset.Position(f.Package)}
		if f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != "" {
			df.pos = fset.Position(f.Doc.Pos())
		} else {
			df.doc = nil
		}
		byPkg[f.Name.Name] = append(byPkg[f.Name.Name], df)
	}
	var findings []string
	for _, pkg := range slices.Sorted(maps.Keys(byPkg)) {
		findings = append(findings, checkPackage(dir, pkg, byPkg[pkg])...)
	}
	return findings, nil
}

// checkPackage applies the one-doc-comment rule to the files of one package.
func checkPackage(dir, pkg string, files []docFile) []string {
	var docs []docFile
	for _, f := range files {
		if f.doc != nil {
			docs = append(docs, f)
		}
	}
	external := strings.HasSuffix(pkg, "_test")
	var findings []string
	switch {
	case len(docs) == 0 && !external:
		findings = append(findings, fmt.Sprintf("%s: package %s has no package doc comment", files[0].pos, pkg))
	case len(docs) > 1:
		for _, d := range docs[1:] {
			findings = append(findings, fmt.Sprintf("%s: package %s doc comment repeated (first in %s); keep exactly one", d.pos, pkg, docs[0].name))
		}
	}
	if pkg == "main" && len(docs) > 0 {
		abs, err := filepath.Abs(dir)
		if err != nil {
			abs = dir
		}
		want := "Command " + filepath.Base(abs) + " "
		if !strings.HasPrefix(docs[0].doc.Text(), want) {
			findings = append(findings, fmt.Sprintf("%s: command doc comment should start with %q", docs[0].pos, want))
		}
	}
	return findings
}
