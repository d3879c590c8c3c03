package hub

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Issue is one issue of a repository, or the issue side of a pull request: GitHub numbers issues
// and pull requests in one sequence and keeps a pull request's labels, assignees, milestone and
// conversation comments on its issue. For a pull request's side, title, body and state live on the
// pull and are unused here.
type Issue struct {
	ID                         int64
	Number                     int
	Title, Body, State         string
	StateReason                string // "" is null
	User, ClosedBy             string
	Labels, Assignees          []string
	Milestone                  int // number; 0 for none
	Created, Updated, ClosedAt time.Time
	Comments                   []*IssueComment
	// Parent is the issue this one is a sub-issue of (nil for none), in any repository;
	// SubIssues are its own, in order.
	Parent    *Issue
	SubIssues []*Issue
}

// IssueComment is a comment on an issue or pull request.
type IssueComment struct {
	ID               int64
	Body, User       string
	Created, Updated time.Time
}

// Label is a repository's label.
type Label struct {
	id                       int64
	Name, color, description string
	IsDefault                bool
}

// Milestone is a repository's milestone.
type Milestone struct {
	ID                 int64
	Number             int
	Title, Description string
	State, Creator     string
	Created, Updated   time.Time
	// DueOn and ClosedAt are zero for none.
	DueOn, ClosedAt time.Time
}

// IssueRef is what an issue number names: a plain issue, or a pull request with its issue side.
type IssueRef struct {
	Is *Issue
	P  *Pull
}

// issueFields are the fields a plain issue and a pull request both have.
type issueFields struct {
	Title, Body, State, User string
	Created, Updated         time.Time
}

// Fields returns what x names: a pull request's own fields when it is one
// (its issue side keeps labels, assignees and comments), else the issue's.
func (x IssueRef) Fields() issueFields {
	if p := x.P; p != nil {
		return issueFields{Title: p.Title, Body: p.Body, State: p.State, User: p.user, Created: p.created, Updated: p.Updated}
	}
	is := x.Is
	return issueFields{Title: is.Title, Body: is.Body, State: is.State, User: is.User, Created: is.Created, Updated: is.Updated}
}

// Updated is when the issue or pull request last changed.
func (x IssueRef) Updated() time.Time {
	if x.P != nil && x.P.Updated.After(x.Is.Updated) {
		return x.P.Updated
	}
	return x.Is.Updated
}

// issueSide returns the issue side of pull request p, creating it on first use (callers that may
// create hold the hub's lock exclusively; readers use issueSideOrZero).
func (r *Repo) issueSide(p *Pull) *Issue {
	if r.pullIssues == nil {
		r.pullIssues = map[int]*Issue{}
	}
	is, ok := r.pullIssues[p.Number]
	if !ok {
		is = &Issue{ID: p.id, Number: p.Number, Created: p.created, Updated: p.Updated}
		r.pullIssues[p.Number] = is
	}
	return is
}

// issueSideOrZero is issueSide without creating: a pull request nobody labelled or commented on
// has an empty side.
func (r *Repo) issueSideOrZero(p *Pull) *Issue {
	if is, ok := r.pullIssues[p.Number]; ok {
		return is
	}
	return &Issue{ID: p.id, Number: p.Number, Created: p.created, Updated: p.Updated}
}

// issueByNumber finds issue or pull request n; write asks for a pull request's side to be kept.
func (r *Repo) issueByNumber(n int, write bool) (IssueRef, bool) {
	for _, is := range r.Issues {
		if is.Number == n {
			return IssueRef{Is: is}, true
		}
	}
	if p := r.PullByNumber(n); p != nil {
		if write {
			return IssueRef{Is: r.issueSide(p), P: p}, true
		}
		return IssueRef{Is: r.issueSideOrZero(p), P: p}, true
	}
	return IssueRef{}, false
}

