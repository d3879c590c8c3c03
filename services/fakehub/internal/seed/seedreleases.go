package seed

import (
	"errors"

	"ghops.dev/services/fakehub/internal/hub"
	"ghops.dev/services/fakehub/internal/releases"
)

// seedReleases publishes v0.1.0 at the greeter's first commit and v0.2.0 at main's tip, each
// creating its tag.
func seedReleases(h *hub.Hub, r *hub.Repo) error {
	tip, ok := r.Resolve("main")
	if !ok {
		return errors.New("seed: main not found")
	}
	log := r.Git.Log(tip)
	if len(log) < 2 {
		return errors.New("seed: main has no history to release")
	}
	first := log[len(log)-2].Hash.String() // the commit after the initial one
	if _, err := releases.AddLocked(h, r, "v0.1.0", first, "v0.1.0", "First release: `go run ./cmd/hello` greets the world.", "octocat", false); err != nil {
		return err
	}
	_, err := releases.AddLocked(h, r, "v0.2.0", "main", "v0.2.0 - formal greeting", "## What's Changed\n* The greeting is formal: \"Good day, name.\"\n\n**Full Changelog**: v0.1.0...v0.2.0", "octocat", false)
	return err
}
