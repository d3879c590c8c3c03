package issues

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/hub"
)

// registerMilestones adds the routes that create, read, change and delete one milestone; a
// milestone's writes need push access, as on GitHub.
func (h *api) registerMilestones(add hub.AddFunc) {
	add("POST", "/repos/{owner}/{repo}/milestones", h.WithRepo(hub.PermWrite, h.createMilestone))
	add("GET", "/repos/{owner}/{repo}/milestones/{milestone_number}", h.WithRepo(hub.PermRead, h.getMilestone))
	add("PATCH", "/repos/{owner}/{repo}/milestones/{milestone_number}", h.WithRepo(hub.PermWrite, h.updateMilestone))
	add("DELETE", "/repos/{owner}/{repo}/milestones/{milestone_number}", h.WithRepo(hub.PermWrite, h.deleteMilestone))
}

// milestoneInput is the body of POST and PATCH: every member optional but POST's title; a
// member of the wrong JSON type is refused as invalid.
type milestoneInput struct {
	Title       json.RawMessage `json:"title"`
	State       json.RawMessage `json:"state"`
	Description json.RawMessage `json:"description"`
	DueOn       json.RawMessage `json:"due_on"`
}

// milestoneChange is a checked milestoneInput; nil members were not sent.
type milestoneChange struct {
	title, state, description *string
	dueOn                     *time.Time // zero time: null, no due date
}

func optString(raw json.RawMessage) (*string, bool) {
	if len(raw) == 0 {
		return nil, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return &s, true
}

// check validates in as GitHub does: 422 naming the field for a value of the wrong type, a
// state other than open or closed, or a due_on that is not an ISO 8601 timestamp or date.
func (in milestoneInput) check() (milestoneChange, *hub.Reply) {
	var ch milestoneChange
	invalid := func(field string) (milestoneChange, *hub.Reply) {
		return ch, hub.Validation(hub.Invalid("Milestone", field, "invalid", ""))
	}
	var ok bool
	if ch.title, ok = optString(in.Title); !ok {
		return invalid("title")
	}
	if ch.state, ok = optString(in.State); !ok || (ch.state != nil && *ch.state != "open" && *ch.state != "closed") {
		return invalid("state")
	}
	if ch.description, ok = optString(in.Description); !ok && string(in.Description) != "null" {
		return invalid("description")
	}
	if len(in.DueOn) > 0 {
		var t time.Time
		if string(in.DueOn) != "null" {
			s, ok := optString(in.DueOn)
			if !ok {
				return invalid("due_on")
			}
			var err error
			if t, err = time.Parse(time.RFC3339, *s); err != nil {
				if t, err = time.Parse(time.DateOnly, *s); err != nil {
					return invalid("due_on")
				}
			}
		}
		t = t.UTC()
		ch.dueOn = &t
	}
	return ch, nil
}

// apply writes ch into m at now.
func (ch milestoneChange) apply(m *hub.Milestone, now time.Time) {
	if ch.title != nil {
		m.Title = *ch.title
	}
	if ch.description != nil {
		m.Description = *ch.description
	}
	if ch.dueOn != nil {
		m.DueOn = *ch.dueOn
	}
	if ch.state != nil && *ch.state != m.State {
		m.State = *ch.state
		m.ClosedAt = time.Time{}
		if m.State == "closed" {
			m.ClosedAt = now
		}
	}
	m.Updated = now
}

// titleTaken reports whether another milestone of r is titled title; GitHub refuses the
// duplicate as already_exists.
func titleTaken(r *hub.Repo, title string, except *hub.Milestone) bool {
	for _, m := range r.Milestones {
		if m != except && strings.EqualFold(m.Title, title) {
			return true
		}
	}
	return false
}

// createMilestone answers POST /repos/{owner}/{repo}/milestones.
func (h *api) createMilestone(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	var in milestoneInput
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	ch, bad := in.check()
	if bad != nil {
		return bad
	}
	if ch.title == nil || strings.TrimSpace(*ch.title) == "" {
		return hub.Validation(hub.Invalid("Milestone", "title", "missing_field", ""))
	}
	if titleTaken(r, *ch.title, nil) {
		return hub.Validation(hub.Invalid("Milestone", "title", "already_exists", ""))
	}
	n := 1
	for _, m := range r.Milestones {
		n = max(n, m.Number+1)
	}
	h.NextID++
	now := h.Stamp()
	m := &hub.Milestone{ID: h.NextID, Number: n, State: "open", Creator: c.Tok.Login, Created: now}
	ch.apply(m, now)
	r.Milestones = append(r.Milestones, m)
	o := c.MilestoneObj(r, m)
	rep := hub.OkReply(201, o)
	rep.SetHeader("Location", o["url"].(string))
	return rep
}

// milestoneNumbered resolves {milestone_number}.
func milestoneNumbered(c *hub.ReqCtx, r *hub.Repo) *hub.Milestone {
	n, err := strconv.Atoi(c.Params["milestone_number"])
	if err != nil || n < 1 {
		return nil
	}
	return r.MilestoneNumbered(n)
}

func (h *api) getMilestone(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	m := milestoneNumbered(c, r)
	if m == nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, c.MilestoneObj(r, m))
}

// updateMilestone answers PATCH /repos/{owner}/{repo}/milestones/{milestone_number}; a refused
// change changes nothing.
func (h *api) updateMilestone(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	m := milestoneNumbered(c, r)
	if m == nil {
		return hub.NotFound()
	}
	var in milestoneInput
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	ch, bad := in.check()
	if bad != nil {
		return bad
	}
	if ch.title != nil && (strings.TrimSpace(*ch.title) == "" || titleTaken(r, *ch.title, m)) {
		code := "already_exists"
		if strings.TrimSpace(*ch.title) == "" {
			code = "missing_field"
		}
		return hub.Validation(hub.Invalid("Milestone", "title", code, ""))
	}
	ch.apply(m, h.Stamp())
	return hub.OkReply(200, c.MilestoneObj(r, m))
}

// deleteMilestone answers DELETE /repos/{owner}/{repo}/milestones/{milestone_number}: the
// milestone's issues and pull requests keep no milestone.
func (h *api) deleteMilestone(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	m := milestoneNumbered(c, r)
	if m == nil {
		return hub.NotFound()
	}
	for _, x := range r.AllIssues() {
		if x.Is.Milestone == m.Number {
			x.Is.Milestone = 0
		}
	}
	for i, o := range r.Milestones {
		if o == m {
			r.Milestones = append(r.Milestones[:i:i], r.Milestones[i+1:]...)
			break
		}
	}
	return &hub.Reply{Status: 204}
}
