package ops

import (
	"strconv"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// TestTreeWalk lists GraphQL trees as REST's recursive tree lists them,
// whatever order GitHub's GraphQL gives each directory in, and says when
// the GraphQL answer cannot stand for REST's.
func TestTreeWalk(t *testing.T) {
	blob := func(name string, size int64) gqlTreeEntry {
		return gqlTreeEntry{Name: name, Type: "blob", Size: size, Object: &gqlTree{}}
	}
	dir := func(name string, entries ...gqlTreeEntry) gqlTreeEntry {
		if entries == nil {
			entries = []gqlTreeEntry{}
		}
		return gqlTreeEntry{Name: name, Type: "tree", Size: 0, Object: &gqlTree{Entries: entries}}
	}
	beyond := gqlTreeEntry{Name: "deeper", Type: "tree"} // the document's deepest level: no object
	submodule := gqlTreeEntry{Name: "lib", Type: "commit", Size: 0}
	long := strings.Repeat("n", 1000)
	tests := []struct {
		name      string
		entries   []gqlTreeEntry
		max       int
		want      string // path:type:size, space-separated
		truncated bool
		complete  bool
	}{
		{
			name:    "directories first, as a UI lists them",
			entries: []gqlTreeEntry{dir("a", blob("x", 3)), blob("a-b", 1), blob("a.txt", 2), blob("a0", 4)},
			max:     10, complete: true,
			want: "a-b:blob:1 a.txt:blob:2 a:tree:0 a/x:blob:3 a0:blob:4",
		},
		{
			name:    "reversed, nested",
			entries: []gqlTreeEntry{blob("z", 1), dir("m", blob("b", 2), dir("a", blob("c", 3))), blob("B", 4)},
			max:     10, complete: true,
			want: "B:blob:4 m:tree:0 m/a:tree:0 m/a/c:blob:3 m/b:blob:2 z:blob:1",
		},
		{
			name:    "a submodule has no size",
			entries: []gqlTreeEntry{submodule, blob("README", 7)},
			max:     10, complete: true,
			want: "README:blob:7 lib:commit:0",
		},
		{
			name:    "the service's cap",
			entries: []gqlTreeEntry{blob("c", 1), blob("a", 1), blob("b", 1)},
			max:     2, complete: true, truncated: true,
			want: "a:blob:1 b:blob:1",
		},
		{
			name:    "a directory past the cap may be deeper than the document",
			entries: []gqlTreeEntry{blob("a", 1), beyond},
			max:     1, complete: true, truncated: true,
			want: "a:blob:1",
		},
		{name: "a directory deeper than the document", entries: []gqlTreeEntry{blob("a", 1), beyond}, max: 10},
		{name: "a directory GitHub gave no entries", entries: []gqlTreeEntry{{Name: "d", Type: "tree", Object: &gqlTree{}}}, max: 10},
		{name: "REST would cut it", entries: []gqlTreeEntry{dir("a", manyBlobs(long, 900)...), dir("b", manyBlobs(long, 900)...), dir("c", manyBlobs(long, 900)...),
			dir("d", manyBlobs(long, 900)...), dir("e", manyBlobs(long, 900)...), dir("f", manyBlobs(long, 900)...), dir("g", manyBlobs(long, 900)...)}, max: 10000},
		{name: "a directory of a thousand entries", entries: manyBlobs("f", 1000), max: 10000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := treeWalk{out: &ghopsv1.GetTreeResponse{Sha: "c"}, max: tc.max, entryBytes: restEntryBytes}
			complete := w.walk("", tc.entries)
			if complete != tc.complete {
				t.Fatalf("complete %v, want %v", complete, tc.complete)
			}
			if !complete {
				return
			}
			var got []string
			for _, e := range w.out.Entries {
				got = append(got, e.Path+":"+e.Type+":"+strconv.Itoa(int(e.Size)))
			}
			if strings.Join(got, " ") != tc.want || w.out.Truncated != tc.truncated {
				t.Errorf("got %q truncated %v, want %q truncated %v", strings.Join(got, " "), w.out.Truncated, tc.want, tc.truncated)
			}
		})
	}
}

func manyBlobs(prefix string, n int) []gqlTreeEntry {
	out := make([]gqlTreeEntry, n)
	for i := range out {
		out[i] = gqlTreeEntry{Name: prefix + strconv.Itoa(i), Type: "blob", Size: 1, Object: &gqlTree{}}
	}
	return out
}

// TestTreeQueryDepth: treeQuery reaches treeDepth levels of entries, and
// its fields nest no deeper than the 25 GitHub accepts.
func TestTreeQueryDepth(t *testing.T) {
	doc, err := parser.ParseQuery(&ast.Source{Input: treeQuery})
	if err != nil {
		t.Fatal(err)
	}
	var levels, deepest int
	var walk func(set ast.SelectionSet, depth, entries int)
	walk = func(set ast.SelectionSet, depth, entries int) {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				e := entries
				if s.Name == "entries" {
					e++
				}
				levels, deepest = max(levels, e), max(deepest, depth+1)
				walk(s.SelectionSet, depth+1, e)
			case *ast.InlineFragment:
				walk(s.SelectionSet, depth, entries)
			}
		}
	}
	walk(doc.Operations[0].SelectionSet, 0, 0)
	t.Logf("%d levels of entries, fields %d deep", levels, deepest)
	if levels != treeDepth || deepest > 25 {
		t.Errorf("%d levels of entries (want %d), fields %d deep (GitHub's limit 25)", levels, treeDepth, deepest)
	}
}
