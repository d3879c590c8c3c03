package fakehub

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
	h.mu.Lock()
	defer h.mu.Unlock()
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
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return 0, err
	}
	h.nextID++
	t := h.stamp()
	is := &issue{id: h.nextID, number: r.nextNumber(), title: title, body: body, state: "open", user: user,
		labels: []string{}, assignees: []string{}, created: t, updated: t}
	r.issues = append(r.issues, is)
	return is.number, nil
}

// AddIssueComment adds a comment written by user to issue number of repoName and returns its id.
func (h *Hub) AddIssueComment(repoName string, number int, user, body string) (int64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return 0, err
	}
	x, ok := r.issueByNumber(number, true)
	if !ok {
		return 0, errors.New("fakehub: no issue or pull request with that number")
	}
	h.nextID++
	t := h.stamp()
	x.is.comments = append(x.is.comments, &issueComment{id: h.nextID, body: body, user: user, created: t, updated: t})
	x.is.updated = t
	return h.nextID, nil
}
