package server_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"ghops.dev/services/fakehub"

	"ghops.dev/services/github/servicetest"
)

// Routes of fakehub that get_tree's two routes take.
const (
	graphqlRoute  = "POST /graphql"
	treeRoute     = "GET /repos/{owner}/{repo}/git/trees/{tree_sha}"
	commitsRoute  = "GET /repos/{owner}/{repo}/commits"
	maxRecvTreeMB = 64 << 20
)

// TestTreeRoutesAgree reads each tree twice, each time on a new service: on
// the branch (GraphQL, with REST by the tree's SHA when the tree is deeper
// than the document or its REST answer may be cut) and by the commit's SHA
// (REST only: the commit list and the recursive tree), and wants the same
// answer to the byte: entries and their git order, types, blob sizes,
// GitHub's truncation and the service's cap (5,000).
func TestTreeRoutesAgree(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	deep := func(levels int) string {
		var dirs []string
		for i := 1; i < levels; i++ {
			dirs = append(dirs, fmt.Sprintf("d%d", i))
		}
		return strings.Join(dirs, "/") + "/leaf.txt"
	}
	wide, capped := map[string]string{}, map[string]string{}
	for i := range 4500 {
		wide[fmt.Sprintf("t/%01700d", i)] = "x\n" // some 8.6 MB of REST tree JSON: GitHub cuts at 7 MB
	}
	for i := range 5005 {
		capped[fmt.Sprintf("many/d%02d/f%04d", i%11, i)] = "y" // 455 a directory
	}
	thousand := map[string]string{}
	for i := range 1000 {
		thousand[fmt.Sprintf("big/f%04d", i)] = "z"
	}
	branches := map[string]map[string]string{
		"ten-levels":    {deep(10): "ten\n", "top.txt": "top"},
		"eleven-levels": {deep(11): "eleven\n"},
		// git order compares a directory's name as if it ended in "/":
		// a-b, a.txt, a/, a0 (not a/ first, as a plain sort of paths would).
		"order":    {"a-b": "1", "a.txt": "22", "a/x": "333", "a0": "4444", "é/ü.md": "ü"},
		"wide":     wide,
		"capped":   capped,
		"thousand": thousand,
	}
	for b, files := range branches {
		if _, err := e.hub.Commit(repo, b, "tree "+b, files); err != nil {
			t.Fatal(err)
		}
	}
	addSubmodule(t, e, "submodule")
	tests := []struct {
		name      string
		branch    *string
		graphql   int // GraphQL requests of the branch read
		restTrees int // and REST tree reads
		truncated bool
	}{
		{name: "demo repository, default branch", graphql: 1},
		{name: "demo repository, main", branch: ptr("main"), graphql: 1},
		{name: "ten levels: within the document", branch: ptr("ten-levels"), graphql: 1},
		{name: "eleven levels: REST by the tree's SHA", branch: ptr("eleven-levels"), graphql: 1, restTrees: 1},
		{name: "git order", branch: ptr("order"), graphql: 1},
		{name: "submodule", branch: ptr("submodule"), graphql: 1},
		{name: "past the service's cap", branch: ptr("capped"), graphql: 1, truncated: true},
		{name: "a directory of 1,000 entries: REST by the tree's SHA", branch: ptr("thousand"), graphql: 1, restTrees: 1},
		{name: "past GitHub's 7 MB: REST by the tree's SHA", branch: ptr("wide"), graphql: 1, restTrees: 1, truncated: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			branchSvc := servicetest.Start(t, servicetest.Options{GitHubURL: e.url, Token: fakehub.DemoToken})
			shaSvc := servicetest.Start(t, servicetest.Options{GitHubURL: e.url, Token: fakehub.DemoToken})
			e.hub.ResetStats()
			viaBranch, err := branchSvc.Client.GetTree(treeCtx(t), &ghopsv1.GetTreeRequest{Repo: repo, Branch: tc.branch}, grpc.MaxCallRecvMsgSize(maxRecvTreeMB))
			if err != nil {
				t.Fatal(err)
			}
			s := e.hub.Stats()
			if s.ByRoute[graphqlRoute] != tc.graphql || s.ByRoute[treeRoute] != tc.restTrees || s.Total != tc.graphql+tc.restTrees {
				t.Errorf("branch read took %v, want %d GraphQL and %d REST tree requests", s.ByRoute, tc.graphql, tc.restTrees)
			}
			e.hub.ResetStats()
			viaSHA, err := shaSvc.Client.GetTree(treeCtx(t), &ghopsv1.GetTreeRequest{Repo: repo, Ref: ptr(viaBranch.GetSha())}, grpc.MaxCallRecvMsgSize(maxRecvTreeMB))
			if err != nil {
				t.Fatal(err)
			}
			if s := e.hub.Stats(); s.ByRoute[commitsRoute] != 1 || s.ByRoute[treeRoute] != 1 || s.Total != 2 {
				t.Errorf("SHA read took %v, want the commit list and the tree from REST", s.ByRoute)
			}
			want, err := e.hub.BranchSHA(repo, deref(tc.branch, "main"))
			if err != nil {
				t.Fatal(err)
			}
			if viaBranch.GetSha() != want {
				t.Errorf("sha %s, want the branch's commit %s", viaBranch.GetSha(), want)
			}
			if viaBranch.GetTruncated() != tc.truncated {
				t.Errorf("truncated %v with %d entries, want %v", viaBranch.GetTruncated(), len(viaBranch.GetEntries()), tc.truncated)
			}
			a, _ := proto.MarshalOptions{Deterministic: true}.Marshal(viaBranch)
			b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(viaSHA)
			if string(a) != string(b) {
				t.Errorf("the routes differ:\nbranch: %s\nsha:    %s", summary(viaBranch), summary(viaSHA))
			}
		})
	}
}

