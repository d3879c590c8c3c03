// Package lint pins the doc-comment linters behind `make lint` (house rule 7).
// It is a module of its own, outside go.work, so that revive's dependencies
// never meet the pre-release protobuf that ../go.mod pins for buf; the
// `tool` directive in go.mod and go.sum fix revive's exact version. The
// package itself holds no code: its test proves that ../../revive.toml
// catches what the rule forbids and lets through what the rule exempts.
package lint
