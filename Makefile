# ghops: make help lists the targets.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# Go modules joined by go.work; tools/ is kept out on purpose (it pins a
# pre-release protobuf for buf), and so are tools/errgen (the error-table
# generator, which depends on gen only) and deploy/ (the Kubernetes manifests'
# test): its k8s.io and kustomize dependencies would raise shared indirect
# dependencies (sergi/go-diff under go-git, among others) for the whole
# workspace, so that tests would no longer build what the image builds
# (GOWORK=off, module by module). They are tested and linted on their own.
MODULES := gen infra redact probe telemetry services/fakehub services/github gateway client
PKGS := $(addsuffix /...,$(addprefix ./,$(MODULES)))
STANDALONE := tools/lint tools/errgen tools/schemagen deploy

# protovalidate's validate.proto comes from the Go module proxy, since the
# Buf Schema Registry is not reachable. v1.2.2 matches buf.build/go/protovalidate v1.4.0.
PROTOVALIDATE_VERSION := v1.2.2
VALIDATE_PROTO := third_party/protovalidate/buf/validate/validate.proto

BIN := $(CURDIR)/bin
BUF := $(BIN)/buf
GEN_TOOLS := $(BUF) $(BIN)/protoc-gen-go $(BIN)/protoc-gen-go-grpc
# Our own buf plugin: the tools' JSON Schemas (tools/schemagen, its own module
# outside go.work like tools/errgen, since it depends on gen), rebuilt by
# every generate and check-generated so that it is never stale.
SCHEMAGEN := cd tools/schemagen && GOWORK=off go build -o $(BIN)/protoc-gen-ghops-schema .
TEST_FLAGS ?= -race -count=1
BENCH ?= .

# VERSION, COMMIT and BUILD_DATE are stamped into every binary (-version
# prints them with the Go version; VERSION is also serverInfo.version) by
# package ghops.dev/probe/buildinfo; the Dockerfile takes them as build
# arguments.
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
BUILDINFO := ghops.dev/probe/buildinfo
LDFLAGS := -X $(BUILDINFO).version=$(VERSION) -X $(BUILDINFO).commit=$(COMMIT) -X $(BUILDINFO).date=$(BUILD_DATE)
BINARIES := ./services/fakehub/cmd/fakehub ./services/github/cmd/ghops-github \
	./gateway/cmd/ghops-gateway ./gateway/cmd/ghops-load ./client/cmd/ghops

# The compose plugin `make compose-plugin` builds where Docker has none (CI).
COMPOSE_VERSION := v2.40.3
COMPOSE_PLUGIN := $(HOME)/.docker/cli-plugins/docker-compose

.PHONY: help
help: ## List the targets.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(GEN_TOOLS): tools/go.mod tools/go.sum
	@mkdir -p $(BIN)
	@echo "building pinned code generators (buf takes a few minutes the first time)"
	cd tools && GOWORK=off go build -o $(BIN)/ tool
	@touch $(GEN_TOOLS)

