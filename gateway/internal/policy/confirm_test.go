package policy

import (
	"strings"
	"testing"
)

// TestConfirmRule: confirm names tools like the tools rule does (a name or
// glob that matches no tool is an error), and NeedsConfirm matches only
// the tools it names, for the principal that names them.
func TestConfirmRule(t *testing.T) {
	refused := []struct{ name, doc, want string }{
		{"typo", "principals:\n  - name: a\n    confirm: [merge_pull_reqest]\n", `principal "a": confirm entry "merge_pull_reqest" matches no tool`},
		{"bad glob", "principals:\n  - name: a\n    confirm: [\"[\"]\n", `confirm entry "["`},
		{"in the default", "default:\n  confirm: [nope]\n", `default: confirm entry "nope"`},
		{"not a list", "principals:\n  - name: a\n    confirm: merge_pull_request\n", "not a valid policy document"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc), tools)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	p, err := Parse([]byte("principals:\n  - name: careful\n    confirm: [merge_pull_request, \"commit_*\"]\n  - name: bold\n"), tools)
	if err != nil {
		t.Fatal(err)
	}
	careful, bold := p.ForIdentity(KindLocal, "careful"), p.ForIdentity(KindLocal, "bold")
	tests := []struct {
		name string
		pr   *Principal
		tool string
		want bool
	}{
		{"named tool", careful, "merge_pull_request", true},
		{"glob", careful, "commit_files", true},
		{"tool not named", careful, "read_file", false},
		{"principal without confirm", bold, "merge_pull_request", false},
		{"no principal", nil, "merge_pull_request", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NeedsConfirm(tc.pr, tc.tool); got != tc.want {
				t.Fatalf("NeedsConfirm = %v, want %v", got, tc.want)
			}
		})
	}
}
