package ops

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"

	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
)

// labelsPage is list_labels' page size: labels are small, and a repository rarely has more.
const labelsPage = 100

// labelResource names label name of repo for data.resource (docs/errors.md).
func labelResource(repo, name string) *ghopsv1.Resource {
	return &ghopsv1.Resource{Type: "label", Id: repo + "/labels/" + name}
}

func toLabel(l *github.Label) *ghopsv1.Label {
	return &ghopsv1.Label{Name: l.GetName(), Color: l.GetColor(), Description: l.GetDescription()}
}

// hexColor is the colour GitHub takes: six hex digits, lower case, without the "#" the contract
// also accepts.
func hexColor(c *string) *string {
	if c == nil {
		return nil
	}
	v := strings.ToLower(strings.TrimPrefix(*c, "#"))
	return &v
}

// labelPath is the path of label name of repo; a name with "/" cannot be one path segment
// (GitHub's router would split it), so it is refused as the field's -32602.
func labelPath(repo, field, name string, before ...ghpath.Part) (string, error) {
	return ghpath.Repo("repo", repo, append(before, ghpath.One(field, name))...)
}

// ListLabels implements the list_labels tool: one GET of a page of 100.
func (s *Service) ListLabels(ctx context.Context, req *ghopsv1.ListLabelsRequest) (*ghopsv1.ListLabelsResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListLabels, Repo: req.GetRepo()}
	p := max(int(req.GetPage()), 1)
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("labels"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	list, resp, err := get[[]*github.Label](ctx, s, s.client(ctx), u, listQuery(p, labelsPage))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.ListLabelsResponse{Labels: []*ghopsv1.Label{}, Page: pageInfo(p, labelsPage, resp)}
	for _, l := range list {
		out.Labels = append(out.Labels, toLabel(l))
	}
	return out, nil
}

// CreateLabel implements the create_label tool: one POST. A name the repository has (GitHub
// compares without case) is GitHub's 422 already_exists, -32003.
func (s *Service) CreateLabel(ctx context.Context, req *ghopsv1.CreateLabelRequest) (*ghopsv1.CreateLabelResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolCreateLabel, Repo: req.GetRepo()}
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("labels"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	color := req.GetColor()
	body := &github.Label{Name: github.String(req.GetName()), Color: hexColor(&color), Description: req.Description}
	l, err := send[github.Label](ctx, s.client(ctx), http.MethodPost, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.CreateLabelResponse{Label: toLabel(l)}, nil
}

// UpdateLabel implements the update_label tool: one PATCH; only the given fields change, and
// issues and pull requests keep a renamed label. An unknown label is -32002 resource label.
func (s *Service) UpdateLabel(ctx context.Context, req *ghopsv1.UpdateLabelRequest) (*ghopsv1.UpdateLabelResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolUpdateLabel, Repo: req.GetRepo(), Resource: labelResource(req.GetRepo(), req.GetName())}
	if req.NewName == nil && req.Color == nil && req.Description == nil {
		return nil, ghstatus.InvalidField(c, "give new_name, color or description", "new_name", "required")
	}
	u, err := labelPath(req.GetRepo(), "name", req.GetName(), ghpath.Lit("labels"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	body := &struct {
		NewName     *string `json:"new_name,omitempty"`
		Color       *string `json:"color,omitempty"`
		Description *string `json:"description,omitempty"`
	}{req.NewName, hexColor(req.Color), req.Description}
	l, err := send[github.Label](ctx, s.client(ctx), http.MethodPatch, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.UpdateLabelResponse{Label: toLabel(l)}, nil
}

// LabelIssue implements the label_issue tool on an issue or a pull request (GitHub labels both
// through the issue endpoints). Added labels go in one POST, which keeps the others; removed
// ones go one DELETE each: never the PUT that replaces the whole set, so that two agents
// labelling the same issue do not undo each other. When labels are removed, the issue is read
// first (a conditional GET) and a label it does not carry is -32002 resource label before
// anything is written; a label that goes between that read and its DELETE (another agent
// removed it) counts as removed. The answer is every label the issue now has, from GitHub's
// answer to the last write.
func (s *Service) LabelIssue(ctx context.Context, req *ghopsv1.LabelIssueRequest) (*ghopsv1.LabelIssueResponse, error) {
	repo, n := req.GetRepo(), int(req.GetIssueNumber())
	c := issueContext(ghopsv1.ToolLabelIssue, repo, req.GetIssueNumber())
	if len(req.GetAdd())+len(req.GetRemove()) == 0 {
		return nil, ghstatus.InvalidField(c, "give add or remove", "add", "required")
	}
	for _, r := range req.GetRemove() {
		for _, a := range req.GetAdd() {
			if strings.EqualFold(a, r) {
				return nil, ghstatus.InvalidField(c, "label "+strconv.Quote(r)+" is both added and removed", "remove", "conflict")
			}
		}
	}
	base, err := ghpath.Repo("repo", repo, ghpath.Lit("issues"), ghpath.Lit(strconv.Itoa(n)), ghpath.Lit("labels"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	gh := s.client(ctx)
	var now []*github.Label // the issue's labels as last seen
	var remove []string     // as the issue spells them
	if len(req.GetRemove()) > 0 {
		for _, r := range req.GetRemove() {
			if strings.Contains(r, "/") || r == "." || r == ".." {
				return nil, ghstatus.InvalidField(c, "label "+strconv.Quote(r)+" cannot be removed by name: it holds \"/\"", "remove", "one_segment")
			}
		}
		is, err := s.issueKind(ctx, gh, repo, n)
		if err != nil {
			return nil, s.fail(ctx, err, c)
		}
		now = is.Labels
		for _, r := range req.GetRemove() {
			name := ""
			for _, l := range is.Labels {
				if strings.EqualFold(l.GetName(), r) {
					name = l.GetName()
				}
			}
			if name == "" {
				lc := c
				lc.Resource = labelResource(repo, r)
				return nil, ghstatus.NotFound(lc, "#"+strconv.Itoa(n)+" does not have label "+strconv.Quote(r)+"; nothing was changed")
			}
			remove = append(remove, name)
		}
	}
	if len(req.GetAdd()) > 0 {
		got, err := send[[]*github.Label](ctx, gh, http.MethodPost, base, map[string][]string{"labels": req.GetAdd()})
		if err != nil {
			return nil, s.fail(ctx, err, c)
		}
		now = *got
	}
	for _, name := range remove {
		got, err := send[[]*github.Label](ctx, gh, http.MethodDelete, base+"/"+escapeSegment(name), nil)
		switch {
		case err == nil:
			now = *got
		case ghstatus.HTTPStatus(err) == http.StatusNotFound:
			now = withoutLabel(now, name) // gone already
		default:
			return nil, s.fail(ctx, err, c)
		}
	}
	return &ghopsv1.LabelIssueResponse{Labels: labelNames(now)}, nil
}

// escapeSegment escapes a label name as one path segment (ghpath.One's escaping; the name was
// checked to hold no "/").
func escapeSegment(name string) string {
	u, _ := ghpath.Join(ghpath.One("name", name))
	return u
}

func withoutLabel(ls []*github.Label, name string) []*github.Label {
	out := []*github.Label{}
	for _, l := range ls {
		if !strings.EqualFold(l.GetName(), name) {
			out = append(out, l)
		}
	}
	return out
}
