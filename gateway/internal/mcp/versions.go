package mcp

import (
	"slices"

	"ghops.dev/gateway/internal/rpcerror"
)

// The protocol versions the gateway speaks, oldest first.
const (
	// V20241105 is the first published MCP revision.
	V20241105 = "2024-11-05"
	// V20250326 introduced Streamable HTTP, sessions, tool annotations and
	// JSON-RPC batches.
	V20250326 = "2025-03-26"
	// V20250618 removed batches and added the MCP-Protocol-Version header,
	// tool titles, outputSchema and structuredContent.
	V20250618 = "2025-06-18"
	// V20251125 is the last revision with the initialize handshake; it asks
	// that argument-validation failures come back as isError tool results.
	V20251125 = "2025-11-25"
	// V20260728 is the stateless revision: no handshake, no sessions, the
	// version and client capabilities in every request's _meta,
	// server/discover, resultType.
	V20260728 = "2026-07-28"
)

// SupportedVersions lists every protocol version the gateway accepts, newest
// first (the order version errors advertise them in).
var SupportedVersions = []string{V20260728, V20251125, V20250618, V20250326, V20241105}

// legacyVersions are the versions of the initialize handshake, newest first.
var legacyVersions = []string{V20251125, V20250618, V20250326, V20241105}

// defaultHTTPVersion is what a Streamable HTTP request that names no version
// (no MCP-Protocol-Version header, no session, no _meta) is taken to speak,
// as the 2025-06-18 transport rules say.
const defaultHTTPVersion = V20250326

// Keys of the stateless revision's request _meta.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// HTTP header names (canonical form).
const (
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerSessionID       = "Mcp-Session-Id"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
)

// MCP error codes of the 2026-07-28 revision, generated from errors.proto
// with the other codes of the contract.
const (
	// CodeHeaderMismatch: the Mcp-* headers are missing or disagree with the
	// body. HTTP 400.
	CodeHeaderMismatch = rpcerror.HeaderMismatch
	// CodeUnsupportedProtocolVersion: the requested version is not spoken
	// here; data lists what is. HTTP 400.
	CodeUnsupportedProtocolVersion = rpcerror.UnsupportedProtocolVersion
)

// isSupported reports whether v is a version the gateway speaks.
func isSupported(v string) bool { return slices.Contains(SupportedVersions, v) }

// isModern reports whether v is a stateless (per-request _meta) version.
func isModern(v string) bool { return v >= V20260728 && isSupported(v) }

// hasStructuredContent reports whether results of version v carry
// structuredContent (2025-06-18 and later).
func hasStructuredContent(v string) bool { return v >= V20250618 }

// allowsBatches reports whether version v allows JSON-RPC batches (only
// 2025-03-26 did).
func allowsBatches(v string) bool { return v == V20250326 }
