// Package callmeta names the gRPC metadata keys the gateway sends with a
// call and the GitHub service reads: the two binaries speak through them,
// so they are declared once, here, where both modules can import them.
package callmeta

// Metadata keys of a service call (gRPC metadata keys are lower case).
const (
	// RequestID carries the request id of the call (docs/errors.md: the
	// one in the logs and in every error's data); the service echoes it in
	// its response headers.
	RequestID = "x-request-id"
	// GitHubToken carries the caller's own GitHub token, honoured only
	// when the service allows callers' tokens (-allow-caller-token).
	GitHubToken = "x-github-token"
	// Principal carries the caller's principal as "kind:name"
	// ("apikey:ci-bot", "github:octocat", "oidc:<sub>"): the service
	// charges the call's GitHub requests to that principal's share of its
	// token's budget (docs/security.md, -principal-share).
	Principal = "x-ghops-principal"
	// GatewayVersion carries the gateway's version to tools with the
	// gateway_info option.
	GatewayVersion = "x-ghops-gateway-version"
	// GatewayWarning carries one configuration warning of the gateway (one
	// value per warning) to tools with the gateway_info option.
	GatewayWarning = "x-ghops-gateway-warning"
)

// ContentTrust carries the effective content trust of the call's principal
// (the gateway's -content-trust, overridden by the principal's
// content_trust): ContentTrustAll or ContentTrustCollaborators. The
// service withholds untrusted authors' text only when it reads
// ContentTrustCollaborators; any other value, or none, withholds nothing.
// A caller can only narrow what it sees with it, never widen it, so the
// service honours it from any caller (docs/security.md).
const ContentTrust = "x-ghops-content-trust"

// The values of ContentTrust (and of the gateway's -content-trust and the
// policy file's content_trust).
const (
	// ContentTrustAll passes every author's text.
	ContentTrustAll = "all"
	// ContentTrustCollaborators withholds, on public repositories, the text
	// of authors without write access (GitHub's author_association other
	// than OWNER, MEMBER or COLLABORATOR).
	ContentTrustCollaborators = "collaborators"
)

// Repos carries the repos globs of the call's principal (one value per
// glob), sent only when the principal has some. The gateway confines
// answers itself, but a write to a GitHub Projects item names the item by
// id alone, so only the service, which reads the item's repository before
// writing, can refuse an item from a repository outside them
// (docs/security.md, "GitHub Projects in the policy"). Like ContentTrust it
// can only narrow what a call may do, so the service honours it from any
// caller.
const Repos = "x-ghops-repos"
