package hub

import (
	"github.com/go-git/go-git/v5/plumbing"
)

func (c *ReqCtx) RefObj(r *Repo, name string, sha plumbing.Hash) Obj {
	return Obj{"ref": name, "node_id": NodeID("Ref", int64(len(name))), "url": c.RepoURL(r) + "/git/" + name,
		"object": Obj{"type": "commit", "sha": sha.String(), "url": c.RepoURL(r) + "/git/commits/" + sha.String()}}
}
