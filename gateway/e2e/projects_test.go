package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"ghops.dev/services/fakehub"

	"ghops.dev/gateway/gatewaytest"
)

// projectItem is the part of a project item the agent reads.
type projectItem struct {
	ID     string         `json:"id"`
	Repo   string         `json:"repo"`
	Number int            `json:"number"`
	Fields map[string]any `json:"fields"`
}

// TestSprintPlanning: sprint planning as an agent does it, through the
// official MCP Go SDK against the gateway, the service and fakehub. On a
// project with five backlog issues (set up, not measured) the agent
// creates a Sprint iteration field, adds the five issues with their status
// and sprint set by name, marks two done, finds the current sprint's
// unfinished items with one filtered listing, rolls them to the next
// sprint in one call, posts an "at risk" status update, creates a
// milestone and puts two issues in it. The task is measured as an agent
// pays for it (docs/benchmarks.md, "Sprint planning"): tool calls, bytes
// the model reads (tools/list and every result) and GitHub requests; every
// outcome is then read back from fakehub itself.
func TestSprintPlanning(t *testing.T) {
	for _, tc := range taskConfigs([]string{"projects", "issues"}) {
		t.Run(tc.name, func(t *testing.T) { sprintPlanning(t, tc.opts) })
	}
}

func sprintPlanning(t *testing.T, opts gatewaytest.StackOptions) {
	st := gatewaytest.StartStack(t, opts)
	setup := newAgent(t, st.URL+"/mcp")
	var proj struct {
		Project string `json:"project"`
	}
	setup.call("create_project", map[string]any{"owner": "octo-org", "title": "Greeting sprints"}, &proj)
	setup.call("create_project_field", map[string]any{"project": proj.Project, "name": "Estimate", "type": "number"}, nil)
	var issues []int
	for _, title := range []string{"Greet in French", "Greet in German", "Trim the name", "Log greetings", "Greeting benchmark"} {
		var is struct {
			Issue struct {
				Number int `json:"number"`
			} `json:"issue"`
		}
		setup.call("create_issue", map[string]any{"repo": repo, "title": title}, &is)
		issues = append(issues, is.Issue.Number)
	}

	before := githubCalls(st)
	a := newAgent(t, st.URL+"/mcp")
	step := func(what string, from, bytesFrom, ghFrom int) {
		t.Logf("| %s | %d | %d | %d |", what, a.calls-from, a.bytes-bytesFrom, githubCalls(st)-ghFrom)
	}
	mark := func() (int, int, int) { return a.calls, a.bytes, githubCalls(st) }
	t.Logf("| tools/list | 0 | %d | 0 |", a.list)

	c, b, g := mark()
	start := time.Now().UTC().AddDate(0, 0, -7).Format(time.DateOnly)
	var field struct {
		Field struct {
			Iterations []struct {
				Title   string `json:"title"`
				Current bool   `json:"current"`
			} `json:"iterations"`
		} `json:"field"`
	}
	a.call("create_project_field", map[string]any{"project": proj.Project, "name": "Sprint", "type": "iteration",
		"iteration": map[string]any{"start_date": start, "duration_days": 14, "count": 3}}, &field)
	if len(field.Field.Iterations) != 3 || !field.Field.Iterations[0].Current || field.Field.Iterations[1].Title != "Sprint 2" {
		t.Fatalf("create_project_field: %+v", field)
	}
	step("create the Sprint field", c, b, g)

	c, b, g = mark()
	var ids []string
	for _, n := range issues {
		var added struct {
			Item projectItem `json:"item"`
		}
		a.call("add_project_item", map[string]any{"project": proj.Project, "repo": repo, "number": n,
			"fields": map[string]any{"Status": "Todo", "Sprint": "@current", "Estimate": len(ids) + 1}}, &added)
		// Each value under its field type's key, a number as a JSON number.
		if added.Item.ID == "" || !reflect.DeepEqual(added.Item.Fields, map[string]any{"Status": map[string]any{"option": "Todo"},
			"Sprint": map[string]any{"sprint": "Sprint 1"}, "Estimate": map[string]any{"number": float64(len(ids) + 1)}}) {
			t.Fatalf("add_project_item: %+v", added)
		}
		ids = append(ids, added.Item.ID)
	}
	step("add 5 issues with status and sprint", c, b, g)

	c, b, g = mark()
	var up struct {
		Updated int `json:"updated"`
	}
	a.call("update_project_items", map[string]any{"project": proj.Project, "item_ids": ids[:2], "fields": map[string]any{"Status": "Done"}}, &up)
	if up.Updated != 2 {
		t.Fatalf("update_project_items: %+v", up)
	}
	step("mark 2 done", c, b, g)

	c, b, g = mark()
	var open struct {
		Items []projectItem `json:"items"`
	}
	a.call("list_project_items", map[string]any{"project": proj.Project, "filter": "sprint:@current -status:Done", "fields": []string{"Status", "Sprint"}}, &open)
	if len(open.Items) != 3 {
		t.Fatalf("current sprint's unfinished items: %+v, want 3", open.Items)
	}
	var unfinished []string
	for _, it := range open.Items {
		unfinished = append(unfinished, it.ID)
	}
	step("list the current sprint's unfinished items", c, b, g)

	c, b, g = mark()
	a.call("update_project_items", map[string]any{"project": proj.Project, "item_ids": unfinished, "fields": map[string]any{"Sprint": "@next"}}, &up)
	if up.Updated != 3 {
		t.Fatalf("roll to the next sprint: %+v", up)
	}
	step("roll 3 items to the next sprint", c, b, g)

	c, b, g = mark()
	a.call("create_project_status_update", map[string]any{"project": proj.Project, "status": "at_risk",
		"body": "Three of five tasks rolled over to Sprint 2."}, nil)
	step("post an at-risk status update", c, b, g)

	c, b, g = mark()
	var ms struct {
		Milestone struct {
			Number int `json:"number"`
		} `json:"milestone"`
	}
	a.call("create_milestone", map[string]any{"repo": repo, "title": "Localisation", "due_on": time.Now().UTC().AddDate(0, 1, 0).Format(time.DateOnly)}, &ms)
	for _, n := range issues[:2] {
		a.call("update_issue", map[string]any{"repo": repo, "issueNumber": n, "milestone": ms.Milestone.Number}, nil)
	}
	step("create a milestone with 2 issues", c, b, g)

	github := githubCalls(st) - before
	t.Logf("task %q: %d tool calls, %d bytes read by the model (tools/list %d, results %d), %d GitHub requests",
		"sprint planning", a.calls, a.bytes, a.list, a.bytes-a.list, github)

	// Every outcome, read back from fakehub itself.
	owner, number, _ := strings.Cut(proj.Project, "/")
	var state struct {
		Data struct {
			Organization struct {
				ProjectV2 struct {
					Items struct {
						Nodes []struct {
							ID      string `json:"id"`
							Content struct {
								Number    int `json:"number"`
								Milestone *struct {
									Title string `json:"title"`
								} `json:"milestone"`
							} `json:"content"`
							FieldValues struct {
								Nodes []struct {
									Name   string   `json:"name"`
									Title  string   `json:"title"`
									Number *float64 `json:"number"`
									Field  struct {
										Name string `json:"name"`
									} `json:"field"`
								} `json:"nodes"`
							} `json:"fieldValues"`
						} `json:"nodes"`
					} `json:"items"`
					StatusUpdates struct {
						Nodes []struct {
							Status string `json:"status"`
							Body   string `json:"body"`
						} `json:"nodes"`
					} `json:"statusUpdates"`
				} `json:"projectV2"`
			} `json:"organization"`
		} `json:"data"`
	}
	hubGraphQL(t, st, `query($owner: String!, $number: Int!) { organization(login: $owner) { projectV2(number: $number) {
  items(first: 20) { nodes { id content { ... on Issue { number milestone { title } } }
    fieldValues(first: 20) { nodes {
      ... on ProjectV2ItemFieldSingleSelectValue { name field { ... on ProjectV2FieldCommon { name } } }
      ... on ProjectV2ItemFieldIterationValue { title field { ... on ProjectV2FieldCommon { name } } }
      ... on ProjectV2ItemFieldNumberValue { number field { ... on ProjectV2FieldCommon { name } } } } } } }
  statusUpdates(first: 1) { nodes { status body } } } } }`, map[string]any{"owner": owner, "number": atoi(t, number)}, &state)
	p := state.Data.Organization.ProjectV2
	if len(p.Items.Nodes) != 5 {
		t.Fatalf("fakehub holds %d items, want 5", len(p.Items.Nodes))
	}
	for i, it := range p.Items.Nodes {
		values := map[string]string{}
		for _, v := range it.FieldValues.Nodes {
			values[v.Field.Name] = v.Name + v.Title
			if v.Number != nil {
				values[v.Field.Name] = strconv.FormatFloat(*v.Number, 'f', -1, 64)
			}
		}
		want := map[string]string{"Status": "Todo", "Sprint": "Sprint 2", "Estimate": strconv.Itoa(i + 1)}
		if i < 2 {
			want = map[string]string{"Status": "Done", "Sprint": "Sprint 1", "Estimate": strconv.Itoa(i + 1)}
		}
		if it.ID != ids[i] || it.Content.Number != issues[i] || values["Status"] != want["Status"] || values["Sprint"] != want["Sprint"] || values["Estimate"] != want["Estimate"] {
			t.Errorf("item %d in fakehub: %+v %v, want #%d with %v", i, it, values, issues[i], want)
		}
		if hasMilestone := it.Content.Milestone != nil && it.Content.Milestone.Title == "Localisation"; hasMilestone != (i < 2) {
			t.Errorf("issue #%d milestone %+v", issues[i], it.Content.Milestone)
		}
	}
	if su := p.StatusUpdates.Nodes; len(su) != 1 || su[0].Status != "AT_RISK" || !strings.Contains(su[0].Body, "rolled over") {
		t.Errorf("status updates in fakehub: %+v", su)
	}
}

