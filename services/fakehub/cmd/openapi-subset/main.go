// Command openapi-subset writes testdata/openapi-subset.json, the part of GitHub's OpenAPI
// description that fakehub's conformance test validates against:
//
//	npm pack @octokit/openapi@23.0.2 && tar xzf octokit-openapi-23.0.2.tgz package/generated/api.github.com.deref.json
//	go run ./cmd/openapi-subset -description package/generated/api.github.com.deref.json \
//	    -operations testdata/openapi-operations.txt -out testdata/openapi-subset.json
//
// Each flag can also be set from the environment: OPENAPI_SUBSET_DESCRIPTION,
// OPENAPI_SUBSET_OPERATIONS, OPENAPI_SUBSET_OUT; a flag wins over its variable. Defaults: no
// description (required), testdata/openapi-operations.txt, testdata/openapi-subset.json.
// testdata/README.md says when to refresh it.
package main

import (
	"flag"
	"fmt"
	"os"

	"ghops.dev/services/fakehub/internal/openapisubset"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "openapi-subset:", err)
		os.Exit(1)
	}
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func run(args []string) error {
	fs := flag.NewFlagSet("openapi-subset", flag.ContinueOnError)
	desc := fs.String("description", env("OPENAPI_SUBSET_DESCRIPTION", ""), "api.github.com.deref.json from the npm package @octokit/openapi")
	opsFile := fs.String("operations", env("OPENAPI_SUBSET_OPERATIONS", "testdata/openapi-operations.txt"), "the operations to keep, one \"METHOD /path\" a line")
	out := fs.String("out", env("OPENAPI_SUBSET_OUT", "testdata/openapi-subset.json"), "where to write the subset")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *desc == "" {
		return fmt.Errorf("-description is required")
	}
	of, err := os.Open(*opsFile)
	if err != nil {
		return err
	}
	defer of.Close()
	ops, err := openapisubset.ReadOperations(of)
	if err != nil {
		return err
	}
	df, err := os.Open(*desc)
	if err != nil {
		return err
	}
	defer df.Close()
	data, err := openapisubset.Extract(df, ops)
	if err != nil {
		return err
	}
	return os.WriteFile(*out, data, 0o644)
}
