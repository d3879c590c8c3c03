package ops

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"

	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
)

// milestonesPage is list_milestones' page size.
const milestonesPage = 30

// toMilestone is the answer's milestone.
func toMilestone(m *github.Milestone) *ghopsv1.Milestone {
	return &ghopsv1.Milestone{Number: int32(m.GetNumber()), Title: m.GetTitle(), Description: m.GetDescription(), State: m.GetState(),
		DueOn: ts(m.DueOn), OpenIssues: int32(m.GetOpenIssues()), ClosedIssues: int32(m.GetClosedIssues())}
}

// milestoneContext is the error context of a call about milestone number of repo.
func milestoneContext(tool, repo string, number int32) ghstatus.Context {
	return ghstatus.Context{Tool: tool, Repo: repo, Resource: &ghopsv1.Resource{Type: "milestone", Id: repo + "#" + strconv.Itoa(int(number))}}
}

// ListMilestones implements the list_milestones tool: one GET, by due date.
func (s *Service) ListMilestones(ctx context.Context, req *ghopsv1.ListMilestonesRequest) (*ghopsv1.ListMilestonesResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolListMilestones, Repo: req.GetRepo()}
	p := max(int(req.GetPage()), 1)
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("milestones"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	state := req.GetState()
	if state == "" {
		state = "open"
	}
	list, resp, err := get[[]*github.Milestone](ctx, s, s.client(ctx), u, listQuery(p, milestonesPage, "state", state, "sort", "due_on", "direction", "asc"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.ListMilestonesResponse{Milestones: []*ghopsv1.Milestone{}, Page: pageInfo(p, milestonesPage, resp)}
	for _, m := range list {
		out.Milestones = append(out.Milestones, toMilestone(m))
	}
	return out, nil
}

// CreateMilestone implements the create_milestone tool: one POST.
func (s *Service) CreateMilestone(ctx context.Context, req *ghopsv1.CreateMilestoneRequest) (*ghopsv1.CreateMilestoneResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolCreateMilestone, Repo: req.GetRepo()}
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("milestones"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	body := &github.Milestone{Title: github.String(req.GetTitle()), Description: req.Description}
	if req.DueOn != nil {
		due, err := time.Parse(time.DateOnly, req.GetDueOn())
		if err != nil {
			return nil, ghstatus.InvalidField(c, fmt.Sprintf("due_on %q is not a date", req.GetDueOn()), "due_on", "date")
		}
		body.DueOn = &github.Timestamp{Time: due}
	}
	m, err := send[github.Milestone](ctx, s.client(ctx), http.MethodPost, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.CreateMilestoneResponse{Milestone: toMilestone(m)}, nil
}

// UpdateMilestone implements the update_milestone tool: one PATCH; only the
// given fields change.
func (s *Service) UpdateMilestone(ctx context.Context, req *ghopsv1.UpdateMilestoneRequest) (*ghopsv1.UpdateMilestoneResponse, error) {
	c := milestoneContext(ghopsv1.ToolUpdateMilestone, req.GetRepo(), req.GetNumber())
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("milestones"), ghpath.Lit(strconv.Itoa(int(req.GetNumber()))))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	body := &github.Milestone{Title: req.Title, State: req.State, Description: req.Description}
	if req.DueOn != nil {
		due, err := time.Parse(time.DateOnly, req.GetDueOn())
		if err != nil {
			return nil, ghstatus.InvalidField(c, fmt.Sprintf("due_on %q is not a date", req.GetDueOn()), "due_on", "date")
		}
		body.DueOn = &github.Timestamp{Time: due}
	}
	m, err := send[github.Milestone](ctx, s.client(ctx), http.MethodPatch, u, body)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	return &ghopsv1.UpdateMilestoneResponse{Milestone: toMilestone(m)}, nil
}
