package fakehub_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"
)

// FuzzCreateReview posts arbitrary bodies to the reviews endpoint: every answer is 200, 400 or
// 422 with a JSON object, and a refused one writes nothing.
func FuzzCreateReview(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"event":"COMMENT","body":"b"}`, `{"event":"APPROVE"}`, `{"event":"NOPE"}`, `[]`, `null`, `{"body":`,
		`{"event":"REQUEST_CHANGES","body":"x","comments":[{"path":"internal/greet/greet_test.go","line":7,"body":"c"}]}`,
		`{"comments":[{"path":"internal/greet/greet_test.go","line":11,"start_line":10,"body":"c"}]}`,
		`{"comments":[{"path":"internal/greet/greet_test.go","line":10,"start_line":11,"body":"c"}]}`,
		`{"comments":[{"path":"internal/greet/greet_test.go","position":3,"body":"c"}]}`,
		`{"comments":[{"path":"internal/greet/greet_test.go","position":-1,"body":"c"}]}`,
		`{"comments":[{"path":"internal/greet/greet_test.go","line":7,"side":"LEFT","body":"c"}]}`,
		`{"commit_id":"0000000000000000000000000000000000000000","event":"COMMENT","body":"b"}`,
		`{"comments":[{"path":"../../etc/passwd","line":1,"body":"c"}]}`,
	} {
		f.Add(seed)
	}
	h, err := fakehub.New(fakehub.Config{Seed: "demo", CoreLimit: 1 << 30})
	if err != nil {
		f.Fatal(err)
	}
	send := func(method, path, body string) (int, []byte) {
		req := httptest.NewRequest(method, "http://fakehub.test/"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "token "+fakehub.DemoReviewerToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.Bytes()
	}
	count := func(t *testing.T) int {
		code, body := send("GET", reviewedPull+"reviews?per_page=100", "")
		var list []any
		if code != 200 || json.Unmarshal(body, &list) != nil {
			t.Fatalf("list reviews: %d %s", code, body)
		}
		return len(list)
	}
	f.Fuzz(func(t *testing.T, body string) {
		before := count(t)
		code, answer := send("POST", reviewedPull+"reviews", body)
		var o map[string]any
		if json.Unmarshal(answer, &o) != nil {
			t.Fatalf("answer %d is not a JSON object: %s", code, answer)
		}
		switch code {
		case 200:
			// A pending review is the one the reviewer may hold; drop it so the next input may make one.
			if o["state"] == "PENDING" {
				id, _ := o["id"].(float64)
				if c, b := send("DELETE", reviewedPull+"reviews/"+jsonInt(int(id)), ""); c != 200 {
					t.Fatalf("delete the pending review: %d %s", c, b)
				}
			}
		case 400, 422:
			if after := count(t); after != before {
				t.Fatalf("a refused review (%d) changed the reviews from %d to %d: %s", code, before, after, answer)
			}
		default:
			t.Fatalf("status %d for %s: %s", code, body, answer)
		}
	})
}
