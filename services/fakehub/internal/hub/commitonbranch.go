package hub

import (
	"ghops.dev/services/fakehub/internal/gitstore"
	"ghops.dev/services/fakehub/internal/graphql"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// ChangedFiles is the branch head's files with the deletions and additions applied, the blobs
// of the additions written; a deletion of a path the head does not have is refused.
func (r *Repo) ChangedFiles(head plumbing.Hash, expected string, additions []FileAddition, deletions []string) (map[string]gitstore.Entry, *graphql.Error) {
	unprocessable := func(msg string) (map[string]gitstore.Entry, *graphql.Error) {
		return nil, graphql.Refusal(graphql.Unprocessable, msg)
	}
	baseTree, err := r.Git.CommitTree(head)
	if err != nil {
		return unprocessable("the branch head is not a commit")
	}
	files, err := r.Git.Flatten(baseTree)
	if err != nil {
		return unprocessable("the branch head's tree cannot be read")
	}
	for _, p := range deletions {
		if _, ok := files[p]; !ok {
			return unprocessable("A path was requested for deletion which does not exist as of commit oid `" + expected + "`: " + p)
		}
		delete(files, p)
	}
	for _, a := range additions {
		sha, err := r.Git.WriteBlob(a.Data)
		if err != nil {
			return unprocessable("the contents of " + a.Path + " cannot be stored")
		}
		files[a.Path] = gitstore.Entry{Mode: filemode.Regular, Hash: sha}
	}
	return files, nil
}

// FileAddition is one decoded FileAddition.
type FileAddition struct {
	Path string
	Data []byte
}
