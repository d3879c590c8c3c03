package policy

import (
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/proto"
)

// TestCheckOwners decides the owner a repository is created under by the repos globs: an owner
// is allowed when a glob covers all of its repositories (owner/*), an absent owner (the identity's
// own account) only by */*, and read-only tools' owner filters are not checked.
func TestCheckOwners(t *testing.T) {
	org := &Principal{Name: "org-agent", Rules: Rules{Repos: []string{"octo-org/*", "octocat/hello-world"}}}
	some := &Principal{Name: "narrow", Rules: Rules{Repos: []string{"octo-org/agent-*"}}}
	all := &Principal{Name: "all", Rules: Rules{Repos: []string{"*/*"}}}
	orgs := &Principal{Name: "orgs", Rules: Rules{Repos: []string{"octo-*/*"}}}
	tests := []struct {
		name     string
		pr       *Principal
		readOnly bool
		req      proto.Message
		deny     bool
	}{
		{"organization covered", org, false, &ghopsv1.CreateRepositoryRequest{Owner: proto.String("octo-org"), Name: "x"}, false},
		{"owner case", org, false, &ghopsv1.CreateRepositoryRequest{Owner: proto.String("Octo-Org"), Name: "x"}, false},
		{"owner glob", orgs, false, &ghopsv1.ForkRepositoryRequest{Repo: "a/b", Owner: proto.String("octo-labs")}, false},
		{"owner glob, other owner", orgs, false, &ghopsv1.ForkRepositoryRequest{Repo: "a/b", Owner: proto.String("evil")}, true},
		{"one repository of the owner is not the owner", org, false, &ghopsv1.ForkRepositoryRequest{Repo: "octo-org/hello-world", Owner: proto.String("octocat")}, true},
		{"a name pattern is not the owner", some, false, &ghopsv1.CreateRepositoryRequest{Owner: proto.String("octo-org"), Name: "agent-1"}, true},
		{"other owner", org, false, &ghopsv1.CreateRepositoryRequest{Owner: proto.String("evil"), Name: "x"}, true},
		{"own account without */*", org, false, &ghopsv1.CreateRepositoryRequest{Name: "x"}, true},
		{"own account fork without */*", org, false, &ghopsv1.ForkRepositoryRequest{Repo: "octo-org/hello-world"}, true},
		{"own account with */*", all, false, &ghopsv1.CreateRepositoryRequest{Name: "x"}, false},
		{"any owner with */*", all, false, &ghopsv1.CreateRepositoryRequest{Owner: proto.String("anyone"), Name: "x"}, false},
		{"a read's owner is a filter", org, true, &ghopsv1.ListRepositoriesRequest{Owner: proto.String("evil")}, false},
		{"no repos globs", &Principal{Name: "free"}, false, &ghopsv1.CreateRepositoryRequest{Name: "x"}, false},
		{"no principal", nil, false, &ghopsv1.CreateRepositoryRequest{Owner: proto.String("evil"), Name: "x"}, false},
		{"no owner field", org, false, &ghopsv1.CreateIssueRequest{Repo: "evil/x", Title: "t"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := CheckOwners(tc.pr, tc.readOnly, tc.req)
			if (d != nil) != tc.deny {
				t.Fatalf("CheckOwners = %+v, want deny %v", d, tc.deny)
			}
			if d != nil && (d.Rule != "repos" || !strings.Contains(d.Detail, "allowed repositories: ")) {
				t.Errorf("denial %+v", d)
			}
		})
	}
}

// TestEveryOwnerWriteIsChecked finds an owner field in every writing tool that creates a
// repository, from the descriptors alone.
func TestEveryOwnerWriteIsChecked(t *testing.T) {
	methods := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService").Methods()
	var got []string
	for i := range methods.Len() {
		md := methods.Get(i)
		fields := md.Input().Fields()
		for j := range fields.Len() {
			if ResourceKind(fields.Get(j)) == ghopsv1.ResourceKind_RESOURCE_KIND_OWNER {
				got = append(got, proto.GetExtension(md.Options(), ghopsv1.E_Tool).(*ghopsv1.ToolOptions).GetName())
			}
		}
	}
	if strings.Join(got, ",") != "list_repositories,create_repository,fork_repository" {
		t.Errorf("owner-marked tools %v", got)
	}
}
