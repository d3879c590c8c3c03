package taskbench

import (
	"fmt"
	"slices"
	"strings"
)

// registry holds every task, each file of the package adding its own
// from an init function (register), so that tasks written side by side
// need no shared list.
var registry []Task

// categories orders the report: the agent-benchmark categories.
var categories = []string{"issues", "pull requests", "repository analysis", "releases", "ci/cd"}

// register adds tasks to the registry; a task without a name, a known
// category, a ghops script or a Verify, or with a name already taken, is
// a programming error and panics at start-up (TestRegistry also says so).
func register(tasks ...Task) {
	for _, t := range tasks {
		switch {
		case t.Name == "" || strings.ContainsAny(t.Name, " ,"):
			panic(fmt.Sprintf("taskbench: task name %q must be one word", t.Name))
		case !slices.Contains(categories, t.Category):
			panic(fmt.Sprintf("taskbench: task %s: unknown category %q", t.Name, t.Category))
		case t.Scripts[Ghops] == nil || t.Verify == nil:
			panic(fmt.Sprintf("taskbench: task %s needs a ghops script and a Verify", t.Name))
		case slices.ContainsFunc(registry, func(o Task) bool { return o.Name == t.Name }):
			panic(fmt.Sprintf("taskbench: task %s registered twice", t.Name))
		}
		registry = append(registry, t)
	}
}

// All is every task, by category (in the order of the agent benchmark's
// categories) then name.
func All() []Task {
	out := slices.Clone(registry)
	slices.SortStableFunc(out, func(a, b Task) int {
		if c := slices.Index(categories, a.Category) - slices.Index(categories, b.Category); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Select is the tasks named in names (comma-separated; "" or "all" for
// every task), in All's order; a name that is no task is an error.
func Select(names string) ([]Task, error) {
	all := All()
	if names == "" || names == "all" {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		if !slices.ContainsFunc(all, func(t Task) bool { return t.Name == n }) {
			var known []string
			for _, t := range all {
				known = append(known, t.Name)
			}
			return nil, fmt.Errorf("no task %q (tasks: %s)", n, strings.Join(known, ", "))
		}
		want[n] = true
	}
	return slices.DeleteFunc(all, func(t Task) bool { return !want[t.Name] }), nil
}
