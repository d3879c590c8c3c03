// Package runscript tests scripts/run.sh, what `make run` runs: it refuses
// before starting anything when a port it needs is taken, and otherwise
// starts fakehub, the service and the gateway, which answer, and stops them
// all on SIGTERM.
package runscript
