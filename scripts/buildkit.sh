#!/usr/bin/env bash
# buildkit.sh runs a BuildKit build of the Dockerfile (make image, make
# compose-test): the Dockerfile's cache mounts (RUN --mount=type=cache) need
# BuildKit, and the legacy builder fails on them with a parse error that
# names neither BuildKit nor a fix. So this finds a BuildKit builder first:
#   1. the docker buildx plugin: docker buildx build --load ARGS...
#   2. a docker CLI with BuildKit built in (Debian's docker.io is one):
#      DOCKER_BUILDKIT=1 docker build ARGS...
# and, when there is neither, says what to install and exits 3.
#
#   scripts/buildkit.sh build ARGS...   build (ARGS as for docker build)
#   scripts/buildkit.sh check           exit 0 when a builder is there, else 3 with the advice
#
# BUILDKIT_DOCKER_CLIS lists the CLIs tried for the second way (default:
# docker /usr/bin/docker). deploy/buildkit tests this script.
set -euo pipefail

advice() {
	cat >&2 <<'MSG'
buildkit.sh: no BuildKit builder found; the Dockerfile's cache mounts need BuildKit.
Install one of:
  - the docker buildx plugin: Debian/Ubuntu `apt-get install docker-buildx`
    (or docker-buildx-plugin from Docker's repository); Docker Desktop ships it;
  - a docker CLI with BuildKit built in (Debian's docker.io, Docker 23 and later),
    used here as DOCKER_BUILDKIT=1 docker build.
Then run the command again (`docker buildx version` shows the plugin).
MSG
	exit 3
}

# builder prints how to build: "buildx" or the CLI to run with DOCKER_BUILDKIT=1.
builder() {
	if docker buildx version >/dev/null 2>&1; then
		echo buildx
		return 0
	fi
	local cli
	# Debian's docker.io puts its CLI (BuildKit built in) at /usr/bin/docker,
	# which a newer CLI without buildx earlier on PATH would hide.
	for cli in ${BUILDKIT_DOCKER_CLIS:-docker /usr/bin/docker}; do
		if command -v "$cli" >/dev/null && echo 'FROM scratch' | DOCKER_BUILDKIT=1 "$cli" build -q - >/dev/null 2>&1; then
			echo "$cli"
			return 0
		fi
	done
	return 1
}

command -v docker >/dev/null || {
	echo "buildkit.sh: no docker command: install Docker (the engine and its CLI)" >&2
	exit 3
}
case "${1:-}" in
check | build)
	# The fallback's probe build needs the engine: without one, say that
	# rather than blame BuildKit.
	docker info >/dev/null 2>&1 || {
		echo "buildkit.sh: no Docker engine answers (start dockerd, or point DOCKER_HOST at one)" >&2
		exit 3
	}
	;;
esac
case "${1:-}" in
check)
	b=$(builder) || advice
	echo "buildkit.sh: building with ${b/#buildx/docker buildx}"
	;;
build)
	shift
	b=$(builder) || advice
	if [ "$b" = buildx ]; then
		exec docker buildx build --load "$@"
	fi
	DOCKER_BUILDKIT=1 exec "$b" build "$@"
	;;
*)
	echo "usage: scripts/buildkit.sh build ARGS... | check" >&2
	exit 2
	;;
esac
