// Package e2e holds the gateway's end-to-end tests over MCP: the real stack
// (fakehub with the demo data, the GitHub service, the gateway) driven by
// the official MCP Go SDK client and by the mark3labs/mcp-go client, each at
// its default protocol version (2026-07-28, stateless) and pinned to a
// handshake-era version.
package e2e
