// Command ghops-tasks runs the agent-task benchmark (docs/benchmarks.md,
// "Agent tasks against github-mcp-server"): every task once through ghops
// and once through github-mcp-server, each over its own fresh fakehub,
// and prints per task what each server cost (tool calls, bytes, GitHub
// requests) and whether fakehub shows the task done. Package
// ghops.dev/gateway/internal/taskbench holds the tasks and the runner.
//
//	ghops-tasks -ghops ./ghops-gateway [-gms ./github-mcp-server] [-tasks stale-sweep,triage] [-toolsets task|all] [-calls]
//
// Every flag has a variable (GHOPS_TASKS_GHOPS, GHOPS_TASKS_GMS,
// GHOPS_TASKS_TASKS, GHOPS_TASKS_TOOLSETS, GHOPS_TASKS_CALLS). Exits 1 if
// a ghops run is not done, 2 for a bad command line.
package main

import (
	"context"
	"io"
	"os"

	"ghops.dev/infra/startup"

	"ghops.dev/gateway/internal/taskbench"
)

func main() {
	ctx, stop := startup.Signals()
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the exit and the signals.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	o, code, ok := startup.Load("ghops-tasks", func(usage io.Writer) (taskbench.Options, error) {
		return taskbench.ParseFlags(args, getenv, usage)
	}, func(o taskbench.Options) bool { return o.ShowVersion }, stdout, stderr)
	if !ok {
		return code
	}
	if !taskbench.Bench(ctx, o, stdout, stderr) {
		return startup.ExitFailure
	}
	return startup.ExitOK
}
