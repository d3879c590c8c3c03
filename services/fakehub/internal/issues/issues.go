// Package issues serves fakehub's issue routes: issues, their comments, labels and milestones.
package issues

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/hub"
)

// registerIssues adds the issue, comment, label and milestone routes.
func (h *api) registerIssues(add hub.AddFunc) {
	add("GET", "/repos/{owner}/{repo}/issues", h.WithRepo(hub.PermRead, h.listIssues))
	add("POST", "/repos/{owner}/{repo}/issues", h.WithRepo(hub.PermRead, h.createIssue))
	add("GET", "/repos/{owner}/{repo}/issues/{issue_number}", h.WithRepo(hub.PermRead, h.getIssue))
	add("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}", h.WithRepo(hub.PermWrite, h.updateIssue))
	add("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", h.WithRepo(hub.PermRead, h.listIssueComments))
	add("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", h.WithRepo(hub.PermRead, h.createIssueComment))
	add("GET", "/repos/{owner}/{repo}/labels", h.WithRepo(hub.PermRead, h.listLabels))
	add("GET", "/repos/{owner}/{repo}/milestones", h.WithRepo(hub.PermRead, h.listMilestones))
	h.registerMilestones(add)
	h.registerLabels(add)
	h.registerSubIssues(add)
}

// listIssues answers GET /repos/{owner}/{repo}/issues. As on GitHub, pull requests are in the list
// (each with a pull_request key) unless the caller filters them out.
func (h *api) listIssues(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	q := c.Req.URL.Query()
	state := q.Get("state")
	switch state {
	case "":
		state = "open"
	case "open", "closed", "all":
	default:
		return hub.Validation(hub.Invalid("Issue", "state", "invalid", ""))
	}
	var since time.Time
	if s := q.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return hub.Validation(hub.Invalid("Issue", "since", "invalid", ""))
		}
		since = t
	}
	var wantLabels []string
	if s := q.Get("labels"); s != "" {
		for _, l := range strings.Split(s, ",") {
			if l = strings.TrimSpace(l); l != "" {
				wantLabels = append(wantLabels, l)
			}
		}
	}
	var hits []hub.IssueRef
	for _, x := range r.AllIssues() {
		if state != "all" && x.Fields().State != state {
			continue
		}
		if !since.IsZero() && x.Updated().Before(since) {
			continue
		}
		if !hub.HasLabels(x.Is, wantLabels) || !hub.PersonMatches(q.Get("assignee"), x.Is.Assignees) ||
			!hub.PersonMatches(q.Get("creator"), []string{x.Fields().User}) || !milestoneMatches(q.Get("milestone"), x.Is.Milestone) {
			continue
		}
		hits = append(hits, x)
	}
	sortIssues(hits, q.Get("sort"), q.Get("direction"))
	return hub.PageReply(c, hits, func(x hub.IssueRef) hub.Obj { return c.IssueObj(r, x) })
}

func milestoneMatches(filter string, n int) bool {
	switch filter {
	case "":
		return true
	case "*":
		return n != 0
	case "none":
		return n == 0
	}
	return filter == strconv.Itoa(n)
}

// sortIssues orders as GitHub does: by created (default), updated or comments, newest first
// unless direction is asc.
func sortIssues(xs []hub.IssueRef, by, dir string) {
	key := func(x hub.IssueRef) int64 {
		switch by {
		case "updated":
			return x.Updated().UnixNano()
		case "comments":
			return int64(len(x.Is.Comments))
		}
		return x.Fields().Created.UnixNano()
	}
	sort.SliceStable(xs, func(i, j int) bool {
		a, b := key(xs[i]), key(xs[j])
		if a == b {
			a, b = int64(xs[i].Is.Number), int64(xs[j].Is.Number)
		}
		if dir == "asc" {
			return a < b
		}
		return a > b
	})
}

// issueInput is the body of POST and PATCH issues. Labels may be names or {name} objects and a
// milestone a number, its string or null, as GitHub's description allows.
type issueInput struct {
	Title       json.RawMessage    `json:"title"`
	Body        *string            `json:"body"`
	State       *string            `json:"state"`
	StateReason *string            `json:"state_reason"`
	Assignee    *string            `json:"assignee"`
	Assignees   *[]string          `json:"assignees"`
	Labels      *[]json.RawMessage `json:"labels"`
	Milestone   json.RawMessage    `json:"milestone"`
}

// title reads a title given as a string or a number; present says whether the key was sent.
func (in issueInput) title() (title string, present, ok bool) {
	if len(in.Title) == 0 || string(in.Title) == "null" {
		return "", len(in.Title) > 0, true
	}
	if err := json.Unmarshal(in.Title, &title); err == nil {
		return title, true, true
	}
	var n json.Number
	if err := json.Unmarshal(in.Title, &n); err == nil {
		return n.String(), true, true
	}
	return "", true, false
}

