package fakehub_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// restProjectIDs are the numeric ids of a demo project's fields and items, read over REST.
type restProjectIDs struct {
	fields map[string]int64 // by name
	items  map[string]int64 // by content title
}

// readRESTProject lists a project's fields and items (with every field) over REST.
func readRESTProject(t *testing.T, f *conformanceFixture, base string) restProjectIDs {
	t.Helper()
	ids := restProjectIDs{fields: map[string]int64{}, items: map[string]int64{}}
	var fields []struct {
		ID   int64
		Name string
	}
	getProjectJSON(t, f, base+"/fields", &fields)
	for _, fl := range fields {
		ids.fields[fl.Name] = fl.ID
	}
	var items []struct {
		ID      int64
		Content struct{ Title string }
	}
	getProjectJSON(t, f, base+"/items?per_page=100&q=is:archived", &items) // the archived one too
	var live []struct {
		ID      int64
		Content struct{ Title string }
	}
	getProjectJSON(t, f, base+"/items?per_page=100", &live)
	for _, it := range append(items, live...) {
		ids.items[it.Content.Title] = it.ID
	}
	return ids
}

func getProjectJSON(t *testing.T, f *conformanceFixture, path string, out any) {
	t.Helper()
	req, err := http.NewRequest("GET", f.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+writer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// wantItems checks a listing holds exactly the items titled titles, in any order.
func wantItems(titles ...string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var items []struct{ Content struct{ Title string } }
		if err := json.Unmarshal(body, &items); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, it := range items {
			got[it.Content.Title] = true
		}
		want := map[string]bool{}
		for _, s := range titles {
			want[s] = true
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("items %v, want %v", got, want)
		}
	}
}

// wantValue checks the first field value of an item answer.
func wantValue(name string, want string) func(*testing.T, *http.Response, []byte) {
	return func(t *testing.T, _ *http.Response, body []byte) {
		t.Helper()
		var it struct {
			Fields []struct {
				Name  string
				Value any
			}
		}
		if err := json.Unmarshal(body, &it); err != nil {
			t.Fatal(err)
		}
		for _, v := range it.Fields {
			if v.Name == name {
				if got, _ := json.Marshal(v.Value); !strings.Contains(string(got), want) {
					t.Errorf("%s = %s, want it to hold %s", name, got, want)
				}
				return
			}
		}
		t.Errorf("no value of %s in %s", name, body)
	}
}

// projectCases are the REST Projects (v2) operations' cases, against the demo projects
// octo-org/1 (a sprint board whose second sprint is the current one) and octocat/1.
func (f *conformanceFixture) projectCases(t *testing.T) []conformanceCase {
	org := "orgs/octo-org/projectsV2/1"
	user := "users/octocat/projectsV2/1"
	o := readRESTProject(t, f, org)
	u := readRESTProject(t, f, user)
	item := fmt.Sprint(o.items["Greeting is always in English"])
	status, estimate := o.fields["Status"], o.fields["Estimate"]
	tok := "token " + writer
	const hidden = "GitHub answers 404 for a project or item the token cannot see, though the description lists no 404"
	var uItem string
	for _, id := range u.items {
		uItem = fmt.Sprint(id)
	}
	return []conformanceCase{
		{name: "project fields", op: "GET /orgs/{org}/projectsV2/{project_number}/fields", path: org + "/fields", token: tok, status: 200},
		{name: "project fields of a missing project", op: "GET /orgs/{org}/projectsV2/{project_number}/fields", path: "orgs/octo-org/projectsV2/99/fields", token: tok, status: 404, undocumented: hidden},
		{name: "items of the current sprint not done", op: "GET /orgs/{org}/projectsV2/{project_number}/items",
			path: fmt.Sprintf("%s/items?q=%s&fields=%d,%d", org, "sprint:@current+-status:Done", status, estimate), token: tok, status: 200,
			then: wantItems("Greeting ignores empty names", "Greeting is always in English", "Document the greet package", "Rotate the signing key")},
		{name: "items of the next iteration", op: "GET /orgs/{org}/projectsV2/{project_number}/items", path: org + "/items?q=iteration:@next", token: tok, status: 200,
			then: wantItems("Add a farewell", "Plan the 2.0 greeting")},
		{name: "items by status", op: "GET /orgs/{org}/projectsV2/{project_number}/items", path: org + "/items?q=status:Todo,%22In+Progress%22+-sprint:%22Sprint+2%22", token: tok, status: 200,
			then: wantItems("Add a farewell", "Plan the 2.0 greeting")},
		{name: "items with an unknown field", op: "GET /orgs/{org}/projectsV2/{project_number}/items", path: org + "/items?fields=1", token: tok, status: 422,
			undocumented: "GitHub refuses a fields id that is no field of the project"},
		{name: "items of a missing project", op: "GET /orgs/{org}/projectsV2/{project_number}/items", path: "orgs/octo-org/projectsV2/99/items", token: tok, status: 404, undocumented: hidden},
		{name: "one item", op: "GET /orgs/{org}/projectsV2/{project_number}/items/{item_id}", path: fmt.Sprintf("%s/items/%s?fields=%d", org, item, status), token: tok, status: 200,
			then: wantValue("Status", `"raw":"Todo"`)},
		{name: "a missing item", op: "GET /orgs/{org}/projectsV2/{project_number}/items/{item_id}", path: org + "/items/1", token: tok, status: 404, undocumented: hidden},
		{name: "set an estimate and a status", op: "PATCH /orgs/{org}/projectsV2/{project_number}/items/{item_id}", path: org + "/items/" + item, token: tok, status: 200,
			body: fmt.Sprintf(`{"fields":[{"id":%d,"value":5},{"id":%d,"value":null}]}`, estimate, status), then: wantValue("Estimate", "5")},
		{name: "an option that is not the field's", op: "PATCH /orgs/{org}/projectsV2/{project_number}/items/{item_id}", path: org + "/items/" + item, token: tok, status: 422,
			body: fmt.Sprintf(`{"fields":[{"id":%d,"value":"nope"}]}`, status)},
		{name: "an item change without a token", op: "PATCH /orgs/{org}/projectsV2/{project_number}/items/{item_id}", path: org + "/items/" + item, status: 401,
			body: fmt.Sprintf(`{"fields":[{"id":%d,"value":1}]}`, estimate)},
		{name: "an item change by a reader", op: "PATCH /orgs/{org}/projectsV2/{project_number}/items/{item_id}", path: org + "/items/" + item, token: "token " + readOnly, status: 403,
			body: fmt.Sprintf(`{"fields":[{"id":%d,"value":1}]}`, estimate)},
		{name: "user project fields", op: "GET /users/{username}/projectsV2/{project_number}/fields", path: user + "/fields", token: tok, status: 200},
		{name: "user project fields, missing project", op: "GET /users/{username}/projectsV2/{project_number}/fields", path: "users/octocat/projectsV2/9/fields", token: tok, status: 404, undocumented: hidden},
		{name: "user project items", op: "GET /users/{username}/projectsV2/{project_number}/items", path: user + "/items", token: tok, status: 200},
		{name: "user project items, missing project", op: "GET /users/{username}/projectsV2/{project_number}/items", path: "users/octocat/projectsV2/9/items", token: tok, status: 404, undocumented: hidden},
		{name: "user project item", op: "GET /users/{username}/projectsV2/{project_number}/items/{item_id}", path: user + "/items/" + uItem, token: tok, status: 200},
		{name: "user project item, missing", op: "GET /users/{username}/projectsV2/{project_number}/items/{item_id}", path: user + "/items/1", token: tok, status: 404, undocumented: hidden},
		{name: "user project item change", op: "PATCH /users/{username}/projectsV2/{project_number}/items/{item_id}", path: user + "/items/" + uItem, token: tok, status: 200,
			body: `{"fields":[{"id":` + fmt.Sprint(u.fields["Status"]) + `,"value":null}]}`},
		{name: "user project item change, not JSON", op: "PATCH /users/{username}/projectsV2/{project_number}/items/{item_id}", path: user + "/items/" + uItem, token: tok, status: 400,
			body: `{`, undocumented: "GitHub answers 400 Problems parsing JSON to a body that is not JSON"},
	}
}
