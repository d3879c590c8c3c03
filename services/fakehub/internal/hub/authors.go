package hub

import (
	"errors"
	"strings"
)

// Associations are GitHub's author_association values, for SetAuthorAssociation.
var Associations = []string{"OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER", "MANNEQUIN", "NONE"}

// SetAuthorAssociation makes login's author_association on repoName association (one of
// Associations) in every issue, comment and pull request it wrote there, whatever its access: the
// tests of readers that weigh text by its author need authors of every kind.
func (h *Hub) SetAuthorAssociation(repoName, login, association string) error {
	known := false
	for _, a := range Associations {
		known = known || a == association
	}
	if !known {
		return errors.New("fakehub: unknown author_association " + association)
	}
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return err
	}
	if r.associations == nil {
		r.associations = map[string]string{}
	}
	r.associations[strings.ToLower(login)] = association
	return nil
}

// AddIssue opens an issue on repoName written by user (any login, with or without a token) and
// returns its number.
func (h *Hub) AddIssue(repoName, user, title, body string) (int, error) {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return 0, err
	}
	h.NextID++
	t := h.Stamp()
	is := &Issue{ID: h.NextID, Number: r.NextNumber(), Title: title, Body: body, State: "open", User: user,
		Labels: []string{}, Assignees: []string{}, Created: t, Updated: t}
	r.Issues = append(r.Issues, is)
	return is.Number, nil
}

// AddIssueComment adds a comment written by user to issue number of repoName and returns its id.
func (h *Hub) AddIssueComment(repoName string, number int, user, body string) (int64, error) {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return 0, err
	}
	x, ok := r.issueByNumber(number, true)
	if !ok {
		return 0, errors.New("fakehub: no issue or pull request with that number")
	}
	h.NextID++
	t := h.Stamp()
	x.Is.Comments = append(x.Is.Comments, &IssueComment{ID: h.NextID, Body: body, User: user, Created: t, Updated: t})
	x.Is.Updated = t
	return h.NextID, nil
}
