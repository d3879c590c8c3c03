#!/usr/bin/env bash
# cpu-compare.sh measures the CPU time per call of the gateway and of the
# service, and the throughput, for a baseline commit and for the working
# tree, in one run: both stacks are built, then every scenario runs against
# each, rounds interleaved (base, new, base, new, ...), so that load from
# anything else on the machine falls on both alike. CPU per call is each
# process's utime+stime (/proc/<pid>/stat) over the measured calls, warm-up
# excluded. Prints a Markdown table of medians and the new/base ratios, and
# the peak resident memory (VmHWM) of gateway plus service at the end.
#
# The warm-up (-w calls, before the measured ones) must bring the gateway's
# heap to its steady size: until the heap has grown to its collection goal
# (GOGC=400 lets it reach five times the live heap), every page it touches
# for the first time is a page fault, kernel time charged to the call that
# allocated there. With 300 warm-up calls, the first 5,000 measured calls
# still took 0.4 to 0.8 faults a call, more on the side that allocates less
# per call (it reaches its heap goal later), which is start-up cost, not
# per-call cost (docs/benchmarks.md, "Warm-up"). The table's "faults/call"
# column shows the gateway's minor page faults per measured call, so a
# window that was still warming up is seen, not guessed.
#
# With -S the two sides are instead the working tree's gateway ("ours") and
# the working tree's SDK variant ("sdk": MCP served end to end through the
# official Go SDK, package gateway/internal/sdkvariant, built with go test -c
# and run with GHOPS_SDK_VARIANT_ADDR set, which makes its TestMain serve), for issue 21's question; the load
# average before and after is printed too, since other work on the machine
# falls on both sides but widens the spread. scripts/sdk-compare.sh runs it.
#
# Usage: scripts/cpu-compare.sh [-S | -b base-ref] [-r rounds] [-n calls] [-w warm-up calls] [endpoint:tool:concurrency ...]
#   -w: calls made before the measured ones, on each start of a stack (default 5000)
#   default scenarios: each of get_branches, read_file and list_pull_requests over MCP at
#                      concurrency 8 and 32, and read_file over /rpc at 8;
#                      with -S, read_file and get_branches over MCP at 8
# Needs only Go and git; listens on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/stack.sh
. scripts/lib/stack.sh

base=2fbd8cb rounds=3 calls=4000 warm=5000 sdk=
while getopts "Sb:r:n:w:" o; do
	case $o in
	S) sdk=1 ;;
	b) base=$OPTARG ;;
	r) rounds=$OPTARG ;;
	n) calls=$OPTARG ;;
	w) warm=$OPTARG ;;
	*) echo "usage: $0 [-S | -b base-ref] [-r rounds] [-n calls] [-w warm-up calls] [endpoint:tool:concurrency ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
