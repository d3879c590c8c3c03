package policy

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"ghops.dev/gateway/internal/toolset"
	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// limitedTo is a principal whose repos are globs.
func limitedTo(globs ...string) *Principal {
	return &Principal{Name: "bot", Rules: Rules{Repos: globs}}
}

// TestNarrowQuery: the narrowing rule (search.go), case by case: what
// GitHub receives, or which part of the rule refuses the query.
func TestNarrowQuery(t *testing.T) {
	one := limitedTo("octo-org/hello-world")
	tests := []struct {
		name  string
		pr    *Principal
		query string
		want  string // the narrowed query; "" when refused
		deny  string // a part of the refusal's detail
	}{
		{"no principal: unchanged", nil, "secret", "secret", ""},
		{"no repos globs: unchanged", &Principal{Name: "x"}, "repo:evil/secret x", "repo:evil/secret x", ""},
		{"one repository", one, "needle", "needle repo:octo-org/hello-world", ""},
		{"whole owner", limitedTo("octo-org/*"), "needle is:open", "needle is:open user:octo-org", ""},
		{"glob lower-cased", limitedTo("Octo-Org/Hello-World"), "x", "x repo:octo-org/hello-world", ""},
		{"several, deduplicated, covered repos dropped", limitedTo("a/x", "b/*", "b/y", "a/x", "c/z"), "x", "x repo:a/x user:b repo:c/z", ""},
		{"every repository: unchanged", limitedTo("octo-org/hello-world", "*/*"), "x", "x", ""},
		{"own repo inside kept, nothing appended", one, "needle repo:octo-org/hello-world", "needle repo:octo-org/hello-world", ""},
		{"own repo inside in another case", one, "needle REPO:Octo-Org/Hello-World", "needle REPO:Octo-Org/Hello-World", ""},
		{"own quoted repo inside", one, `needle repo:"octo-org/hello-world"`, `needle repo:"octo-org/hello-world"`, ""},
		{"own org inside a whole-owner glob", limitedTo("octo-org/*"), "needle org:octo-org", "needle org:octo-org", ""},
		{"own user inside an owner pattern glob", limitedTo("octo-*/*"), "needle user:octo-org", "needle user:octo-org", ""},
		{"own repo makes an inexpressible glob usable", limitedTo("octo-org/hello-*"), "repo:octo-org/hello-world x", "repo:octo-org/hello-world x", ""},
		{"own repo outside", one, "needle repo:octo-org/secret", "", "repo:octo-org/secret names repositories outside"},
		{"own repo outside in another case", one, "needle Repo:Octo-Org/Secret", "", "names repositories outside"},
		{"one outside among inside ones", one, "repo:octo-org/hello-world repo:evil/x", "", "repo:evil/x"},
		{"own org where only one repository is allowed", one, "org:octo-org", "", "org:octo-org names"},
		{"own user of another owner", limitedTo("octo-org/*"), "user:evil", "", "user:evil names"},
		{"negated outside: kept, narrowed", one, "needle -repo:evil/x", "needle -repo:evil/x repo:octo-org/hello-world", ""},
		{"negated inside does not count as narrowing", one, "-repo:octo-org/hello-world", "-repo:octo-org/hello-world repo:octo-org/hello-world", ""},
		{"phrase holding a qualifier is a phrase", one, `"repo:evil/x" y`, `"repo:evil/x" y repo:octo-org/hello-world`, ""},
		{"negated phrase", one, `-"a b"`, `-"a b" repo:octo-org/hello-world`, ""},
		{"other qualifier with a quoted value", one, `label:"good first issue"`, `label:"good first issue" repo:octo-org/hello-world`, ""},
		{"lower-case and/words kept", one, "this AND that", "this AND that repo:octo-org/hello-world", ""},
		{"inexpressible glob", limitedTo("octo-org/hello-*"), "x", "", `the glob "octo-org/hello-*" cannot be stated`},
		{"inexpressible owner pattern", limitedTo("octo-*/*"), "x", "", `the glob "octo-*/*"`},
		{"inexpressible name pattern", limitedTo("*/hello-world"), "x", "", `the glob "*/hello-world"`},
		{"too long once narrowed", one, strings.Repeat("a", 240), "", "would be 266 characters, over GitHub's 256"},
		{"exactly at the limit", one, strings.Repeat("a", 256-len(" repo:octo-org/hello-world")), strings.Repeat("a", 256-len(" repo:octo-org/hello-world")) + " repo:octo-org/hello-world", ""},
		{"OR", one, "secret OR x", "", "operator OR"},
		{"or in lower case", one, "secret or x", "", "operator or"},
		{"NOT", one, "x NOT secret", "", "operator NOT"},
		{"trailing NOT would negate the qualifier", one, "x NOT", "", "operator NOT"},
		{"quoted OR is a word", one, `x "OR" y`, `x "OR" y repo:octo-org/hello-world`, ""},
		{"parentheses", one, "(a b)", "", "parentheses"},
		{"parenthesis inside a word", one, "func(", "", "parentheses"},
		{"quoted parentheses", one, `"func("`, `"func(" repo:octo-org/hello-world`, ""},
		{"unbalanced quote", one, `"x`, "", "unbalanced"},
		{"escaped quote", one, `"a\" repo:evil/x "`, "", "backslash"},
		{"quote inside a word", one, `a"b c"`, "", "double quote inside a word"},
		{"text after a phrase", one, `"a b"repo:evil/x`, "", "double quote inside a word"},
		{"quote inside a qualifier value", one, `repo:octo-org/"x"`, "", "double quote inside a word"},
		{"plus does not separate", one, "a+repo:evil/x", "", "repo: inside a word"},
		{"tab does not separate", one, "a\trepo:octo-org/hello-world", "", "inside a word"},
		{"no-break space does not separate", one, "a\u00a0org:evil", "", "inside a word"},
		{"zero-width space before a qualifier", one, "\u200brepo:evil/x", "", "inside a word"},
		{"double negation", one, "--repo:evil/x", "", "inside a word"},
		{"qualifier inside another's value", one, "label:x:repo:evil/x", "", "inside a word"},
		{"word ending in a key is a word", one, "myrepo:evil/x", "myrepo:evil/x repo:octo-org/hello-world", ""},
		{"empty value", one, "repo:", "", "must name one repository"},
		{"pattern value", one, "repo:octo-org/*", "", "must name one repository"},
		{"regex value", one, "repo:/octo-org/", "", "must name one repository"},
		{"owner value that is not a login", one, "org:a/b", "", "must name one repository"},
		{"negated pattern value", one, "-repo:evil/*", "", "must name one repository"},
		{"case-folded key", one, "uſer:evil", "", "names repositories outside"},
		{"case-folded key inside checked but still narrowed", limitedTo("octo-org/*"), "uſer:octo-org x", "uſer:octo-org x user:octo-org", ""},
		{"owner outside", limitedTo("octo-org/*"), "owner:evil x", "", "owner:evil names"},
		{"owner inside checked but still narrowed", limitedTo("octo-org/*"), "owner:octo-org x", "owner:octo-org x user:octo-org", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, d := NarrowQuery(tc.pr, tc.query)
			switch {
			case tc.deny == "" && d != nil:
				t.Fatalf("refused: %s", d.Detail)
			case tc.deny == "" && got != tc.want:
				t.Fatalf("NarrowQuery(%q) = %q, want %q", tc.query, got, tc.want)
			case tc.deny != "" && d == nil:
				t.Fatalf("NarrowQuery(%q) = %q, want a refusal", tc.query, got)
			case tc.deny != "" && (d.Rule != "repos" || !strings.Contains(d.Detail, tc.deny)):
				t.Fatalf("refusal %s %q, want rule repos and %q", d.Rule, d.Detail, tc.deny)
			}
		})
	}
}

