#!/usr/bin/env bash
# compose-test.sh proves `docker compose up` (make compose-test):
#   1. builds stand-ins for the Dockerfile's base images (no registry is
#      reachable here): the local Go toolchain on scratch, and scratch with
#      the nonroot user and CA certificates;
#   2. builds the ghops image with those build arguments and a VERSION;
#   3. checks how the compose file picks GitHub or fakehub (docker compose
#      config, four cases), and the binaries' -version in the image
#      (version, commit, build date, Go version);
#   4. docker compose up -d --wait, checks each container's hardening, makes
#      one successful and one failing tool call through the gateway (JSON-RPC
#      and MCP answers checked), and that serverInfo.version is VERSION;
#   5. docker compose down, and checks each container stopped on SIGTERM
#      with exit code 0 and an orderly-stop log line, within its grace period.
# Needs a Docker engine with BuildKit and the compose plugin. Exits non-zero
# on the first failure and always tears the stack down.
set -euo pipefail
cd "$(dirname "$0")/.."

PROJECT=${COMPOSE_TEST_PROJECT:-ghops-compose-test}
IMAGE=${COMPOSE_TEST_IMAGE:-ghops:compose-test}
VERSION=${VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
BUILD_DATE=${BUILD_DATE:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
GO_STANDIN=ghops-standin/go:local
RUNTIME_STANDIN=ghops-standin/runtime:local

say() { printf '\n== %s\n' "$*"; }
fail() { echo "compose-test: FAIL: $*" >&2; exit 1; }

# docker_build runs a BuildKit build (scripts/buildkit.sh finds the builder
# and says what to install when there is none).
docker_build() { scripts/buildkit.sh build "$@"; }

docker info >/dev/null 2>&1 || fail "no Docker engine answers (start dockerd)"
docker compose version >/dev/null 2>&1 || fail "the docker compose plugin is missing (make compose-plugin builds one)"

compose() { GHOPS_IMAGE=$IMAGE GHOPS_VERSION=$VERSION docker compose -p "$PROJECT" "$@"; }

work=$(mktemp -d)
events_pid=
logs_pid=
cleanup() {
	set +e
	[ -n "$events_pid" ] && kill "$events_pid" 2>/dev/null
	[ -n "$logs_pid" ] && kill "$logs_pid" 2>/dev/null
	compose down --remove-orphans --timeout 60 >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

start=$(date +%s)
say "stand-in base images"
GO_STANDIN=$GO_STANDIN RUNTIME_STANDIN=$RUNTIME_STANDIN scripts/standins.sh || fail "the stand-in base images did not build"

say "ghops image $IMAGE (VERSION=$VERSION)"
docker_build -t "$IMAGE" --build-arg GO_IMAGE="$GO_STANDIN" --build-arg RUNTIME_IMAGE="$RUNTIME_STANDIN" \
	--build-arg VERSION="$VERSION" --build-arg COMMIT="$COMMIT" --build-arg BUILD_DATE="$BUILD_DATE" .
build_done=$(date +%s)

say "every binary in the image says its version"
for bin in fakehub ghops-github ghops-gateway ghops-load ghops; do
	got=$(docker run --rm "$IMAGE" "$bin" -version)
	want="$bin $VERSION (commit $COMMIT, built $BUILD_DATE, go"
	[ "${got#"$want"}" != "$got" ] || fail "$bin -version printed '$got', want '$want...'"
done
[ "$(docker image inspect -f '{{.Config.User}}' "$IMAGE")" = "65532:65532" ] || fail "image user is not 65532:65532"

say "how the compose file picks GitHub or fakehub"
check_env() { # check_env DESC WANT_URL WANT_TOKEN [VAR=VALUE...]
	local desc=$1 want_url=$2 want_token=$3
	shift 3
	local out
	out=$(env -u GITHUB_TOKEN -u GITHUB_API_URL "$@" GHOPS_IMAGE="$IMAGE" docker compose -p "$PROJECT" config --format json)
	grep -q "\"GITHUB_API_URL\": \"$want_url\"" <<<"$out" || fail "$desc: GITHUB_API_URL is not $want_url"
	grep -q "\"GITHUB_TOKEN\": \"$want_token\"" <<<"$out" || fail "$desc: GITHUB_TOKEN is not $want_token"
	echo "ok: $desc -> $want_url"
}
check_env "no token" "http://fakehub:8789/" "ghops-demo-token"
check_env "a token" "https://api.github.com/" "t0k" GITHUB_TOKEN=t0k
check_env "a token and GitHub Enterprise" "https://ghe.example/api/v3/" "t0k" GITHUB_TOKEN=t0k GITHUB_API_URL=https://ghe.example/api/v3/
check_env "no token, another emulator" "http://emu:1/" "ghops-demo-token" GITHUB_API_URL=http://emu:1/

say "the service requires the shared secret, and the gateway sends it"
out=$(GHOPS_IMAGE="$IMAGE" docker compose -p "$PROJECT" config --format json)
[ "$(grep -c '"GHOPS_SERVICE_SECRET_FILE": "/run/secrets/service_secret"' <<<"$out")" = 2 ] ||
	fail "github and gateway do not both read GHOPS_SERVICE_SECRET_FILE=/run/secrets/service_secret"
grep -q '"GHOPS_GITHUB_INSECURE_NO_AUTH"' <<<"$out" && fail "the service runs without caller authentication"
echo "ok: both read the compose secret service_secret"

# A free host port for the gateway.
port=${GHOPS_PORT:-8788}
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
export GHOPS_PORT=$port

say "docker compose up -d --wait (gateway on 127.0.0.1:$port)"
docker events --filter "label=com.docker.compose.project=$PROJECT" --filter event=die \
	--format '{{.Actor.Attributes.name}} exitCode={{.Actor.Attributes.exitCode}}' >"$work/events" &
events_pid=$!
up_start=$(date +%s)
compose up -d --wait --no-build || { compose ps; compose logs; fail "the stack did not become healthy"; }
up_done=$(date +%s)
compose ps
# Follow the logs from now on, so that the lines written while stopping are
# kept after `down` removes the containers.
compose logs -f --no-color >"$work/logs" 2>&1 &
logs_pid=$!

say "hardening of each container"
for svc in fakehub github gateway; do
	id=$(compose ps -q "$svc")
	got=$(docker inspect -f '{{.Config.User}} ro={{.HostConfig.ReadonlyRootfs}} cap_drop={{.HostConfig.CapDrop}} sec={{.HostConfig.SecurityOpt}} health={{.State.Health.Status}}' "$id")
	echo "$svc: $got"
	[ "$got" = "65532:65532 ro=true cap_drop=[ALL] sec=[no-new-privileges:true] health=healthy" ] || fail "$svc is not hardened and healthy: $got"
done

say "tool calls through the gateway"
base=http://127.0.0.1:$port
post() { curl -sS --max-time 30 "$base$1" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' "${@:3}" -d "$2"; }
expect() { # expect DESC BODY SUBSTRING...
	local desc=$1 body=$2
	shift 2
	for want in "$@"; do
		grep -qF -- "$want" <<<"$body" || fail "$desc: answer lacks $want: $body"
	done
	echo "ok: $desc"
}
ok=$(post /rpc '{"jsonrpc":"2.0","id":1,"method":"read_file","params":{"repo":"octo-org/hello-world","path":"go.mod"}}')
expect "read_file over /rpc succeeds" "$ok" '"jsonrpc":"2.0"' '"id":1' '"result":{' 'module example.com/hello-world'
bad=$(post /rpc '{"jsonrpc":"2.0","id":2,"method":"search","params":{}}')
expect "search {} over /rpc fails with -32602" "$bad" '"jsonrpc":"2.0"' '"id":2' '"error":{"code":-32602' "must have required property 'query'"
grep -qF '"result"' <<<"$bad" && fail "the failing call has a result: $bad"
init=$(post /mcp '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"compose-test","version":"1"}}}' -H 'MCP-Protocol-Version: 2025-06-18')
expect "MCP initialize names the stamped version" "$init" '"protocolVersion":"2025-06-18"' "\"version\":\"$VERSION\""
call=$(post /mcp '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{"repo":"octo-org/nope"}}}' -H 'MCP-Protocol-Version: 2025-06-18')
expect "fetch of a missing repository over /mcp fails with -32002" "$call" '"id":2' '"code":-32002'

say "docker compose down"
down_start=$(date +%s)
compose down --remove-orphans
down_done=$(date +%s)
wait "$logs_pid" 2>/dev/null || true # the follower ends with the containers
logs_pid=
kill "$events_pid" 2>/dev/null || true
events_pid=
cat "$work/events"
for svc in fakehub github gateway; do
	grep -Eq "^${PROJECT}[-_]${svc}[-_]1 exitCode=0$" "$work/events" || fail "$svc did not exit 0 on SIGTERM (see the events above)"
done
for pair in 'fakehub:"msg":"fakehub stopped"' 'github:"msg":"ghops-github stopped"' 'gateway:"msg":"gateway stopped"'; do
	svc=${pair%%:*} line=${pair#*:}
	grep "^${svc}[- ]" "$work/logs" | grep -qF "$line" || { tail -20 "$work/logs"; fail "$svc logged no orderly stop ($line)"; }
done
grep -qF 'ghops-demo-token' "$work/logs" && fail "the token reached a log"
grep -qF "$(tr -d ' \n' <deploy/compose/service-secret.demo)" "$work/logs" && fail "the service secret reached a log"
grep "^github[- ]" "$work/logs" | grep -qF '"caller_auth":"secret"' || fail "the service did not require the secret"
echo "ok: every container stopped on SIGTERM with exit 0 and an orderly-stop line"

say "compose-test passed: build $((build_done - start))s, up $((up_done - up_start))s, down $((down_done - down_start))s, total $(($(date +%s) - start))s"
