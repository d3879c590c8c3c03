package mcp

import "slices"

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
	// V20251125 is the last revision with the initialize handshake.
	V20251125 = "2025-11-25"
	// V20260728 is the stateless revision: no handshake, no sessions, the
	// version in every request's _meta, server/discover, resultType.
	V20260728 = "2026-07-28"
)

// SupportedVersions lists every protocol version the gateway accepts, newest
// first (the order server/discover and version errors advertise them in).
var SupportedVersions = []string{V20260728, V20251125, V20250618, V20250326, V20241105}

// legacyVersions are the versions negotiated by initialize, newest first.
var legacyVersions = []string{V20251125, V20250618, V20250326, V20241105}

// latestLegacy is what initialize answers when the client asks for a version
// the handshake cannot give it (an unknown one, or a stateless one).
const latestLegacy = V20251125

// defaultHTTPVersion is what a Streamable HTTP request without an
// MCP-Protocol-Version header (and without a session that says otherwise) is
// taken to speak, as the 2025-06-18 transport rules say.
const defaultHTTPVersion = V20250326

// Keys of the stateless revision's request and result _meta.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
)

// HTTP header names (canonical form).
const (
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerSessionID       = "Mcp-Session-Id"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
)

// MCP error codes of the 2026-07-28 revision (its reserved -32020..-32099
// sub-range).
const (
	// CodeHeaderMismatch: the Mcp-* headers are missing or disagree with the
	// body. HTTP 400.
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapability: the request needs a client capability it
	// did not declare (never needed by the gateway: its tools need none).
	CodeMissingClientCapability = -32021
	// CodeUnsupportedProtocolVersion: the requested version is not spoken
	// here; data lists what is. HTTP 400.
	CodeUnsupportedProtocolVersion = -32022
)

// isSupported reports whether v is a version the gateway speaks.
func isSupported(v string) bool { return slices.Contains(SupportedVersions, v) }

// isModern reports whether v is a stateless (per-request metadata) version.
func isModern(v string) bool { return v >= V20260728 && isSupported(v) }

// features says what one protocol version has.
type features struct {
	annotations       bool // tool annotations (2025-03-26+)
	title             bool // Tool.title (2025-06-18+)
	outputSchema      bool // Tool.outputSchema and structuredContent (2025-06-18+)
	batches           bool // JSON-RPC batches (2025-03-26 only)
	sessions          bool // Mcp-Session-Id (Streamable HTTP, 2025-03-26..2025-11-25)
	stateless         bool // 2026-07-28: resultType, _meta, discover, header checks
	annotationsTitled bool // put the title into annotations.title (2025-03-26 only)
}

// featuresOf returns the features of a supported version.
func featuresOf(v string) features {
	switch v {
	case V20241105:
		return features{sessions: true}
	case V20250326:
		return features{annotations: true, batches: true, sessions: true, annotationsTitled: true}
	case V20250618, V20251125:
		return features{annotations: true, title: true, outputSchema: true, sessions: true}
	default:
		return features{annotations: true, title: true, outputSchema: true, stateless: true}
	}
}

// removedInStateless are the methods 2026-07-28 removed: a stateless request
// naming one gets -32601 (and HTTP 404), as for any unknown method.
var removedInStateless = map[string]bool{
	"initialize":                       true,
	"notifications/initialized":        true,
	"ping":                             true,
	"logging/setLevel":                 true,
	"resources/subscribe":              true,
	"resources/unsubscribe":            true,
	"notifications/roots/list_changed": true,
}
