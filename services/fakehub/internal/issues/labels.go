package issues

import (
	"encoding/json"
	"regexp"
	"strings"

	"ghops.dev/services/fakehub/internal/hub"
)

// registerLabels adds the routes that create, read and change labels and the labels of one issue
// or pull request. Writes need push access, as on GitHub (which asks for triage).
func (h *api) registerLabels(add hub.AddFunc) {
	add("POST", "/repos/{owner}/{repo}/labels", h.WithRepo(hub.PermWrite, h.createLabel))
	add("GET", "/repos/{owner}/{repo}/labels/{name}", h.WithRepo(hub.PermRead, h.getLabel))
	add("PATCH", "/repos/{owner}/{repo}/labels/{name}", h.WithRepo(hub.PermWrite, h.updateLabel))
	add("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels", h.WithRepo(hub.PermWrite, h.addIssueLabels))
	add("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", h.WithRepo(hub.PermWrite, h.removeIssueLabel))
}

// hexColor is a label colour as GitHub takes it: six hex digits without "#".
var hexColor = regexp.MustCompile(`^[0-9a-fA-F]{6}$`)

// labelInput is the body of POST and PATCH labels.
type labelInput struct {
	Name        *string `json:"name"`
	NewName     *string `json:"new_name"`
	Color       *string `json:"color"`
	Description *string `json:"description"`
}

// check refuses a bad colour, an empty name or a name another label of r has (except l), as
// GitHub does with 422.
func (in labelInput) check(r *hub.Repo, name *string, l *hub.Label) *hub.Reply {
	if in.Color != nil && !hexColor.MatchString(*in.Color) {
		return hub.Validation(hub.Invalid("Label", "color", "invalid", ""))
	}
	if name == nil {
		return nil
	}
	if strings.TrimSpace(*name) == "" {
		return hub.Validation(hub.Invalid("Label", "name", "missing_field", ""))
	}
	if o := r.LabelNamed(*name); o != nil && o != l {
		return hub.Validation(hub.Invalid("Label", "name", "already_exists", ""))
	}
	return nil
}

// createLabel answers POST /repos/{owner}/{repo}/labels.
func (h *api) createLabel(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	var in labelInput
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.Name == nil {
		return hub.Validation(hub.Invalid("Label", "name", "missing_field", ""))
	}
	if bad := in.check(r, in.Name, nil); bad != nil {
		return bad
	}
	color, desc := "", ""
	if in.Color != nil {
		color = strings.ToLower(*in.Color)
	}
	if in.Description != nil {
		desc = *in.Description
	}
	l := h.AddLabelLocked(r, *in.Name, color, desc)
	o := c.LabelObj(r, l)
	rep := hub.OkReply(201, o)
	rep.SetHeader("Location", o["url"].(string))
	return rep
}

func (h *api) getLabel(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	l := r.LabelNamed(c.Params["name"])
	if l == nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, c.LabelObj(r, l))
}

// updateLabel answers PATCH /repos/{owner}/{repo}/labels/{name}; a refused change changes nothing.
func (h *api) updateLabel(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	l := r.LabelNamed(c.Params["name"])
	if l == nil {
		return hub.NotFound()
	}
	var in labelInput
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if bad := in.check(r, in.NewName, l); bad != nil {
		return bad
	}
	if in.Color != nil {
		lower := strings.ToLower(*in.Color)
		in.Color = &lower
	}
	r.UpdateLabel(l, in.NewName, in.Color, in.Description)
	return hub.OkReply(200, c.LabelObj(r, l))
}

// issueLabelNames reads the body of POST .../issues/{n}/labels: {"labels": [names]}, {"labels":
// [{"name"}]} or a bare array of names, as GitHub's description allows.
func issueLabelNames(c *hub.ReqCtx) ([]string, *hub.Reply) {
	var raw json.RawMessage
	if bad := hub.Decode(c, &raw); bad != nil {
		return nil, bad
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		var obj struct {
			Labels *[]json.RawMessage `json:"labels"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil || obj.Labels == nil {
			return nil, hub.Validation(hub.Invalid("Label", "labels", "missing_field", ""))
		}
		list = *obj.Labels
	}
	names, ok := issueInput{Labels: &list}.labelNames()
	if !ok {
		return nil, hub.Validation(hub.Invalid("Label", "labels", "invalid", ""))
	}
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			return nil, hub.Validation(hub.Invalid("Label", "name", "missing_field", ""))
		}
	}
	return names, nil
}

// addIssueLabels answers POST /repos/{owner}/{repo}/issues/{issue_number}/labels: the names are
// added to the issue's (unknown labels are created), and the answer is all its labels.
func (h *api) addIssueLabels(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	x, ok := c.IssueNumber(r, true)
	if !ok {
		return hub.NotFound()
	}
	names, bad := issueLabelNames(c)
	if bad != nil {
		return bad
	}
	for _, n := range names {
		l := h.AddLabelLocked(r, n, "", "")
		if !hub.HasLabels(x.Is, []string{l.Name}) {
			x.Is.Labels = append(x.Is.Labels, l.Name)
		}
	}
	x.Is.Updated = h.Stamp()
	return h.issueLabels(c, r, x.Is)
}

// removeIssueLabel answers DELETE .../issues/{issue_number}/labels/{name}: 404 "Label does not
// exist" when the issue does not carry it, else the labels it keeps.
func (h *api) removeIssueLabel(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	x, ok := c.IssueNumber(r, true)
	if !ok {
		return hub.NotFound()
	}
	name := c.Params["name"]
	kept := []string{}
	for _, l := range x.Is.Labels {
		if !strings.EqualFold(l, name) {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(x.Is.Labels) {
		return hub.ErrReply(404, "Label does not exist", "")
	}
	x.Is.Labels = kept
	x.Is.Updated = h.Stamp()
	return h.issueLabels(c, r, x.Is)
}

// issueLabels is the 200 answer of both label writes: the issue's labels as objects.
func (h *api) issueLabels(c *hub.ReqCtx, r *hub.Repo, is *hub.Issue) *hub.Reply {
	out := []hub.Obj{}
	for _, n := range is.Labels {
		if l := r.LabelNamed(n); l != nil {
			out = append(out, c.LabelObj(r, l))
		}
	}
	return hub.OkReply(200, out)
}
