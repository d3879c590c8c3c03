package cli

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ghops.dev/gateway/gatewaytest"
)

// TestREADMEExamples runs the README's `bin/ghops` examples (the console
// block after the readme-examples marker) against the demo stack, through
// Run, which is what the binary runs and whose result is its exit code: the
// output and the exit codes the README shows must be what the command gives.
// A line "..." in the README stands for any number of lines.
func TestREADMEExamples(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, "<!-- readme-examples:")
	if i < 0 {
		t.Fatal("no readme-examples marker in README.md")
	}
	block := regexp.MustCompile("(?s)```console\n(.*?)```").FindStringSubmatch(text[i:])
	if block == nil {
		t.Fatal("no console block after the marker")
	}
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	examples := strings.Split(block[1], "\n$ ")
	examples[0] = strings.TrimPrefix(examples[0], "$ ")
	if len(examples) < 4 {
		t.Fatalf("%d examples", len(examples))
	}
	exitLine := regexp.MustCompile(`^exit (\d+)$`)
	for _, ex := range examples {
		lines := strings.Split(strings.TrimRight(ex, "\n"), "\n")
		command, want := lines[0], lines[1:]
		t.Run(command, func(t *testing.T) {
			wantExit := 0
			if cmd, ok := strings.CutSuffix(command, `; echo "exit $?"`); ok {
				command = cmd
				m := exitLine.FindStringSubmatch(want[len(want)-1])
				if m == nil {
					t.Fatalf("the example echoes $? but its last line is %q", want[len(want)-1])
				}
				wantExit, _ = strconv.Atoi(m[1])
				want = want[:len(want)-1]
			}
			args := strings.Fields(command)
			if args[0] != "bin/ghops" {
				t.Fatalf("example runs %q, not bin/ghops", args[0])
			}
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), args[1:], nil, &stdout, &stderr, func(k string) string {
				return map[string]string{"GHOPS_ENDPOINT": st.URL}[k]
			})
			got := strings.Split(strings.TrimRight(stdout.String()+stderr.String(), "\n"), "\n")
			if code != wantExit {
				t.Errorf("exit %d, README says %d", code, wantExit)
			}
			if !matchLines(got, want) {
				t.Errorf("output:\n%s\nREADME:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// matchLines matches got against want, where a want line "..." matches any
// run of lines.
func matchLines(got, want []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(got[k:], want[1:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchLines(got[1:], want[1:])
}
