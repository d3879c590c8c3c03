package toolset_test

import (
	"slices"
	"strings"
	"testing"

	"ghops.dev/gateway/internal/app"
	"ghops.dev/gateway/internal/toolset"
)

func TestNames(t *testing.T) {
	want := []string{"repos", "pulls", "issues", "actions", "search", "meta", "projects"}
	if got := toolset.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr string
	}{
		{name: "empty is every group", in: "", want: nil},
		{name: "all is every group", in: "all", want: nil},
		{name: "one", in: "issues", want: []string{"issues"}},
		{name: "several with spaces and a repeat", in: " repos, pulls ,repos", want: []string{"repos", "pulls"}},
		{name: "unknown name listed with the known ones", in: "repos,issue", wantErr: `unknown toolset "issue" (toolsets: repos, pulls, issues, actions, search, meta, projects)`},
		{name: "empty entry", in: "repos,,pulls", wantErr: "empty toolset name"},
		{name: "all mixed with others", in: "all,repos", wantErr: `"all" cannot be combined`},
		{name: "case matters", in: "Repos", wantErr: `unknown toolset "Repos"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := toolset.Parse(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestEveryToolHasAGroup reads the groups from the real registry: every
// tool names one, and a sample of the assignment proto makes is as the
// README documents it.
func TestEveryToolHasAGroup(t *testing.T) {
	reg, err := app.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tl := range reg.Tools() {
		g := toolset.Of(tl.Method)
		if g == "" {
			t.Errorf("tool %s has no toolset in proto", tl.Name)
		}
		got[tl.Name] = g
	}
	for tool, want := range map[string]string{
		"read_file": "repos", "create_branch": "repos", "commit_files": "repos", "compare_refs": "repos",
		"create_pull_request": "pulls", "list_pull_request_files": "pulls",
		"list_issues": "issues", "add_issue_comment": "issues", "update_issue": "issues",
		"get_ci_failures": "actions", "get_job_log": "actions", "get_checks_for_sha": "actions",
		"search": "search", "search_issues": "search", "search_code": "search",
		"validate_environment": "meta",
	} {
		if got[tool] != want {
			t.Errorf("toolset of %s = %q, want %q", tool, got[tool], want)
		}
	}
}

func TestIncludes(t *testing.T) {
	tests := []struct {
		name  string
		sets  []string
		group string
		want  bool
	}{
		{name: "nil is every group", sets: nil, group: "meta", want: true},
		{name: "listed", sets: []string{"repos", "issues"}, group: "issues", want: true},
		{name: "not listed", sets: []string{"repos"}, group: "issues", want: false},
		{name: "empty list is none", sets: []string{}, group: "repos", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := toolset.Includes(tt.sets, tt.group); got != tt.want {
				t.Fatalf("Includes(%v, %q) = %v, want %v", tt.sets, tt.group, got, tt.want)
			}
		})
	}
}

// FuzzParse: whatever the operator or a policy author writes, Parse never
// panics, and what it accepts is a list of known groups without repeats
// that reads back the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "all", "repos", "repos,pulls", " issues , search ", "repos,,pulls", "all,repos", "wiki", "Repos", ",", "repos,repos", "\x00", "meta,actions,search,issues,pulls,repos"} {
		f.Add(s)
	}
	known := toolset.Names()
	f.Fuzz(func(t *testing.T, in string) {
		got, err := toolset.Parse(in)
		if err != nil {
			if got != nil {
				t.Fatalf("Parse(%q) = %v with error %v", in, got, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, g := range got {
			if !slices.Contains(known, g) || seen[g] {
				t.Fatalf("Parse(%q) = %v: unknown or repeated %q", in, got, g)
			}
			seen[g] = true
		}
		again, err := toolset.Parse(strings.Join(got, ","))
		if err != nil || !slices.Equal(again, got) {
			t.Fatalf("Parse(%q) = %v reads back as %v, %v", in, got, again, err)
		}
	})
}