func (in issueInput) labelNames() ([]string, bool) {
	var out []string
	for _, raw := range *in.Labels {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			out = append(out, s)
			continue
		}
		var o struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &o); err != nil || o.Name == "" {
			return nil, false
		}
		out = append(out, o.Name)
	}
	return out, true
}

// milestoneNumber reads the milestone field: set says it was sent, n is 0 for null.
func (in issueInput) milestoneNumber() (n int, set, ok bool) {
	if len(in.Milestone) == 0 {
		return 0, false, true
	}
	if string(in.Milestone) == "null" {
		return 0, true, true
	}
	if err := json.Unmarshal(in.Milestone, &n); err == nil {
		return n, true, true
	}
	var s string
	if err := json.Unmarshal(in.Milestone, &s); err == nil {
		if n, err = strconv.Atoi(s); err == nil {
			return n, true, true
		}
	}
	return 0, true, false
}

// applyMeta validates and sets labels, assignees and milestone. GitHub creates labels it does not
// know, refuses unknown milestones and users who cannot be assigned (422), and silently drops all
// three for callers without push access.
func (h *api) applyMeta(c *hub.ReqCtx, r *hub.Repo, is *hub.Issue, in issueInput) *hub.Reply {
	if h.Perm(c.Tok, r) != hub.PermWrite {
		return nil
	}
	var assignees *[]string
	if in.Assignees != nil {
		assignees = in.Assignees
	} else if in.Assignee != nil {
		one := []string{}
		if *in.Assignee != "" {
			one = append(one, *in.Assignee)
		}
		assignees = &one
	}
	if assignees != nil {
		for _, a := range *assignees {
			if !h.Assignable(r, a) {
				return hub.Validation(&hub.ValidationError{Message: "Validation Failed", Errors: []hub.FieldError{{Resource: "Issue", Field: "assignees", Code: "invalid"}}})
			}
		}
	}
	n, set, ok := in.milestoneNumber()
	if !ok || (set && n != 0 && r.MilestoneNumbered(n) == nil) {
		return hub.Validation(hub.Invalid("Issue", "milestone", "invalid", ""))
	}
	var names []string
	if in.Labels != nil {
		if names, ok = in.labelNames(); !ok {
			return hub.Validation(hub.Invalid("Issue", "labels", "invalid", ""))
		}
	}
	if set {
		is.Milestone = n
	}
	if assignees != nil {
		is.Assignees = dedupe(*assignees)
	}
	if in.Labels != nil {
		is.Labels = []string{}
		for _, name := range dedupe(names) {
			is.Labels = append(is.Labels, h.AddLabelLocked(r, name, "", "").Name)
		}
	}
	return nil
}

