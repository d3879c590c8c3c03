package taskbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"ghops.dev/services/fakehub"
)

// Repo is the demo repository every task works in.
const Repo = "octo-org/hello-world"

// Get reads path (an API path such as "/repos/octo-org/hello-world/issues/4")
// from h as GitHub answers it, with the demo token, and decodes the JSON
// answer into v. Verify functions read the outcome this way: through the
// API both servers wrote through, not through fakehub's internals.
func Get(ctx context.Context, h *fakehub.Hub, path string, v any) error {
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	req.Header.Set("Authorization", "token "+fakehub.DemoToken)
	req.Header.Set("Accept", "application/vnd.github+json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return fmt.Errorf("GET %s: %d %.300s", path, rec.Code, rec.Body.String())
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// Send makes a write to h's API as the demo user (a task's Setup adding
// what the demo data lacks) and decodes the answer into v when v is not
// nil; any status above 299 is an error.
func Send(ctx context.Context, h *fakehub.Hub, method, path string, body, v any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req := httptest.NewRequestWithContext(ctx, method, path, bytes.NewReader(b))
	req.Header.Set("Authorization", "token "+fakehub.DemoToken)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code > 299 {
		return fmt.Errorf("%s %s: %d %.300s", method, path, rec.Code, rec.Body.String())
	}
	if v != nil {
		return json.Unmarshal(rec.Body.Bytes(), v)
	}
	return nil
}