// TestTreeMissingBranch: GitHub's GraphQL answers a revision that names
// nothing with a null object; the answer is -32002 for the branch, as the
// REST route's 404, after one request. A default-branch read of the empty
// demo repository says it is empty, as the REST route's 409.
func TestTreeMissingBranch(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	e.hub.ResetStats()
	_, err := e.svc.Client.GetTree(ctx(t), &ghopsv1.GetTreeRequest{Repo: repo, Branch: ptr("no-such-branch")})
	d := wantStatus(t, err, codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND)
	if d.res.GetResourceType() != "branch" || d.res.GetResourceName() != repo+"@no-such-branch" || d.st.Message() != "branch "+repo+"@no-such-branch not found (or not visible to this token)" {
		t.Errorf("got %v %q, want the branch not found", d.res, d.st.Message())
	}
	if s := e.hub.Stats(); s.Total != 1 || s.ByRoute[graphqlRoute] != 1 {
		t.Errorf("%d requests (%v), want one GraphQL request", s.Total, s.ByRoute)
	}
	_, err = e.svc.Client.GetTree(ctx(t), &ghopsv1.GetTreeRequest{Repo: "octo-org/empty"})
	wantStatus(t, err, codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_EMPTY_REPOSITORY)
}

// treeCtx is ctx with room for trees of megabytes, read twice (GraphQL,
// then REST) under the race detector on a busy machine.
func treeCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// TestTreeAnonymous: GraphQL answers every request without a token 401,
// while REST reads public repositories anonymously: a service without a
// credential reads the tree through REST after GraphQL's refusal, the same
// answer, and its next read of the branch goes to REST alone.
func TestTreeAnonymous(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	anon := servicetest.Start(t, servicetest.Options{GitHubURL: e.url})
	for _, want := range []map[string]int{
		{graphqlRoute: 1, commitsRoute: 1, treeRoute: 1},
		{commitsRoute: 1}, // the head (a 304), and the tree by SHA from the cache
	} {
		e.hub.ResetStats()
		got, err := anon.Client.GetTree(ctx(t), &ghopsv1.GetTreeRequest{Repo: repo, Branch: ptr("main")})
		if err != nil {
			t.Fatal(err)
		}
		s := e.hub.Stats()
		total := 0
		for route, n := range want {
			total += n
			if s.ByRoute[route] != n {
				t.Errorf("requests %v, want %v", s.ByRoute, want)
			}
		}
		if s.Total != total {
			t.Errorf("requests %v, want %v", s.ByRoute, want)
		}
		viaToken, err := e.svc.Client.GetTree(ctx(t), &ghopsv1.GetTreeRequest{Repo: repo, Branch: ptr("main")})
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(got, viaToken) {
			t.Errorf("anonymous read %s, with the token %s", summary(got), summary(viaToken))
		}
	}
}

func deref(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

// summary is a tree answer short enough for a failure message.
func summary(r *ghopsv1.GetTreeResponse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sha %s truncated %v, %d entries:", r.GetSha(), r.GetTruncated(), len(r.GetEntries()))
	for i, en := range r.GetEntries() {
		if i == 12 {
			b.WriteString(" ...")
			break
		}
		p := en.GetPath()
		if len(p) > 40 {
			p = p[:40] + "..."
		}
		fmt.Fprintf(&b, " %s(%s,%d)", p, en.GetType(), en.GetSize())
	}
	return b.String()
}

// addSubmodule makes branch: main with a submodule at vendor/lib (mode
// 160000, a commit), through GitHub's git data API.
func addSubmodule(t *testing.T, e *env, branch string) {
	t.Helper()
	gh := github.NewClient(nil).WithAuthToken(fakehub.DemoToken)
	base, err := url.Parse(strings.TrimSuffix(e.url, "/") + "/")
	if err != nil {
		t.Fatal(err)
	}
	gh.BaseURL = base
	owner, name, _ := strings.Cut(repo, "/")
	head, err := e.hub.BranchSHA(repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	parent, _, err := gh.Git.GetCommit(ctx(t), owner, name, head)
	if err != nil {
		t.Fatal(err)
	}
	tree, _, err := gh.Git.CreateTree(ctx(t), owner, name, parent.GetTree().GetSHA(), []*github.TreeEntry{{Path: ptr("vendor/lib"), Mode: ptr("160000"), Type: ptr("commit"), SHA: ptr(head)}})
	if err != nil {
		t.Fatal(err)
	}
	commit, _, err := gh.Git.CreateCommit(ctx(t), owner, name, &github.Commit{Message: ptr("submodule"), Tree: tree, Parents: []*github.Commit{{SHA: ptr(head)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.CreateRef(ctx(t), owner, name, &github.Reference{Ref: ptr("refs/heads/" + branch), Object: &github.GitObject{SHA: commit.SHA}}); err != nil {
		t.Fatal(err)
	}
}
