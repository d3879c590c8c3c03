#!/usr/bin/env bash
# gms-compare.sh measures the throughput (calls/s) of ghops and of github-mcp-server ("gms") on the
# same GitHub operations, the benchmark pairs of issue 21 point 8, and the CPU time each server
# spends per call. Both are driven by ghops-load at one concurrency (8 by default), over Streamable
# HTTP (ghops at /mcp of the gateway built from the working tree, gateway + GitHub service; gms in its
# `http` mode) and, with -m, over stdio (below), each over its own fresh fakehub with the demo data. Rounds are
# interleaved (ghops then gms in odd rounds, gms then ghops in even ones) so that load from anything
# else on the machine falls on both alike. CPU per call is each process's utime+stime
# (/proc/<pid>/stat) over the measured calls, warm-up excluded, for the servers and for their fakehub
# (gms makes more GitHub requests per call); "REST/call" is what fakehub served per measured call.
# Prints a Markdown table of medians: the ratio ghops ÷ gms of the median throughputs with the range
# of the per-round ratios, and gms's CPU per call over ghops's (servers alone, and with fakehub: on
# a machine with nothing else running, where the run is CPU-bound, the throughput ratio tends to the
# latter; on a shared machine it is the steadier number). Exits 3 when a pair's throughput ratio is
# below the threshold (-t, default 3).
#
# Usage: scripts/gms-compare.sh [-g gms-binary] [-m http|stdio|both] [-r rounds] [-d seconds] [-c concurrency] [-t threshold] [pair ...]
#   pairs: read_file get_branches get_commits list_pull_requests get_pull_request search (the default),
#          and get_pr_mergeability (only when named)
#   -g: the github-mcp-server binary (default $GMS_BIN, else /tmp/gms/github-mcp-server), built from
#       github/github-mcp-server commit 64a49f34 with `go build ./cmd/github-mcp-server`
#   -m: the transport (default http); stdio adds a row per pair and about 3 minutes
#   -d: measured seconds per run (default 4); each run is preceded by 200 unmeasured calls
# Needs Go, git and the gms binary; listens on 127.0.0.1 only. 3 rounds of the 6 pairs over HTTP take
# about 3.5 minutes on 2 cores.
#
# How gms is run: `github-mcp-server http --listen-host 127.0.0.1 --port P` with
# GITHUB_HOST=http://127.0.0.1:<fakehub>, default toolsets, the token sent per request as
# `Authorization: Bearer` (GHOPS_LOAD_AUTHORIZATION, so no token is in a command line). The token is
# a fine-grained one (`github_pat_` prefix, given to fakehub with -tokens): for a classic `ghp_`
# token gms would fetch the token's scopes with an extra HEAD request on every HTTP request, which
# would slow gms down; the fine-grained token measures gms at its cheapest. gms http is stateless
# and builds an MCP server per request; that is its design, not a setting. Both servers negotiate
# MCP 2025-06-18 (ghops-load's default), for which gms needs no Mcp-Param-* headers.
#
# Over stdio (-m stdio), ghops-load starts each server as an MCP host would and calls it over its
# stdin and stdout: `ghops-gateway -embedded stdio` (the GitHub service in the gateway's process:
# one process, as gms is) and `github-mcp-server stdio`, tokens in their environment. The server's
# CPU is what ghops-load reports for it; fakehub's is averaged over the warm-up and the measured
# calls, made by the same process.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/stack.sh
. scripts/lib/stack.sh

gms=${GMS_BIN:-/tmp/gms/github-mcp-server} rounds=3 secs=4 conc=8 threshold=3 mode=http
while getopts "g:r:d:c:t:m:" o; do
	case $o in
	m) mode=$OPTARG ;;
	g) gms=$OPTARG ;;
	r) rounds=$OPTARG ;;
	d) secs=$OPTARG ;;
	c) conc=$OPTARG ;;
	t) threshold=$OPTARG ;;
	*) echo "usage: $0 [-g gms-binary] [-m http|stdio|both] [-r rounds] [-d seconds] [-c concurrency] [-t threshold] [pair ...]" >&2; exit 2 ;;
	esac
done
case $mode in
http) modes=(http) transports=("Streamable HTTP") ;;
stdio) modes=(stdio) transports=(stdio) ;;
both) modes=(http stdio) transports=("Streamable HTTP" "and stdio") ;;
*) echo "$0: -m must be http, stdio or both" >&2; exit 2 ;;
esac
shift $((OPTIND - 1))
[ -x "$gms" ] || { echo "$0: no github-mcp-server binary at $gms (give it with -g or GMS_BIN)" >&2; exit 2; }

