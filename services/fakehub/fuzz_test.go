package fakehub_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// FuzzParseFaults feeds arbitrary admin payloads to ParseFaults: it never panics, and whatever it
// accepts is within the documented ranges and survives a SetFaults/Faults round trip.
func FuzzParseFaults(f *testing.F) {
	for _, seed := range []string{
		`[]`, `null`, `{}`, `[{}]`, `"x"`,
		`[{"method":"GET","route":"/repos/{owner}/{repo}","error_rate":1,"error_status":503,"count":1}]`,
		`[{"route":"/repos/*/*/pulls/*","latency":"250ms"}]`,
		`[{"rate_limit":"primary","rate_limit_status":429}]`,
		`[{"rate_limit":"secondary","rate_limit_status":403,"retry_after":42}]`,
		`[{"rate_limit":"secondary","rate_limit_status":-1}]`,
		`[{"error_rate":-0.5}]`, `[{"error_rate":1e309}]`, `[{"latency":"-5s"}]`, `[{"latency":"1e400h"}]`,
		`[{"drop":true,"count":-3}]`, `[{"error_status":99999,"error_rate":1}]`,
	} {
		f.Add([]byte(seed))
	}
	h, err := fakehub.New(fakehub.Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, err := fakehub.ParseFaults(data)
		if err != nil {
			if fs != nil {
				t.Fatalf("faults %v returned with error %v", fs, err)
			}
			return
		}
		for i, x := range fs {
			if x.ErrorRate < 0 || x.ErrorRate > 1 {
				t.Fatalf("fault %d: error rate %v accepted", i, x.ErrorRate)
			}
			if x.RateLimit != "" && x.RateLimit != "primary" && x.RateLimit != "secondary" {
				t.Fatalf("fault %d: rate limit %q accepted", i, x.RateLimit)
			}
			if x.RateLimitStatus != 0 && x.RateLimitStatus != 403 && x.RateLimitStatus != 429 {
				t.Fatalf("fault %d: rate limit status %d accepted", i, x.RateLimitStatus)
			}
			if x.ErrorStatus != 0 && (x.ErrorStatus < 400 || x.ErrorStatus > 599) {
				t.Fatalf("fault %d: error status %d accepted", i, x.ErrorStatus)
			}
			if x.Latency < 0 {
				t.Fatalf("fault %d: latency %v accepted", i, x.Latency)
			}
		}
		h.SetFaults(fs)
		if got := len(h.Faults()); got != len(fs) {
			t.Fatalf("SetFaults(%d rules) then Faults() = %d rules", len(fs), got)
		}
	})
}

// bodyEndpoints are the JSON-body endpoints the request fuzzer drives.
var bodyEndpoints = []struct{ method, path string }{
	{"POST", "/repos/octo-org/hello-world/git/trees"},
	{"POST", "/repos/octo-org/hello-world/git/blobs"},
	{"POST", "/repos/octo-org/hello-world/git/commits"},
	{"POST", "/repos/octo-org/hello-world/git/refs"},
	{"PATCH", "/repos/octo-org/hello-world/git/refs/heads/main"},
	{"POST", "/repos/octo-org/hello-world/pulls"},
	{"PATCH", "/repos/octo-org/hello-world/pulls/1"},
	{"PUT", "/repos/octo-org/hello-world/pulls/1/merge"},
	{"PUT", "/repos/octo-org/hello-world/pulls/2/merge"},
}

