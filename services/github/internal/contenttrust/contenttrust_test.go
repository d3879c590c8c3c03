package contenttrust_test

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/infra/callmeta"

	"ghops.dev/services/github/internal/contentclean"
	"ghops.dev/services/github/internal/contenttrust"
)

// TestEveryCoveredAnswerReports walks the service's answer types: every
// answer that can carry withheld text has a ContentReport field, so the
// reader is always told; and every message with an association field has
// user text and an author marked (else the marking is a mistake).
func TestEveryCoveredAnswerReports(t *testing.T) {
	methods := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService").Methods()
	covered := 0
	for i := 0; i < methods.Len(); i++ {
		out := methods.Get(i).Output()
		if contenttrust.Covered(out) {
			covered++
			if !contentclean.HasReport(out) {
				t.Errorf("%s can carry withheld text but has no ContentReport field", out.FullName())
			}
		}
	}
	if covered < 7 {
		t.Errorf("only %d answers carry authored text; the markings are missing", covered)
	}
	msgs := ghopsv1.File_ghops_v1_github_service_proto.Messages()
	for i := 0; i < msgs.Len(); i++ {
		md := msgs.Get(i)
		var assoc, author, text bool
		for j := 0; j < md.Fields().Len(); j++ {
			switch fd := md.Fields().Get(j); contentOf(fd) {
			case ghopsv1.Content_CONTENT_AUTHOR_ASSOCIATION:
				assoc = true
			case ghopsv1.Content_CONTENT_AUTHOR:
				author = true
			case ghopsv1.Content_CONTENT_USER_TEXT:
				text = text || (!fd.IsList() && fd.Kind() == protoreflect.StringKind)
			}
		}
		if assoc && (!author || !text) {
			t.Errorf("%s: an association field without an author (%v) or singular user text (%v)", md.FullName(), author, text)
		}
	}
}

func contentOf(fd protoreflect.FieldDescriptor) ghopsv1.Content {
	c, _ := proto.GetExtension(fd.Options(), ghopsv1.E_Content).(ghopsv1.Content)
	return c
}

// TestWithhold runs Withhold over answers by authors of each association
// on public, private and unknown repositories.
func TestWithhold(t *testing.T) {
	vis := func(_ context.Context, repo string) (bool, error) {
		switch repo {
		case "o/private":
			return true, nil
		case "o/broken":
			return true, errors.New("GitHub did not answer")
		}
		return false, nil
	}
	tests := []struct {
		name, repo, assoc string
		withheld          bool
	}{
		{"owner on public", "o/public", "OWNER", false},
		{"member on public", "o/public", "MEMBER", false},
		{"collaborator on public", "o/public", "COLLABORATOR", false},
		{"contributor on public", "o/public", "CONTRIBUTOR", true},
		{"first-time contributor on public", "o/public", "FIRST_TIME_CONTRIBUTOR", true},
		{"first timer on public", "o/public", "FIRST_TIMER", true},
		{"mannequin on public", "o/public", "MANNEQUIN", true},
		{"none on public", "o/public", "NONE", true},
		{"no association on public", "o/public", "", true},
		{"lower-case owner is not GitHub's value", "o/public", "owner", true},
		{"none on private", "o/private", "NONE", false},
		{"none where visibility fails", "o/broken", "NONE", true},
		{"none on an unknown repository", "", "NONE", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &contenttrust.Guard{Visibility: vis}
			resp := &ghopsv1.GetIssueResponse{Issue: &ghopsv1.Issue{Title: "t", Body: "", Author: "mallory", AuthorAssociation: tt.assoc, Labels: []string{"bug"}}}
			n := g.Withhold(context.Background(), tt.repo, resp)
			want := 0
			if tt.withheld {
				want = 1 // the empty body stays empty
			}
			if n != want || resp.ContentReport.GetTextsWithheld() != int32(want) {
				t.Fatalf("withheld %d (report %v), want %d", n, resp.ContentReport, want)
			}
			is := resp.Issue
			if tt.withheld != (is.Title == contenttrust.Marker("mallory", tt.assoc, tt.repo)) || is.Body != "" || is.Labels[0] != "bug" || is.AuthorAssociation != tt.assoc {
				t.Fatalf("got %v", is)
			}
		})
	}
}

// TestSearchItemsUseTheirRepository: a search answer names its items'
// repositories; each item is judged by its own, looked up once per call.
func TestSearchItemsUseTheirRepository(t *testing.T) {
	lookups := map[string]int{}
	g := &contenttrust.Guard{Visibility: func(_ context.Context, repo string) (bool, error) {
		lookups[repo]++
		return repo == "o/private", nil
	}}
	resp := &ghopsv1.SearchIssuesResponse{Items: []*ghopsv1.IssueSearchItem{
		{Repo: "o/public", Title: "a", Author: "x", AuthorAssociation: "NONE"},
		{Repo: "o/private", Title: "b", Author: "x", AuthorAssociation: "NONE"},
		{Repo: "o/public", Title: "c", Author: "y", AuthorAssociation: "MEMBER"},
		{Repo: "O/Public", Title: "d", Author: "z", AuthorAssociation: "CONTRIBUTOR"},
	}}
	if n := g.Withhold(context.Background(), "", resp); n != 2 {
		t.Fatalf("withheld %d, want 2", n)
	}
	got := []string{resp.Items[0].Title, resp.Items[1].Title, resp.Items[2].Title, resp.Items[3].Title}
	want := []string{contenttrust.Marker("x", "NONE", "o/public"), "b", "c", contenttrust.Marker("z", "CONTRIBUTOR", "O/Public")}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("item %d: %q, want %q", i, got[i], want[i])
		}
	}
	if lookups["o/public"] != 1 || lookups["o/private"] != 1 || len(lookups) != 2 {
		t.Errorf("lookups %v, want one per repository", lookups)
	}
}

// TestUnaryReadsTheMetadata: only the collaborators value (any case)
// withholds; none, "all" and unknown values pass the answer unchanged.
func TestUnaryReadsTheMetadata(t *testing.T) {
	tests := []struct {
		name     string
		md       []string
		withheld bool
	}{
		{"no metadata", nil, false},
		{"all", []string{callmeta.ContentTrust, "all"}, false},
		{"unknown value", []string{callmeta.ContentTrust, "none"}, false},
		{"collaborators", []string{callmeta.ContentTrust, "collaborators"}, true},
		{"mixed case", []string{callmeta.ContentTrust, " Collaborators "}, true},
		{"two values, one narrows", []string{callmeta.ContentTrust, "all", callmeta.ContentTrust, "collaborators"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.md != nil {
				ctx = metadata.NewIncomingContext(ctx, metadata.Pairs(tt.md...))
			}
			var counted int
			g := &contenttrust.Guard{OnWithheld: func(string, int) { counted++ }}
			handler := func(context.Context, any) (any, error) {
				return &ghopsv1.GetIssueResponse{Issue: &ghopsv1.Issue{Title: "t", Author: "a", AuthorAssociation: "NONE"}}, nil
			}
			out, err := g.Unary(ctx, &ghopsv1.GetIssueRequest{Repo: "o/r", IssueNumber: 1}, &grpc.UnaryServerInfo{FullMethod: "/m"}, handler)
			if err != nil {
				t.Fatal(err)
			}
			resp := out.(*ghopsv1.GetIssueResponse)
			if (resp.Issue.Title != "t") != tt.withheld || (resp.ContentReport.GetTextsWithheld() != 0) != tt.withheld || (counted == 1) != tt.withheld {
				t.Fatalf("answer %v, counted %d; withheld want %v", resp, counted, tt.withheld)
			}
		})
	}
}