# The pairs: ghops tool and arguments, gms tool and arguments, the same GitHub operation on the demo
# data's octo-org/hello-world (pull request #1 exists there).
declare -A ghops_tool ghops_args gms_tool gms_args
pair() { ghops_tool[$1]=$2 ghops_args[$1]=$3 gms_tool[$1]=$4 gms_args[$1]=$5; }
pair read_file read_file '{"repo":"octo-org/hello-world","path":"README.md"}' \
	get_file_contents '{"owner":"octo-org","repo":"hello-world","path":"README.md"}'
pair get_branches get_branches '{"repo":"octo-org/hello-world"}' \
	list_branches '{"owner":"octo-org","repo":"hello-world"}'
pair get_commits get_commits '{"repo":"octo-org/hello-world"}' \
	list_commits '{"owner":"octo-org","repo":"hello-world"}'
pair list_pull_requests list_pull_requests '{"repo":"octo-org/hello-world"}' \
	list_pull_requests '{"owner":"octo-org","repo":"hello-world"}'
pair get_pull_request get_pull_request '{"repo":"octo-org/hello-world","prNumber":1}' \
	pull_request_read '{"method":"get","owner":"octo-org","repo":"hello-world","pullNumber":1}'
pair search search '{"query":"hello"}' \
	search_repositories '{"query":"hello"}'
# Not a default pair: get_pr_mergeability also reads the head commit's checks (3 requests where gms's
# get makes 1); give it by name to see what that costs.
pair get_pr_mergeability get_pr_mergeability '{"repo":"octo-org/hello-world","prNumber":1}' \
	pull_request_read '{"method":"get","owner":"octo-org","repo":"hello-world","pullNumber":1}'
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=(read_file get_branches get_commits list_pull_requests get_pull_request search)
for p in "${pairs[@]}"; do
	[ -n "${ghops_tool[$p]:-}" ] || { echo "$0: unknown pair $p (known: ${!ghops_tool[*]})" >&2; exit 2; }
done

