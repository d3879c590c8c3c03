package hub

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// pullNodeID is a pull request's GraphQL global id: stable for the repository and number, and
// decodable without a lookup table.
func pullNodeID(r *Repo, number int) string {
	return "PR_kw" + base64.RawURLEncoding.EncodeToString([]byte(r.FullName()+":"+strconv.Itoa(number)))
}

// pullNode is the part of GraphQL's PullRequest type fakehub answers.
func (c *ReqCtx) PullNode(r *Repo, p *Pull) Obj {
	state := strings.ToUpper(p.State)
	if p.Merged {
		state = "MERGED"
	}
	return Obj{
		"__typename": "PullRequest", "id": pullNodeID(r, p.Number), "number": p.Number, "isDraft": p.Draft,
		"state": state, "title": p.Title, "url": c.Web + "/" + r.FullName() + "/pull/" + strconv.Itoa(p.Number),
		"closed": p.State == "closed", "merged": p.Merged,
	}
}
