package hub

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

// PullFilePatch is the patch of path in the pull request's diff as of commit head (the merge
// base of head and base to head); false when the file is not in that diff or is binary.
func (r *Repo) PullFilePatch(head, base plumbing.Hash, path string) (filePatch, bool) {
	mb := r.Git.MergeBase(head, base)
	ta, tb := &object.Tree{}, &object.Tree{}
	var err error
	if !mb.IsZero() {
		if ta, err = r.Git.Tree(r.TreeOf(mb.String())); err != nil {
			return filePatch{}, false
		}
	}
	if tb, err = r.Git.Tree(r.TreeOf(head.String())); err != nil {
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
func (r *Repo) fileAt(commit plumbing.Hash, path string) (string, bool) {
	tree := r.TreeOf(commit.String())
	if tree.IsZero() {
		return "", false
	}
	files, err := r.Git.Flatten(tree)
	if err != nil {
		return "", false
	}
	e, ok := files[path]
	if !ok {
		return "", false
	}
	data, err := r.Git.Blob(e.Hash)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// carryLines maps lines from..to of path at commit from to their numbers at commit to, as
// GitHub follows a comment to a newer head: while every line of the range is unchanged it moves
// with the edits around it; once one of them changed (or the file went), the comment is
// outdated and the lines are 0 and false.
func (r *Repo) carryLines(from, to plumbing.Hash, path string, first, last int) (int, int, bool) {
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

// DraftComment is one line comment as a client sends it in a review's comments.
type DraftComment struct {
	Path      string `json:"path"`
	Position  *int   `json:"position"`
	Body      string `json:"body"`
	Line      *int   `json:"line"`
	Side      string `json:"side"`
	StartLine *int   `json:"start_line"`
	StartSide string `json:"start_side"`
}

// PlaceComment anchors a draft comment on the diff of head; when it cannot, it answers GitHub's
// reason.
func (r *Repo) PlaceComment(head, base plumbing.Hash, d DraftComment) (*ReviewComment, string) {
	if d.Path == "" {
		return nil, "Path can't be blank"
	}
	if strings.TrimSpace(d.Body) == "" {
		return nil, "Body can't be blank"
	}
	fp, ok := r.PullFilePatch(head, base, d.Path)
	if !ok {
		return nil, "Path could not be resolved"
	}
	side := d.Side
	if side == "" {
		side = "RIGHT"
	}
	if side != "LEFT" && side != "RIGHT" {
		return nil, "Side is not included in the list"
	}
	pos := -1
	switch {
	case d.Line != nil:
		pos = fp.find(side, *d.Line)
	case d.Position != nil && *d.Position > 0 && *d.Position < len(fp.lines):
		// The legacy position counts lines below the first hunk header.
		if pl := fp.lines[*d.Position]; pl.kind != '@' {
			pos = *d.Position
			side = "RIGHT"
			if pl.kind == '-' {
				side = "LEFT"
			}
		}
	}
	if pos < 0 {
		return nil, "Line could not be resolved"
	}
	pl := fp.lines[pos]
	line := pl.new
	if side == "LEFT" {
		line = pl.old
	}
	cm := &ReviewComment{Path: d.Path, Side: side, Line: line, SHA: head.String(), Position: pos, Body: d.Body, DiffHunk: fp.hunkText(pos)}
	if d.StartLine != nil {
		startSide := d.StartSide
		if startSide == "" {
			startSide = side
		}
		if *d.StartLine >= line {
			return nil, "Pull request review thread start line must precede the end line."
		}
		sp := fp.find(startSide, *d.StartLine)
		if sp < 0 || fp.lines[sp].hunk != pl.hunk {
			return nil, "Pull request review thread start line must be part of the same hunk as the line."
		}
		cm.StartLine, cm.StartSide = *d.StartLine, startSide
	}
	return cm, ""
}