// FuzzRequestBodies sends arbitrary bodies to the POST/PATCH/PUT endpoints through the handler in
// process. "$HEAD" and "$TREE" in a body are replaced by main's current commit and tree so that the
// fuzzer reaches past SHA validation. The handler never panics, never answers 5xx, always answers
// JSON, and every error body carries a message.
func FuzzRequestBodies(f *testing.F) {
	seeds := []struct {
		ep   uint8
		body string
	}{
		{0, `{"base_tree":"$TREE","tree":[{"path":"new.txt","mode":"100644","type":"blob","content":"hi"}]}`},
		{0, `{"tree":[{"path":"a/b/c","mode":"040000","type":"tree","content":"x"}]}`},
		{0, `{"base_tree":"$TREE","tree":[{"path":"docs","mode":"040000","type":"tree","sha":null}]}`},
		{0, `{"base_tree":"$HEAD","tree":[{"path":"x","mode":"100644","sha":"$TREE"}]}`},
		{0, `{"tree":[{"path":"//","mode":"100644","content":""}]}`},
		{0, `{"tree":[{"path":"a","mode":"100644","content":"1"},{"path":"a/b","mode":"100644","content":"2"}]}`},
		{0, `{"tree":[{"path":"../x","mode":"160000","sha":"$HEAD"}]}`},
		{0, `{"tree":null}`}, {0, `[]`}, {0, `null`}, {0, ``}, {0, `{"tree":[1,2]}`},
		{1, `{"content":"aGVsbG8=","encoding":"base64"}`}, {1, `{"content":"%%%","encoding":"base64"}`}, {1, `{"encoding":"utf-16"}`},
		{2, `{"message":"m","tree":"$TREE","parents":["$HEAD"]}`},
		{2, `{"message":"m","tree":"$TREE","parents":["$HEAD"],"author":{"name":"a","email":"e","date":"not a date"}}`},
		{2, `{"message":"m","tree":"$HEAD","parents":["$TREE"]}`}, {2, `{"tree":"$TREE"}`},
		{3, `{"ref":"refs/heads/fuzz","sha":"$HEAD"}`}, {3, `{"ref":"refs/x","sha":"$HEAD"}`}, {3, `{"ref":"refs/heads/a..b","sha":"$TREE"}`},
		{4, `{"sha":"$HEAD","force":true}`}, {4, `{"sha":"$TREE"}`}, {4, `{"sha":"0000000000000000000000000000000000000000","force":true}`},
		{5, `{"title":"t","head":"feature/conflict","base":"main"}`}, {5, `{"title":"t","head":"other:x","base":"main"}`}, {5, `{"head":"main","base":"main","title":"t"}`},
		{6, `{"state":"closed"}`}, {6, `{"state":"open"}`}, {6, `{"base":"nope"}`}, {6, `{"state":"merged","title":null}`},
		{7, `{"merge_method":"squash"}`}, {7, `{"merge_method":"rebase","sha":"$HEAD"}`}, {7, `{"merge_method":"octopus"}`}, {7, ``},
		{8, `{"merge_method":"merge"}`}, {8, `{"sha":1}`},
	}
	for _, s := range seeds {
		f.Add(s.ep, []byte(s.body))
	}
	h, err := fakehub.New(fakehub.Config{Seed: "demo", CoreLimit: 1 << 30})
	if err != nil {
		f.Fatal(err)
	}
	do := func(t *testing.T, method, path string, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "http://fakehub.test"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "token "+fakehub.DemoToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	f.Fuzz(func(t *testing.T, ep uint8, body []byte) {
		e := bodyEndpoints[int(ep)%len(bodyEndpoints)]
		b := string(body)
		if strings.Contains(b, "$HEAD") || strings.Contains(b, "$TREE") {
			head, _ := h.BranchSHA("octo-org/hello-world", "main")
			var cm struct {
				Tree struct {
					SHA string `json:"sha"`
				} `json:"tree"`
			}
			if rec := do(t, "GET", "/repos/octo-org/hello-world/git/commits/"+head, ""); rec.Code == 200 {
				_ = json.Unmarshal(rec.Body.Bytes(), &cm)
			}
			b = strings.NewReplacer("$HEAD", head, "$TREE", cm.Tree.SHA).Replace(b)
		}
		rec := do(t, e.method, e.path, b)
		if rec.Code >= 500 || rec.Code < 200 {
			t.Fatalf("%s %s %q: status %d: %s", e.method, e.path, b, rec.Code, rec.Body.Bytes())
		}
		var out any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s %s %q: status %d: body is not JSON: %q", e.method, e.path, b, rec.Code, rec.Body.Bytes())
		}
		if rec.Code >= 400 {
			m, ok := out.(map[string]any)
			if msg, _ := m["message"].(string); !ok || msg == "" {
				t.Fatalf("%s %s %q: status %d: error body without message: %s", e.method, e.path, b, rec.Code, rec.Body.Bytes())
			}
		}
	})
}
