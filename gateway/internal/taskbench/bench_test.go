package taskbench

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestParseFlags: every flag has its variable, the flag wins, and a bad
// command line says what is wrong.
func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		err     string
		ghops   string
		tasks   int
		toolset string
	}{
		{"flags", []string{"-ghops", "g", "-gms", "m", "-tasks", "triage", "-toolsets", "all"}, nil, "", "g", 1, "all"},
		{"variables", nil, map[string]string{"GHOPS_TASKS_GHOPS": "g", "GHOPS_TASKS_TASKS": "triage,stale-sweep"}, "", "g", 2, "task"},
		{"the flag wins", []string{"-ghops", "f"}, map[string]string{"GHOPS_TASKS_GHOPS": "g"}, "", "f", len(All()), "task"},
		{"no ghops", nil, nil, "-ghops", "", 0, ""},
		{"bad toolsets", []string{"-ghops", "g", "-toolsets", "some"}, nil, "-toolsets must be task or all", "", 0, ""},
		{"unknown task", []string{"-ghops", "g", "-tasks", "nope"}, nil, `no task "nope"`, "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseFlags(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Binaries[Ghops] != tc.ghops || len(o.Tasks) != tc.tasks || o.Toolsets != tc.toolset {
				t.Errorf("options %+v", o)
			}
		})
	}
}

// TestBenchFailsWithoutGhops: a ghops binary that cannot run is a failed
// benchmark (ghops-tasks exits 1), and the report says why; without gms
// the report says it has no ratios.
func TestBenchFailsWithoutGhops(t *testing.T) {
	tasks, err := Select("triage")
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	ok := Bench(context.Background(), Options{Binaries: Binaries{Ghops: "/nonexistent/ghops-gateway"}, Tasks: tasks, Toolsets: "task"}, &out, &errs)
	if ok {
		t.Fatal("Bench succeeded without a ghops binary")
	}
	for _, want := range []string{"ghops only, no ratios", "### triage (issues)", "| triage | issues |", "not run"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errs.String(), "triage on ghops") {
		t.Errorf("stderr: %s", errs.String())
	}
}
