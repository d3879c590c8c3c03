package fakehub_test

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestTreePaths: a tree entry whose path would break the branch is refused
// with 422, as GitHub does, and creates nothing.
func TestTreePaths(t *testing.T) {
	h := benchHub(t)
	tests := []struct {
		name string
		path string
		want int
	}{
		{"plain", "docs/x.txt", 201},
		{"dotfile", ".gitignore", 201},
		{"dot-git-prefix", ".github/ci.yml", 201},
		{"empty segment", "docs//x.txt", 422},
		{"leading slash", "/x.txt", 422},
		{"trailing slash", "docs/", 422},
		{"dot", ".", 422},
		{"dot segment", "./x", 422},
		{"dot dot", "a/../x", 422},
		{"dot git", ".git/config", 422},
		{"nested dot git", "a/.git", 422},
		{"control character", "a\tb", 422},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := json.Marshal(tt.path)
			rec := serve(h, "POST", "/repos/octo-org/hello-world/git/trees",
				fmt.Sprintf(`{"tree":[{"path":%s,"mode":"100644","type":"blob","content":"x"}]}`, p), nil)
			if rec.Code != tt.want {
				t.Fatalf("POST tree with path %q: %d %s, want %d", tt.path, rec.Code, rec.Body, tt.want)
			}
		})
	}
}
