package fakehub

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// GraphQL global ids of reviews, review comments and review threads: like pullNodeID, each
// names its repository, pull request and database id, so that it decodes without a lookup
// table and an id of another pull request is recognised as such.
const (
	reviewIDPrefix        = "PRR_kw"
	reviewCommentIDPrefix = "PRRC_kw"
	reviewThreadIDPrefix  = "PRRT_kw"
)

func scopedNodeID(prefix string, r *repo, number int, id int64) string {
	return prefix + base64.RawURLEncoding.EncodeToString([]byte(r.fullName()+":"+strconv.Itoa(number)+":"+strconv.FormatInt(id, 10)))
}

func reviewNodeID(r *repo, number int, id int64) string {
	return scopedNodeID(reviewIDPrefix, r, number, id)
}

func reviewCommentNodeID(r *repo, number int, id int64) string {
	return scopedNodeID(reviewCommentIDPrefix, r, number, id)
}

// reviewThreadNodeID names a thread by its root comment.
func reviewThreadNodeID(r *repo, number int, rootID int64) string {
	return scopedNodeID(reviewThreadIDPrefix, r, number, rootID)
}

// scopedByNodeID resolves an id made by scopedNodeID with prefix to its repository, pull
// request and database id; false for anything else.
func (h *Hub) scopedByNodeID(prefix, id string) (*repo, *pull, int64, bool) {
	raw, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return nil, nil, 0, false
	}
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return nil, nil, 0, false
	}
	parts := strings.Split(string(b), ":")
	if len(parts) != 3 {
		return nil, nil, 0, false
	}
	n, err1 := strconv.Atoi(parts[1])
	dbID, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, nil, 0, false
	}
	r, ok := h.repos[repoKey(parts[0])]
	if !ok {
		return nil, nil, 0, false
	}
	p := r.pullByNumber(n)
	return r, p, dbID, p != nil
}
