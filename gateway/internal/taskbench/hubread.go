package taskbench

import (
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
