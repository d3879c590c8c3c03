package fakehub_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

func TestAdminAndFaults(t *testing.T) {
	s := startHub(t, fakehub.Config{AdminToken: "admin-secret"})
	do := func(method, path, token, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	tests := []struct {
		name, method, path, token, body string
		want                            int
	}{
		{"admin needs token", "GET", "_fakehub/stats", "", "", 401},
		{"set faults", "PUT", "_fakehub/faults", "admin-secret", `[{"method":"GET","route":"/repos/{owner}/{repo}","error_rate":1,"error_status":503,"count":1}]`, 204},
		{"fault fires", "GET", "repos/octo-org/hello-world", "", "", 503},
		{"fault used up", "GET", "repos/octo-org/hello-world", "", "", 200},
		{"stats", "GET", "_fakehub/stats", "admin-secret", "", 200},
		{"reset", "POST", "_fakehub/reset", "admin-secret", "", 204},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := do(tc.method, tc.path, tc.token, tc.body).StatusCode; got != tc.want {
				t.Fatalf("status %d, want %d", got, tc.want)
			}
		})
	}
	if st := s.Hub.Stats(); st.Total != 0 {
		t.Fatalf("after reset: %+v", st)
	}
	do("GET", "api/v3/repos/octo-org/hello-world/git/trees/main", "", "")
	resp := do("GET", "_fakehub/requests", "admin-secret", "")
	var recs []fakehub.RequestRecord
	if err := json.NewDecoder(resp.Body).Decode(&recs); err != nil || len(recs) != 1 || recs[0].Route != "/repos/{owner}/{repo}/git/trees/{tree_sha}" || !recs[0].Counted {
		t.Fatalf("requests %+v err %v", recs, err)
	}
}

func TestDemoIsDeterministic(t *testing.T) {
	var shas []string
	for i := 0; i < 2; i++ {
		h, err := fakehub.New(fakehub.Config{Seed: "demo"})
		if err != nil {
			t.Fatal(err)
		}
		sha, err := h.BranchSHA("octo-org/hello-world", "feature/clean")
		if err != nil {
			t.Fatal(err)
		}
		shas = append(shas, sha)
	}
	if shas[0] != shas[1] {
		t.Fatalf("demo head differs between runs: %v", shas)
	}
}
