package graphqlapi

import (
	"encoding/base64"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

// Git objects through GraphQL, as GitHub serves them: repository.object(expression:) resolves a
// revision (a branch, a tag, a full or short commit id, or HEAD, the default branch) to its
// commit; a commit's tree lists its entries (Tree.entries: in git order, not paged), and each
// entry's object is a Tree for a directory, a Blob for a file, and null for a submodule (its
// commit lives in another repository). An expression that names nothing, and any expression in
// an empty repository, is null (no error), as on GitHub. fakehub resolves revisions to commits
// only: the "rev:path" form GitHub also accepts answers null here.

// objectField is Repository.object(expression:).
func objectField(r *hub.Repo) graphql.Lazy {
	return func(args map[string]any) (any, *graphql.Error) {
		expr, _ := args["expression"].(string)
		if r.Empty() || expr == "" {
			return nil, nil
		}
		if expr == "HEAD" {
			expr = r.Opts.DefaultBranch
		}
		sha, ok := r.Resolve(expr)
		if !ok {
			return nil, nil
		}
		return commitNode(r, sha), nil
	}
}

// gitNodeID is the global id of a git object of r: GitHub's are opaque, stable per repository
// and object.
func gitNodeID(kind string, r *hub.Repo, oid plumbing.Hash) string {
	return kind + "_" + base64.RawURLEncoding.EncodeToString([]byte(r.FullName()+":"+oid.String()))
}

// gitObjectFields are the fields every GitObject has.
func gitObjectFields(kind string, r *hub.Repo, oid plumbing.Hash) hub.Obj {
	return hub.Obj{"__typename": kind, "id": gitNodeID(kind, r, oid), "oid": oid.String(), "abbreviatedOid": oid.String()[:7]}
}

// commitNode is the Commit sha of r, with its tree.
func commitNode(r *hub.Repo, sha plumbing.Hash) hub.Obj {
	o := gitObjectFields("Commit", r, sha)
	o["tree"] = graphql.Lazy(func(map[string]any) (any, *graphql.Error) {
		tree, err := r.Git.CommitTree(sha)
		if err != nil {
			return nil, graphql.Refusal(graphql.NotFound, "Could not resolve to a Tree with the oid of '"+sha.String()+"'.")
		}
		return treeNode(r, tree, ""), nil
	})
	return o
}

// treeNode is the Tree oid of r, found at path prefix (ending in "/" below the root): each
// entry's path is the full path from the repository's root, as GitHub's.
func treeNode(r *hub.Repo, oid plumbing.Hash, prefix string) hub.Obj {
	o := gitObjectFields("Tree", r, oid)
	o["entries"] = graphql.Lazy(func(map[string]any) (any, *graphql.Error) {
		t, err := r.Git.Tree(oid)
		if err != nil {
			return nil, nil
		}
		entries := make([]any, 0, len(t.Entries))
		for _, e := range t.Entries {
			entries = append(entries, treeEntryNode(r, e.Name, prefix+e.Name, e.Mode, e.Hash))
		}
		return entries, nil
	})
	return o
}

// treeEntryNode is one TreeEntry: type and size as the REST tree gives them (blob, tree or
// commit; size is a blob's byte size, 0 otherwise).
func treeEntryNode(r *hub.Repo, name, path string, mode filemode.FileMode, oid plumbing.Hash) hub.Obj {
	o := hub.Obj{"__typename": "TreeEntry", "name": name, "path": path, "oid": oid.String(), "mode": int(mode), "size": 0,
		"nameRaw": base64.StdEncoding.EncodeToString([]byte(name)), "pathRaw": base64.StdEncoding.EncodeToString([]byte(path))}
	switch mode {
	case filemode.Dir:
		o["type"], o["object"] = "tree", treeNode(r, oid, path+"/")
	case filemode.Submodule:
		o["type"], o["object"] = "commit", nil
	default:
		size, _ := r.Git.BlobSize(oid)
		blob := gitObjectFields("Blob", r, oid)
		blob["byteSize"] = int(size)
		o["type"], o["size"], o["object"] = "blob", int(size), blob
	}
	return o
}