// TestEverySearchToolsQueryIsNarrowed: every tool of the search toolset
// (now and later) has a query marked as a search query, and narrowing a
// request of any tool rewrites exactly its marked fields, whatever they
// are called; a refused query leaves the request untouched.
func TestEverySearchToolsQueryIsNarrowed(t *testing.T) {
	svc := ghopsv1.File_ghops_v1_github_service_proto.Services().Get(0)
	pr := limitedTo("octo-org/hello-world")
	searchTools := 0
	for i := range svc.Methods().Len() {
		md := svc.Methods().Get(i)
		t.Run(string(md.Name()), func(t *testing.T) {
			var marked []protoreflect.FieldDescriptor
			fs := md.Input().Fields()
			for j := range fs.Len() {
				if IsSearchQuery(fs.Get(j)) {
					marked = append(marked, fs.Get(j))
				}
			}
			if toolset.Of(md) == "search" {
				searchTools++
				if len(marked) == 0 {
					t.Fatalf("%s is a search tool with no field marked (ghops.v1.search_query)", md.Name())
				}
			}
			if len(marked) == 0 {
				return
			}
			m := dynamicpb.NewMessage(md.Input())
			for _, fd := range marked {
				m.Set(fd, protoreflect.ValueOfString("needle"))
			}
			if d := NarrowSearch(pr, m); d != nil {
				t.Fatalf("refused: %s", d.Detail)
			}
			for _, fd := range marked {
				if got := m.Get(fd).String(); got != "needle repo:octo-org/hello-world" {
					t.Fatalf("%s = %q after narrowing", fd.Name(), got)
				}
			}
			before := dynamicpb.NewMessage(md.Input())
			for _, fd := range marked {
				before.Set(fd, protoreflect.ValueOfString("needle repo:evil/x"))
			}
			after := proto.Clone(before)
			if d := NarrowSearch(pr, after); d == nil || d.Rule != "repos" {
				t.Fatalf("an outside qualifier was not refused: %v", d)
			}
			if !proto.Equal(before, after) {
				t.Fatal("a refused request was changed")
			}
			if d := NarrowSearch(nil, before); d != nil || !proto.Equal(before, after) {
				t.Fatal("a request without a principal was changed or refused")
			}
		})
	}
	if searchTools < 3 {
		t.Fatalf("%d search tools, want search, search_issues and search_code at least", searchTools)
	}
}

