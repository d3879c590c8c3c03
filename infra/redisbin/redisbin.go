// Package redisbin finds Debian's redis-server for the deploy tests that
// start Redis with the manifests' own arguments. It keeps the rule of
// ghops.dev/infra/redistest (skip on a machine with only Go, fail when
// GHOPS_REQUIRE_REDIS is set, as CI sets it) without pulling that module and
// its Redis client into this standalone module.
package redisbin

import (
	"os"
	"os/exec"
	"testing"
)

// RequireEnv makes a missing redis-server a failure instead of a skip.
const RequireEnv = "GHOPS_REQUIRE_REDIS"

// Path returns the path of redis-server, or ends the test: skipped with the
// reason, or failed when RequireEnv is set.
func Path(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("redis-server is not installed and %s is set (apt-get install -y redis-server)", RequireEnv)
		}
		t.Skipf("redis-server is not installed (apt-get install -y redis-server; set %s=1 to make this a failure, as CI does)", RequireEnv)
	}
	return bin
}