// AllIssues lists every issue and pull request by number, as GitHub's issues list sees them.
func (r *Repo) AllIssues() []IssueRef {
	out := make([]IssueRef, 0, len(r.Issues)+len(r.Pulls))
	for _, is := range r.Issues {
		out = append(out, IssueRef{Is: is})
	}
	for _, p := range r.Pulls {
		out = append(out, IssueRef{Is: r.issueSideOrZero(p), P: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Is.Number < out[j].Is.Number })
	return out
}

// LabelNamed is r's label called name (compared case-insensitively, as GitHub does), nil when
// there is none.
func (r *Repo) LabelNamed(name string) *Label { return r.labelNamed(name) }

// Color is the label's hex colour, without "#".
func (l *Label) Color() string { return l.color }

// UpdateLabel changes the given members of l; a new name is carried over to every issue and pull
// request of r that has the label, as GitHub keeps labels by identity.
func (r *Repo) UpdateLabel(l *Label, name, color, description *string) {
	if name != nil && *name != l.Name {
		for _, x := range r.AllIssues() {
			for i, n := range x.Is.Labels {
				if strings.EqualFold(n, l.Name) {
					x.Is.Labels[i] = *name
				}
			}
		}
		l.Name = *name
	}
	if color != nil {
		l.color = *color
	}
	if description != nil {
		l.description = *description
	}
}

// IssueSideLocked is the issue side of issue or pull request number n, kept for a write (the
// caller holds the hub's lock exclusively).
func (r *Repo) IssueSideLocked(n int) (IssueRef, bool) { return r.issueByNumber(n, true) }

// IssueByID finds a plain issue of any repository by its id, with its repository.
func (h *Hub) IssueByID(id int64) (*Repo, *Issue) {
	for _, r := range h.Repos {
		for _, is := range r.Issues {
			if is.ID == id {
				return r, is
			}
		}
	}
	return nil, nil
}

// RepoOfIssue is the repository holding plain issue is.
func (h *Hub) RepoOfIssue(is *Issue) *Repo {
	for _, r := range h.Repos {
		for _, o := range r.Issues {
			if o == is {
				return r
			}
		}
	}
	return nil
}

func (r *Repo) labelNamed(name string) *Label {
	for _, l := range r.Labels {
		if strings.EqualFold(l.Name, name) {
			return l
		}
	}
	return nil
}

// MilestoneNumbered is the milestone with number n, nil when there is none.
func (r *Repo) MilestoneNumbered(n int) *Milestone {
	for _, m := range r.Milestones {
		if m.Number == n {
			return m
		}
	}
	return nil
}

// AddLabelLocked creates a label; GitHub's default colour for labels made on the fly is ededed.
func (h *Hub) AddLabelLocked(r *Repo, name, color, description string) *Label {
	if l := r.labelNamed(name); l != nil {
		return l
	}
	if color == "" {
		color = "ededed"
	}
	h.NextID++
	l := &Label{id: h.NextID, Name: name, color: color, description: description}
	r.Labels = append(r.Labels, l)
	return l
}

// Assignable reports whether login may be assigned an issue of r: GitHub accepts users with push
// access (here: a token's user with write permission) and the repository's owner when a user.
func (h *Hub) Assignable(r *Repo, login string) bool {
	if strings.EqualFold(login, r.Opts.Owner) && h.userType(login) == "User" {
		return true
	}
	for _, t := range h.tokens {
		if strings.EqualFold(t.Login, login) && h.Perm(t, r) == PermWrite {
			return true
		}
	}
	return false
}

// LabelObj is a label as the REST API renders it.
func (c *ReqCtx) LabelObj(r *Repo, l *Label) Obj {
	return Obj{
		"id": l.id, "node_id": NodeID("Label", l.id), "url": c.RepoURL(r) + "/labels/" + url.PathEscape(l.Name),
		"name": l.Name, "color": l.color, "default": l.IsDefault, "description": nullStr(l.description),
	}
}

// MilestoneObj is a milestone as the REST API renders it.
func (c *ReqCtx) MilestoneObj(r *Repo, m *Milestone) Obj {
	open, closed := 0, 0
	for _, x := range r.AllIssues() {
		if x.Is.Milestone != m.Number {
			continue
		}
		if x.Fields().State == "open" {
			open++
		} else {
			closed++
		}
	}
	u := c.RepoURL(r) + "/milestones/" + strconv.Itoa(m.Number)
	return Obj{
		"url": u, "html_url": c.Web + "/" + r.FullName() + "/milestone/" + strconv.Itoa(m.Number),
		"labels_url": u + "/labels", "id": m.ID, "node_id": NodeID("Milestone", m.ID), "number": m.Number,
		"state": m.State, "title": m.Title, "description": nullStr(m.Description), "creator": c.user(m.Creator),
		"open_issues": open, "closed_issues": closed, "created_at": Ts(m.Created), "updated_at": Ts(m.Updated),
		"closed_at": NullTime(m.ClosedAt), "due_on": NullTime(m.DueOn),
	}
}

// labelObjs are the label objects of names, in their order.
func (c *ReqCtx) labelObjs(r *Repo, names []string) []Obj {
	out := []Obj{}
	for _, name := range names {
		if l := r.labelNamed(name); l != nil {
			out = append(out, c.LabelObj(r, l))
		}
	}
	return out
}

// assigneeObjs are GitHub's assignee (the first, or null) and assignees of logins.
func (c *ReqCtx) assigneeObjs(logins []string) (any, []Obj) {
	out := []Obj{}
	for _, a := range logins {
		out = append(out, c.user(a))
	}
	if len(out) == 0 {
		return nil, out
	}
	return out[0], out
}

func (c *ReqCtx) milestoneOrNil(r *Repo, n int) any {
	if m := r.MilestoneNumbered(n); m != nil {
		return c.MilestoneObj(r, m)
	}
	return nil
}

// IssueObj is GitHub's "issue" shape; a pull request's carries the pull_request link object.
func (c *ReqCtx) IssueObj(r *Repo, x IssueRef) Obj {
	n := strconv.Itoa(x.Is.Number)
	u := c.RepoURL(r) + "/issues/" + n
	html := c.Web + "/" + r.FullName() + "/issues/" + n
	labels := c.labelObjs(r, x.Is.Labels)
	assignee, assignees := c.assigneeObjs(x.Is.Assignees)
	ms := c.milestoneOrNil(r, x.Is.Milestone)
	var closedBy any
	f := x.Fields()
	state, reason, closedAt := f.State, nullStr(x.Is.StateReason), x.Is.ClosedAt
	if x.P != nil {
		closedAt, reason = x.P.ClosedAt, nil
	}
	if x.Is.ClosedBy != "" && state == "closed" {
		closedBy = c.user(x.Is.ClosedBy)
	}
	o := Obj{
		"id": x.Is.ID, "node_id": NodeID("Issue", x.Is.ID), "url": u, "repository_url": c.RepoURL(r),
		"labels_url": u + "/labels{/name}", "comments_url": u + "/comments", "events_url": u + "/events",
		"timeline_url": u + "/timeline", "html_url": html, "number": x.Is.Number, "state": state,
		"state_reason": reason, "title": f.Title, "body": nullStr(f.Body), "user": c.user(f.User),
		"labels": labels, "assignee": assignee, "assignees": assignees, "milestone": ms, "locked": false,
		"active_lock_reason": nil, "comments": len(x.Is.Comments), "closed_at": NullTime(closedAt),
		"created_at": Ts(f.Created), "updated_at": Ts(x.Updated()), "closed_by": closedBy,
		"author_association": c.association(r, f.User),
	}
	if x.P == nil {
		done := 0
		for _, sub := range x.Is.SubIssues {
			if sub.State == "closed" {
				done++
			}
		}
		pct := 0
		if len(x.Is.SubIssues) > 0 {
			pct = done * 100 / len(x.Is.SubIssues)
		}
		o["sub_issues_summary"] = Obj{"total": len(x.Is.SubIssues), "completed": done, "percent_completed": pct}
		if p := x.Is.Parent; p != nil {
			if pr := c.h.RepoOfIssue(p); pr != nil {
				o["parent_issue_url"] = c.RepoURL(pr) + "/issues/" + strconv.Itoa(p.Number)
			}
		}
	}
	if x.P != nil {
		pu := c.Web + "/" + r.FullName() + "/pull/" + n
		o["html_url"] = pu
		o["draft"] = x.P.Draft
		o["pull_request"] = Obj{
			"url": c.RepoURL(r) + "/pulls/" + n, "html_url": pu, "diff_url": pu + ".diff", "patch_url": pu + ".patch",
			"merged_at": NullTime(x.P.mergedAt),
		}
	}
	return o
}

// association is GitHub's author_association: OWNER for the owner, COLLABORATOR for a user with
// write access, NONE otherwise.
func (c *ReqCtx) association(r *Repo, login string) string {
	if a, ok := r.associations[strings.ToLower(login)]; ok {
		return a
	}
	switch {
	case strings.EqualFold(login, r.Opts.Owner):
		return "OWNER"
	case c.h.Assignable(r, login):
		return "COLLABORATOR"
	}
	return "NONE"
}

// CommentObj is a comment on x as the REST API renders it.
func (c *ReqCtx) CommentObj(r *Repo, x IssueRef, cm *IssueComment) Obj {
	n := strconv.Itoa(x.Is.Number)
	html := c.Web + "/" + r.FullName() + "/issues/" + n
	if x.P != nil {
		html = c.Web + "/" + r.FullName() + "/pull/" + n
	}
	return Obj{
		"id": cm.ID, "node_id": NodeID("IssueComment", cm.ID),
		"url":      c.RepoURL(r) + "/issues/comments/" + strconv.FormatInt(cm.ID, 10),
		"html_url": html + "#issuecomment-" + strconv.FormatInt(cm.ID, 10), "body": cm.Body,
		"user": c.user(cm.User), "created_at": Ts(cm.Created), "updated_at": Ts(cm.Updated),
		"issue_url": c.RepoURL(r) + "/issues/" + n, "author_association": c.association(r, cm.User),
	}
}

// IssueNumber reads {issue_number}; anything but a positive integer names no issue.
func (c *ReqCtx) IssueNumber(r *Repo, write bool) (IssueRef, bool) {
	n, err := strconv.Atoi(c.Params["issue_number"])
	if err != nil || n < 1 {
		return IssueRef{}, false
	}
	return r.issueByNumber(n, write)
}

// HasLabels reports whether is carries every label in want (names compared case-insensitively).
func HasLabels(is *Issue, want []string) bool {
	for _, w := range want {
		found := false
		for _, l := range is.Labels {
			found = found || strings.EqualFold(l, w)
		}
		if !found {
			return false
		}
	}
	return true
}

// PersonMatches applies GitHub's assignee/creator filter: a login, "none" or "*".
func PersonMatches(filter string, people []string) bool {
	switch filter {
	case "":
		return true
	case "*":
		return len(people) > 0
	case "none":
		return len(people) == 0
	}
	for _, p := range people {
		if strings.EqualFold(p, filter) {
			return true
		}
	}
	return false
}
