package fakehub

import (
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Where a review comment may sit, as GitHub decides it: on a line of the pull request's diff
// (the file's patch from the merge base to the commit reviewed, three lines of context), on
// the RIGHT (the head's numbering: added and context lines) or the LEFT (the base's: removed
// and context lines). A multi-line comment's start line must be in the same hunk.

// patchLine is one line of a file's patch below its first hunk header.
type patchLine struct {
	kind     byte // ' ', '+', '-' or '@' for a hunk header
	old, new int  // line numbers on the LEFT and RIGHT (0 where the line is not on that side)
	hunk     int  // which hunk, from 0
	text     string
}

// filePatch is a file's patch parsed into lines; position n (GitHub's diff position) is
// lines[n], the first hunk header being position 0.
type filePatch struct{ lines []patchLine }

// parsePatch reads the hunks that diffs.go's hunks writes (unified diff text from the first
// "@@" on); only fakehub's own output reaches it.
func parsePatch(text string) filePatch {
	var fp filePatch
	old, nw, hunk := 0, 0, -1
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "@@") {
			hunk++
			old, nw = hunkStarts(l)
			fp.lines = append(fp.lines, patchLine{kind: '@', hunk: hunk, text: l})
			continue
		}
		if hunk < 0 || l == "" || l[0] == '\\' {
			continue
		}
		pl := patchLine{kind: l[0], hunk: hunk, text: l}
		switch l[0] {
		case '+':
			pl.new, nw = nw, nw+1
		case '-':
			pl.old, old = old, old+1
		default:
			pl.kind = ' '
			pl.old, pl.new = old, nw
			old, nw = old+1, nw+1
		}
		fp.lines = append(fp.lines, pl)
	}
	return fp
}

// hunkStarts reads the first line numbers of "@@ -a,b +c,d @@".
func hunkStarts(header string) (old, nw int) {
	f := strings.Fields(header)
	if len(f) < 3 {
		return 1, 1
	}
	num := func(s string) int {
		s, _, _ = strings.Cut(s[1:], ",")
		n, _ := strconv.Atoi(s)
		return n
	}
	return num(f[1]), num(f[2])
}

// find reports the position of line on side (LEFT or RIGHT), or -1.
func (fp filePatch) find(side string, line int) int {
	for i, pl := range fp.lines {
		if pl.kind == '@' {
			continue
		}
		if side == "LEFT" && pl.kind != '+' && pl.old == line || side != "LEFT" && pl.kind != '-' && pl.new == line {
			return i
		}
	}
	return -1
}

// hunkText is GitHub's diff_hunk of a comment at position pos: its hunk's header through pos.
func (fp filePatch) hunkText(pos int) string {
	start := pos
	for start > 0 && fp.lines[start].kind != '@' {
		start--
	}
	parts := make([]string, 0, pos-start+1)
	for _, pl := range fp.lines[start : pos+1] {
		parts = append(parts, pl.text)
	}
	return strings.Join(parts, "\n")
}

// pullFilePatch is the patch of path in the pull request's diff as of commit head (the merge
// base of head and base to head); false when the file is not in that diff or is binary.
func (r *repo) pullFilePatch(head, base plumbing.Hash, path string) (filePatch, bool) {
	mb := r.git.MergeBase(head, base)
	ta, tb := &object.Tree{}, &object.Tree{}
	var err error
	if !mb.IsZero() {
		if ta, err = r.git.Tree(r.treeOf(mb.String())); err != nil {
			return filePatch{}, false
		}
	}
	if tb, err = r.git.Tree(r.treeOf(head.String())); err != nil {
		return filePatch{}, false
	}
	changes, err := object.DiffTree(ta, tb)
	if err != nil {
		return filePatch{}, false
	}
	for _, ch := range changes {
		if changePath(ch) != path {
			continue
		}
		patch, err := ch.Patch()
		if err != nil || len(patch.FilePatches()) != 1 || patch.FilePatches()[0].IsBinary() {
			return filePatch{}, false
		}
		text := hunks(patch)
		if text == "" {
			return filePatch{}, false
		}
		return parsePatch(text), true
	}
	return filePatch{}, false
}

// fileAt is the content of path at commit, "" and false when it has none.
func (r *repo) fileAt(commit plumbing.Hash, path string) (string, bool) {
	tree := r.treeOf(commit.String())
	if tree.IsZero() {
		return "", false
	}
	files, err := r.git.Flatten(tree)
	if err != nil {
		return "", false
	}
	e, ok := files[path]
	if !ok {
		return "", false
	}
	data, err := r.git.Blob(e.Hash)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// carryLines maps lines from..to of path at commit from to their numbers at commit to, as
// GitHub follows a comment to a newer head: while every line of the range is unchanged it moves
// with the edits around it; once one of them changed (or the file went), the comment is
// outdated and the lines are 0 and false.
func (r *repo) carryLines(from, to plumbing.Hash, path string, first, last int) (int, int, bool) {
	if from == to {
		return first, last, true
	}
	a, okA := r.fileAt(from, path)
	b, okB := r.fileAt(to, path)
	if !okA || !okB {
		return 0, 0, false
	}
	oldLine, newLine := 1, 1
	moved := map[int]int{}
	for _, d := range diff.Do(a, b) {
		n := strings.Count(d.Text, "\n")
		if !strings.HasSuffix(d.Text, "\n") {
			n++
		}
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			for i := 0; i < n; i++ {
				moved[oldLine+i] = newLine + i
			}
			oldLine, newLine = oldLine+n, newLine+n
		case diffmatchpatch.DiffDelete:
			oldLine += n
		case diffmatchpatch.DiffInsert:
			newLine += n
		}
	}
	for l := first; l <= last; l++ {
		if _, ok := moved[l]; !ok {
			return 0, 0, false
		}
	}
	return moved[first], moved[last], true
}
