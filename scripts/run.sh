#!/usr/bin/env bash
# run.sh starts the whole ghops stack on 127.0.0.1 for `make run`:
#   fakehub (demo data) :8789  ->  ghops-github :50051  ->  ghops-gateway :8788
# With GITHUB_TOKEN set it talks to api.github.com and starts no fakehub.
# Ctrl-C (or SIGTERM) stops all three.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-bin}
FAKEHUB_ADDR=${FAKEHUB_ADDR:-127.0.0.1:8789}
SERVICE_ADDR=${GHOPS_SERVICE_ADDR:-127.0.0.1:50051}
GATEWAY_ADDR=${GHOPS_GATEWAY_ADDR:-127.0.0.1:8788}

pids=()
stop() {
	trap - INT TERM EXIT
	echo
	echo "stopping ghops..."
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap stop INT TERM EXIT

# wait_port waits until something listens on host:port, or fails after ~15 s.
wait_port() {
	local hostport=$1 name=$2
	for _ in $(seq 1 150); do
		if (exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}") 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	echo "$name did not start on $hostport" >&2
	exit 1
}

if [ -n "${GITHUB_TOKEN:-}" ]; then
	github_url=${GITHUB_API_URL:-https://api.github.com/}
	echo "GITHUB_TOKEN is set: using $github_url (no fakehub)"
else
	"$BIN/fakehub" -listen "$FAKEHUB_ADDR" -seed demo &
	pids+=($!)
	wait_port "$FAKEHUB_ADDR" fakehub
	github_url="http://$FAKEHUB_ADDR/"
	export GITHUB_TOKEN=ghops-demo-token
	echo "fakehub (demo data) on http://$FAKEHUB_ADDR/"
fi

GITHUB_API_URL="$github_url" "$BIN/ghops-github" -addr "$SERVICE_ADDR" -github-url "$github_url" &
pids+=($!)
wait_port "$SERVICE_ADDR" ghops-github
unset GITHUB_TOKEN

"$BIN/ghops-gateway" -addr "$GATEWAY_ADDR" -service "$SERVICE_ADDR" &
pids+=($!)
wait_port "$GATEWAY_ADDR" ghops-gateway

cat <<EOT

ghops is running.
  MCP endpoint:      http://$GATEWAY_ADDR/mcp
  JSON-RPC endpoint: http://$GATEWAY_ADDR/rpc

Try:
  curl -s http://$GATEWAY_ADDR/rpc -H 'Content-Type: application/json' \\
    -d '{"jsonrpc":"2.0","id":1,"method":"read_file","params":{"repo":"octo-org/hello-world","path":"README.md"}}'

Press Ctrl-C to stop.
EOT

# Exit (and stop the others) as soon as any of the three exits.
wait -n "${pids[@]}"
