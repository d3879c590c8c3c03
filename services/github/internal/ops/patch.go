package ops

import (
	"cmp"
	"context"
	"crypto/sha1" //nolint:gosec // git's object ids, not a security use
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/progress"
	"ghops.dev/services/github/internal/treepatch"
)

// The default caps of a patch (config.DefaultMaxPatchFiles and
// config.DefaultMaxPatchBytes, repeated here for a Service built without
// them).
const (
	// DefaultMaxPatchFiles caps the files one patch changes.
	DefaultMaxPatchFiles = 64
	// DefaultMaxPatchBytes caps the bytes of one patch.
	DefaultMaxPatchBytes = 1 << 20
)

// ApplyPatch implements the apply_patch tool: the patch is read, checked
// and held to the size caps before any GitHub call; then the branch head,
// its commit, its tree (one recursive read; when GitHub truncates it, one
// read per directory the patch touches instead), one blob read per file whose
// hunks need its content (none for deletions, which are checked against
// the blob hash, pure renames, copies and mode changes), a blob write per
// file whose result is not UTF-8, and commit_files' tail (tree, commit,
// non-forced ref update): at most 6 + 2×files requests, plus one re-read
// of the head when the update is refused. A patch that does not apply
// exactly, or a branch that moved, writes nothing.
func (s *Service) ApplyPatch(ctx context.Context, req *ghopsv1.ApplyPatchRequest) (*ghopsv1.ApplyPatchResponse, error) {
	c := ghstatus.Context{Tool: ghstatus.ToolApplyPatch, Repo: req.GetRepo(), Resource: &ghopsv1.Resource{Type: "branch", Id: req.GetRepo() + "@" + req.GetBranch()}}
	maxBytes, maxFiles := cmp.Or(s.limits.MaxPatchBytes, DefaultMaxPatchBytes), cmp.Or(s.limits.MaxPatchFiles, DefaultMaxPatchFiles)
	if n := len(req.GetPatch()); n > maxBytes {
		// The schema's maxLength counts characters; the service's bound is bytes.
		return nil, patchTooLarge(c, fmt.Sprintf("the patch is %d bytes; at most %d are accepted (the limit -max-patch-bytes)", n, maxBytes), "string.max_len")
	}
	changes, err := treepatch.Parse(req.GetPatch())
	if err != nil {
		return nil, patchStatus(c, err)
	}
	if len(changes) > maxFiles {
		return nil, patchTooLarge(c, fmt.Sprintf("the patch changes %d files; at most %d are accepted in one call (the limit -max-patch-files): split it", len(changes), maxFiles), "maxPatchFiles")
	}
	owner, name := splitRepo(req.GetRepo())
	gh := s.client(ctx)
	ref, err := branchRef(ctx, gh, owner, name, req.GetBranch())
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	parent := ref.GetObject().GetSHA()
	c.SHA, c.ExpectedSHA = parent, parent
	if want := req.GetSha(); want != "" && want != parent {
		c.ExpectedSHA, c.ActualSHA = want, parent
		return nil, ghstatus.New(codes.Aborted, ghopsv1.ErrorReason_ERROR_REASON_HEAD_SHA_MISMATCH,
			"branch head is "+parent+", not the sha the patch was made against ("+want+"); nothing was written",
			c, &ghopsv1.GitHubError{ExpectedSha: want, ActualSha: parent})
	}
	parentCommit, _, err := gh.Git.GetCommit(ctx, owner, name, parent)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	baseTree := parentCommit.GetTree().GetSHA()
	tree, _, err := gh.Git.GetTree(ctx, owner, name, baseTree, true)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	blobs := make(map[string]*github.TreeEntry, len(tree.Entries))
	if tree.GetTruncated() {
		// GitHub cut the listing (over 100,000 entries or 7 MB): read the
		// directories the patch touches instead, one request each.
		if blobs, err = s.touchedBlobs(ctx, gh, owner, name, baseTree, changes, c); err != nil {
			return nil, err
		}
	} else {
		for _, e := range tree.Entries {
			if e.GetType() == "blob" {
				blobs[e.GetPath()] = e
			}
		}
	}

	if err := treepatch.CheckTree(changes, func(p string) bool { _, ok := blobs[p]; return ok }); err != nil {
		return nil, patchStatus(c, err)
	}
	progress.Expect(ctx, patchRequests(changes, blobs))
	entries := make([]*github.TreeEntry, 0, len(changes)+1)
	files := make([]*ghopsv1.PatchedFile, 0, len(changes))
	contents := map[string][]byte{} // by blob sha: each blob is read once
	read := func(e *github.TreeEntry) ([]byte, error) {
		if b, ok := contents[e.GetSHA()]; ok {
			return b, nil
		}
		b, err := s.blob(ctx, gh, owner, name, e.GetSHA(), c)
		contents[e.GetSHA()] = b
		return b, err
	}
	for _, ch := range changes {
		var src *github.TreeEntry // the head's entry the change starts from
		mode := ch.Mode
		if p := ch.Source(); p != "" {
			src = blobs[p]
			if mode == "" {
				mode = src.GetMode()
			}
		}
		if ch.Kind == treepatch.KindRenamed {
			entries = append(entries, &github.TreeEntry{Path: github.String(ch.OldPath), Mode: github.String(src.GetMode()), Type: github.String("blob")})
		}
		switch {
		case ch.Kind == treepatch.KindDeleted:
			// A deletion whose hunks are the whole file is checked against
			// the entry's blob hash, with no read; only one that does not
			// match is read, to say where it differs.
			if want, ok := ch.DeletedContent(); !ok || !sameBlob(want, src.GetSHA()) {
				old, err := read(src)
				if err != nil {
					return nil, err
				}
				if _, err := ch.Apply(old); err != nil {
					return nil, patchStatus(c, err)
				}
			}
			entries = append(entries, &github.TreeEntry{Path: github.String(ch.Path), Mode: github.String(mode), Type: github.String("blob")})
		case src != nil && !ch.HasHunks():
			// A mode change, or a rename or copy without edits: the same
			// blob under its new path or mode, nothing to read.
			entries = append(entries, &github.TreeEntry{Path: github.String(ch.Path), Mode: github.String(mode), Type: github.String("blob"), SHA: src.SHA})
		default:
			var old []byte
			if src != nil {
				if old, err = read(src); err != nil {
					return nil, err
				}
			}
			content, err := ch.Apply(old)
			if err != nil {
				return nil, patchStatus(c, err)
			}
			e := &github.TreeEntry{Path: github.String(ch.Path), Mode: github.String(mode), Type: github.String("blob")}
			if utf8.Valid(content) {
				e.Content = github.String(string(content))
			} else {
				blob, _, err := gh.Git.CreateBlob(ctx, owner, name, &github.Blob{Content: github.String(base64.StdEncoding.EncodeToString(content)), Encoding: github.String("base64")})
				if err != nil {
					return nil, s.fail(ctx, err, c)
				}
				e.SHA = blob.SHA
			}
			entries = append(entries, e)
		}
		files = append(files, &ghopsv1.PatchedFile{Path: ch.Path, OldPath: ch.OldPath, Change: ch.Kind, Added: int32(ch.Added), Removed: int32(ch.Removed)})
	}
	sha, err := s.writeCommit(ctx, gh, c, req.GetBranch(), req.GetMessage(), parent, baseTree, entries)
	if err != nil {
		return nil, err
	}
	return &ghopsv1.ApplyPatchResponse{CommitSha: sha, ParentSha: parent, Branch: req.GetBranch(), Files: files}, nil
}

