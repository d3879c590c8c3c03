// Package treepatch reads a unified diff as `git diff` writes it and
// applies it, file by file, to contents held in memory: exactly (no fuzz,
// no offset), so that what apply_patch commits is what the author saw.
// Parsing and applying are go-gitdiff's; what this package adds is what the
// contract needs and the library does not give: the stable failure
// categories of docs/errors.md (PATCH_EMPTY, PATCH_MALFORMED,
// PATCH_DOES_NOT_APPLY, FILE_NOT_FOUND) with the file, hunk and line, the
// expected and the found line of a conflict, and the safe-path rule for
// every path named in the patch.
package treepatch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// The failure categories of data.patch.code.
const (
	// CodeEmpty: the text names no file change.
	CodeEmpty = "PATCH_EMPTY"
	// CodeMalformed: the text is not a diff this tool applies.
	CodeMalformed = "PATCH_MALFORMED"
	// CodeDoesNotApply: a hunk does not match the file at the head.
	CodeDoesNotApply = "PATCH_DOES_NOT_APPLY"
	// CodeFileNotFound: a modified, renamed or deleted file is absent.
	CodeFileNotFound = "FILE_NOT_FOUND"
)

// Error is a refused patch: data.patch of docs/errors.md.
type Error struct {
	// Code is one of the Code constants.
	Code string
	// File is the file concerned ("" when none).
	File string
	// Hunk is the 1-based hunk of File (0 when none).
	Hunk int
	// Line is the file's line for CodeDoesNotApply, the patch text's line
	// for CodeMalformed (0 when unknown).
	Line int
	// Detail says what was wrong.
	Detail string
}

// Error renders the category, the place and the detail on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Code)
	if e.File != "" {
		b.WriteString(" in " + e.File)
	}
	if e.Hunk > 0 {
		b.WriteString(" hunk " + strconv.Itoa(e.Hunk))
	}
	if e.Line > 0 {
		b.WriteString(" line " + strconv.Itoa(e.Line))
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}

// PathError is a path in the patch that breaks the safe-path rule: the
// caller's argument is invalid (-32602), not the patch's form.
type PathError struct {
	// Path is the offending path, as written in the patch.
	Path string
	// Reason says which part of the rule it breaks.
	Reason string
}

// Error names the path and the rule.
func (e *PathError) Error() string {
	return fmt.Sprintf("path %q in the patch is not a safe repository path: %s", e.Path, e.Reason)
}

// Kinds of change, PatchedFile.change.
const (
	KindModified = "modified"
	KindAdded    = "added"
	KindDeleted  = "deleted"
	KindRenamed  = "renamed"
	KindCopied   = "copied"
	KindMode     = "mode"
)

// Change is one file of a parsed patch.
type Change struct {
	// Path is the path after the change (the deleted path for a deletion).
	Path string
	// OldPath is the source path of a rename or copy; "" otherwise.
	OldPath string
	// Kind is one of the Kind constants.
	Kind string
	// Added and Removed count the lines.
	Added, Removed int
	// Mode is the git mode to write ("100644", "100755", "120000"); "" to
	// keep the file's current mode.
	Mode string

	file *gitdiff.File
}

// Source is the path whose content the change applies to ("" for a new file).
func (c *Change) Source() string {
	switch {
	case c.Kind == KindAdded:
		return ""
	case c.OldPath != "":
		return c.OldPath
	default:
		return c.Path
	}
}

// gitdiffLineRE finds the line number go-gitdiff puts in its parse errors.
var gitdiffLineRE = regexp.MustCompile(`^(?:line (\d+): )+`)

