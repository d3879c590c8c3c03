package ops

import (
	"github.com/google/go-github/v66/github"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/github/internal/treepatch"
)

// commitRequests is how many GitHub requests commit_files makes for files
// (its doc comment counts them), the total its progress runs against
// (package progress): through GraphQL (plan not nil) the head and the
// mutation; through the git data API the head, its commit, a blob per
// base64 file, the tree, the commit and the ref update.
func commitRequests(plan *commitOnBranchPlan, files []*ghopsv1.FileChange) int {
	if plan != nil {
		return 2
	}
	n := 5
	for _, f := range files {
		if f.GetEncoding() == "base64" {
			n++
		}
	}
	return n
}

// patchRequests is how many more GitHub requests apply_patch makes once it
// has read the tree (blobs): one read per distinct blob whose content a
// change with hunks needs, and commit_files' tail (tree, commit, ref
// update). It leaves out what it cannot know before applying the hunks (a
// blob write per result that is not UTF-8, the read of a deletion that
// does not match its blob): package progress raises the total if the call
// makes more.
func patchRequests(changes []*treepatch.Change, blobs map[string]*github.TreeEntry) int {
	reads := map[string]bool{}
	for _, ch := range changes {
		src := blobs[ch.Source()]
		if ch.Kind == treepatch.KindDeleted || src == nil || !ch.HasHunks() {
			continue
		}
		reads[src.GetSHA()] = true
	}
	return len(reads) + 3
}
