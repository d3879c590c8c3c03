#!/usr/bin/env bash
# tasks-compare.sh runs the agent-task benchmark (docs/benchmarks.md, "Agent tasks against
# github-mcp-server (issue 31)"): every task of gateway/internal/taskbench once through ghops and
# once through github-mcp-server ("gms"), each run over its own fresh in-process fakehub with the
# demo data, and prints a Markdown table per task (tool calls, tools/list bytes, tool-result bytes,
# content bytes, GitHub requests counted against a rate limit, done or not as fakehub shows it) and a
# summary with the ratios ghops ÷ gms. Both servers run as an MCP host runs them, as a child process
# on stdio: `ghops-gateway -embedded stdio` (built from the working tree) and `github-mcp-server
# stdio`, the demo token in their environment.
#
# Usage: scripts/tasks-compare.sh [-g gms-binary] [-a] [-c] [task ...]
#   -g: the github-mcp-server binary (default $GMS_BIN, else /tmp/gms/github-mcp-server), built from
#       github/github-mcp-server commit 64a49f34 with `go build ./cmd/github-mcp-server`; when absent,
#       ghops alone is run and the report says so
#   -a: every tool on both servers (toolsets "all") instead of each task's toolsets
#   -c: a table of every call of every run
#   task: task names (default all)
# Exits 1 when a ghops run did not complete its task. Needs Go; listens on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

gms=${GMS_BIN:-/tmp/gms/github-mcp-server} toolsets=task calls=false
while getopts "g:ac" o; do
	case $o in
	g) gms=$OPTARG ;;
	a) toolsets=all ;;
	c) calls=true ;;
	*) echo "usage: $0 [-g gms-binary] [-a] [-c] [task ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ ! -x "$gms" ]; then
	echo "$0: no github-mcp-server binary at $gms (give it with -g or GMS_BIN): ghops only" >&2
	gms=""
fi
tasks=$(IFS=,; echo "$*")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "building the working tree..." >&2
go build -o "$work/" ./gateway/cmd/ghops-gateway ./gateway/cmd/ghops-tasks

GHOPS_TASKS_GHOPS="$work/ghops-gateway" GHOPS_TASKS_GMS="$gms" GHOPS_TASKS_TASKS="${tasks:-all}" \
	GHOPS_TASKS_TOOLSETS=$toolsets GHOPS_TASKS_CALLS=$calls "$work/ghops-tasks"
echo
echo "ghops $(git describe --always --dirty) (working tree), gms ${gms:-none}${gms:+ (sha256 $(sha256sum "$gms" | cut -c1-12))};" \
	"toolsets: $toolsets; $(nproc) cores; $(go version | cut -d' ' -f3)"
