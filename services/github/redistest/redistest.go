// Package redistest is the old home of ghops.dev/infra/redistest, which
// starts a throw-away redis-server for a test. It forwards there so that
// tests written against this path still build; new tests import
// ghops.dev/infra/redistest.
package redistest

import (
	"testing"

	"ghops.dev/infra/redistest"
)

// Server is a running redis-server: see ghops.dev/infra/redistest.Server.
type Server = redistest.Server

// Start starts a redis-server for t: see ghops.dev/infra/redistest.Start.
func Start(t testing.TB) *Server { return redistest.Start(t) }