// touchedBlobs lists the files of every directory a path of the patch is
// in, reading each directory's tree once (non-recursively) from the root
// down: the patch's own part of a repository too large for one recursive
// read. A directory that does not exist holds no files.
func (s *Service) touchedBlobs(ctx context.Context, gh *github.Client, owner, name, root string, changes []*treepatch.Change, c ghstatus.Context) (map[string]*github.TreeEntry, error) {
	dirs := map[string]bool{}
	for _, ch := range changes {
		for _, p := range []string{ch.Path, ch.OldPath} {
			if p == "" {
				continue
			}
			for d := path.Dir(p); ; d = path.Dir(d) {
				if d == "." {
					d = ""
				}
				dirs[d] = true
				if d == "" {
					break
				}
			}
		}
	}
	// Parents before children: a directory's sha is in its parent's listing.
	depth := func(d string) int {
		if d == "" {
			return 0
		}
		return strings.Count(d, "/") + 1
	}
	order := slices.SortedFunc(maps.Keys(dirs), func(a, b string) int {
		return cmp.Or(cmp.Compare(depth(a), depth(b)), cmp.Compare(a, b))
	})
	shas := map[string]string{"": root}
	blobs := map[string]*github.TreeEntry{}
	for _, d := range order {
		sha, ok := shas[d]
		if !ok {
			continue // its parent has no such directory
		}
		t, _, err := gh.Git.GetTree(ctx, owner, name, sha, false)
		if err != nil {
			return nil, s.fail(ctx, err, c)
		}
		for _, e := range t.Entries {
			p := e.GetPath()
			if d != "" {
				p = d + "/" + p
			}
			switch e.GetType() {
			case "blob":
				// A copy: the decoded answer may be shared (package jsonmemo).
				full := *e
				full.Path = github.String(p)
				blobs[p] = &full
			case "tree":
				shas[p] = e.GetSHA()
			}
		}
	}
	return blobs, nil
}

