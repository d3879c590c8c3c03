package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/internal/ghstatus"
)

// GitHub Projects (v2) exist only in GraphQL. Every project tool first
// reads the project (projectQuery: its id, fields with their options and
// sprints, views, latest status update, and the items the call names), so
// that names are resolved and ids are checked against what GitHub says
// belongs to the project before anything is written.

// Cost bounds (docs/errors.md, "GraphQL cost"): GitHub charges GraphQL in
// points from its own hourly bucket; one call of a project tool spends at
// most ProjectPointsCap points, and list_project_items reads at most
// ProjectMaxScan items to fill a page.
const (
	// ProjectPointsCap is the most GraphQL points one call may spend.
	ProjectPointsCap = 250
	// ProjectMaxScan is the most items list_project_items reads per call.
	ProjectMaxScan = 500
	// projectItemsPage is the items read per GraphQL request.
	projectItemsPage = 50
	// projectResultPage is the matches list_project_items returns per page.
	projectResultPage = 50
	// projectsPage is list_projects' page size.
	projectsPage = 20
)

// projectQuery reads a project with everything names resolve against; a
// call that names items adds one aliased itemNodeQuery field per item to
// it (projectbatch.go), so that the read stays one request.
const projectQuery = `query($owner: String!, $number: Int!) {
  repositoryOwner(login: $owner) {
    ... on ProjectV2Owner {
      projectV2(number: $number) {
        id title shortDescription closed url
        items(first: 1) { totalCount }
        fields(first: 50) {
          nodes {
            ... on ProjectV2FieldCommon { id name dataType }
            ... on ProjectV2SingleSelectField { options { id name } }
            ... on ProjectV2IterationField { configuration { iterations { id title startDate duration } completedIterations { id title startDate duration } } }
          }
        }
        views(first: 20) { nodes { number name layout filter } }
        statusUpdates(first: 1) { nodes { status body startDate targetDate createdAt creator { login } } }
      }
    }
  }
  rateLimit { cost }
}`

// itemNodeQuery is the template of one named item's read.
const itemNodeQuery = `query($id: ID!) {
  item: node(id: $id) {
    ... on ProjectV2Item {
      id type isArchived project { id }
      content {
        __typename
        ... on Issue { number title state repository { nameWithOwner } assignees(first: 10) { nodes { login } } labels(first: 10) { nodes { name } } milestone { title } }
        ... on PullRequest { number title prState: state repository { nameWithOwner } assignees(first: 10) { nodes { login } } labels(first: 10) { nodes { name } } milestone { title } }
        ... on DraftIssue { title assignees(first: 10) { nodes { login } } }
      }
      fieldValues(first: 20) {
        nodes {
          ... on ProjectV2ItemFieldTextValue { text field { ... on ProjectV2FieldCommon { name } } }
          ... on ProjectV2ItemFieldNumberValue { number field { ... on ProjectV2FieldCommon { name } } }
          ... on ProjectV2ItemFieldDateValue { date field { ... on ProjectV2FieldCommon { name } } }
          ... on ProjectV2ItemFieldSingleSelectValue { name field { ... on ProjectV2FieldCommon { name } } }
          ... on ProjectV2ItemFieldIterationValue { title field { ... on ProjectV2FieldCommon { name } } }
        }
      }
    }
  }
}`

// projectItemsQuery reads one page of a project's items (by its node id).
const projectItemsQuery = `query($id: ID!, $first: Int!, $after: String) {
  node(id: $id) {
    ... on ProjectV2 {
      items(first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id type isArchived
          content {
            __typename
            ... on Issue { number title state repository { nameWithOwner } assignees(first: 10) { nodes { login } } labels(first: 10) { nodes { name } } milestone { title } }
            ... on PullRequest { number title prState: state repository { nameWithOwner } assignees(first: 10) { nodes { login } } labels(first: 10) { nodes { name } } milestone { title } }
            ... on DraftIssue { title assignees(first: 10) { nodes { login } } }
          }
          fieldValues(first: 20) {
            nodes {
              ... on ProjectV2ItemFieldTextValue { text field { ... on ProjectV2FieldCommon { name } } }
              ... on ProjectV2ItemFieldNumberValue { number field { ... on ProjectV2FieldCommon { name } } }
              ... on ProjectV2ItemFieldDateValue { date field { ... on ProjectV2FieldCommon { name } } }
              ... on ProjectV2ItemFieldSingleSelectValue { name field { ... on ProjectV2FieldCommon { name } } }
              ... on ProjectV2ItemFieldIterationValue { title field { ... on ProjectV2FieldCommon { name } } }
            }
          }
        }
      }
    }
  }
  rateLimit { cost }
}`

// projectsQuery lists an owner's projects.
const projectsQuery = `query($owner: String!, $first: Int!, $after: String, $query: String) {
  repositoryOwner(login: $owner) {
    ... on ProjectV2Owner {
      projectsV2(first: $first, after: $after, query: $query) {
        pageInfo { hasNextPage endCursor }
        nodes { number title closed url items(first: 1) { totalCount } }
      }
    }
  }
  rateLimit { cost }
}`

