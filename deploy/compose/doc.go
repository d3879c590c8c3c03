// Package compose holds the compose deployment's files (the demo service
// secret) and the offline test of the repository's docker-compose.yml: it is
// loaded with compose-go, the library docker compose itself loads it with,
// under each way an operator starts it (the demo, COMPOSE_PROFILES=redis, a
// Redis of their own, another port), and the resulting services are checked:
// the shared state's wiring, the hardening of every container, and the
// published address the gateway is told about. `make compose-test` runs the
// stack for real where a Docker engine is there.
package compose