// Parse reads a patch. It fails with *Error (CodeEmpty, CodeMalformed) or
// *PathError; it never panics on any input (see the fuzz test).
func Parse(text string) ([]*Change, error) {
	// go-gitdiff tidies names (it folds "//" into "/"): the rule applies
	// to the names as written, so that what is refused never depends on
	// the parser's repairs.
	if err := checkHeaderPaths(text); err != nil {
		return nil, err
	}
	files, _, err := gitdiff.Parse(strings.NewReader(text))
	if err != nil {
		e := &Error{Code: CodeMalformed, Detail: strings.TrimPrefix(err.Error(), "gitdiff: ")}
		if m := gitdiffLineRE.FindStringSubmatch(e.Detail); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Detail = strings.TrimPrefix(e.Detail, m[0])
		}
		return nil, e
	}
	if len(files) == 0 {
		return nil, &Error{Code: CodeEmpty, Detail: "the text holds no file change (expected a unified diff as `git diff` writes it)"}
	}
	out := make([]*Change, 0, len(files))
	touched := map[string]bool{}
	for _, f := range files {
		c, err := change(f)
		if err != nil {
			return nil, err
		}
		for _, p := range []string{c.Path, c.OldPath} {
			if p == "" {
				continue
			}
			if touched[p] {
				return nil, &Error{Code: CodeMalformed, File: p, Detail: "the patch changes this path more than once"}
			}
			touched[p] = true
		}
		out = append(out, c)
	}
	return out, nil
}

// change checks one parsed file and describes it.
func change(f *gitdiff.File) (*Change, error) {
	name := f.NewName
	if f.IsDelete {
		name = f.OldName
	}
	if f.IsBinary {
		return nil, &Error{Code: CodeMalformed, File: name, Detail: "binary patches are not supported; write binary files with commit_files (base64)"}
	}
	for _, p := range []string{f.OldName, f.NewName} {
		if p == "" {
			continue
		}
		if reason := CheckPath(p); reason != "" {
			return nil, &PathError{Path: p, Reason: reason}
		}
	}
	if name == "" {
		return nil, &Error{Code: CodeMalformed, Detail: "a file of the patch has no name"}
	}
	c := &Change{Path: name, file: f}
	for _, frag := range f.TextFragments {
		if err := frag.Validate(); err != nil {
			return nil, &Error{Code: CodeMalformed, File: name, Detail: err.Error()}
		}
		c.Added += int(frag.LinesAdded)
		c.Removed += int(frag.LinesDeleted)
	}
	mode, err := gitMode(f.NewMode)
	if err != nil {
		return nil, &Error{Code: CodeMalformed, File: name, Detail: err.Error()}
	}
	c.Mode = mode
	switch {
	case f.IsNew:
		c.Kind = KindAdded
		if c.Mode == "" {
			c.Mode = "100644"
		}
	case f.IsDelete:
		c.Kind = KindDeleted
	case f.IsRename:
		c.Kind, c.OldPath = KindRenamed, f.OldName
	case f.IsCopy:
		c.Kind, c.OldPath = KindCopied, f.OldName
	case len(f.TextFragments) == 0 && f.OldMode != f.NewMode && f.NewMode != 0:
		c.Kind = KindMode
	case len(f.TextFragments) == 0:
		return nil, &Error{Code: CodeEmpty, File: name, Detail: "the file's section changes nothing"}
	default:
		c.Kind = KindModified
	}
	return c, nil
}

// gitMode renders the file mode git writes in trees; 0 is "unchanged".
func gitMode(m os.FileMode) (string, error) {
	switch {
	case m == 0:
		return "", nil
	case m&os.ModeSymlink != 0:
		return "120000", nil
	case m.IsRegular() && m.Perm()&0o111 != 0:
		return "100755", nil
	case m.IsRegular():
		return "100644", nil
	default:
		return "", fmt.Errorf("file mode %o is not one a file can have (100644, 100755 or 120000)", uint32(m))
	}
}

// Apply returns the file's content after the change, given its content at
// the head (nil for an added file). A hunk that does not match exactly is
// an *Error with CodeDoesNotApply naming the hunk, the file's line and the
// expected against the found text.
//
// Beyond the hunks' lines it checks what `git apply` checks (apply.c,
// whose rules the differential test holds this to): a hunk without
// trailing context is anchored at the end of the file, so it applies only
// where the file ends right after it (an end-of-file append does not apply
// twice); and a deletion must leave nothing, so its hunks must be the whole
// file (a hunkless deletion only removes an empty file).
func (c *Change) Apply(old []byte) ([]byte, error) {
	if err := c.checkAnchors(old); err != nil {
		return nil, err
	}
	out, err := c.apply(old)
	if err != nil {
		return nil, err
	}
	if c.Kind == KindDeleted {
		if len(out) > 0 {
			return nil, &Error{Code: CodeDoesNotApply, File: c.Path,
				Detail: fmt.Sprintf("the deletion does not remove the whole file: %d bytes of it are not in the patch", len(out))}
		}
		return nil, nil
	}
	return out, nil
}

