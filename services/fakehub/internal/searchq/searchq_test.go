package searchq

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		words []string
		quals []Qualifier
		err   error
	}{
		{name: "empty", in: ""},
		{name: "words", in: "hello world", words: []string{"hello", "world"}},
		{name: "repo qualifier", in: "repo:octo-org/hello-world", quals: []Qualifier{{Key: "repo", Value: "octo-org/hello-world"}}},
		{name: "mixed", in: "greet user:octo-org language:Go in:name", words: []string{"greet"}, quals: []Qualifier{{Key: "user", Value: "octo-org"}, {Key: "language", Value: "Go"}, {Key: "in", Value: "name"}}},
		{name: "phrase", in: `"hello world" org:x`, words: []string{"hello world"}, quals: []Qualifier{{Key: "org", Value: "x"}}},
		{name: "negated", in: "-language:go x", words: []string{"x"}, quals: []Qualifier{{Key: "language", Value: "go", Negated: true}}},
		{name: "unknown key stays word", in: "foo:bar", words: []string{"foo:bar"}},
		{name: "plus separated", in: "a+repo:o/r", words: []string{"a"}, quals: []Qualifier{{Key: "repo", Value: "o/r"}}},
		{name: "issue qualifiers", in: "greeting is:issue state:open label:bug -label:duplicate author:octocat assignee:none type:pr",
			words: []string{"greeting"}, quals: []Qualifier{{Key: "is", Value: "issue"}, {Key: "state", Value: "open"}, {Key: "label", Value: "bug"},
				{Key: "label", Value: "duplicate", Negated: true}, {Key: "author", Value: "octocat"}, {Key: "assignee", Value: "none"}, {Key: "type", Value: "pr"}}},
		{name: "quoted label", in: `label:"good first issue" x`, words: []string{"x"}, quals: []Qualifier{{Key: "label", Value: "good first issue"}}},
		{name: "too long", in: strings.Repeat("a", 257), err: ErrTooLong},
		{name: "exactly 256", in: strings.Repeat("a", 256), words: []string{strings.Repeat("a", 256)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := Parse(tc.in)
			if err != tc.err {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if !reflect.DeepEqual(q.Words, tc.words) || !reflect.DeepEqual(q.Qualifiers, tc.quals) {
				t.Fatalf("Parse(%q) = %+v, want words %q quals %+v", tc.in, q, tc.words, tc.quals)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "repo:a/b", `"x y" -in:name`, "language:go user:u org:o z", `"unterminated`, "a:b:c", "-", "+++", strings.Repeat("é", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if utf8.RuneCountInString(s) > MaxLen {
			if err == nil {
				t.Fatalf("long query accepted")
			}
			return
		}
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		for _, x := range q.Qualifiers {
			if !known[x.Key] {
				t.Fatalf("unknown qualifier key %q", x.Key)
			}
		}
		for _, w := range q.Words {
			if w == "" {
				t.Fatalf("empty word from %q", s)
			}
		}
	})
}
