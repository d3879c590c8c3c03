package fakehub_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"ghops.dev/services/fakehub"
)

// TestSearchIssueQualifiers: the milestone, no: and date qualifiers of
// issue search, as GitHub reads them. The demo's issues were all made on
// 2026-01-01 (the seed's epoch); the hub's clock is a month later, so
// one issue given a comment now is updated then.
func TestSearchIssueQualifiers(t *testing.T) {
	now := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	s := startHub(t, fakehub.Config{Now: func() time.Time { return now }})
	gh := client(t, s, writer, "")
	x := context.Background()
	repo := "repo:octo-org/hello-world is:issue is:open "
	english := demoIssueNumber(t, s, "Greeting is always in English")
	odd := demoIssueNumber(t, s, "Odd greeting for an empty name")
	empty := demoIssueNumber(t, s, "Greeting ignores empty names")
	farewell := demoIssueNumber(t, s, "Add a farewell")
	if _, err := s.Hub.AddIssueComment("octo-org/hello-world", odd, "hubber", "still seen"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, q string
		want    []int // a subset that must be found (nil: see not)
		not     []int // numbers that must not be found
	}{
		{"no milestone", repo + "no:milestone greeting", []int{english, odd}, []int{empty, farewell}},
		{"a milestone by title", repo + `milestone:v1.0`, []int{empty, farewell}, []int{english, odd}},
		{"without the milestone", repo + `-milestone:v1.0 greeting`, []int{english, odd}, []int{empty}},
		{"updated before a day", repo + "no:milestone greeting updated:<2026-01-15", []int{english}, []int{odd}},
		{"updated on or after a day", repo + "greeting updated:>=2026-02-01", []int{odd}, []int{english, empty}},
		{"updated in a range", repo + "greeting updated:2026-01-01..2026-01-02", []int{english, empty}, []int{odd}},
		{"updated on a day", repo + "greeting updated:2026-02-01", []int{odd}, []int{english}},
		{"created after a time", repo + "greeting created:>2026-01-31T00:00:00Z", nil, []int{english, odd, empty}},
		{"an open range", repo + "greeting updated:2026-01-31..*", []int{odd}, []int{english}},
		{"a date fakehub cannot read is ignored", repo + "greeting updated:<yesterday", []int{english, odd, empty}, nil},
		{"no labels", repo + "no:label", nil, []int{english, odd, empty, farewell}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _, err := gh.Search.Issues(x, tc.q, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, is := range res.Issues {
				got = append(got, is.GetNumber())
			}
			for _, n := range tc.want {
				if !slices.Contains(got, n) {
					t.Errorf("%q found %v, want %d among them", tc.q, got, n)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Errorf("%q found %v, want no %d", tc.q, got, n)
				}
			}
		})
	}
}