$(VALIDATE_PROTO):
	@mkdir -p $(dir $@)
	@dir=$$(cd /tmp && GOWORK=off GOFLAGS=-mod=mod go mod download -json github.com/bufbuild/protovalidate@$(PROTOVALIDATE_VERSION) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p'); \
		install -m 0644 "$$dir/proto/protovalidate/buf/validate/validate.proto" $@

# The test tool of every field kind: a proto of the gateway's tests, generated
# like gen/ (Go code and schemas) into a package the tests import.
KINDS_TEMPLATE := buf.gen.kinds.yaml
KINDS_DIR := internal/toolschema/internal/kindsv1

# tools/errgen (its own module, outside go.work like tools/lint) writes the
# error contract's tables from gen/'s compiled errors.proto: the gateway's
# (gateway/internal/rpcerror/table_gen.go), the client's (client/codes_gen.go)
# and docs/errors.md's (between its errgen markers); and from the tools'
# (ghops.v1.tool) options of github_service.proto the client's typed method
# per tool (client/tools_gen.go) and the tool tables of README.md and
# docs/comparison.md (between their errgen markers). The tool-name constants
# the service and the client use (gen/ghops/v1/tools.gen.go) come from the
# schema plugin with gen/. It runs after buf, so it reads the descriptors
# just generated.
ERRGEN := cd tools/errgen && GOWORK=off go run .

.PHONY: generate
generate: $(GEN_TOOLS) $(VALIDATE_PROTO) ## Regenerate gen/ and the error tables from proto/ (local plugins only).
	$(SCHEMAGEN)
	$(BUF) generate
	$(BUF) generate --template $(KINDS_TEMPLATE)
	$(ERRGEN)

.PHONY: check-generated
check-generated: $(GEN_TOOLS) $(VALIDATE_PROTO) ## Fail when the committed generated code is stale.
	@$(SCHEMAGEN)
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
		$(BUF) generate -o "$$tmp"; \
		if ! diff -r -x '*_test.go' -x 'go.mod' -x 'go.sum' "$$tmp/gen" gen >/dev/null; then \
			diff -r -x '*_test.go' -x 'go.mod' -x 'go.sum' "$$tmp/gen" gen | head -40; \
			echo "gen/ is stale: run 'make generate' and commit the result" >&2; exit 1; \
		fi; \
		$(BUF) generate --template $(KINDS_TEMPLATE) -o "$$tmp"; \
		if ! diff -r "$$tmp/gateway/$(KINDS_DIR)" gateway/$(KINDS_DIR); then \
			echo "gateway/$(KINDS_DIR) is stale: run 'make generate' and commit the result" >&2; exit 1; \
		fi
	@$(ERRGEN) -check
	@echo "generated code is up to date"

.PHONY: test
test: check-generated ## Run every module's tests with -race (fails on stale generated code).
	go test $(TEST_FLAGS) $(PKGS)
	for m in $(STANDALONE); do (cd $$m && GOWORK=off go test $(TEST_FLAGS) ./...) || exit 1; done

# House rule 7 (doc comment on every package and exported name, starting with
# the name) is checked by revive, pinned in the tools/lint module (kept out of
# go.work and of tools/, whose pre-release protobuf is buf's), with the rules in
# revive.toml, and by tools/lint/pkgdoc, which also finds a package doc comment
# repeated across files. Generated code (gen/) is exempt.
DOC_LINT_DIRS := $(filter-out gen,$(MODULES)) tools deploy

.PHONY: lint
lint: $(GEN_TOOLS) $(VALIDATE_PROTO) ## gofmt, go vet, doc comments (revive, pkgdoc), buf lint and buf format.
	@out=$$(gofmt -l $(MODULES) tools deploy); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet $(PKGS)
	cd deploy && GOWORK=off go vet ./...
	cd tools/lint && GOWORK=off go vet ./... && GOWORK=off go build -o $(BIN)/ tool ./pkgdoc
	cd tools/errgen && GOWORK=off go vet ./...
	cd tools/schemagen && GOWORK=off go vet ./...
	$(BIN)/revive -config revive.toml -set_exit_status $(addsuffix /...,$(addprefix ./,$(DOC_LINT_DIRS)))
	$(BIN)/pkgdoc $(DOC_LINT_DIRS)
	$(BUF) lint
	$(BUF) format -d --exit-code proto

.PHONY: bench
bench: ## Run the benchmarks (BENCH=regexp to pick).
	go test -run '^$$' -bench '$(BENCH)' -benchmem $(PKGS)

.PHONY: build
build: ## Build the binaries into bin/, stamped with VERSION (git describe).
	@mkdir -p $(BIN)
	go build -ldflags '$(LDFLAGS)' -o $(BIN)/ $(BINARIES)

.PHONY: run
run: ## Start fakehub (demo data), the service and the gateway; Ctrl-C stops all (ports: see README).
	@scripts/run.sh --check-ports
	@$(MAKE) --no-print-directory build
	@scripts/run.sh

# The Dockerfile's cache mounts need BuildKit: scripts/buildkit.sh finds a
# builder (docker buildx, or a docker CLI with BuildKit built in) and, when
# there is none, says what to install instead of failing on the first mount.
# GO_IMAGE and RUNTIME_IMAGE, when given, replace the Dockerfile's base
# images (a registry mirror, or the stand-ins of deploy/standin).
.PHONY: image
image: ## Build the ghops image (ghops:dev) with BuildKit, stamped; GO_IMAGE/RUNTIME_IMAGE pick the bases.
	scripts/buildkit.sh build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) \
		--build-arg BUILD_DATE=$(BUILD_DATE) $(if $(GO_IMAGE),--build-arg GO_IMAGE=$(GO_IMAGE)) \
		$(if $(RUNTIME_IMAGE),--build-arg RUNTIME_IMAGE=$(RUNTIME_IMAGE)) -t ghops:dev .

.PHONY: standins
standins: ## Build stand-ins for the image's base images (no registry needed): see README, With Docker.
	scripts/standins.sh

.PHONY: compose-test
compose-test: ## Build the image on local stand-in bases, bring the compose stack up, call it, take it down.
	VERSION=$(VERSION) COMMIT=$(COMMIT) BUILD_DATE=$(BUILD_DATE) scripts/compose-test.sh

.PHONY: compose-plugin
compose-plugin: ## Build the docker compose plugin from its Go module (where Docker has none).
	@mkdir -p $(dir $(COMPOSE_PLUGIN))
	@dir=$$(cd /tmp && GOWORK=off GOFLAGS=-mod=mod go mod download -json github.com/docker/compose/v2@$(COMPOSE_VERSION) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p'); \
		cd "$$dir" && GOWORK=off GOFLAGS=-mod=mod go build -trimpath -ldflags '-X github.com/docker/compose/v2/internal.Version=$(COMPOSE_VERSION)' -o $(COMPOSE_PLUGIN) ./cmd
	$(COMPOSE_PLUGIN) version

.PHONY: clean
clean: ## Remove built binaries and the copied third-party protos.
	rm -rf $(BIN) third_party
