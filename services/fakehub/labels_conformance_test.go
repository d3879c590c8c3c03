package fakehub_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
)

// labelCases are the conformance cases of the label and sub-issue routes, against the demo's
// labels and its parent issue "Speak more languages" with three sub-issues (one closed).
func (f *conformanceFixture) labelCases(t *testing.T) []conformanceCase {
	t.Helper()
	s := f.srv
	w, ro := "token "+writer, "token "+readOnly
	hw := "repos/octo-org/hello-world/"
	num := func(title string) string { return strconv.Itoa(demoIssueNumber(t, s, title)) }
	parent, french, german := num("Speak more languages"), num("Translate to French"), num("Translate to German")
	idOf := func(n string) string {
		_, o := do2(t, s, "GET", hw+"issues/"+n, "", writer)
		return fmt.Sprint(int64(o["id"].(float64)))
	}
	bugID, frenchID, parentID := idOf(f.bug), idOf(french), idOf(parent)
	sub := func(id string) string { return `{"sub_issue_id":` + id + `}` }
	return []conformanceCase{
		{name: "create label", op: "POST /repos/{owner}/{repo}/labels", path: hw + "labels", token: w, status: 201,
			body: `{"name":"triage","color":"C5DEF5","description":"Needs a look"}`, then: wantFields(map[string]any{"name": "triage", "color": "c5def5"})},
		{name: "create label, name taken", op: "POST /repos/{owner}/{repo}/labels", path: hw + "labels", token: w, status: 422,
			body: `{"name":"BUG","color":"ffffff"}`, then: noEmptyField},
		{name: "create label, bad color", op: "POST /repos/{owner}/{repo}/labels", path: hw + "labels", token: w, status: 422,
			body: `{"name":"x","color":"#zz0000"}`, then: noEmptyField},
		{name: "create label without a name", op: "POST /repos/{owner}/{repo}/labels", path: hw + "labels", token: w, status: 422,
			body: `{"color":"ffffff"}`, then: noEmptyField},
		{name: "create label without write access", op: "POST /repos/{owner}/{repo}/labels", path: hw + "labels", token: ro, status: 403,
			body: `{"name":"x"}`, undocumented: "GitHub answers 403 when the token cannot push"},
		{name: "create label in a missing repository", op: "POST /repos/{owner}/{repo}/labels", path: "repos/octo-org/nope/labels", token: w, status: 404,
			body: `{"name":"x"}`},
		{name: "label", op: "GET /repos/{owner}/{repo}/labels/{name}", path: hw + "labels/good%20first%20issue", token: w, status: 200,
			then: wantFields(map[string]any{"name": "good first issue", "color": "7057ff"})},
		{name: "missing label", op: "GET /repos/{owner}/{repo}/labels/{name}", path: hw + "labels/nope", token: w, status: 404},
		{name: "rename label", op: "PATCH /repos/{owner}/{repo}/labels/{name}", path: hw + "labels/triage", token: w, status: 200,
			body: `{"new_name":"needs triage","color":"d4c5f9"}`, then: wantFields(map[string]any{"name": "needs triage", "color": "d4c5f9", "description": "Needs a look"})},
		{name: "rename label to a taken name", op: "PATCH /repos/{owner}/{repo}/labels/{name}", path: hw + "labels/needs%20triage", token: w, status: 422,
			body: `{"new_name":"bug"}`, undocumented: "GitHub refuses a taken name with 422 already_exists", then: noEmptyField},
		{name: "update label, bad color", op: "PATCH /repos/{owner}/{repo}/labels/{name}", path: hw + "labels/needs%20triage", token: w, status: 422,
			body: `{"color":"red"}`, undocumented: "GitHub refuses a colour that is not six hex digits with 422", then: noEmptyField},
		{name: "update missing label", op: "PATCH /repos/{owner}/{repo}/labels/{name}", path: hw + "labels/nope", token: w, status: 404,
			body: `{"color":"ffffff"}`, undocumented: "GitHub answers 404 for a label that does not exist"},
		{name: "add labels to an issue", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/labels", path: hw + "issues/" + f.bug + "/labels", token: w, status: 200,
			body: `{"labels":["needs triage","brand-new"]}`, then: wantLabelList("bug", "needs triage", "brand-new")},
		{name: "add labels to a pull request", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/labels", path: hw + "issues/2/labels", token: w, status: 200,
			body: `["needs triage"]`, then: wantLabelList("enhancement", "needs triage")},
		{name: "add labels, bad body", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/labels", path: hw + "issues/" + f.bug + "/labels", token: w, status: 422,
			body: `{"labels":[7]}`, then: noEmptyField},
		{name: "add labels to a missing issue", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/labels", path: hw + "issues/999/labels", token: w, status: 404,
			body: `{"labels":["bug"]}`},
		{name: "remove a label", op: "DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", path: hw + "issues/" + f.bug + "/labels/brand-new", token: w, status: 200,
			then: wantLabelList("bug", "needs triage")},
		{name: "remove a label the issue does not have", op: "DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", path: hw + "issues/" + f.bug + "/labels/i18n", token: w, status: 404,
			then: wantFields(map[string]any{"message": "Label does not exist"})},
		{name: "remove a label of a missing issue", op: "DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", path: hw + "issues/999/labels/bug", token: w, status: 404},
		{name: "sub-issues", op: "GET /repos/{owner}/{repo}/issues/{issue_number}/sub_issues", path: hw + "issues/" + parent + "/sub_issues?per_page=1", token: w, status: 200, link: true},
		{name: "sub-issues of a missing issue", op: "GET /repos/{owner}/{repo}/issues/{issue_number}/sub_issues", path: hw + "issues/999/sub_issues", token: w, status: 404},
		{name: "parent with progress", op: "GET /repos/{owner}/{repo}/issues/{issue_number}", path: hw + "issues/" + parent, token: w, status: 200,
			then: wantSubIssues(3, 1, 33)},
		{name: "parent issue", op: "GET /repos/{owner}/{repo}/issues/{issue_number}/parent", path: hw + "issues/" + german + "/parent", token: w, status: 200,
			then: wantFields(map[string]any{"title": "Speak more languages"})},
		{name: "parent of an issue without one", op: "GET /repos/{owner}/{repo}/issues/{issue_number}/parent", path: hw + "issues/" + parent + "/parent", token: w, status: 404},
		{name: "add sub-issue", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues", path: hw + "issues/" + parent + "/sub_issues", token: w, status: 201,
			body: sub(bugID), then: wantSubIssues(4, -1, -1)},
		{name: "add sub-issue twice", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues", path: hw + "issues/" + parent + "/sub_issues", token: w, status: 422,
			body: sub(bugID), then: noEmptyField},
		{name: "add an issue's own ancestor", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues", path: hw + "issues/" + french + "/sub_issues", token: w, status: 422,
			body: sub(parentID), then: noEmptyField},
		{name: "add a sub-issue that has a parent", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues", path: hw + "issues/" + german + "/sub_issues", token: w, status: 422,
			body: sub(frenchID), then: noEmptyField},
		{name: "move a sub-issue", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues", path: hw + "issues/" + german + "/sub_issues", token: w, status: 201,
			body: `{"sub_issue_id":` + frenchID + `,"replace_parent":true}`, then: wantSubIssues(1, -1, -1)},
		{name: "add sub-issue without an id", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues", path: hw + "issues/" + parent + "/sub_issues", token: w, status: 422,
			body: `{}`, then: noEmptyField},
		{name: "add an unknown sub-issue", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues", path: hw + "issues/" + parent + "/sub_issues", token: w, status: 404,
			body: sub("987654321")},
		{name: "add sub-issue without write access", op: "POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues", path: hw + "issues/" + parent + "/sub_issues", token: ro, status: 403,
			body: sub(bugID)},
		{name: "remove sub-issue", op: "DELETE /repos/{owner}/{repo}/issues/{issue_number}/sub_issue", path: hw + "issues/" + parent + "/sub_issue", token: w, status: 200,
			body: sub(bugID), then: wantSubIssues(2, -1, -1)},
		{name: "remove an issue that is no sub-issue", op: "DELETE /repos/{owner}/{repo}/issues/{issue_number}/sub_issue", path: hw + "issues/" + parent + "/sub_issue", token: w, status: 404,
			body: sub(bugID)},
	}
}

// wantLabelList requires a list of label objects with these names, in order.
func wantLabelList(names ...string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var ls []struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(body, &ls); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range ls {
			got = append(got, l.Name)
		}
		if !slices.Equal(got, names) {
			t.Errorf("labels %v, want %v", got, names)
		}
	}
}

// wantSubIssues requires an issue whose sub_issues_summary counts total sub-issues, completed of
// them closed and percent_completed percent (-1: not checked).
func wantSubIssues(total, completed, percent int) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var raw struct {
			Summary map[string]int `json:"sub_issues_summary"`
		}
		if err := json.Unmarshal(body, &raw); err != nil {
			t.Fatal(err)
		}
		got := raw.Summary
		if got["total"] != total || (completed >= 0 && got["completed"] != completed) || (percent >= 0 && got["percent_completed"] != percent) {
			t.Errorf("sub_issues_summary %v, want total %d, completed %d, percent %d", got, total, completed, percent)
		}
	}
}
