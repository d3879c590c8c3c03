// Package client is the Go client of the ghops gateway (import path
// ghops.dev/client, package name client). It imports none of the gateway's
// server code: only the generated contract (ghops.dev/gen/ghops/v1).
//
// A Client speaks plain JSON-RPC 2.0 to {endpoint}/rpc (the default, batches
// with Batch) or MCP Streamable HTTP to {endpoint}/mcp (WithTransport). Every
// answer is validated before use: jsonrpc is "2.0", exactly one of result and
// error, the id is the request's (in a batch every response is matched to its
// request by id; missing, extra and duplicate responses are errors), and
// error objects are well-formed.
//
// Failures come in three families, told apart with errors.Is / errors.As:
//
//   - *TransportError (errors.Is(err, ErrTransport)): no JSON-RPC answer came
//     back: ErrConnection, ErrHTTPStatus (e.g. a proxy's 502 page),
//     ErrPayloadTooLarge (413), ErrNotJSON (HTML), ErrTruncated,
//     ErrResponseTooLarge.
//   - *ProtocolError (errors.Is(err, ErrProtocol)): JSON that is not a valid
//     answer to the request: ErrBadVersion, ErrResultAndError,
//     ErrNoResultNorError, ErrMalformedError, ErrIDMismatch,
//     ErrMissingResponse, ErrExtraResponse, ErrDuplicateID, ErrBadShape.
//   - JSON-RPC errors: an *Error (code, message, raw and decoded data) for
//     every code; -32602 comes as *InvalidParamsError (Violations) and -32004
//     as *RateLimitError (RetryAfter). Each documented code matches its
//     sentinel: ErrParse, ErrInvalidRequest, ErrMethodNotFound,
//     ErrInvalidParams, ErrPermissionDenied, ErrNotFound, ErrValidation
//     (GitHub 422, -32003), ErrRateLimited, ErrNotMergeable,
//     ErrHeadSHAMismatch, ErrInternal. Unknown codes stay a plain *Error.
//
// Typed calls (Search, Fetch, ..., CommitFiles, or the generic Call) encode
// the generated request messages with protojson's JSON names and decode
// results with proto names, so the proto stays the one source of truth.
// Tools and LookupTool read the tool list and read-only marks from the
// descriptors' (ghops.v1.tool) option, offline.
//
// With WithRetries(n), a call of a read-only or idempotent tool (as the
// contract's tool.proto allows) that meets a rate limit is repeated up to n
// times after the announced Retry-After, each wait bounded by
// WithMaxRetryWait. Other tools are never repeated.
//
// The token given with WithToken is sent as "Authorization: Bearer" and never
// appears in an error.
package client
