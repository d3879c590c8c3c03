package taskbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"ghops.dev/infra/flagenv"
)

// Options is the ghops-tasks command line.
type Options struct {
	// Binaries are the servers to run; GMS may be empty (its rows are
	// then left out, and the report says so).
	Binaries Binaries
	// Tasks are the tasks to run (-tasks: names, comma-separated).
	Tasks []Task
	// Toolsets is "task" (each task's toolsets) or "all".
	Toolsets string
	// Calls adds a table of every call to each task's report.
	Calls bool
	// ShowVersion is -version.
	ShowVersion bool
}

// ParseFlags reads the ghops-tasks command line, each flag with its
// variable (package flagenv): -ghops GHOPS_TASKS_GHOPS (the ghops-gateway
// binary, required), -gms GHOPS_TASKS_GMS (the github-mcp-server binary,
// optional), -tasks GHOPS_TASKS_TASKS (default all), -toolsets
// GHOPS_TASKS_TOOLSETS (task or all, default task), -calls
// GHOPS_TASKS_CALLS (per-call tables).
func ParseFlags(args []string, getenv func(string) string, output io.Writer) (Options, error) {
	s := flagenv.New("ghops-tasks", "usage: ghops-tasks -ghops <ghops-gateway> [-gms <github-mcp-server>] [flags]\n", flagenv.Getenv(getenv), output)
	var (
		o          Options
		ghops, gms string
		tasks      string
	)
	s.String(&ghops, "ghops", "GHOPS_TASKS_GHOPS", "", "the ghops-gateway binary, run as `ghops-gateway -embedded stdio`")
	s.String(&gms, "gms", "GHOPS_TASKS_GMS", "", "the github-mcp-server binary, run as `github-mcp-server stdio` (none: ghops only)")
	s.String(&tasks, "tasks", "GHOPS_TASKS_TASKS", "all", "the tasks to run, comma-separated, or all")
	s.String(&o.Toolsets, "toolsets", "GHOPS_TASKS_TOOLSETS", "task", "task (each task's own toolsets) or all (every tool)")
	s.Bool(&o.Calls, "calls", "GHOPS_TASKS_CALLS", false, "print every call of every run")
	s.Action(&o.ShowVersion, "version", "print the version and exit")
	if _, err := s.Parse(args); err != nil {
		return o, err
	}
	if o.ShowVersion {
		return o, nil
	}
	if ghops == "" {
		return o, errors.New("-ghops (GHOPS_TASKS_GHOPS) is required")
	}
	if o.Toolsets != "task" && o.Toolsets != "all" {
		return o, fmt.Errorf("-toolsets must be task or all, not %q", o.Toolsets)
	}
	var err error
	if o.Tasks, err = Select(tasks); err != nil {
		return o, err
	}
	o.Binaries = Binaries{Ghops: ghops, GMS: gms}
	return o, nil
}

// Bench runs every task of o on each server, prints a Markdown report to
// stdout (a table per task, then a summary) and progress to stderr, and
// answers whether every ghops run was verified: the exit status of
// ghops-tasks. A gms run that fails is reported, not fatal: gms is the
// yardstick, not the subject.
func Bench(ctx context.Context, o Options, stdout, stderr io.Writer) bool {
	ok := true
	var rows []summaryRow
	servers := []Server{Ghops}
	if o.Binaries[GMS] != "" {
		servers = append(servers, GMS)
	} else {
		fmt.Fprintln(stdout, "No github-mcp-server binary given (-gms): ghops only, no ratios.")
		fmt.Fprintln(stdout)
	}
	for _, task := range o.Tasks {
		reps := map[Server]*Report{}
		errs := map[Server]error{}
		for _, server := range servers {
			if task.Scripts[server] == nil {
				errs[server] = fmt.Errorf("no script: %s", task.Gap[server])
				continue
			}
			fmt.Fprintf(stderr, "running %s on %s...\n", task.Name, server)
			rep, err := Run(ctx, task, server, o.Binaries[server], o.Toolsets)
			if err != nil {
				errs[server] = err
				fmt.Fprintf(stderr, "%s on %s: %v\n", task.Name, server, err)
			} else if !rep.Verified {
				fmt.Fprintf(stderr, "%s on %s: not done: %s\n", task.Name, server, rep.Failure)
			}
			reps[server] = rep
		}
		if r := reps[Ghops]; r == nil || !r.Verified {
			ok = false
		}
		writeTask(stdout, task, servers, reps, errs, o.Calls)
		rows = append(rows, summaryRow{task: task, reps: reps})
	}
	writeSummary(stdout, servers, rows)
	return ok
}

// summaryRow is a task's line of the summary.
type summaryRow struct {
	task Task
	reps map[Server]*Report
}