func dedupe(xs []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, x := range xs {
		if k := strings.ToLower(x); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

// createIssue answers POST /repos/{owner}/{repo}/issues. Anyone who can read the repository may
// open an issue; labels, assignees and milestone need push access.
func (h *api) createIssue(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if c.Tok == nil {
		return hub.ErrReply(401, "Requires authentication", hub.DocRest)
	}
	var in issueInput
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	title, _, ok := in.title()
	if !ok {
		return hub.Validation(hub.Invalid("Issue", "title", "invalid", ""))
	}
	if strings.TrimSpace(title) == "" {
		return hub.Validation(hub.Invalid("Issue", "title", "missing_field", ""))
	}
	is := &hub.Issue{Title: title, State: "open", User: c.Tok.Login}
	if in.Body != nil {
		is.Body = *in.Body
	}
	if bad := h.applyMeta(c, r, is, in); bad != nil {
		return bad
	}
	h.NextID++
	t := h.Stamp()
	is.ID, is.Number, is.Created, is.Updated = h.NextID, r.NextNumber(), t, t
	r.Issues = append(r.Issues, is)
	rep := hub.OkReply(201, c.IssueObj(r, hub.IssueRef{Is: is}))
	rep.SetHeader("Location", c.RepoURL(r)+"/issues/"+strconv.Itoa(is.Number))
	return rep
}

func (h *api) getIssue(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	x, ok := c.IssueNumber(r, false)
	if !ok {
		return hub.NotFound()
	}
	return hub.OkReply(200, c.IssueObj(r, x))
}

// updateIssue answers PATCH /repos/{owner}/{repo}/issues/{issue_number}, for issues and for pull
// requests (whose title, body and state it changes as the pulls endpoint would).
func (h *api) updateIssue(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	x, ok := c.IssueNumber(r, true)
	if !ok {
		return hub.NotFound()
	}
	var in issueInput
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	title, present, ok := in.title()
	if !ok || (present && strings.TrimSpace(title) == "") {
		return hub.Validation(hub.Invalid("Issue", "title", "invalid", ""))
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		return hub.Validation(hub.Invalid("Issue", "state", "invalid", ""))
	}
	if in.StateReason != nil {
		switch *in.StateReason {
		case "completed", "not_planned", "duplicate", "reopened":
		default:
			return hub.Validation(hub.Invalid("Issue", "state_reason", "invalid", ""))
		}
	}
	// Validate labels, assignees and milestone on a copy so that a refusal changes nothing.
	meta := *x.Is
	if bad := h.applyMeta(c, r, &meta, in); bad != nil {
		return bad
	}
	x.Is.Labels, x.Is.Assignees, x.Is.Milestone = meta.Labels, meta.Assignees, meta.Milestone
	t := h.Stamp()
	if x.P != nil {
		h.updatePullFromIssue(r, x.P, in, present, title, t)
	} else {
		if present {
			x.Is.Title = title
		}
		if in.Body != nil {
			x.Is.Body = *in.Body
		}
		h.setIssueState(c, x.Is, in, t)
	}
	x.Is.Updated = t
	return hub.OkReply(200, c.IssueObj(r, x))
}

// setIssueState closes (reason completed unless given) or reopens (reason reopened) an issue.
func (h *api) setIssueState(c *hub.ReqCtx, is *hub.Issue, in issueInput, t time.Time) {
	switch {
	case in.State != nil && *in.State == "closed" && is.State == "open":
		is.State, is.ClosedAt, is.StateReason, is.ClosedBy = "closed", t, "completed", c.Tok.Login
		if in.StateReason != nil && *in.StateReason != "reopened" {
			is.StateReason = *in.StateReason
		}
	case in.State != nil && *in.State == "open" && is.State == "closed":
		is.State, is.ClosedAt, is.StateReason, is.ClosedBy = "open", hub.TimeZero, "reopened", ""
	case in.StateReason != nil && is.State == "closed" && *in.StateReason != "reopened":
		is.StateReason = *in.StateReason
	}
}

func (h *api) updatePullFromIssue(r *hub.Repo, p *hub.Pull, in issueInput, present bool, title string, t time.Time) {
	if present {
		p.Title = title
	}
	if in.Body != nil {
		p.Body = *in.Body
	}
	if in.State != nil {
		switch {
		case *in.State == "closed" && p.State == "open":
			p.HeadSHA, p.BaseSHA = r.PullSHAs(p)
			p.State, p.ClosedAt = "closed", t
		case *in.State == "open" && p.State == "closed" && !p.Merged:
			p.State, p.ClosedAt, p.HeadSHA, p.BaseSHA = "open", hub.TimeZero, "", ""
		}
	}
	p.Updated = t
}

func (h *api) listIssueComments(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	x, ok := c.IssueNumber(r, false)
	if !ok {
		return hub.NotFound()
	}
	var since time.Time
	if s := c.Req.URL.Query().Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return hub.Validation(hub.Invalid("IssueComment", "since", "invalid", ""))
		}
		since = t
	}
	var hits []*hub.IssueComment
	for _, cm := range x.Is.Comments {
		if since.IsZero() || !cm.Updated.Before(since) {
			hits = append(hits, cm)
		}
	}
	return hub.PageReply(c, hits, func(cm *hub.IssueComment) hub.Obj { return c.CommentObj(r, x, cm) })
}

// createIssueComment answers POST .../issues/{issue_number}/comments, on issues and pull requests
// alike; any reader with a token may comment.
func (h *api) createIssueComment(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	if c.Tok == nil {
		return hub.ErrReply(401, "Requires authentication", hub.DocRest)
	}
	x, ok := c.IssueNumber(r, true)
	if !ok {
		return hub.NotFound()
	}
	var in struct {
		Body *string `json:"body"`
	}
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.Body == nil || strings.TrimSpace(*in.Body) == "" {
		return hub.Validation(hub.Invalid("IssueComment", "body", "missing_field", ""))
	}
	h.NextID++
	t := h.Stamp()
	cm := &hub.IssueComment{ID: h.NextID, Body: *in.Body, User: c.Tok.Login, Created: t, Updated: t}
	x.Is.Comments = append(x.Is.Comments, cm)
	x.Is.Updated = t
	o := c.CommentObj(r, x, cm)
	rep := hub.OkReply(201, o)
	rep.SetHeader("Location", o["url"].(string))
	return rep
}

func (h *api) listLabels(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	return hub.PageReply(c, r.Labels, func(l *hub.Label) hub.Obj { return c.LabelObj(r, l) })
}

func (h *api) listMilestones(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	state := c.Req.URL.Query().Get("state")
	if state == "" {
		state = "open"
	}
	var hits []*hub.Milestone
	for _, m := range r.Milestones {
		if state == "all" || m.State == state {
			hits = append(hits, m)
		}
	}
	return hub.PageReply(c, hits, func(m *hub.Milestone) hub.Obj { return c.MilestoneObj(r, m) })
}

// api serves this area's routes over the shared hub; its methods are the area's handlers.
type api struct{ *hub.Hub }

// Register adds this area's routes to h through add (see hub.New).
func Register(h *hub.Hub, add hub.AddFunc) { (&api{h}).registerIssues(add) }
