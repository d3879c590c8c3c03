package ops

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-github/v66/github"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/github/internal/reposcope"
)

// TestCommitOnBranchNamesOnlyTheCallsRepository checks the guard of the
// mutation's body: a commit naming a repository other than the call's is
// refused before anything is sent, and the call's own repository is the
// repositoryNameWithOwner GitHub receives.
func TestCommitOnBranchNamesOnlyTheCallsRepository(t *testing.T) {
	var sent atomic.Int32
	var named atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		var in struct {
			Variables struct {
				Input struct {
					Branch struct {
						RepositoryNameWithOwner string `json:"repositoryNameWithOwner"`
					} `json:"branch"`
				} `json:"input"`
			} `json:"variables"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &in)
		named.Store(in.Variables.Input.Branch.RepositoryNameWithOwner)
		_, _ = io.WriteString(w, `{"data":{"createCommitOnBranch":{"commit":{"oid":"`+strings.Repeat("b", 40)+`"}}}}`)
	}))
	t.Cleanup(srv.Close)
	gh := github.NewClient(nil)
	gh.BaseURL, _ = url.Parse(srv.URL + "/")
	ctx := reposcope.With(context.Background(), "octo-org/hello-world")
	plan := &commitOnBranchPlan{headline: "m", additions: []commitAddition{{Path: "a", Contents: "YQ=="}}}
	parent := strings.Repeat("a", 40)
	tests := []struct {
		name, repo string
		refused    bool
	}{
		{name: "another repository", repo: "octo-org/secret", refused: true},
		{name: "another owner", repo: "evil/hello-world", refused: true},
		{name: "the call's repository", repo: "octo-org/hello-world"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := sent.Load()
			sha, err := commitOnBranch(ctx, gh, tt.repo, "main", parent, plan)
			var rf *reposcope.Refused
			if tt.refused {
				if !errors.As(err, &rf) || sent.Load() != before {
					t.Fatalf("err %v, %d requests sent: want a *reposcope.Refused and nothing sent", err, sent.Load()-before)
				}
				return
			}
			if err != nil || sha != strings.Repeat("b", 40) || sent.Load() != before+1 || named.Load() != tt.repo {
				t.Fatalf("sha %q err %v sent %d named %v", sha, err, sent.Load()-before, named.Load())
			}
		})
	}
}

// TestPlanCommitOnBranch checks which commit_files calls the mutation
// writes (headline and body split as GitHub joins them, contents as
// padded base64) and which fall back to the git data API (nil).
func TestPlanCommitOnBranch(t *testing.T) {
	file := func(content, encoding string) *ghopsv1.FileChange {
		f := &ghopsv1.FileChange{Path: "a", Content: &content}
		if encoding != "" {
			f.Encoding = &encoding
		}
		return f
	}
	tests := []struct {
		name, message  string
		file           *ghopsv1.FileChange
		fallback       bool
		headline, body string
		contents       string
	}{
		{name: "one line", message: "fix", file: file("a", ""), headline: "fix", contents: "YQ=="},
		{name: "headline and body", message: "fix\n\nbecause", file: file("a", "utf8"), headline: "fix", body: "because", contents: "YQ=="},
		{name: "CRLF", message: "fix\r\n\r\nbecause", file: file("a", ""), fallback: true},
		{name: "second line not blank", message: "fix\nbecause", file: file("a", ""), fallback: true},
		{name: "trailing line break", message: "fix\n", file: file("a", ""), fallback: true},
		{name: "body ends with a line break", message: "fix\n\nbecause\n", file: file("a", ""), fallback: true},
		{name: "two blank lines", message: "fix\n\n\nbecause", file: file("a", ""), fallback: true},
		{name: "body of several lines", message: "fix\n\nbecause\n\n- a\n- b", file: file("a", ""), headline: "fix", body: "because\n\n- a\n- b", contents: "YQ=="},
		{name: "base64 kept", message: "m", file: file("AAEC/w==", "base64"), headline: "m", contents: "AAEC/w=="},
		{name: "unpadded base64 padded", message: "m", file: file("YQ", "base64"), headline: "m", contents: "YQ=="},
		{name: "blank headline", message: "\nfix", file: file("a", ""), fallback: true},
		{name: "undecodable base64", message: "m", file: file("Y", "base64"), fallback: true},
		{name: "over the size cap", message: "m", file: file(strings.Repeat("a", maxCommitOnBranchBase64), ""), fallback: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planCommitOnBranch(&ghopsv1.CommitFilesRequest{Message: tt.message, Files: []*ghopsv1.FileChange{tt.file}})
			if tt.fallback {
				if p != nil {
					t.Fatalf("plan %+v, want the git data fallback", p)
				}
				return
			}
			if p == nil || p.headline != tt.headline || p.body != tt.body || len(p.additions) != 1 || p.additions[0].Contents != tt.contents {
				t.Fatalf("plan %+v, want headline %q body %q contents %q", p, tt.headline, tt.body, tt.contents)
			}
		})
	}
}