// sameBlob tells whether content is the blob whose git object id is sha
// (SHA-1, or SHA-256 for a repository in that object format).
func sameBlob(content []byte, sha string) bool {
	header := "blob " + strconv.Itoa(len(content)) + "\x00"
	var sum []byte
	switch len(sha) {
	case 2 * sha1.Size:
		h := sha1.New()
		h.Write([]byte(header))
		h.Write(content)
		sum = h.Sum(nil)
	case 2 * sha256.Size:
		h := sha256.New()
		h.Write([]byte(header))
		h.Write(content)
		sum = h.Sum(nil)
	default:
		return false
	}
	return hex.EncodeToString(sum) == strings.ToLower(sha)
}

// blob reads a file's content by its blob sha.
func (s *Service) blob(ctx context.Context, gh *github.Client, owner, name, sha string, c ghstatus.Context) ([]byte, error) {
	b, _, err := gh.Git.GetBlob(ctx, owner, name, sha)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if b.GetEncoding() != "base64" {
		return []byte(b.GetContent()), nil
	}
	out, err := base64.StdEncoding.DecodeString(b.GetContent())
	if err != nil {
		// GitHub wraps base64 at 60 columns.
		out, err = base64.StdEncoding.DecodeString(stripNewlines(b.GetContent()))
	}
	if err != nil {
		return nil, ghstatus.Internal(c)
	}
	return out, nil
}

func stripNewlines(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\n' && s[i] != '\r' {
			out = append(out, s[i])
		}
	}
	return string(out)
}

// patchTooLarge is the -32602 of a patch over a size cap: msg names the
// limit; no GitHub request was sent.
func patchTooLarge(c ghstatus.Context, msg, reason string) error {
	return ghstatus.InvalidField(ghstatus.Context{Tool: c.Tool}, msg, "patch", reason)
}

// patchStatus turns treepatch's refusals into the contract's statuses:
// FILE_NOT_FOUND is -32002, the other categories -32003, each with
// data.patch; an unsafe path is -32602 like commit_files' paths. The
// message names the file, so that the jsonrpc_error line does.
func patchStatus(c ghstatus.Context, err error) error {
	var pathErr *treepatch.PathError
	if errors.As(err, &pathErr) {
		return ghstatus.InvalidField(ghstatus.Context{Tool: c.Tool}, pathErr.Error(), "patch", "string.pattern")
	}
	var pe *treepatch.Error
	if !errors.As(err, &pe) {
		return ghstatus.Internal(c)
	}
	detail := &ghopsv1.PatchError{Code: pe.Code, File: pe.File, Hunk: int32(pe.Hunk), Line: int32(pe.Line), Detail: pe.Detail}
	if pe.Code == treepatch.CodeFileNotFound {
		c.Resource = &ghopsv1.Resource{Type: "file", Id: c.Repo + ":" + pe.File}
		return ghstatus.New(codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_PATCH_FILE_NOT_FOUND, "patch refused: "+pe.Error(), c,
			&ghopsv1.GitHubError{Resource: c.Resource}, detail)
	}
	return ghstatus.New(codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_PATCH_REJECTED, "patch refused: "+pe.Error(), c, nil, detail)
}
