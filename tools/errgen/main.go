// Command errgen writes the files derived from the compiled descriptors of
// proto/ghops/v1 (module ghops.dev/gen) outside gen/: from errors.proto the
// gateway's code table, the client's code constants and the tables of
// docs/errors.md; from github_service.proto's (ghops.v1.tool) options the
// client's typed method per tool and the tool tables of README.md and
// docs/comparison.md. `make generate` runs it after buf; `make check-generated`
// runs it with -check, which writes nothing and fails when a file is stale.
//
// Usage (from tools/errgen, outside the workspace):
//
//	GOWORK=off go run . [-root DIR] [-check]
//
// -root (env ERRGEN_ROOT, default ../..) is the repository root; -check (env
// ERRGEN_CHECK=true) only compares. The exit status is 1 when -check finds a
// stale file, 2 on any other failure.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/tools/errgen/internal/catalog"
	"ghops.dev/tools/errgen/internal/contract"
	"ghops.dev/tools/errgen/internal/emit"
)

func main() { os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr)) }

// run is the command; main only binds it to the process.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("errgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", envOr(getenv, "ERRGEN_ROOT", "../.."), "repository root (env ERRGEN_ROOT)")
	checkDefault, _ := strconv.ParseBool(getenv("ERRGEN_CHECK"))
	check := fs.Bool("check", checkDefault, "write nothing; fail when a generated file is stale (env ERRGEN_CHECK)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "errgen: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if _, err := os.Stat(filepath.Join(*root, filepath.FromSlash(emit.Source))); err != nil {
		fmt.Fprintf(stderr, "errgen: %s is not the repository root (no %s)\n", *root, emit.Source)
		return 2
	}
	c, err := contract.Load(ghopsv1.File_ghops_v1_errors_proto)
	if err != nil {
		fmt.Fprintln(stderr, "errgen:", err)
		return 2
	}
	cat, err := catalog.Load(ghopsv1.File_ghops_v1_github_service_proto)
	if err != nil {
		fmt.Fprintln(stderr, "errgen:", err)
		return 2
	}
	stale, err := emit.Apply(*root, append(emit.Files(c), emit.ToolFiles(cat)...), *check)
	if err != nil {
		fmt.Fprintln(stderr, "errgen:", err)
		return 2
	}
	switch {
	case *check && len(stale) > 0:
		for _, p := range stale {
			fmt.Fprintf(stderr, "%s is stale: run 'make generate' and commit the result\n", p)
		}
		return 1
	case !*check:
		for _, p := range stale {
			fmt.Fprintln(stdout, "errgen: wrote", p)
		}
	}
	return 0
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}
