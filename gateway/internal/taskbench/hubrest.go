package taskbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"

	"ghops.dev/services/fakehub"
)

// demoRepo is the demo repository every task of this file set works on.
const demoRepo = "octo-org/hello-world"

// hubREST sends one request to fakehub's REST API as a client does, with
// the demo token, straight to the hub's handler, and decodes a 2xx answer
// into out (nil: not decoded). Setups arrange state through GitHub's own
// routes where one exists, and Verifies read the outcome the same way, so
// both see what an agent would see; neither runs inside a measured call.
func hubREST(h *fakehub.Hub, method, path string, body, out any) error {
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(method, "http://fakehub"+path, rd)
	req.Header.Set("Authorization", "Bearer "+fakehub.DemoToken)
	req.Header.Set("Accept", "application/vnd.github+json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code < 200 || rec.Code > 299 {
		return fmt.Errorf("%s %s: %d %.300s", method, path, rec.Code, rec.Body.String())
	}
	if out == nil || rec.Code == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return nil
}

// answer holds what a script concluded, for its task's Verify to check: a
// task whose outcome is a finding rather than a change in GitHub. The
// runner runs a script and then its Verify, one task at a time; take
// returns the answer and clears it, so a Verify never sees a stale one.
type answer[T any] struct {
	mu  sync.Mutex
	v   T
	set bool
}

// put records the script's answer.
func (a *answer[T]) put(v T) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.v, a.set = v, true
}

// take returns the recorded answer and whether there was one, and clears it.
func (a *answer[T]) take() (T, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.v, a.set
	var zero T
	a.v, a.set = zero, false
	return v, ok
}
