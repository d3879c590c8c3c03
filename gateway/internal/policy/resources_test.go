package policy

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// confined is a principal limited to one owner's repositories.
var confined = &Principal{Name: "bot", Rules: Rules{Repos: []string{"octo-org/*"}}}

// fillRepos sets every repository-marked string field of m, at any depth
// (one element in lists), to repo; it returns how many it set.
func fillRepos(m protoreflect.Message, repo string, depth int) int {
	if depth > 4 {
		return 0
	}
	n := 0
	fs := m.Descriptor().Fields()
	for i := range fs.Len() {
		fd := fs.Get(i)
		switch {
		case fd.IsMap():
		case isRepo(fd) && fd.IsList():
			m.Mutable(fd).List().Append(protoreflect.ValueOfString(repo))
			n++
		case isRepo(fd):
			m.Set(fd, protoreflect.ValueOfString(repo))
			n++
		case fd.Kind() == protoreflect.MessageKind && fd.IsList():
			el := m.Mutable(fd).List().AppendMutable().Message()
			n += fillRepos(el, repo, depth+1)
		case fd.Kind() == protoreflect.MessageKind && fd.ContainingOneof() == nil:
			n += fillRepos(m.Mutable(fd).Message(), repo, depth+1)
		}
	}
	return n
}

// TestEveryToolsRepositoriesAreChecked: for every method of the contract,
// whatever its fields are called, each repository-marked request field is
// what the policy decides on: set to a repository outside the principal's
// globs (in any case) the call is refused, set to one inside it passes. A
// new tool whose fields carry the marking is covered by this loop.
func TestEveryToolsRepositoriesAreChecked(t *testing.T) {
	svc := ghopsv1.File_ghops_v1_github_service_proto.Services().Get(0)
	read := Tool{Name: "t", ReadOnly: true}
	checked := 0
	for i := range svc.Methods().Len() {
		md := svc.Methods().Get(i)
		t.Run(string(md.Name()), func(t *testing.T) {
			fields := md.Input().Fields()
			for j := range fields.Len() {
				if fd := fields.Get(j); fd.Name() == "repo" && !isRepo(fd) {
					t.Fatalf("%s.repo is not marked as a repository", md.Input().FullName())
				}
			}
			for _, tc := range []struct {
				repo string
				want string
			}{{"Octo-Org/Hello-World", ""}, {"octo-org/x", ""}, {"OctoOrg/secret", "repos"}, {"evil/secret", "repos"}} {
				m := dynamicpb.NewMessage(md.Input())
				if fillRepos(m, tc.repo, 0) == 0 {
					return // a tool that names no repository (search, validate_environment)
				}
				checked++
				repos, ok := Repos(m)
				if !ok || !slices.Contains(repos, tc.repo) {
					t.Fatalf("Repos = %v %v", repos, ok)
				}
				got := ""
				if d := Check(confined, read, repos, false); d != nil {
					got = d.Rule
				}
				if got != tc.want {
					t.Fatalf("%s: rule %q, want %q", tc.repo, got, tc.want)
				}
			}
		})
	}
	if checked == 0 {
		t.Fatal("no tool names a repository: the markings are missing")
	}
}

// TestConfine: answers lose what the principal may not see, and
// total_count is what the page still lists; a singular repository outside
// the globs is reported for refusal.
func TestConfine(t *testing.T) {
	summaries := func(names ...string) []*ghopsv1.RepositorySummary {
		var out []*ghopsv1.RepositorySummary
		for _, n := range names {
			out = append(out, &ghopsv1.RepositorySummary{FullName: n, Description: "about " + n})
		}
		return out
	}
	tests := []struct {
		name       string
		pr         *Principal
		resp       proto.Message
		wantNames  []string
		wantTotal  int32
		wantDenied string
	}{
		{"search filtered", confined, &ghopsv1.SearchResponse{TotalCount: 999, Repositories: summaries("octo-org/hello-world", "evil/secret", "Octo-Org/Spoon-Knife", "octo-orgx/a")},
			[]string{"octo-org/hello-world", "Octo-Org/Spoon-Knife"}, 2, ""},
		{"search all hidden", confined, &ghopsv1.SearchResponse{TotalCount: 7, Repositories: summaries("evil/secret")}, nil, 0, ""},
		{"empty page still hides the count", confined, &ghopsv1.SearchResponse{TotalCount: 5}, nil, 0, ""},
		{"unconfined principal untouched", &Principal{Name: "all"}, &ghopsv1.SearchResponse{TotalCount: 999, Repositories: summaries("evil/secret")},
			[]string{"evil/secret"}, 999, ""},
		{"no principal untouched", nil, &ghopsv1.SearchResponse{TotalCount: 3, Repositories: summaries("evil/secret")}, []string{"evil/secret"}, 3, ""},
		{"fetch of another repository", confined, &ghopsv1.FetchResponse{Repository: &ghopsv1.Repository{FullName: "evil/secret"}}, nil, 0, "evil/secret"},
		{"fetch of its own repository", confined, &ghopsv1.FetchResponse{Repository: &ghopsv1.Repository{FullName: "octo-org/hello-world"}}, nil, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			denied := Confine(tc.pr, tc.resp)
			if denied != tc.wantDenied {
				t.Fatalf("denied %q, want %q", denied, tc.wantDenied)
			}
			s, ok := tc.resp.(*ghopsv1.SearchResponse)
			if !ok {
				return
			}
			var names []string
			for _, r := range s.Repositories {
				names = append(names, r.FullName)
			}
			if !slices.Equal(names, tc.wantNames) || s.TotalCount != tc.wantTotal {
				t.Fatalf("got %v total %d, want %v total %d", names, s.TotalCount, tc.wantNames, tc.wantTotal)
			}
		})
	}
}

// TestSubIssueOfAnotherRepository: a sub-issue's repository is its own
// repository-marked field (sub_issue_repo), not text inside a reference,
// so the policy checks it like repo, and an answer's sub-issues of a
// repository outside the globs are left out.
func TestSubIssueOfAnotherRepository(t *testing.T) {
	read := Tool{Name: "t", ReadOnly: true}
	tests := []struct {
		name, subRepo, want string
	}{
		{"same repository", "", ""},
		{"another allowed repository", "octo-org/x", ""},
		{"a repository outside the globs", "evil/secret", "repos"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := &ghopsv1.AddSubIssueRequest{Repo: "octo-org/hello-world", IssueNumber: 1, SubIssue: 2}
			if tc.subRepo != "" {
				req.SubIssueRepo = proto.String(tc.subRepo)
			}
			repos, ok := Repos(req)
			if !ok {
				t.Fatal("Repos refused the request")
			}
			got := ""
			if d := Check(confined, read, repos, false); d != nil {
				got = d.Rule
			}
			if got != tc.want {
				t.Errorf("rule %q, want %q (repos %v)", got, tc.want, repos)
			}
		})
	}
	t.Run("answers keep only the allowed sub-issues", func(t *testing.T) {
		resp := &ghopsv1.ListSubIssuesResponse{SubIssues: []*ghopsv1.SubIssue{
			{Repo: "octo-org/hello-world", Number: 3, Title: "ours"}, {Repo: "evil/secret", Number: 4, Title: "theirs"},
		}}
		if denied := Confine(confined, resp); denied != "" || len(resp.SubIssues) != 1 || resp.SubIssues[0].Title != "ours" {
			t.Errorf("denied %q, sub-issues %v", denied, resp.SubIssues)
		}
	})
}
