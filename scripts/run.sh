#!/usr/bin/env bash
# run.sh starts the whole ghops stack on 127.0.0.1 for `make run`:
#   fakehub (demo data)  ->  ghops-github  ->  ghops-gateway
# With GITHUB_TOKEN set it talks to GitHub (GITHUB_API_URL, default
# api.github.com) and starts no fakehub. Ctrl-C (or SIGTERM) stops all.
#
# Addresses (the binaries' own variables; defaults in parentheses):
#   FAKEHUB_LISTEN             fakehub                  (127.0.0.1:8789)
#   GHOPS_GITHUB_ADDR          the service's gRPC port  (127.0.0.1:50051)
#   GHOPS_GITHUB_METRICS_ADDR  the service's /metrics   (127.0.0.1:9464; "off" disables)
#   GHOPS_GATEWAY_ADDR         the gateway (MCP, /rpc)  (127.0.0.1:8788)
# Every port is checked before anything starts, and again right before the
# process that needs it starts; a taken one stops the run with exit 1 and
# names the variable that moves it, with a free port below the ephemeral
# range to move it to. A process that exits before it is ready gets the same
# advice for its ports.
#
# The gateway authenticates to the service with a shared secret drawn for
# this run (GHOPS_SERVICE_SECRET_FILE, read by both; removed at exit), as a
# deployment does; give GHOPS_SERVICE_SECRET_FILE to use your own.
#
#   scripts/run.sh --check-ports   only the check (make run does it before building)
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-bin}
FAKEHUB_LISTEN=${FAKEHUB_LISTEN:-127.0.0.1:8789}
GHOPS_GITHUB_ADDR=${GHOPS_GITHUB_ADDR:-127.0.0.1:50051}
GHOPS_GITHUB_METRICS_ADDR=${GHOPS_GITHUB_METRICS_ADDR:-127.0.0.1:9464}
GHOPS_GATEWAY_ADDR=${GHOPS_GATEWAY_ADDR:-127.0.0.1:8788}
export FAKEHUB_LISTEN GHOPS_GITHUB_ADDR GHOPS_GITHUB_METRICS_ADDR GHOPS_GATEWAY_ADDR