// checkAnchors refuses a hunk without trailing context that does not end
// where the file ends. git diff writes such a hunk only at the end of a
// file; git apply (without --unidiff-zero) keeps it there, and so does this.
func (c *Change) checkAnchors(old []byte) error {
	if c.Kind == KindDeleted {
		return nil // the deletion's own rule (nothing left) says more
	}
	n := len(splitLines(old))
	for i, frag := range c.file.TextFragments {
		if frag.TrailingContext > 0 {
			continue
		}
		end := int(frag.OldPosition + frag.OldLines - 1) // last old line
		if frag.OldLines == 0 {
			end = int(frag.OldPosition) // inserted after this line
		}
		if end != n {
			return &Error{Code: CodeDoesNotApply, File: c.Path, Hunk: i + 1, Line: end + 1,
				Detail: fmt.Sprintf("the hunk has no trailing context, so it applies only at the end of the file, which ends at line %d, not %d", n, end)}
		}
	}
	return nil
}

// DeletedContent is the whole content a deletion removes, read from its
// hunks, when they describe a whole file (context-free, consecutive, from
// line 1); ok is false otherwise. The caller compares its blob hash with
// the head's entry instead of reading the file: equal means the deletion
// applies, different means it does not (Apply then says where).
func (c *Change) DeletedContent() (content []byte, ok bool) {
	if c.Kind != KindDeleted {
		return nil, false
	}
	next := int64(1)
	var b bytes.Buffer
	for _, frag := range c.file.TextFragments {
		if frag.OldPosition != next || frag.LinesAdded != 0 || frag.LeadingContext != 0 || frag.TrailingContext != 0 {
			return nil, false
		}
		for _, l := range frag.Lines {
			if l.Op != gitdiff.OpDelete {
				return nil, false
			}
			b.WriteString(l.Line)
		}
		next += frag.OldLines
	}
	return b.Bytes(), true
}

// HasHunks tells a change that needs the file's content (it has hunks)
// from one that moves, copies or re-modes a file as it is.
func (c *Change) HasHunks() bool { return len(c.file.TextFragments) > 0 }

// CheckTree applies the rules about paths that `git apply` checks before
// any content: every file the patch modifies, renames, copies or deletes
// exists at the head (else CodeFileNotFound), and no file it adds, or
// renames or copies onto, exists (else CodeDoesNotApply). exists reports
// whether the head has a file at a path. Parse already refused a patch
// that names a path twice.
func CheckTree(changes []*Change, exists func(path string) bool) error {
	for _, ch := range changes {
		if src := ch.Source(); src != "" && !exists(src) {
			return &Error{Code: CodeFileNotFound, File: src, Detail: "no file " + src + " at the branch head"}
		}
		switch ch.Kind {
		case KindAdded, KindRenamed, KindCopied:
			if exists(ch.Path) {
				return &Error{Code: CodeDoesNotApply, File: ch.Path, Detail: "the patch " + verb[ch.Kind] + " " + ch.Path + ", which already exists at the branch head"}
			}
		}
	}
	return nil
}

// verb says what a change does to its path, for CheckTree's details.
var verb = map[string]string{KindAdded: "adds", KindRenamed: "renames a file onto", KindCopied: "copies a file onto"}

