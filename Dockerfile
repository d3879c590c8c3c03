# The ghops image: the five binaries (fakehub, ghops-github, ghops-gateway,
# ghops-load, ghops) in a distroless, non-root runtime. docker-compose.yml
# runs each server as its own service; `ghops-gateway -embedded` runs the
# whole thing in one container. Build context: the repository root.
#
# Build arguments (the defaults are the public images):
#   GO_IMAGE       builder with the Go toolchain at /usr/local/go (golang:1.26)
#   RUNTIME_IMAGE  runtime base, with CA certificates (distroless static, nonroot)
#   VERSION        stamped into every binary (-version, serverInfo.version)
#   COMMIT         the source commit, BUILD_DATE the build time (RFC 3339):
#                  printed by -version (package ghops.dev/probe/buildinfo);
#                  the build has no .git, so the toolchain cannot record them
#
# Needs BuildKit (the default builder of current Docker) for the module and
# build caches; `make image` says what to install when it is missing. The builder stage uses exec-form RUN only, so that a builder
# without a shell (a FROM scratch image holding a Go toolchain, as `make
# compose-test` builds where no registry is reachable) works as well.
ARG GO_IMAGE=golang:1.26
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${GO_IMAGE} AS build
ARG VERSION=dev
ARG COMMIT=
ARG BUILD_DATE=
ENV CGO_ENABLED=0 \
    GOWORK=off \
    GOPATH=/go \
    GOCACHE=/root/.cache/go-build \
    GOMODCACHE=/go/pkg/mod \
    GOFLAGS="-trimpath -buildvcs=false \"-ldflags=-s -w -X=ghops.dev/probe/buildinfo.version=${VERSION} -X=ghops.dev/probe/buildinfo.commit=${COMMIT} -X=ghops.dev/probe/buildinfo.date=${BUILD_DATE}\""
WORKDIR /src
# Module downloads first, keyed on the go.mod and go.sum files only. Each
# module builds on its own (GOWORK=off): its replace lines name its siblings.
COPY gen/go.mod gen/go.sum gen/
COPY infra/go.mod infra/go.sum infra/
COPY redact/go.mod redact/
COPY probe/go.mod probe/
COPY telemetry/go.mod telemetry/go.sum telemetry/
COPY services/fakehub/go.mod services/fakehub/go.sum services/fakehub/
COPY services/github/go.mod services/github/go.sum services/github/
COPY gateway/go.mod gateway/go.sum gateway/
COPY client/go.mod client/go.sum client/
RUN --mount=type=cache,target=/go/pkg/mod ["/usr/local/go/bin/go", "-C", "gateway", "mod", "download"]
RUN --mount=type=cache,target=/go/pkg/mod ["/usr/local/go/bin/go", "-C", "client", "mod", "download"]
COPY gen/ gen/
COPY infra/ infra/
COPY redact/ redact/
COPY probe/ probe/
COPY telemetry/ telemetry/
COPY services/ services/
COPY gateway/ gateway/
COPY client/ client/
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    ["/usr/local/go/bin/go", "-C", "services/fakehub", "build", "-o", "/out/", "./cmd/fakehub"]
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    ["/usr/local/go/bin/go", "-C", "services/github", "build", "-o", "/out/", "./cmd/ghops-github"]
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    ["/usr/local/go/bin/go", "-C", "gateway", "build", "-o", "/out/", "./cmd/ghops-gateway", "./cmd/ghops-load"]
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    ["/usr/local/go/bin/go", "-C", "client", "build", "-o", "/out/", "./cmd/ghops"]

FROM ${RUNTIME_IMAGE}
ARG VERSION=dev
ARG COMMIT=
ARG BUILD_DATE=
LABEL org.opencontainers.image.title="ghops" \
      org.opencontainers.image.description="GitHub operations for AI agents over MCP and JSON-RPC" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}" \
      org.opencontainers.image.created="${BUILD_DATE}"
COPY --from=build /out/ /usr/local/bin/
ENV PATH=/usr/local/bin
# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 65532:65532
EXPOSE 8788
# One process for a local MCP host: the gateway with the service inside,
# speaking MCP on stdin/stdout and reading GITHUB_TOKEN (and GITHUB_API_URL)
# from the environment: docker run -i --rm -e GITHUB_TOKEN ghops. Serving
# HTTP from a container means listening on all its interfaces, which the
# gateway does only with authentication (GHOPS_POLICY, GHOPS_OAUTH_ISSUER) or
# GHOPS_INSECURE_NO_AUTH=true; docker-compose.yml runs the split stack.
CMD ["ghops-gateway", "-embedded", "stdio"]