// hubGraphQL asks fakehub's GraphQL endpoint directly, with the demo token,
// to read back what the tools did.
func hubGraphQL(t *testing.T, st *gatewaytest.Stack, query string, vars map[string]any, out any) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, st.HubURL+"graphql", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+fakehub.DemoToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || bytes.Contains(raw, []byte(`"errors"`)) {
		t.Fatalf("fakehub GraphQL: %d %s", resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

const (
	keyPlanner = "ghk_planner_0123456789abcdef0123456"
	keyLead    = "ghk_lead_0123456789abcdef0123456789"
)

// plannerPolicy limits planner to octocat's repositories (so that the demo
// project octo-org/1's items of octo-org/hello-world are outside them) and
// leaves lead unlimited.
var plannerPolicy = `principals:
  - name: planner
    key_sha256: ` + sha256hex(keyPlanner) + `
    repos: ["octocat/*"]
    projects: ["octo-org/*"]
  - name: lead
    key_sha256: ` + sha256hex(keyLead) + `
`

// TestProjectItemsOutsideRepos: a principal limited to some repositories
// that holds the id of a project item from another repository (learnt
// elsewhere: here from an unlimited principal) cannot update, archive or
// delete it. Each call is -32002 naming only the item id, as an item of
// another project is, after the one GitHub read that shows where the item
// comes from; nothing changes, and the project's draft stays writable.
func TestProjectItemsOutsideRepos(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: plannerPolicy})
	lead := []string{"Authorization", "Bearer " + keyLead}
	planner := []string{"Authorization", "Bearer " + keyPlanner}
	items := func(hdr []string) (string, []projectItem) {
		t.Helper()
		_, out := rpcCall(t, st.URL, "list_project_items", `{"project":"octo-org/1"}`, hdr...)
		var res struct {
			Items []projectItem `json:"items"`
		}
		if err := json.Unmarshal(out["result"], &res); err != nil {
			t.Fatalf("list_project_items: %s", out["error"])
		}
		return string(out["result"]), res.Items
	}
	before, all := items(lead)
	var outside, draft string
	for _, it := range all {
		switch {
		case it.Repo == repo && outside == "":
			outside = it.ID
		case it.Repo == "":
			draft = it.ID
		}
	}
	if outside == "" || draft == "" {
		t.Fatalf("octo-org/1 has no item of %s or no draft: %+v", repo, all)
	}
	if _, seen := items(planner); len(seen) != 1 || seen[0].ID != draft {
		t.Fatalf("planner lists %+v, want only the draft", seen)
	}
	for _, tc := range []struct{ tool, args string }{
		{"update_project_items", `{"project":"octo-org/1","item_ids":["` + outside + `"],"fields":{"Status":"Done"}}`},
		{"update_project_items", `{"project":"octo-org/1","item_ids":["` + draft + `","` + outside + `"],"clear":["Sprint"]}`},
		{"archive_project_item", `{"project":"octo-org/1","item_id":"` + outside + `","archived":true}`},
		{"delete_project_item", `{"project":"octo-org/1","item_id":"` + outside + `"}`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			n := githubCalls(st)
			_, out := rpcCall(t, st.URL, tc.tool, tc.args, planner...)
			code, data := errOf(t, out)
			if code != -32002 || string(data["resource"]) != `{"type":"item","id":"`+outside+`"}` {
				t.Fatalf("code %d data %v, want -32002 naming the item", code, data)
			}
			if bytes.Contains(out["error"], []byte("hello-world")) {
				t.Errorf("the refusal names the item's repository: %s", out["error"])
			}
			if got := githubCalls(st) - n; got != 1 {
				t.Errorf("%d GitHub requests, want the one project read", got)
			}
		})
	}
	if after, _ := items(lead); after != before {
		t.Errorf("a refused call changed the project:\n%s\n%s", before, after)
	}
	_, out := rpcCall(t, st.URL, "update_project_items", `{"project":"octo-org/1","item_ids":["`+draft+`"],"fields":{"Status":"Done"}}`, planner...)
	if out["result"] == nil {
		t.Fatalf("the draft: %s", out["error"])
	}
}