# in_use reports whether something accepts connections on host:port (a
# wildcard host is checked on loopback).
in_use() {
	local host=${1%:*} port=${1##*:}
	case $host in "" | 0.0.0.0 | "[::]") host=127.0.0.1 ;; esac
	host=${host#[}
	host=${host%]}
	(exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
}

# suggest prints a free port on addr's host to offer instead of addr: below
# the kernel's ephemeral range, which the kernel hands out for outgoing
# connections, so that what is free now does not become taken by chance.
suggest() {
	local host=${1%:*} port=${1##*:} low=32768 cand
	read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
	cand=$((port + 10000))
	[ "$cand" -lt "$low" ] || cand=$((20000 + port % 10000))
	for _ in $(seq 1 50); do
		in_use "$host:$cand" || break
		cand=$((cand + 1))
	done
	echo "$host:$cand"
}

# taken reports (on stderr) and returns 0 when the address in variable $1 is
# in use, naming the variable that moves it.
taken() {
	local var=$1 addr=${!1}
	[ "$var" = GHOPS_GITHUB_METRICS_ADDR ] && [ "$addr" = off ] && return 1
	in_use "$addr" || return 1
	echo "make run: $addr is already in use; stop what listens there or move it, e.g. $var=$(suggest "$addr") make run" >&2
}

# The ports each process needs, checked before anything is built or started
# and again right before each process starts (a build takes minutes, and
# anything may take a port meanwhile).
FAKEHUB_PORTS=(FAKEHUB_LISTEN)
GITHUB_PORTS=(GHOPS_GITHUB_ADDR GHOPS_GITHUB_METRICS_ADDR)
GATEWAY_PORTS=(GHOPS_GATEWAY_ADDR)

# check_ports stops the run (exit 1) when any variable given is in use.
check_ports() {
	local bad=0 var
	for var in "$@"; do
		taken "$var" && bad=1
	done
	if [ "$bad" = 1 ]; then
		if [ ${#pids[@]} -eq 0 ]; then echo "make run: nothing was started" >&2; fi
		exit 1
	fi
}

pids=()
all_ports=("${GATEWAY_PORTS[@]}" "${GITHUB_PORTS[@]}")
[ -z "${GITHUB_TOKEN:-}" ] && all_ports+=("${FAKEHUB_PORTS[@]}")
check_ports "${all_ports[@]}"
[ "${1:-}" = --check-ports ] && exit 0

for b in fakehub ghops-github ghops-gateway; do
	[ -x "$BIN/$b" ] || { echo "make run: $BIN/$b is missing (make build)" >&2; exit 1; }
done

secret_dir=
stop() {
	trap - INT TERM EXIT
	echo
	echo "stopping ghops..."
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -n "$secret_dir" ] && rm -rf "$secret_dir"
	exit "${1:-0}"
}
trap 'stop 0' INT TERM
trap 'stop $?' EXIT

# ready waits until a binary's own healthcheck passes (it is the process we
# started that answers, and it is ready), or fails after ~15 s. The
# variables after the pid name the process's ports: a process that exits
# early most often could not bind one, and the message says how to move it.
ready() {
	local name=$1 pid=$2 vars=() var
	shift 2
	while [ "${1:-}" != -- ]; do vars+=("$1"); shift; done
	shift
	for _ in $(seq 1 150); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "make run: $name exited (see its log above)" >&2
			for var in "${vars[@]}"; do
				[ "${!var}" = off ] && continue
				echo "make run: if it could not listen on ${!var}, move it: $var=$(suggest "${!var}") make run" >&2
			done
			exit 1
		fi
		sleep 0.1
	done
	echo "make run: $name did not become ready" >&2
	exit 1
}

if [ -n "${GITHUB_TOKEN:-}" ]; then
	github_url=${GITHUB_API_URL:-https://api.github.com/}
	echo "GITHUB_TOKEN is set: using $github_url (no fakehub)"
else
	check_ports "${FAKEHUB_PORTS[@]}"
	"$BIN/fakehub" -seed demo &
	pids+=($!)
	ready fakehub "$!" "${FAKEHUB_PORTS[@]}" -- "$BIN/fakehub" healthcheck
	github_url="http://$FAKEHUB_LISTEN/"
	export GITHUB_TOKEN=ghops-demo-token
	echo "fakehub (demo data) on http://$FAKEHUB_LISTEN/"
fi

if [ -z "${GHOPS_SERVICE_SECRET_FILE:-}" ]; then
	secret_dir=$(mktemp -d)
	(umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$secret_dir/service-secret")
	export GHOPS_SERVICE_SECRET_FILE="$secret_dir/service-secret"
fi

check_ports "${GITHUB_PORTS[@]}"
GITHUB_API_URL="$github_url" "$BIN/ghops-github" &
pids+=($!)
ready ghops-github "$!" "${GITHUB_PORTS[@]}" -- "$BIN/ghops-github" healthcheck
unset GITHUB_TOKEN

check_ports "${GATEWAY_PORTS[@]}"
"$BIN/ghops-gateway" -service "$GHOPS_GITHUB_ADDR" &
pids+=($!)
ready ghops-gateway "$!" "${GATEWAY_PORTS[@]}" -- "$BIN/ghops-gateway" healthcheck

cat <<EOT

ghops is running ($("$BIN/ghops-gateway" -version)).
  MCP endpoint:      http://$GHOPS_GATEWAY_ADDR/mcp
  JSON-RPC endpoint: http://$GHOPS_GATEWAY_ADDR/rpc

Try:
  bin/ghops --endpoint http://$GHOPS_GATEWAY_ADDR call read_file repo=octo-org/hello-world path=README.md

Press Ctrl-C to stop.
EOT

# Exit (and stop the others) as soon as any of the three exits: a failure.
wait -n "${pids[@]}" || true
echo "make run: a ghops process exited on its own" >&2
exit 1