scenarios=("$@")
if [ -n "$sdk" ]; then
	sides=(ours sdk)
	[ ${#scenarios[@]} -gt 0 ] || scenarios=(mcp:read_file:8 mcp:get_branches:8)
else
	sides=(base new)
	[ ${#scenarios[@]} -gt 0 ] || scenarios=(mcp:get_branches:8 mcp:read_file:8 mcp:list_pull_requests:8 mcp:get_branches:32 mcp:read_file:32 mcp:list_pull_requests:32 rpc:read_file:8)
fi

work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

bins="./services/fakehub/cmd/fakehub ./services/github/cmd/ghops-github ./gateway/cmd/ghops-gateway ./gateway/cmd/ghops-load"
if [ -n "$sdk" ]; then
	echo "building the working tree's gateway and SDK variant..." >&2
	mkdir -p "$work/ours" "$work/sdk"
	go build -o "$work/ours/" $bins
	cp "$work/ours/"* "$work/sdk/"
	go test -c -o "$work/sdk/sdkvariant.test" ./gateway/internal/sdkvariant
else
	echo "building $base and the working tree..." >&2
	mkdir -p "$work/src" "$work/base" "$work/new"
	git archive "$base" | tar -x -C "$work/src"
	(cd "$work/src" && go build -o "$work/base/" $bins)
	go build -o "$work/new/" $bins
fi

hwm() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; } # KiB

# faults PID: the process's minor page faults so far (/proc/<pid>/stat).
faults() { awk '{print $10}' "/proc/$1/stat"; }

# run SIDE ENDPOINT TOOL CONC (scripts/lib/stack.sh) prints run1's "gateway_us service_us
# calls_per_s rss_mib gateway_faults_per_call".
run1() {
	local b=$work/$1 ep=$2 tool=$3 c=$4
	local p=$((20000 + RANDOM % 12000)) # below the ephemeral range (32768+), where outgoing connections take ports
	"$b/fakehub" -listen 127.0.0.1:$((p + 1)) -seed demo -admin-token adm -core-limit 100000000 -search-limit 100000000 2>/dev/null &
	local f=$!
	pids+=("$f")
	GITHUB_TOKEN=ghops-demo-token "$b/ghops-github" -addr 127.0.0.1:$((p + 2)) -github-url "http://127.0.0.1:$((p + 1))/" -metrics-addr "" 2>/dev/null &
	local s=$!
	pids+=("$s")
	if [ "$1" = sdk ]; then
		GHOPS_SDK_VARIANT_ADDR=127.0.0.1:$p GHOPS_SDK_VARIANT_SERVICE=127.0.0.1:$((p + 2)) \
			"$b/sdkvariant.test" -test.run '^$' -test.timeout 0 >/dev/null 2>&1 &
	else
		"$b/ghops-gateway" -addr 127.0.0.1:$p -service 127.0.0.1:$((p + 2)) 2>/dev/null &
	fi
	local g=$!
	pids+=("$g")
	if ! up $((p + 1)) "$f" || ! up $((p + 2)) "$s" || ! up "$p" "$g"; then
		kill "$g" "$s" "$f" 2>/dev/null || true
		wait "$g" "$s" "$f" 2>/dev/null || true
		return 1
	fi
	local load="$b/ghops-load -target http://127.0.0.1:$p -endpoint $ep -tools $tool -c $c -fakehub-admin http://127.0.0.1:$((p + 1))"
	FAKEHUB_ADMIN_TOKEN=adm $load -requests "$warm" -duration 120s -warmup 30 >/dev/null 2>&1
	local g0 s0 g1 s1 f0 f1 out
	g0=$(cpu "$g") s0=$(cpu "$s") f0=$(faults "$g")
	out=$(FAKEHUB_ADMIN_TOKEN=adm $load -json -requests "$calls" -duration 120s -warmup 0 2>/dev/null)
	g1=$(cpu "$g") s1=$(cpu "$s") f1=$(faults "$g")
	local rss=$(($(hwm "$g") + $(hwm "$s")))
	kill "$g" "$s" "$f" 2>/dev/null || true
	wait "$g" "$s" "$f" 2>/dev/null || true
	local ok tput
	ok=$(echo "$out" | sed -n 's/.*"ok": *\([0-9]*\).*/\1/p' | head -1)
	tput=$(echo "$out" | sed -n 's/.*"calls_per_second": *\([0-9.]*\).*/\1/p' | head -1)
	if [ "${ok:-0}" != "$calls" ]; then
		echo "$1 $ep $tool c=$c: only ${ok:-0} of $calls calls succeeded" >&2
		return 1
	fi
	awk -v g=$((g1 - g0)) -v s=$((s1 - s0)) -v n="$calls" -v t="$tck" -v tp="$tput" -v m="$rss" -v f=$((f1 - f0)) \
		'BEGIN { printf "%.0f %.0f %.0f %.0f %.2f\n", g * 1e6 / t / n, s * 1e6 / t / n, tp, m / 1024, f / n }'
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A res
for r in $(seq "$rounds"); do
	for sc in "${scenarios[@]}"; do
		IFS=: read -r ep tool c <<<"$sc"
		for side in "${sides[@]}"; do
			echo "round $r/$rounds $side $sc" >&2
			out=$(run "$side" "$ep" "$tool" "$c") || exit 1
			echo "  gateway_us service_us calls_per_s rss_mib gateway_faults_per_call: $out" >&2
			res["$side $sc"]+="$out"$'\n'
		done
	done
done

load1=$(cut -d' ' -f1-3 /proc/loadavg)
b=${sides[0]} n=${sides[1]}
echo "| scenario | gateway µs/call $b → $n (ratio) | gateway ratio, median of rounds | service µs/call $b → $n (ratio) | gateway+service (ratio) | calls/s $b → $n | peak RSS MiB $b → $n | gateway faults/call $b → $n |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for sc in "${scenarios[@]}"; do
	vals() { printf '%s' "${res["$1 $sc"]}" | awk -v k="$2" 'NF {print $k}'; } # SIDE's column K, a round a line
	col() { vals "$1" "$2" | median; }
	# The rounds are pairs run back to back, so the median of each pair's ratio
	# follows a change in the machine's load halfway through a run, which the
	# ratio of the two medians (taken from different rounds) can miss.
	pr=$(paste <(vals "$b" 1) <(vals "$n" 1) | awk '{print $2 / $1}' | median)
	bg=$(col "$b" 1) ng=$(col "$n" 1) bs=$(col "$b" 2) ns=$(col "$n" 2) bt=$(col "$b" 3) nt=$(col "$n" 3) bm=$(col "$b" 4) nm=$(col "$n" 4) bf=$(col "$b" 5) nf=$(col "$n" 5)
	awk -v sc="$sc" -v bg="$bg" -v ng="$ng" -v bs="$bs" -v ns="$ns" -v bt="$bt" -v nt="$nt" -v bm="$bm" -v nm="$nm" -v bf="$bf" -v nf="$nf" -v pr="$pr" 'BEGIN {
		printf "| %s | %d → %d (%.2f) | %.2f | %d → %d (%.2f) | %d → %d (%.2f) | %d → %d | %d → %d | %.2f → %.2f |\n",
			sc, bg, ng, ng / bg, pr, bs, ns, ns / bs, bg + bs, ng + ns, (ng + ns) / (bg + bs), bt, nt, bm, nm, bf, nf }'
done
echo
if [ -n "$sdk" ]; then
	echo "ours: ghops-gateway, sdk: gateway/internal/sdkvariant, both at $(git describe --always --dirty); $rounds rounds of $calls calls after $warm warm-up calls, medians; load average $load0 before, $load1 after; $(nproc) cores, $(go version | cut -d' ' -f3), $(date -u +%F)"
else
	echo "base $base ($(git log -1 --format=%h "$base")), new $(git describe --always --dirty), $rounds rounds of $calls calls after $warm warm-up calls, medians; $(nproc) cores, $(go version | cut -d' ' -f3)"
fi
