// Package redisbin finds Debian's redis-server for the tests that start
// one: package redistest's throw-away servers, and the deploy module's
// tests that start Redis with the manifests' own arguments. It imports
// only the standard library, so that the standalone deploy module shares
// the rule without pulling a Redis client: skip on a machine with only Go
// installed (`make test` must pass there), fail when RequireEnv is set, as
// CI sets it (.ci/run), so that no run that claims to cover Redis silently
// does not.
package redisbin

import (
	"os"
	"os/exec"
	"testing"
)

// RequireEnv names the variable that makes a missing redis-server a
// failure instead of a skip.
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
