# One image with the four ghops binaries; docker-compose.yml runs each as its
# own service. Build context: the repository root.
FROM golang:1.26 AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/.cache/go-build \
    --mount=type=cache,target=/go/pkg/mod \
    CGO_ENABLED=0 go build -trimpath -o /out/ \
      ./services/fakehub/cmd/fakehub \
      ./services/github/cmd/ghops-github \
      ./gateway/cmd/ghops-gateway \
      ./client/cmd/ghops

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ /usr/local/bin/
USER nonroot
