package fakehub

import (
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// issue is one issue of a repository, or the issue side of a pull request: GitHub numbers issues
// and pull requests in one sequence and keeps a pull request's labels, assignees, milestone and
// conversation comments on its issue. For a pull request's side, title, body and state live on the
// pull and are unused here.
type issue struct {
	id                         int64
	number                     int
	title, body, state         string
	stateReason                string // "" is null
	user, closedBy             string
	labels, assignees          []string
	milestone                  int // number; 0 for none
	created, updated, closedAt time.Time
	comments                   []*issueComment
}

type issueComment struct {
	id               int64
	body, user       string
	created, updated time.Time
}

type label struct {
	id                       int64
	name, color, description string
	isDefault                bool
}

type milestone struct {
	id                 int64
	number             int
	title, description string
	state, creator     string
	created, updated   time.Time
}

// issueRef is what an issue number names: a plain issue, or a pull request with its issue side.
type issueRef struct {
	is *issue
	p  *pull
}

// issueFields are the fields a plain issue and a pull request both have.
type issueFields struct {
	title, body, state, user string
	created                  time.Time
}

// registerIssues adds the issue, comment, label and milestone routes.
func (h *Hub) registerIssues(add addFunc) {
	add("GET", "/repos/{owner}/{repo}/issues", h.withRepo(PermRead, h.listIssues))
	add("POST", "/repos/{owner}/{repo}/issues", h.withRepo(PermRead, h.createIssue))
	add("GET", "/repos/{owner}/{repo}/issues/{issue_number}", h.withRepo(PermRead, h.getIssue))
	add("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}", h.withRepo(PermWrite, h.updateIssue))
	add("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", h.withRepo(PermRead, h.listIssueComments))
	add("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", h.withRepo(PermRead, h.createIssueComment))
	add("GET", "/repos/{owner}/{repo}/labels", h.withRepo(PermRead, h.listLabels))
	add("GET", "/repos/{owner}/{repo}/milestones", h.withRepo(PermRead, h.listMilestones))
}

// fields returns what x names: a pull request's own fields when it is one
// (its issue side keeps labels, assignees and comments), else the issue's.
func (x issueRef) fields() issueFields {
	if p := x.p; p != nil {
		return issueFields{title: p.title, body: p.body, state: p.state, user: p.user, created: p.created}
	}
	is := x.is
	return issueFields{title: is.title, body: is.body, state: is.state, user: is.user, created: is.created}
}

func (x issueRef) updated() time.Time {
	if x.p != nil && x.p.updated.After(x.is.updated) {
		return x.p.updated
	}
	return x.is.updated
}

// issueSide returns the issue side of pull request p, creating it on first use (callers that may
// create hold the hub's lock exclusively; readers use issueSideOrZero).
func (r *repo) issueSide(p *pull) *issue {
	if r.pullIssues == nil {
		r.pullIssues = map[int]*issue{}
	}
	is, ok := r.pullIssues[p.number]
	if !ok {
		is = &issue{id: p.id, number: p.number, created: p.created, updated: p.updated}
		r.pullIssues[p.number] = is
	}
	return is
}

// issueSideOrZero is issueSide without creating: a pull request nobody labelled or commented on
// has an empty side.
func (r *repo) issueSideOrZero(p *pull) *issue {
	if is, ok := r.pullIssues[p.number]; ok {
		return is
	}
	return &issue{id: p.id, number: p.number, created: p.created, updated: p.updated}
}

// issueByNumber finds issue or pull request n; write asks for a pull request's side to be kept.
func (r *repo) issueByNumber(n int, write bool) (issueRef, bool) {
	for _, is := range r.issues {
		if is.number == n {
			return issueRef{is: is}, true
		}
	}
	if p := r.pullByNumber(n); p != nil {
		if write {
			return issueRef{is: r.issueSide(p), p: p}, true
		}
		return issueRef{is: r.issueSideOrZero(p), p: p}, true
	}
	return issueRef{}, false
}

// allIssues lists every issue and pull request by number, as GitHub's issues list sees them.
func (r *repo) allIssues() []issueRef {
	out := make([]issueRef, 0, len(r.issues)+len(r.pulls))
	for _, is := range r.issues {
		out = append(out, issueRef{is: is})
	}
	for _, p := range r.pulls {
		out = append(out, issueRef{is: r.issueSideOrZero(p), p: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].is.number < out[j].is.number })
	return out
}

func (r *repo) labelNamed(name string) *label {
	for _, l := range r.labels {
		if strings.EqualFold(l.name, name) {
			return l
		}
	}
	return nil
}

func (r *repo) milestoneNumbered(n int) *milestone {
	for _, m := range r.milestones {
		if m.number == n {
			return m
		}
	}
	return nil
}

// addLabelLocked creates a label; GitHub's default colour for labels made on the fly is ededed.
func (h *Hub) addLabelLocked(r *repo, name, color, description string) *label {
	if l := r.labelNamed(name); l != nil {
		return l
	}
	if color == "" {
		color = "ededed"
	}
	h.nextID++
	l := &label{id: h.nextID, name: name, color: color, description: description}
	r.labels = append(r.labels, l)
	return l
}

// assignable reports whether login may be assigned an issue of r: GitHub accepts users with push
// access (here: a token's user with write permission) and the repository's owner when a user.
func (h *Hub) assignable(r *repo, login string) bool {
	if strings.EqualFold(login, r.opts.Owner) && h.userType(login) == "User" {
		return true
	}
	for _, t := range h.tokens {
		if strings.EqualFold(t.Login, login) && h.perm(t, r) == PermWrite {
			return true
		}
	}
	return false
}

func (c *reqCtx) labelObj(r *repo, l *label) obj {
	return obj{
		"id": l.id, "node_id": nodeID("Label", l.id), "url": c.repoURL(r) + "/labels/" + url.PathEscape(l.name),
		"name": l.name, "color": l.color, "default": l.isDefault, "description": nullStr(l.description),
	}
}

func (c *reqCtx) milestoneObj(r *repo, m *milestone) obj {
	open, closed := 0, 0
	for _, x := range r.allIssues() {
		if x.is.milestone != m.number {
			continue
		}
		if x.fields().state == "open" {
			open++
		} else {
			closed++
		}
	}
	u := c.repoURL(r) + "/milestones/" + strconv.Itoa(m.number)
	return obj{
		"url": u, "html_url": c.web + "/" + r.fullName() + "/milestone/" + strconv.Itoa(m.number),
		"labels_url": u + "/labels", "id": m.id, "node_id": nodeID("Milestone", m.id), "number": m.number,
		"state": m.state, "title": m.title, "description": nullStr(m.description), "creator": c.user(m.creator),
		"open_issues": open, "closed_issues": closed, "created_at": ts(m.created), "updated_at": ts(m.updated),
		"closed_at": nil, "due_on": nil,
	}
}

// labelObjs are the label objects of names, in their order.
func (c *reqCtx) labelObjs(r *repo, names []string) []obj {
	out := []obj{}
	for _, name := range names {
		if l := r.labelNamed(name); l != nil {
			out = append(out, c.labelObj(r, l))
		}
	}
	return out
}

// assigneeObjs are GitHub's assignee (the first, or null) and assignees of logins.
func (c *reqCtx) assigneeObjs(logins []string) (any, []obj) {
	out := []obj{}
	for _, a := range logins {
		out = append(out, c.user(a))
	}
	if len(out) == 0 {
		return nil, out
	}
	return out[0], out
}

func (c *reqCtx) milestoneOrNil(r *repo, n int) any {
	if m := r.milestoneNumbered(n); m != nil {
		return c.milestoneObj(r, m)
	}
	return nil
}

// issueObj is GitHub's "issue" shape; a pull request's carries the pull_request link object.
func (c *reqCtx) issueObj(r *repo, x issueRef) obj {
	n := strconv.Itoa(x.is.number)
	u := c.repoURL(r) + "/issues/" + n
	html := c.web + "/" + r.fullName() + "/issues/" + n
	labels := c.labelObjs(r, x.is.labels)
	assignee, assignees := c.assigneeObjs(x.is.assignees)
	ms := c.milestoneOrNil(r, x.is.milestone)
	var closedBy any
	f := x.fields()
	state, reason, closedAt := f.state, nullStr(x.is.stateReason), x.is.closedAt
	if x.p != nil {
		closedAt, reason = x.p.closedAt, nil
	}
	if x.is.closedBy != "" && state == "closed" {
		closedBy = c.user(x.is.closedBy)
	}
	o := obj{
		"id": x.is.id, "node_id": nodeID("Issue", x.is.id), "url": u, "repository_url": c.repoURL(r),
		"labels_url": u + "/labels{/name}", "comments_url": u + "/comments", "events_url": u + "/events",
		"timeline_url": u + "/timeline", "html_url": html, "number": x.is.number, "state": state,
		"state_reason": reason, "title": f.title, "body": nullStr(f.body), "user": c.user(f.user),
		"labels": labels, "assignee": assignee, "assignees": assignees, "milestone": ms, "locked": false,
		"active_lock_reason": nil, "comments": len(x.is.comments), "closed_at": nullTime(closedAt),
		"created_at": ts(f.created), "updated_at": ts(x.updated()), "closed_by": closedBy,
		"author_association": c.association(r, f.user),
	}
	if x.p != nil {
		pu := c.web + "/" + r.fullName() + "/pull/" + n
		o["html_url"] = pu
		o["draft"] = x.p.draft
		o["pull_request"] = obj{
			"url": c.repoURL(r) + "/pulls/" + n, "html_url": pu, "diff_url": pu + ".diff", "patch_url": pu + ".patch",
			"merged_at": nullTime(x.p.mergedAt),
		}
	}
	return o
}

// association is GitHub's author_association: OWNER for the owner, COLLABORATOR for a user with
// write access, NONE otherwise.
func (c *reqCtx) association(r *repo, login string) string {
	if a, ok := r.associations[strings.ToLower(login)]; ok {
		return a
	}
	switch {
	case strings.EqualFold(login, r.opts.Owner):
		return "OWNER"
	case c.h.assignable(r, login):
		return "COLLABORATOR"
	}
	return "NONE"
}

func (c *reqCtx) commentObj(r *repo, x issueRef, cm *issueComment) obj {
	n := strconv.Itoa(x.is.number)
	html := c.web + "/" + r.fullName() + "/issues/" + n
	if x.p != nil {
		html = c.web + "/" + r.fullName() + "/pull/" + n
	}
	return obj{
		"id": cm.id, "node_id": nodeID("IssueComment", cm.id),
		"url":      c.repoURL(r) + "/issues/comments/" + strconv.FormatInt(cm.id, 10),
		"html_url": html + "#issuecomment-" + strconv.FormatInt(cm.id, 10), "body": cm.body,
		"user": c.user(cm.user), "created_at": ts(cm.created), "updated_at": ts(cm.updated),
		"issue_url": c.repoURL(r) + "/issues/" + n, "author_association": c.association(r, cm.user),
	}
}

// issueNumber reads {issue_number}; anything but a positive integer names no issue.
func (c *reqCtx) issueNumber(r *repo, write bool) (issueRef, bool) {
	n, err := strconv.Atoi(c.p["issue_number"])
	if err != nil || n < 1 {
		return issueRef{}, false
	}
	return r.issueByNumber(n, write)
}

// listIssues answers GET /repos/{owner}/{repo}/issues. As on GitHub, pull requests are in the list
// (each with a pull_request key) unless the caller filters them out.
func (h *Hub) listIssues(c *reqCtx, r *repo) *reply {
	q := c.r.URL.Query()
	state := q.Get("state")
	switch state {
	case "":
		state = "open"
	case "open", "closed", "all":
	default:
		return validation(invalid("Issue", "state", "invalid", ""))
	}
	var since time.Time
	if s := q.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return validation(invalid("Issue", "since", "invalid", ""))
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
	var hits []issueRef
	for _, x := range r.allIssues() {
		if state != "all" && x.fields().state != state {
			continue
		}
		if !since.IsZero() && x.updated().Before(since) {
			continue
		}
		if !hasLabels(x.is, wantLabels) || !personMatches(q.Get("assignee"), x.is.assignees) ||
			!personMatches(q.Get("creator"), []string{x.fields().user}) || !milestoneMatches(q.Get("milestone"), x.is.milestone) {
			continue
		}
		hits = append(hits, x)
	}
	sortIssues(hits, q.Get("sort"), q.Get("direction"))
	return pageReply(c, hits, func(x issueRef) obj { return c.issueObj(r, x) })
}

func hasLabels(is *issue, want []string) bool {
	for _, w := range want {
		found := false
		for _, l := range is.labels {
			found = found || strings.EqualFold(l, w)
		}
		if !found {
			return false
		}
	}
	return true
}

// personMatches applies GitHub's assignee/creator filter: a login, "none" or "*".
func personMatches(filter string, people []string) bool {
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
func sortIssues(xs []issueRef, by, dir string) {
	key := func(x issueRef) int64 {
		switch by {
		case "updated":
			return x.updated().UnixNano()
		case "comments":
			return int64(len(x.is.comments))
		}
		return x.fields().created.UnixNano()
	}
	sort.SliceStable(xs, func(i, j int) bool {
		a, b := key(xs[i]), key(xs[j])
		if a == b {
			a, b = int64(xs[i].is.number), int64(xs[j].is.number)
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
func (h *Hub) applyMeta(c *reqCtx, r *repo, is *issue, in issueInput) *reply {
	if h.perm(c.tok, r) != PermWrite {
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
			if !h.assignable(r, a) {
				return validation(&validationError{Message: "Validation Failed", Errors: []fieldError{{Resource: "Issue", Field: "assignees", Code: "invalid"}}})
			}
		}
	}
	n, set, ok := in.milestoneNumber()
	if !ok || (set && n != 0 && r.milestoneNumbered(n) == nil) {
		return validation(invalid("Issue", "milestone", "invalid", ""))
	}
	var names []string
	if in.Labels != nil {
		if names, ok = in.labelNames(); !ok {
			return validation(invalid("Issue", "labels", "invalid", ""))
		}
	}
	if set {
		is.milestone = n
	}
	if assignees != nil {
		is.assignees = dedupe(*assignees)
	}
	if in.Labels != nil {
		is.labels = []string{}
		for _, name := range dedupe(names) {
			is.labels = append(is.labels, h.addLabelLocked(r, name, "", "").name)
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
func (h *Hub) createIssue(c *reqCtx, r *repo) *reply {
	if c.tok == nil {
		return errReply(401, "Requires authentication", docRest)
	}
	var in issueInput
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	title, _, ok := in.title()
	if !ok {
		return validation(invalid("Issue", "title", "invalid", ""))
	}
	if strings.TrimSpace(title) == "" {
		return validation(invalid("Issue", "title", "missing_field", ""))
	}
	is := &issue{title: title, state: "open", user: c.tok.Login}
	if in.Body != nil {
		is.body = *in.Body
	}
	if bad := h.applyMeta(c, r, is, in); bad != nil {
		return bad
	}
	h.nextID++
	t := h.stamp()
	is.id, is.number, is.created, is.updated = h.nextID, r.nextNumber(), t, t
	r.issues = append(r.issues, is)
	rep := okReply(201, c.issueObj(r, issueRef{is: is}))
	rep.setHeader("Location", c.repoURL(r)+"/issues/"+strconv.Itoa(is.number))
	return rep
}

func (h *Hub) getIssue(c *reqCtx, r *repo) *reply {
	x, ok := c.issueNumber(r, false)
	if !ok {
		return notFound()
	}
	return okReply(200, c.issueObj(r, x))
}

// updateIssue answers PATCH /repos/{owner}/{repo}/issues/{issue_number}, for issues and for pull
// requests (whose title, body and state it changes as the pulls endpoint would).
func (h *Hub) updateIssue(c *reqCtx, r *repo) *reply {
	x, ok := c.issueNumber(r, true)
	if !ok {
		return notFound()
	}
	var in issueInput
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	title, present, ok := in.title()
	if !ok || (present && strings.TrimSpace(title) == "") {
		return validation(invalid("Issue", "title", "invalid", ""))
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		return validation(invalid("Issue", "state", "invalid", ""))
	}
	if in.StateReason != nil {
		switch *in.StateReason {
		case "completed", "not_planned", "duplicate", "reopened":
		default:
			return validation(invalid("Issue", "state_reason", "invalid", ""))
		}
	}
	// Validate labels, assignees and milestone on a copy so that a refusal changes nothing.
	meta := *x.is
	if bad := h.applyMeta(c, r, &meta, in); bad != nil {
		return bad
	}
	x.is.labels, x.is.assignees, x.is.milestone = meta.labels, meta.assignees, meta.milestone
	t := h.stamp()
	if x.p != nil {
		h.updatePullFromIssue(r, x.p, in, present, title, t)
	} else {
		if present {
			x.is.title = title
		}
		if in.Body != nil {
			x.is.body = *in.Body
		}
		h.setIssueState(c, x.is, in, t)
	}
	x.is.updated = t
	return okReply(200, c.issueObj(r, x))
}

// setIssueState closes (reason completed unless given) or reopens (reason reopened) an issue.
func (h *Hub) setIssueState(c *reqCtx, is *issue, in issueInput, t time.Time) {
	switch {
	case in.State != nil && *in.State == "closed" && is.state == "open":
		is.state, is.closedAt, is.stateReason, is.closedBy = "closed", t, "completed", c.tok.Login
		if in.StateReason != nil && *in.StateReason != "reopened" {
			is.stateReason = *in.StateReason
		}
	case in.State != nil && *in.State == "open" && is.state == "closed":
		is.state, is.closedAt, is.stateReason, is.closedBy = "open", timeZero, "reopened", ""
	case in.StateReason != nil && is.state == "closed" && *in.StateReason != "reopened":
		is.stateReason = *in.StateReason
	}
}

func (h *Hub) updatePullFromIssue(r *repo, p *pull, in issueInput, present bool, title string, t time.Time) {
	if present {
		p.title = title
	}
	if in.Body != nil {
		p.body = *in.Body
	}
	if in.State != nil {
		switch {
		case *in.State == "closed" && p.state == "open":
			p.headSHA, p.baseSHA = r.pullSHAs(p)
			p.state, p.closedAt = "closed", t
		case *in.State == "open" && p.state == "closed" && !p.merged:
			p.state, p.closedAt, p.headSHA, p.baseSHA = "open", timeZero, "", ""
		}
	}
	p.updated = t
}

func (h *Hub) listIssueComments(c *reqCtx, r *repo) *reply {
	x, ok := c.issueNumber(r, false)
	if !ok {
		return notFound()
	}
	var since time.Time
	if s := c.r.URL.Query().Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return validation(invalid("IssueComment", "since", "invalid", ""))
		}
		since = t
	}
	var hits []*issueComment
	for _, cm := range x.is.comments {
		if since.IsZero() || !cm.updated.Before(since) {
			hits = append(hits, cm)
		}
	}
	return pageReply(c, hits, func(cm *issueComment) obj { return c.commentObj(r, x, cm) })
}

// createIssueComment answers POST .../issues/{issue_number}/comments, on issues and pull requests
// alike; any reader with a token may comment.
func (h *Hub) createIssueComment(c *reqCtx, r *repo) *reply {
	if c.tok == nil {
		return errReply(401, "Requires authentication", docRest)
	}
	x, ok := c.issueNumber(r, true)
	if !ok {
		return notFound()
	}
	var in struct {
		Body *string `json:"body"`
	}
	if bad := decode(c, &in); bad != nil {
		return bad
	}
	if in.Body == nil || strings.TrimSpace(*in.Body) == "" {
		return validation(invalid("IssueComment", "body", "missing_field", ""))
	}
	h.nextID++
	t := h.stamp()
	cm := &issueComment{id: h.nextID, body: *in.Body, user: c.tok.Login, created: t, updated: t}
	x.is.comments = append(x.is.comments, cm)
	x.is.updated = t
	o := c.commentObj(r, x, cm)
	rep := okReply(201, o)
	rep.setHeader("Location", o["url"].(string))
	return rep
}

func (h *Hub) listLabels(c *reqCtx, r *repo) *reply {
	return pageReply(c, r.labels, func(l *label) obj { return c.labelObj(r, l) })
}

func (h *Hub) listMilestones(c *reqCtx, r *repo) *reply {
	state := c.r.URL.Query().Get("state")
	if state == "" {
		state = "open"
	}
	var hits []*milestone
	for _, m := range r.milestones {
		if state == "all" || m.state == state {
			hits = append(hits, m)
		}
	}
	return pageReply(c, hits, func(m *milestone) obj { return c.milestoneObj(r, m) })
}