work=$(mktemp -d)
# $work/live holds the ids of the processes of the run under way: runs happen in command
# substitutions, whose variables the exit trap cannot see, and an interrupted run must not leave a
# server behind. A run empties it once its processes are gone.
cleanup() {
	if [ -s "$work/live" ]; then
		# shellcheck disable=SC2046 # one id per word
		kill $(cat "$work/live") 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "building the working tree..." >&2
go build -o "$work/" ./services/fakehub/cmd/fakehub ./services/github/cmd/ghops-github ./gateway/cmd/ghops-gateway ./gateway/cmd/ghops-load
# A fake fine-grained token with write on the demo repository (see the header); ghops uses the demo
# seed's own token.
pat=github_pat_ghopsbench0123456789abcdefghijklmnopqrstuvwxyz
printf '[{"Value":"%s","Login":"octocat","Repos":{"octo-org/hello-world":"write"}}]\n' "$pat" >"$work/tokens.json"

# run MODE PAIR SIDE (scripts/lib/stack.sh) prints run1's "calls_per_s server_us_per_call
# rest_per_call fakehub_us_per_call" (for ghops the server is the gateway plus the GitHub service).
giveup_hint="server logs in $work are removed on exit, rerun with one pair to see them"

run1() {
	local mode=$1 pr=$2 side=$3
	local p=$((20000 + RANDOM % 12000)) # below the ephemeral range (32768+), where outgoing connections take ports
	local hub=$((p + 1))
	"$work/fakehub" -listen 127.0.0.1:$hub -seed demo -admin-token adm -core-limit 100000000 -search-limit 100000000 \
		-tokens "$work/tokens.json" 2>/dev/null &
	local f=$!
	echo "$f" >>"$work/live"
	local procs=() tool=${ghops_tool[$pr]} args=${ghops_args[$pr]} auth=""
	[ "$side" = ghops ] || tool=${gms_tool[$pr]} args=${gms_args[$pr]}
	if [ "$mode" = stdio ]; then
		: # ghops-load starts the server and reports its CPU
	elif [ "$side" = ghops ]; then
		GITHUB_TOKEN=ghops-demo-token "$work/ghops-github" -addr 127.0.0.1:$((p + 2)) -github-url "http://127.0.0.1:$hub/" -metrics-addr "" 2>/dev/null &
		procs+=($!)
		echo $! >>"$work/live"
		"$work/ghops-gateway" -addr 127.0.0.1:$p -service 127.0.0.1:$((p + 2)) 2>/dev/null &
		procs+=($!)
		echo $! >>"$work/live"
	else
		GITHUB_HOST=http://127.0.0.1:$hub "$gms" http --listen-host 127.0.0.1 --port "$p" >/dev/null 2>&1 &
		procs+=($!)
		echo $! >>"$work/live"
		auth="Bearer $pat"
	fi
	# port:process pairs to wait for: fakehub, then the servers in the order started
	local waits=("$hub:$f") q
	if [ "$mode" = http ] && [ "$side" = ghops ]; then waits+=("$((p + 2)):${procs[0]}" "$p:${procs[1]}"); fi
	if [ "$mode" = http ] && [ "$side" = gms ]; then waits+=("$p:${procs[0]}"); fi
	for q in "${waits[@]}"; do
		if ! up "${q%%:*}" "${q##*:}"; then
			kill "${procs[@]}" "$f" 2>/dev/null || true
			wait "${procs[@]}" "$f" 2>/dev/null || true
			: >"$work/live"
			return 1
		fi
	done
	local c0=0 c1=0 h0 h1 out warm=0
	if [ "$mode" = stdio ]; then
		# the warm-up is ghops-load's own (-warmup, sequential) in the same server process, so
		# fakehub's CPU is counted over warm-up and measured calls together
		warm=200
		local cmd="$work/ghops-gateway -embedded stdio" envs=(GITHUB_TOKEN=ghops-demo-token "GITHUB_API_URL=http://127.0.0.1:$hub/")
		[ "$side" = ghops ] || cmd="$gms stdio" envs=(GITHUB_PERSONAL_ACCESS_TOKEN=ghops-demo-token "GITHUB_HOST=http://127.0.0.1:$hub")
		h0=$(cpu "$f")
		out=$(env "${envs[@]}" FAKEHUB_ADMIN_TOKEN=adm "$work/ghops-load" -endpoint stdio -command "$cmd" -tools "$tool" -args "$tool=$args" \
			-c "$conc" -warmup "$warm" -json -requests 10000000 -duration "${secs}s" -fakehub-admin "http://127.0.0.1:$hub" 2>/dev/null) || true
		h1=$(cpu "$f")
	else
		local load=("$work/ghops-load" -target "http://127.0.0.1:$p" -endpoint mcp -tools "$tool" -args "$tool=$args" -c "$conc")
		GHOPS_LOAD_AUTHORIZATION=$auth "${load[@]}" -requests 200 -warmup 20 >/dev/null 2>&1 || true
		for q in "${procs[@]}"; do c0=$((c0 + $(cpu "$q"))); done
		h0=$(cpu "$f")
		out=$(GHOPS_LOAD_AUTHORIZATION=$auth FAKEHUB_ADMIN_TOKEN=adm "${load[@]}" -json -requests 10000000 -duration "${secs}s" \
			-fakehub-admin "http://127.0.0.1:$hub" 2>/dev/null) || true
		for q in "${procs[@]}"; do c1=$((c1 + $(cpu "$q"))); done
		h1=$(cpu "$f")
	fi
	kill "${procs[@]}" "$f" 2>/dev/null || true
	wait "${procs[@]}" "$f" 2>/dev/null || true
	: >"$work/live"
	local calls ok tput rest scpu
	calls=$(echo "$out" | sed -n 's/^  "calls": *\([0-9]*\).*/\1/p' | head -1)
	ok=$(echo "$out" | sed -n 's/^  "ok": *\([0-9]*\).*/\1/p' | head -1)
	tput=$(echo "$out" | sed -n 's/.*"calls_per_second": *\([0-9.e+]*\).*/\1/p' | head -1)
	rest=$(echo "$out" | sed -n 's/.*"per_call": *\([0-9.e+]*\).*/\1/p' | head -1)
	scpu=$(echo "$out" | sed -n 's/.*"server_cpu_ns": *\([0-9]*\).*/\1/p' | head -1)
	if [ -z "$calls" ] || [ "$calls" = 0 ] || [ "$ok" != "$calls" ]; then
		echo "$mode $side $pr ($tool): only ${ok:-0} of ${calls:-0} calls succeeded" >&2
		return 1
	fi
	awk -v c=$((c1 - c0)) -v sc="${scpu:-0}" -v stdio="$([ "$mode" = stdio ] && echo 1 || echo 0)" -v h=$((h1 - h0)) -v n="$calls" -v w="$warm" \
		-v t="$tck" -v tp="$tput" -v r="${rest:-0}" \
		'BEGIN { printf "%.1f %.1f %.2f %.1f\n", tp, stdio ? sc / 1e3 / n : c * 1e6 / t / n, r, h * 1e6 / t / (n + w) }'
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
declare -A res ratios
rows=()
for m in "${modes[@]}"; do for pr in "${pairs[@]}"; do rows+=("$m $pr"); done; done
for r in $(seq "$rounds"); do
	for row in "${rows[@]}"; do
		# ghops first in odd rounds, gms first in even ones, so that a trend in the machine's other
		# load (a build starting or ending) does not always favour the same side
		sides=(ghops gms)
		[ $((r % 2)) = 1 ] || sides=(gms ghops)
		for side in "${sides[@]}"; do
			echo "round $r/$rounds $side $row" >&2
			# shellcheck disable=SC2086 # "mode pair"
			out=$(run $row "$side") || exit 1
			res["$side $row"]+="$out"$'\n'
		done
		# the round's ratio: this round's two runs, made back to back
		ratios[$row]+=$(awk -v a="$(echo "${res["ghops $row"]}" | awk 'NF' | tail -1 | cut -d' ' -f1)" \
			-v b="$(echo "${res["gms $row"]}" | awk 'NF' | tail -1 | cut -d' ' -f1)" 'BEGIN { printf "%.2f\n", a / b }')$'\n'
	done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "| pair (ghops ↔ gms) | ghops calls/s | gms calls/s | ratio ghops ÷ gms (rounds) | server µs CPU/call ghops (gateway + service) / gms | fakehub µs CPU/call ghops / gms | gms ÷ ghops CPU/call, servers / with fakehub | REST/call ghops / gms |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
worst=""
for row in "${rows[@]}"; do
	read -r m pr <<<"$row"
	label="${ghops_tool[$pr]} ↔ ${gms_tool[$pr]}"
	[ "$m" = http ] || label+=" (stdio)"
	col() { printf '%s' "${res["$1 $row"]}" | awk -v k="$2" 'NF {print $k}' | median; }
	at=$(col ghops 1) bt=$(col gms 1) ac=$(col ghops 2) bc=$(col gms 2) ar=$(col ghops 3) br=$(col gms 3) ah=$(col ghops 4) bh=$(col gms 4)
	lo=$(printf '%s' "${ratios[$row]}" | awk 'NF' | sort -g | head -1) hi=$(printf '%s' "${ratios[$row]}" | awk 'NF' | sort -g | tail -1)
	ratio=$(awk -v a="$at" -v b="$bt" 'BEGIN { printf "%.2f", a / b }')
	awk -v label="$label" -v at="$at" -v bt="$bt" -v q="$ratio" -v lo="$lo" -v hi="$hi" \
		-v ac="$ac" -v bc="$bc" -v ar="$ar" -v br="$br" -v ah="$ah" -v bh="$bh" 'BEGIN {
		printf "| %s | %d | %d | **%.2f** (%.2f–%.2f) | %d / %d | %d / %d | %.2f / %.2f | %g / %g |\n",
			label, at, bt, q, lo, hi, ac, bc, ah, bh, bc / ac, (bc + bh) / (ac + ah), ar, br }'
	worst=$(printf '%s\n%s\n' "$worst" "$ratio" | awk 'NF' | sort -g | head -1)
done
echo
echo "ghops $(git describe --always --dirty) (working tree), gms $gms (sha256 $(sha256sum "$gms" | cut -c1-12));" \
	"MCP over ${transports[*]}, concurrency $conc, $rounds interleaved rounds of ${secs} s per run, medians;" \
	"$(nproc) cores, load average $load0 before and $load1 after, $(($(date +%s) - start)) s; $(go version | cut -d' ' -f3)"
if awk -v w="$worst" -v t="$threshold" 'BEGIN { exit !(w < t) }'; then
	echo "lowest ratio $worst is below $threshold" >&2
	exit 3
fi
echo "lowest ratio $worst, at least $threshold" >&2