// FuzzNarrowQuery: whatever the query, narrowing never panics, and a query
// it lets through starts with the caller's query unchanged, fits GitHub's
// limit, reads back without ambiguity, and holds at least one positive
// repo:, org: or user: qualifier GitHub surely reads as one, every scoping
// qualifier inside the globs, so that GitHub (which ORs them) matches only
// allowed repositories.
func FuzzNarrowQuery(f *testing.F) {
	for _, s := range []string{
		"needle", "needle repo:octo-org/hello-world", "repo:evil/x", "-repo:evil/x y", `"repo:evil/x"`,
		`label:"good first issue" is:open`, "a OR b", "(a)", `"x`, `a\"b"`, "a+repo:evil/x", "a\trepo:x/y",
		"org:team", "user:TEAM", "uſer:evil", "uſer:team x", "owner:team", "\u200brepo:evil/x", "--repo:x/y", "label:x:repo:e/x", "repo:",
		"myrepo:evil/x", `-"a b" c`, `repo:"team/x"`, strings.Repeat("ab ", 85),
	} {
		f.Add(s)
	}
	pr := limitedTo("octo-org/hello-world", "team/*")
	f.Fuzz(func(t *testing.T, query string) {
		got, d := NarrowQuery(pr, query)
		if d != nil {
			if d.Rule != "repos" || got != "" {
				t.Fatalf("refusal %+v with %q", d, got)
			}
			return
		}
		if !strings.HasPrefix(got, query) {
			t.Fatalf("the caller's query %q became %q", query, got)
		}
		if len([]rune(query)) <= maxSearchQuery && len([]rune(got)) > maxSearchQuery {
			t.Fatalf("narrowed past GitHub's limit: %q", got)
		}
		terms, err := SearchTerms(got)
		if err != nil {
			t.Fatalf("the narrowed %q does not read back: %v", got, err)
		}
		scoped := 0
		for _, tm := range terms {
			if tm.Key == "" || tm.Negated {
				continue
			}
			if tm.Exact && tm.Key != "owner" {
				scoped++
			}
			if !scopeInside(pr, tm.Key, tm.Value) {
				t.Fatalf("%q lets %s:%s through", got, tm.Key, tm.Value)
			}
		}
		if scoped == 0 {
			t.Fatalf("%q is not narrowed", got)
		}
	})
}
