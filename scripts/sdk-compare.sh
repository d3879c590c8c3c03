#!/usr/bin/env bash
# sdk-compare.sh answers issue 21's question by measurement: gateway CPU per
# call of today's gateway (its own MCP layer on /mcp) and of MCP served end to
# end through the official Go SDK (gateway/internal/sdkvariant), with
# ghops-load at concurrency 8 on read_file and get_branches, rounds
# interleaved, medians. It is scripts/cpu-compare.sh -S; see there for the
# method, and docs/benchmarks.md ("MCP through the SDK or our own (issue 21)")
# for the results.
#
# Usage: scripts/sdk-compare.sh [-r rounds] [-n calls] [endpoint:tool:concurrency ...]
set -euo pipefail
exec "$(dirname "$0")/cpu-compare.sh" -S "$@"
