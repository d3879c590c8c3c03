package taskbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"sync"

	"ghops.dev/services/fakehub"
)

// send makes one write to fakehub's REST API as a client does, with the
// demo token, straight to the hub's handler: a Setup arranges the state a
// task starts from through GitHub's own routes where one exists (merging a
// pull request, publishing a release), so that fakehub keeps every record
// it keeps for an agent's write. Reads go through Get.
func send(h *fakehub.Hub, method, path string, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(b))
	req.Header.Set("Authorization", "token "+fakehub.DemoToken)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code < 200 || rec.Code > 299 {
		return fmt.Errorf("%s %s: %d %.300s", method, path, rec.Code, rec.Body.String())
	}
	return nil
}

// answer holds what a script concluded, for its task's Verify to check: a
// task whose outcome is a finding (which runs failed, which files lack a
// test) rather than a change in GitHub. Runners call a task's Verify right
// after its script, one run at a time (Measure); take returns the answer
// and clears it, so a Verify never sees another run's.
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