// ownerQuery reads the node id create_project needs.
const ownerQuery = `query($owner: String!) {
  repositoryOwner(login: $owner) { id login }
  rateLimit { cost }
}`

// meter adds up what a call spent of GitHub's GraphQL budget.
type meter struct {
	points, requests int32
}

// cost is the answer's GraphQLCost.
func (m *meter) cost() *ghopsv1.GraphQLCost {
	return &ghopsv1.GraphQLCost{Points: m.points, Requests: m.requests}
}

// errCostCap is a call that would spend more than ProjectPointsCap points.
var errCostCap = errors.New("cost cap")

// gqlError is one GraphQL error with its path (which node id it is about).
type gqlError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Path    []any  `json:"path"`
}

// gqlFailure is an answer with errors; where names the items the errors'
// paths point at (their aliases' numbers), when any.
type gqlFailure struct {
	errs  []gqlError
	resp  *http.Response
	where []int
}

func (f *gqlFailure) Error() string { return f.unwrap().Error() }

func (f *gqlFailure) unwrap() *ghstatus.GraphQLErrors {
	ge := &ghstatus.GraphQLErrors{Response: f.resp}
	for _, e := range f.errs {
		ge.Errors = append(ge.Errors, ghstatus.GraphQLError{Type: e.Type, Message: e.Message})
	}
	return ge
}

// Unwrap lets ghstatus translate the failure by its first error's type.
func (f *gqlFailure) Unwrap() error { return f.unwrap() }

// graphQL sends doc with vars through gh's authenticated client and decodes
// its data into out: the service's one GraphQL call (reviews, projects).
// GitHub answers failures with 200 and an errors list, returned as a
// *gqlFailure that unwraps to *ghstatus.GraphQLErrors. A POST passes the
// retry and cache transports untouched (never replayed); the budget
// transport counts it in the graphql bucket and charges it to the
// principal's share. Every request counts in m; a document that selects
// rateLimit adds GitHub's figure of its cost, any other (a mutation) one
// point. A request is not sent once m has reached ProjectPointsCap.
func graphQL(ctx context.Context, gh *github.Client, m *meter, doc string, vars map[string]any, out any) error {
	if m.points >= ProjectPointsCap {
		return errCostCap
	}
	req, err := gh.NewRequest(http.MethodPost, GraphQLURL(gh.BaseURL).String(), map[string]any{"query": doc, "variables": vars})
	if err != nil {
		return err
	}
	var ans struct {
		Data   json.RawMessage `json:"data"`
		Errors []gqlError      `json:"errors"`
	}
	resp, err := gh.Do(ctx, req, &ans)
	m.requests++
	if err != nil {
		return err
	}
	var rl struct {
		RateLimit *struct {
			Cost int32 `json:"cost"`
		} `json:"rateLimit"`
	}
	_ = json.Unmarshal(ans.Data, &rl)
	if rl.RateLimit != nil {
		m.points += max(rl.RateLimit.Cost, 1)
	} else {
		m.points++
	}
	if len(ans.Errors) > 0 {
		f := &gqlFailure{errs: ans.Errors, resp: resp.Response}
		for _, e := range ans.Errors {
			if len(e.Path) > 0 {
				if alias, ok := e.Path[0].(string); ok && strings.HasPrefix(alias, itemAlias) {
					if i, err := strconv.Atoi(alias[len(itemAlias):]); err == nil {
						f.where = append(f.where, i)
					}
				}
			}
		}
		return f
	}
	if len(ans.Data) == 0 || string(ans.Data) == "null" {
		return errors.New("graphql answer without data")
	}
	return json.Unmarshal(ans.Data, out)
}

// projectRef splits a validated "owner/number".
func projectRef(ref string) (owner string, number int) {
	owner, n, _ := strings.Cut(ref, "/")
	number, _ = strconv.Atoi(n)
	return owner, number
}

// projectContext is the error context of a call about project ref.
func projectContext(tool, ref string) ghstatus.Context {
	return ghstatus.Context{Tool: tool, Resource: &ghopsv1.Resource{Type: "project", Id: ref}}
}

// failProject translates err of a project call: the cost cap, a node id
// GitHub does not know (-32002 naming the item), and everything else
// through ghstatus with the project as the resource.
func (s *Service) failProject(ctx context.Context, err error, c ghstatus.Context, ids []string) error {
	if errors.Is(err, errCostCap) {
		return ghstatus.New(codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED,
			fmt.Sprintf("the call would spend more than %d GraphQL points (the per-call cap, docs/errors.md); narrow it", ProjectPointsCap), c,
			&ghopsv1.GitHubError{RateLimit: &ghopsv1.RateLimit{Resource: "graphql"}})
	}
	var f *gqlFailure
	if errors.As(err, &f) && len(f.where) > 0 && f.where[0] < len(ids) {
		c.Resource = &ghopsv1.Resource{Type: "item", Id: ids[f.where[0]]}
	}
	return s.fail(ctx, err, c)
}
