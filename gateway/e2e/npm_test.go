package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The Node.js tests (the TypeScript SDK client, the MCP conformance suite)
// install their npm packages, pinned by the package-lock.json checked in
// beside each program under testdata/, into a cache outside the repository:
// GHOPS_NPM_CACHE, else <user cache dir>/ghops-npm (~/.cache/ghops-npm).
// An install is keyed by the hash of its package.json and lock file, so a
// second run, or CI's next run, reuses it without touching the registry.
const (
	// envNPMCache overrides the cache directory.
	envNPMCache = "GHOPS_NPM_CACHE"
	// envRequireNode turns a missing node or npm into a test failure
	// (.ci/run sets it, so CI can never skip these tests silently).
	envRequireNode = "GHOPS_REQUIRE_NODE"
	// npmInstallTimeout bounds one npm ci (a cold install downloads a few
	// megabytes; the cache makes later ones local).
	npmInstallTimeout = 5 * time.Minute
)

// needNode returns the path of the command name (node, npm), skipping the
// test when it is missing locally and failing it in CI.
func needNode(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv(envRequireNode) != "" {
		t.Fatalf("%s is not on PATH and %s is set: install Node.js 20 or later with npm (.ci/run does)", name, envRequireNode)
	}
	t.Skipf("%s is not on PATH: these tests run the official MCP TypeScript SDK and conformance suite under Node.js 20+ with npm (set %s=1 to make this a failure, as CI does)", name, envRequireNode)
	return ""
}

// npmCacheDir is where installs and npm's own download cache live.
func npmCacheDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv(envNPMCache); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no cache directory for npm installs (set %s): %v", envNPMCache, err)
	}
	return filepath.Join(d, "ghops-npm")
}

// npmInstall installs the packages of testdata/<name> (its package.json and
// package-lock.json, with npm ci: exactly the locked versions) into the
// cache and returns the installed directory, which holds node_modules. A
// finished install is reused; a new one is built beside it and renamed into
// place, so concurrent test processes never see half an install.
func npmInstall(t *testing.T, name string) string {
	t.Helper()
	npm := needNode(t, "npm")
	needNode(t, "node")
	src := filepath.Join("testdata", name)
	h := sha256.New()
	var manifest [][]byte
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
		manifest = append(manifest, b)
	}
	cache := npmCacheDir(t)
	dir := filepath.Join(cache, name+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, ".installed")); err == nil {
		return dir
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(cache, name+"-partial-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp) // left only when the rename did not happen
	for i, f := range []string{"package.json", "package-lock.json"} {
		if err := os.WriteFile(filepath.Join(tmp, f), manifest[i], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), npmInstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--cache", filepath.Join(cache, "npm"), "--prefer-offline",
		"--no-audit", "--no-fund", "--loglevel=error", "--ignore-scripts")
	cmd.Dir = tmp
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", src, err, out.String())
	}
	t.Logf("npm ci %s: %s", name, time.Since(start).Round(time.Millisecond))
	if err := os.WriteFile(filepath.Join(tmp, ".installed"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process finished the same install first: use that one.
		if _, serr := os.Stat(filepath.Join(dir, ".installed")); serr != nil {
			t.Fatalf("npm install %s: %v", name, err)
		}
	}
	return dir
}

// installScript copies testdata/<name>/<script> into the install directory
// (Node resolves packages from a script's own location) under a name of
// its own, removed when the test ends, and returns its path.
func installScript(t *testing.T, dir, name, script string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name, script))
	if err != nil {
		t.Fatal(err)
	}
	var r [6]byte
	_, _ = rand.Read(r[:])
	p := filepath.Join(dir, strings.TrimSuffix(script, ".mjs")+"-"+hex.EncodeToString(r[:])+".mjs")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Error(err)
		}
	})
	return p
}
