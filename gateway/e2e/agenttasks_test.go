package e2e

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/config"
	"ghops.dev/gateway/internal/taskbench"
)

// TestAgentTasks runs every task of the agent-task benchmark
// (docs/benchmarks.md, "Agent tasks against github-mcp-server") through
// ghops, with every tool and with only the task's toolsets, each over a
// fresh fakehub and a gateway with the GitHub service in process (the
// shape `ghops-gateway -embedded stdio` has), and requires fakehub to show
// the task done. The figures are logged; cmd/ghops-tasks compares them
// with github-mcp-server's.
func TestAgentTasks(t *testing.T) {
	for _, task := range taskbench.All() {
		for _, mode := range []string{"all", "task"} {
			t.Run(task.Name+"/"+mode, func(t *testing.T) {
				cfg := taskbench.HubConfig()
				opts := gatewaytest.StackOptions{Hub: &cfg, Embedded: true}
				toolsets := taskbench.ToolsetsFor(task, taskbench.Ghops, mode)
				if mode == "task" {
					opts.Configure = func(c *config.Config) { c.Toolsets = strings.Split(toolsets, ",") }
				}
				st := gatewaytest.StartStack(t, opts)
				if task.Setup != nil {
					if err := task.Setup(st.Hub); err != nil {
						t.Fatal(err)
					}
				}
				rep, err := taskbench.Measure(context.Background(), task, taskbench.Ghops, toolsets, st.Hub,
					&sdk.StreamableClientTransport{Endpoint: st.URL + "/mcp", MaxRetries: -1})
				if err != nil {
					t.Fatal(err)
				}
				if !rep.Verified {
					t.Fatalf("task %s not done: %s", task.Name, rep.Failure)
				}
				for _, c := range rep.Calls {
					if c.IsError {
						t.Errorf("%s answered an error result; a script's steps must all succeed", c.Tool)
					}
				}
				t.Logf("%s (toolsets %s): %d calls, tools/list %d bytes (%d tools), results %d bytes (content %d), GitHub requests %s",
					task.Name, toolsets, len(rep.Calls), rep.ListBytes, rep.Tools, rep.ResultBytes(), rep.ContentBytes(), rep.Requests())
			})
		}
	}
}