// TestProjectErrorsNameResources: through the gateway, a sprint or view the
// project lacks is -32602 whose data.resource names the sprint or the view
// (docs/errors.md, "GitHub Projects and milestones"), a value of the wrong
// type names its field, and nothing is written.
func TestProjectErrorsNameResources(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	_, out := rpcCall(t, st.URL, "list_project_items", `{"project":"octo-org/1","filter":"is:issue"}`)
	var res struct {
		Items []projectItem `json:"items"`
	}
	if err := json.Unmarshal(out["result"], &res); err != nil || len(res.Items) == 0 {
		t.Fatalf("list_project_items: %s", out["error"])
	}
	id := res.Items[0].ID
	for _, tc := range []struct{ name, tool, args, resource, says string }{
		{"unknown sprint", "update_project_items", `{"project":"octo-org/1","item_ids":["` + id + `"],"fields":{"Sprint":"Sprint 12"}}`,
			`{"type":"sprint","id":"Sprint 12"}`, `none of its sprints \"Sprint 2\", \"Sprint 3\", \"Sprint 1\"`},
		{"unknown view", "list_project_items", `{"project":"octo-org/1","view":"Roadmap"}`,
			`{"type":"view","id":"Roadmap"}`, `its views: \"Backlog\", \"Current sprint\"`},
		{"date for a number", "update_project_items", `{"project":"octo-org/1","item_ids":["` + id + `"],"fields":{"Estimate":"2026-12-01"}}`,
			`{"type":"field","id":"Estimate"}`, `is number`},
		{"number for a date", "update_project_items", `{"project":"octo-org/1","item_ids":["` + id + `"],"fields":{"Due":20261201}}`,
			`{"type":"field","id":"Due"}`, `is date`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st.Hub.ResetStats()
			_, out := rpcCall(t, st.URL, tc.tool, tc.args)
			code, data := errOf(t, out)
			if code != -32602 || string(data["resource"]) != tc.resource || !bytes.Contains(out["error"], []byte(tc.says)) {
				t.Fatalf("code %d, error %s; want -32602 with resource %s saying %s", code, out["error"], tc.resource, tc.says)
			}
			for route := range st.Hub.Stats().ByRoute {
				if route != "POST /graphql" {
					t.Errorf("GitHub request %s", route)
				}
			}
			if st.Hub.Stats().Total != 1 {
				t.Errorf("%d GitHub requests, want the one project read", st.Hub.Stats().Total)
			}
		})
	}
}