// ratio is a ÷ b to two places, "–" when b is zero.
func ratio(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

// yesNo is a verified flag as the tables print it.
func yesNo(r *Report) string {
	switch {
	case r == nil:
		return "not run"
	case r.Verified:
		return "yes"
	default:
		return "**no**: " + mdCell(r.Failure)
	}
}

// mdCell keeps text from breaking a Markdown table row.
func mdCell(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", "\\|")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// writeTask prints one task's table: per server its figures, then the
// ratios ghops ÷ gms.
func writeTask(w io.Writer, task Task, servers []Server, reps map[Server]*Report, errs map[Server]error, calls bool) {
	fmt.Fprintf(w, "### %s (%s)\n\n%s\n\n", task.Name, task.Category, task.Summary)
	fmt.Fprint(w, "| |")
	for _, s := range servers {
		fmt.Fprintf(w, " %s (`%s`) |", s, task.Toolsets[s])
	}
	both := len(servers) == 2 && reps[Ghops] != nil && reps[GMS] != nil
	if both {
		fmt.Fprint(w, " ghops ÷ gms |")
	}
	fmt.Fprint(w, "\n|---|")
	for range servers {
		fmt.Fprint(w, "---:|")
	}
	if both {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	line := func(label string, cell func(*Report) string, num func(*Report) int) {
		fmt.Fprintf(w, "| %s |", label)
		for _, s := range servers {
			r := reps[s]
			switch {
			case r != nil:
				fmt.Fprintf(w, " %s |", cell(r))
			case errs[s] != nil:
				fmt.Fprintf(w, " %s |", mdCell(errs[s].Error()))
			default:
				fmt.Fprint(w, " |")
			}
		}
		if both {
			if num != nil {
				fmt.Fprintf(w, " %s |", ratio(num(reps[Ghops]), num(reps[GMS])))
			} else {
				fmt.Fprint(w, " |")
			}
		}
		fmt.Fprintln(w)
	}
	line("tool calls", func(r *Report) string { return fmt.Sprint(len(r.Calls)) }, func(r *Report) int { return len(r.Calls) })
	line("`tools/list` bytes (tools)", func(r *Report) string { return fmt.Sprintf("%d (%d)", r.ListBytes, r.Tools) }, func(r *Report) int { return r.ListBytes })
	line("**tool-result bytes**", func(r *Report) string { return fmt.Sprintf("**%d**", r.ResultBytes()) }, func(r *Report) int { return r.ResultBytes() })
	line("content bytes", func(r *Report) string { return fmt.Sprint(r.ContentBytes()) }, func(r *Report) int { return r.ContentBytes() })
	line("**GitHub requests** (counted)", func(r *Report) string { return "**" + r.Requests().String() + "**" }, func(r *Report) int { return r.Requests().Total() })
	line("done (verified in fakehub)", yesNo, nil)
	fmt.Fprintln(w)
	for _, s := range servers {
		if g := task.Gap[s]; g != "" {
			fmt.Fprintf(w, "%s: %s\n\n", s, g)
		}
	}
	if !calls {
		return
	}
	for _, s := range servers {
		r := reps[s]
		if r == nil {
			continue
		}
		fmt.Fprintf(w, "%s, per call:\n\n| # | tool | result bytes | content bytes | GitHub requests |\n|---:|---|---:|---:|---:|\n", s)
		for i, c := range r.Calls {
			tool := "`" + c.Tool + "`"
			if c.IsError {
				tool += " (error result)"
			}
			fmt.Fprintf(w, "| %d | %s | %d | %d | %s |\n", i+1, tool, c.ResultBytes, c.ContentBytes, c.Requests)
		}
		fmt.Fprintln(w)
	}
}

// writeSummary prints a line per task: each server's result bytes and
// requests, and the ratios the benchmark aims to keep at or below 0.5.
func writeSummary(w io.Writer, servers []Server, rows []summaryRow) {
	fmt.Fprintln(w, "### Summary")
	fmt.Fprintln(w)
	if len(servers) < 2 {
		fmt.Fprintln(w, "| task | category | calls | result bytes | GitHub requests | done |\n|---|---|---:|---:|---:|---|")
		for _, row := range rows {
			r := row.reps[Ghops]
			if r == nil {
				fmt.Fprintf(w, "| %s | %s | | | | not run |\n", row.task.Name, row.task.Category)
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s |\n", row.task.Name, row.task.Category, len(r.Calls), r.ResultBytes(), r.Requests(), yesNo(r))
		}
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintln(w, "| task | category | calls ghops / gms | result bytes ghops / gms | **ratio** | GitHub requests ghops / gms | **ratio** | done ghops / gms |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---|")
	for _, row := range rows {
		a, b := row.reps[Ghops], row.reps[GMS]
		if a == nil || b == nil {
			fmt.Fprintf(w, "| %s | %s | | | | | | %s / %s |\n", row.task.Name, row.task.Category, yesNo(a), yesNo(b))
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %d / %d | %d / %d | **%s** | %s / %s | **%s** | %s / %s |\n", row.task.Name, row.task.Category,
			len(a.Calls), len(b.Calls), a.ResultBytes(), b.ResultBytes(), ratio(a.ResultBytes(), b.ResultBytes()),
			a.Requests(), b.Requests(), ratio(a.Requests().Total(), b.Requests().Total()), yesNo(a), yesNo(b))
	}
	fmt.Fprintln(w)
}
