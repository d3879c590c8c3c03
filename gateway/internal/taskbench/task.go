// Package taskbench holds the agent tasks the project measures ghops by,
// each written once for ghops and once for github/github-mcp-server ("gms"),
// and run over the same fakehub. A task is what an engineer delegates to an
// agent (sweep stale issues, cut a release, read why a workflow failed); its
// scripts make the tool calls an agent makes with that server's tools, in the
// most economical sequence that server allows, and its check reads the
// outcome back from fakehub. gateway/e2e runs every ghops script in make
// test; cmd/ghops-tasks runs both servers and reports what each task cost
// (docs/benchmarks.md, "Agent tasks").
package taskbench

import (
	"context"
	"encoding/json"
	"fmt"

	"ghops.dev/services/fakehub"
)

// Server names the MCP server a script is written for.
type Server string

// The servers a task may have a script for.
const (
	Ghops Server = "ghops"
	GMS   Server = "gms"
)

// Caller makes one tool call as an agent's host does and returns what the
// model reads. The runner behind it counts calls, bytes and GitHub requests.
type Caller interface {
	// Call calls tool with args. The error is for a call that got no
	// result (an unknown tool, a broken session); a tool that ran and
	// failed is a Result with IsError.
	Call(ctx context.Context, tool string, args map[string]any) (Result, error)
}

// Result is one tool result as the model reads it.
type Result struct {
	// Text is the text of the result's content items, concatenated.
	Text string
	// IsError is the result's isError: the tool ran and failed.
	IsError bool
}

// Decode unmarshals the result's text (a JSON answer) into v; an error
// result is an error, so a script stops at the first failed step.
func (r Result) Decode(v any) error {
	if r.IsError {
		return fmt.Errorf("error result: %s", r.Text)
	}
	if err := json.Unmarshal([]byte(r.Text), v); err != nil {
		return fmt.Errorf("result %.200q: %w", r.Text, err)
	}
	return nil
}

// Script is one server's way through a task.
type Script func(ctx context.Context, c Caller) error

// Task is one agent task.
type Task struct {
	// Name is short and stable ("stale-sweep"): the report's row and the
	// e2e subtest's name.
	Name string
	// Category is the agent-benchmark category the task stands for: one
	// of "issues", "pull requests", "repository analysis", "releases",
	// "ci/cd".
	Category string
	// Summary says in one sentence what the agent is asked to do.
	Summary string
	// Toolsets are the toolsets the task needs on each server, as the
	// server's toolsets flag takes them.
	Toolsets map[Server]string
	// Setup, when set, adds to the demo data what the task starts from
	// (a workflow run that fails, old issues) before either server runs.
	Setup func(h *fakehub.Hub) error
	// Scripts are the servers' ways through the task; a server without
	// one cannot express the task with its tools (the report says why in
	// Gap).
	Scripts map[Server]Script
	// Gap says, for a server without a script or one that cannot reach
	// half of gms's cost, what its tools or GitHub's API force.
	Gap map[Server]string
	// Verify reads the outcome back from fakehub after a script ran and
	// says what is wrong, if anything.
	Verify func(ctx context.Context, h *fakehub.Hub) error
	// AfterCall, when set, runs after every tool call of a script,
	// outside the call's measurement: what GitHub does by itself in
	// answer to a write, such as CI starting on a push (fakehub runs no
	// workflows; the hook records the run Hub.AddWorkflowRun makes). It
	// must keep no state of its own: one Task value serves every run.
	AfterCall func(ctx context.Context, h *fakehub.Hub) error
}

// call makes one tool call and decodes its answer into out (nil: only
// checks it is no error result): the step of a script.
func call(ctx context.Context, c Caller, tool string, args map[string]any, out any) error {
	res, err := c.Call(ctx, tool, args)
	if err != nil {
		return err
	}
	if out == nil {
		if res.IsError {
			return fmt.Errorf("%s: error result: %s", tool, res.Text)
		}
		return nil
	}
	if err := res.Decode(out); err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	return nil
}