func (c *Change) apply(old []byte) ([]byte, error) {
	var out bytes.Buffer
	err := gitdiff.Apply(&out, bytes.NewReader(old), c.file)
	if err == nil {
		return out.Bytes(), nil
	}
	e := &Error{Code: CodeDoesNotApply, File: c.Path, Detail: strings.TrimPrefix(err.Error(), "gitdiff: ")}
	var ae *gitdiff.ApplyError
	if errors.As(err, &ae) {
		e.Hunk, e.Line = ae.Fragment, int(ae.Line)
		if ae.Fragment >= 1 && ae.Fragment <= len(c.file.TextFragments) {
			if line, detail := mismatch(old, c.file.TextFragments[ae.Fragment-1]); detail != "" {
				e.Line, e.Detail = line, detail
			}
		}
	}
	return nil, e
}

// mismatch finds the first line of frag's old side that differs from old,
// returning its 1-based line in the file and "expected …, found …".
func mismatch(old []byte, frag *gitdiff.TextFragment) (int, string) {
	lines := splitLines(old)
	n := int(frag.OldPosition) - 1
	if frag.OldPosition == 0 {
		n = 0
	}
	for _, fl := range frag.Lines {
		if !fl.Old() {
			continue
		}
		if n < 0 || n >= len(lines) {
			return n + 1, fmt.Sprintf("expected %s, found the end of the file (%d lines)", show(fl.Line), len(lines))
		}
		if lines[n] != fl.Line {
			return n + 1, fmt.Sprintf("expected %s, found %s", show(fl.Line), show(lines[n]))
		}
		n++
	}
	return 0, ""
}

// splitLines splits keeping each line's end, as go-gitdiff's lines are.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// maxShown bounds a line quoted in a detail.
const maxShown = 200

// show quotes a line for a detail, cut to maxShown bytes on a rune boundary.
func show(s string) string {
	s = strings.TrimSuffix(s, "\n")
	if len(s) > maxShown {
		cut := maxShown
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

// headerPrefixes are the header lines that name a path.
var headerPrefixes = []string{"--- ", "+++ ", "rename from ", "rename to ", "copy from ", "copy to "}

// hunkHeaderRE reads a hunk header's line counts.
var hunkHeaderRE = regexp.MustCompile(`^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@`)

// checkHeaderPaths applies CheckPath to every path a header line names,
// skipping the lines of hunks (a removed line "-- x" reads "--- x").
func checkHeaderPaths(text string) error {
	oldLeft, newLeft := 0, 0
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(line, "-"):
				oldLeft--
			case strings.HasPrefix(line, "+"):
				newLeft--
			case strings.HasPrefix(line, "\\"):
			default:
				oldLeft--
				newLeft--
			}
			continue
		}
		if m := hunkHeaderRE.FindStringSubmatch(line); m != nil {
			oldLeft, newLeft = count(m[1]), count(m[2])
			continue
		}
		for _, pre := range headerPrefixes {
			name, ok := strings.CutPrefix(line, pre)
			if !ok {
				continue
			}
			if i := strings.IndexByte(name, '\t'); i >= 0 { // a timestamp follows
				name = name[:i]
			}
			if strings.HasPrefix(name, "\"") {
				if u, err := strconv.Unquote(name); err == nil {
					name = u
				}
			}
			if name == "/dev/null" {
				continue
			}
			if pre == "--- " || pre == "+++ " {
				if rest, ok := strings.CutPrefix(name, "a/"); ok && pre == "--- " {
					name = rest
				} else if rest, ok := strings.CutPrefix(name, "b/"); ok && pre == "+++ " {
					name = rest
				}
			}
			if reason := CheckPath(name); reason != "" {
				return &PathError{Path: name, Reason: reason}
			}
		}
	}
	return nil
}

// count reads a hunk header's count: absent means 1.
func count(s string) int {
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > 1<<24 {
		return 0
	}
	return n
}

// CheckPath applies the safe-path rule (the same as commit_files' path
// pattern): "" when p is safe, else what it breaks.
func CheckPath(p string) string {
	switch {
	case p == "":
		return "empty path"
	case strings.HasPrefix(p, "/"):
		return "leading \"/\""
	case strings.HasSuffix(p, "/"):
		return "trailing \"/\""
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return "control character"
		}
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "":
			return "empty segment (\"//\")"
		case ".", "..":
			return "\"" + seg + "\" segment"
		case ".git":
			return "\".git\" segment"
		}
	}
	return ""
}
