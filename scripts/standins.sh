#!/usr/bin/env bash
# standins.sh builds stand-ins for the Dockerfile's base images where no
# registry is reachable (make standins; make compose-test runs it first):
#   ghops-standin/go:local       for GO_IMAGE: this machine's Go toolchain
#                                (statically linked) on scratch, with CA
#                                certificates for the Go module proxy;
#   ghops-standin/runtime:local  for RUNTIME_IMAGE: scratch with the nonroot
#                                user (uid 65532), CA certificates and /tmp.
# Then: make image GO_IMAGE=ghops-standin/go:local RUNTIME_IMAGE=ghops-standin/runtime:local
# and docker compose up -d --wait --no-build (README.md, With Docker).
# GO_STANDIN and RUNTIME_STANDIN change the tags. Needs Go, a Docker engine
# and BuildKit (scripts/buildkit.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

GO_STANDIN=${GO_STANDIN:-ghops-standin/go:local}
RUNTIME_STANDIN=${RUNTIME_STANDIN:-ghops-standin/runtime:local}
certs=/etc/ssl/certs/ca-certificates.crt
[ -r "$certs" ] || { echo "standins.sh: no CA certificates at $certs" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
goroot=$(go env GOROOT)
mkdir -p "$work/builder" "$work/runtime"
cp -al "$goroot" "$work/builder/go" 2>/dev/null || cp -a "$goroot" "$work/builder/go"
cp "$certs" "$work/builder/ca-certificates.crt"
cp deploy/standin/passwd deploy/standin/group "$certs" "$work/runtime/"
scripts/buildkit.sh build -q -t "$GO_STANDIN" -f deploy/standin/builder.Dockerfile "$work/builder" >/dev/null
scripts/buildkit.sh build -q -t "$RUNTIME_STANDIN" -f deploy/standin/runtime.Dockerfile "$work/runtime" >/dev/null
echo "standins.sh: built $GO_STANDIN and $RUNTIME_STANDIN"
