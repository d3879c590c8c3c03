// Package policy decides who may call which tool on which repository, and
// how much: the gateway's policy file (-policy, YAML), the principals it
// names, and the checks every tool call passes before any GitHub call.
//
// A policy file:
//
//	principals:
//	  - name: ci-bot            # unique; an API-key principal (it has a key)
//	    key_sha256: 9f86d0...   # hex SHA-256 of an API key (keys are never stored in clear)
//	    read_only: true         # only read-only tools
//	    tools: ["get_*", "read_file"]   # tool names or globs (default: all)
//	    toolsets: [repos, pulls]  # groups of tools (default: all; see below)
//	    repos: ["octo-org/*"]   # owner/name globs (default: all)
//	    projects: ["octo-org/*", "octocat/3"]  # GitHub Projects, owner/number globs (default: all)
//	    rate_per_minute: 120    # token bucket, burst of one minute (default: unlimited)
//	    concurrency: 4          # calls in flight at once (default: unlimited)
//	    confirm: [merge_pull_request]  # tools (names or globs) a person must confirm first
//	    content_trust: collaborators  # whose GitHub text the model reads (default: the gateway's -content-trust)
//	  - name: github:octocat    # a GitHub login (OAuth with GitHub as the issuer)
//	    repos: ["octo-org/*"]
//	  - name: oidc:auth0|12345  # an OIDC identity (the -oauth-claim value, "sub" by default)
//	  - name: alice             # no key, no prefix: any signed-in identity named alice
//	default:                    # rules for an authenticated identity with no entry
//	  read_only: true           # (absent: such identities are refused)
//
// Principals are keyed by kind (docs/security.md): an API key finds its
// principal by the key's hash only; a GitHub login finds "github:<login>"
// (case-insensitively, as GitHub compares logins), an OIDC identity
// "oidc:<value>", and either of them then a principal of that bare name
// that has no key (the format of earlier policy files). A login or a claim
// equal to an API-key principal's name never takes that principal's rules
// or quota: under the default rules it is named "github:<login>" or
// "oidc:<value>", a name no API-key principal can have. The local user of
// stdio (the operator) maps to the principal of its bare name, as before.
//
// Toolsets are the groups proto puts every tool in (repos, pulls, issues,
// actions, search, meta, projects; package toolset). A principal with toolsets sees
// and may call only the tools of those groups, and of those only the ones
// its tools globs (if any) allow: both rules apply. Like a tool outside its
// tools globs, a tool outside its toolsets is missing from its tools/list
// and refused on call with -32001, rule "toolsets", which tells the caller
// the policy, not the gateway, withholds it. The gateway's own -toolsets
// removes tools for everyone instead: unknown tools (docs/errors.md).
//
// Confirm names tools (names or globs, checked like tools) whose calls by
// the principal a person must first allow through the MCP client
// (toolcall's confirm link; docs/security.md): an irreversible write such
// as merge_pull_request. It narrows nothing else: a tool it names must
// still be allowed by the other rules.
//
// content_trust is "all" or "collaborators" and overrides the gateway's
// -content-trust for the principal (EffectiveContentTrust): with
// collaborators, the service replaces text written on public repositories
// by authors without write access (GitHub's author_association other than
// OWNER, MEMBER or COLLABORATOR) with a marker naming the author. It keeps
// a steering text from the model; it is not an authorization boundary (the
// text is still on GitHub, readable by any token with access;
// docs/security.md).
//
// Repository globs are matched case-insensitively against the canonical
// (lower-cased) owner/name, as GitHub resolves owner and name. A search
// by a principal with repos globs is narrowed to them before GitHub sees
// it (NarrowSearch, by the rule in search.go), and its answer filtered
// (Confine) as a second line.
//
// Project globs (projects.go) are checked like repository globs, against
// the owner/number of every request field marked as a project.
//
// Decoding is strict: unknown fields, duplicate names or keys, malformed
// hashes, invalid globs and tool globs that match no tool are errors, each
// naming its principal, so that a typo never silently widens or narrows
// access.
package policy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"ghops.dev/gateway/internal/toolset"
	"ghops.dev/infra/callmeta"
	"ghops.dev/infra/ctxkey"
	"go.yaml.in/yaml/v3"
)

// Rules are what one principal may do.
type Rules struct {
	// ReadOnly allows only read-only tools.
	ReadOnly bool `yaml:"read_only"`
	// Tools are tool names or path.Match globs (empty: every tool).
	Tools []string `yaml:"tools"`
	// Toolsets are groups of tools (package toolset; empty: every group).
	Toolsets []string `yaml:"toolsets"`
	// Repos are owner/name path.Match globs (empty: every repository).
	Repos []string `yaml:"repos"`
	// Projects are owner/number path.Match globs of GitHub Projects (empty:
	// every project); see projects.go.
	Projects []string `yaml:"projects"`
	// RatePerMinute bounds the calls a minute (0: unlimited).
	RatePerMinute int `yaml:"rate_per_minute"`
	// Concurrency bounds the calls in flight at once (0: unlimited).
	Concurrency int `yaml:"concurrency"`
	// Confirm are tool names or path.Match globs whose calls a person must
	// confirm through the MCP client before they run (NeedsConfirm).
	Confirm []string `yaml:"confirm"`
	// ContentTrust is "all" or "collaborators" ("": the gateway's
	// -content-trust); see EffectiveContentTrust.
	ContentTrust string `yaml:"content_trust"`
}

// Principal is one caller the policy names.
type Principal struct {
	// Name identifies the principal in logs, errors and quotas.
	Name string `yaml:"name"`
	// KeySHA256 is the hex SHA-256 of the principal's API key ("" for none).
	KeySHA256 string `yaml:"key_sha256"`
	// Rules are what it may do.
	Rules `yaml:",inline"`
}

// Kind is how an identity was established; principals are keyed by it so
// that identities of different kinds never share rules or quota.
type Kind string

// The kinds of identity.
const (
	// KindAPIKey is an API key of the policy file.
	KindAPIKey Kind = "api-key"
	// KindGitHub is a GitHub login (GitHub as the OAuth issuer).
	KindGitHub Kind = "github"
	// KindOIDC is an OIDC token's claim.
	KindOIDC Kind = "oidc"
	// KindLocal is the user running a stdio gateway.
	KindLocal Kind = "stdio"
)

// Policy is a parsed, checked policy file.
type Policy struct {
	principals []*Principal
	byName     map[string]*Principal // bare names and canonical "kind:id" names
	byKey      map[[sha256.Size]byte]*Principal
	fallback   *Rules
}

// file is the YAML document.
type file struct {
	Principals []*Principal `yaml:"principals"`
	Default    *Rules       `yaml:"default"`
}

// nameRE is what a principal's bare name may look like (it reaches logs
// and metrics labels).
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$`)

// loginRE is a GitHub login (a bot's "[bot]" suffix included).
var loginRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$`)

// claimRE is an OIDC claim value a policy file may name: printable ASCII
// without spaces (subjects such as "auth0|123" or URLs), bounded.
var claimRE = regexp.MustCompile(`^[\x21-\x7e]{1,255}$`)

// canonicalName returns the key a principal's name is stored under and
// whether the name is well-formed: "github:<lower-cased login>",
// "oidc:<claim>", or the bare name.
func canonicalName(name string) (string, bool) {
	switch {
	case strings.HasPrefix(name, string(KindGitHub)+":"):
		login := name[len(KindGitHub)+1:]
		return string(KindGitHub) + ":" + strings.ToLower(login), loginRE.MatchString(login)
	case strings.HasPrefix(name, string(KindOIDC)+":"):
		return name, claimRE.MatchString(name[len(KindOIDC)+1:])
	}
	return name, nameRE.MatchString(name)
}

// Load reads and checks a policy file; tools are the tool names that exist
// (every tool glob must match one of them).
func Load(name string, tools []string) (*Policy, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	p, err := Parse(b, tools)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", name, err)
	}
	return p, nil
}

// Parse checks a policy document (see the package doc).
func Parse(doc []byte, tools []string) (*Policy, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a valid policy document: %w", err)
	}
	if len(f.Principals) == 0 && f.Default == nil {
		return nil, errors.New("no principals and no default: the policy would refuse everyone")
	}
	p := &Policy{byName: map[string]*Principal{}, byKey: map[[sha256.Size]byte]*Principal{}, fallback: f.Default}
	var errs []error
	for i, pr := range f.Principals {
		if pr == nil {
			errs = append(errs, fmt.Errorf("principals[%d]: empty entry", i))
			continue
		}
		where := fmt.Sprintf("principal %q", pr.Name)
		key, ok := canonicalName(pr.Name)
		if !ok {
			errs = append(errs, fmt.Errorf("principals[%d]: name %q must be 1-100 letters, digits or ._@+- and start with a letter or digit, "+
				"or github:<login>, or oidc:<claim value> (printable, no spaces)", i, pr.Name))
			continue
		}
		if p.byName[key] != nil {
			errs = append(errs, fmt.Errorf("%s: named twice", where))
			continue
		}
		p.byName[key] = pr
		p.principals = append(p.principals, pr)
		if pr.KeySHA256 != "" && strings.Contains(pr.Name, ":") {
			errs = append(errs, fmt.Errorf("%s: a github: or oidc: principal has no API key (give the key to a principal with a bare name)", where))
		} else if pr.KeySHA256 != "" {
			sum, err := hex.DecodeString(pr.KeySHA256)
			if err != nil || len(sum) != sha256.Size || strings.ToLower(pr.KeySHA256) != pr.KeySHA256 {
				errs = append(errs, fmt.Errorf("%s: key_sha256 must be 64 lowercase hex digits (sha256sum of the key)", where))
			} else {
				k := [sha256.Size]byte(sum)
				if other := p.byKey[k]; other != nil {
					errs = append(errs, fmt.Errorf("%s: same key as principal %q", where, other.Name))
				}
				p.byKey[k] = pr
			}
		}
		errs = append(errs, checkRules(where, &pr.Rules, tools)...)
	}
	if f.Default != nil {
		errs = append(errs, checkRules("default", f.Default, tools)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// checkRules validates one rule set.
func checkRules(where string, r *Rules, tools []string) []error {
	var errs []error
	for _, g := range r.Tools {
		if _, err := path.Match(g, ""); err != nil {
			errs = append(errs, fmt.Errorf("%s: tools glob %q: %v", where, g, err))
			continue
		}
		if !slices.ContainsFunc(tools, func(t string) bool { return match(g, t) }) {
			errs = append(errs, fmt.Errorf("%s: tools entry %q matches no tool (tools: %s)", where, g, strings.Join(tools, ", ")))
		}
	}
	for _, g := range r.Confirm {
		if _, err := path.Match(g, ""); err != nil || !slices.ContainsFunc(tools, func(t string) bool { return match(g, t) }) {
			errs = append(errs, fmt.Errorf("%s: confirm entry %q matches no tool (tools: %s)", where, g, strings.Join(tools, ", ")))
		}
	}
	if err := toolset.Check(r.Toolsets); err != nil {
		errs = append(errs, fmt.Errorf("%s: toolsets: %w", where, err))
	}
	for _, g := range r.Repos {
		if _, err := path.Match(g, ""); err != nil || strings.Count(g, "/") != 1 {
			errs = append(errs, fmt.Errorf("%s: repos glob %q must look like owner/name (globs allowed)", where, g))
		}
	}
	errs = append(errs, checkProjectGlobs(where, r.Projects)...)
	if r.RatePerMinute < 0 || r.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("%s: rate_per_minute and concurrency must not be negative", where))
	}
	if r.ContentTrust != "" {
		if err := CheckContentTrust(r.ContentTrust); err != nil {
			errs = append(errs, fmt.Errorf("%s: content_trust: %w", where, err))
		}
	}
	return errs
}

// CheckContentTrust refuses a content trust value other than "all" and
// "collaborators" (compared exactly, as the policy file's other words).
func CheckContentTrust(v string) error {
	switch v {
	case callmeta.ContentTrustAll, callmeta.ContentTrustCollaborators:
		return nil
	}
	return fmt.Errorf("%q must be %q or %q", v, callmeta.ContentTrustAll, callmeta.ContentTrustCollaborators)
}

// EffectiveContentTrust is the content trust of pr's calls: its own
// content_trust when set, else the gateway's (-content-trust).
func EffectiveContentTrust(pr *Principal, gateway string) string {
	if pr != nil && pr.ContentTrust != "" {
		return pr.ContentTrust
	}
	return gateway
}

// match reports whether name matches glob (case-sensitive, as tool names
// are compared).
func match(glob, name string) bool {
	ok, err := path.Match(glob, name)
	return err == nil && ok
}

// CanonicalRepo is the form of an owner/name the policy compares: GitHub
// resolves owners and names case-insensitively, so "Octo-Org/Secret" is
// the repository "octo-org/secret" and must meet the same rules.
func CanonicalRepo(repo string) string { return strings.ToLower(repo) }

// RepoAllowed reports whether pr may touch repository repo (any case):
// true without a principal or without repos globs.
func RepoAllowed(pr *Principal, repo string) bool {
	if pr == nil || len(pr.Repos) == 0 {
		return true
	}
	c := CanonicalRepo(repo)
	return slices.ContainsFunc(pr.Repos, func(g string) bool { return match(strings.ToLower(g), c) })
}

// ByKey returns the principal whose API key is key (nil if none). The key
// is hashed first; the comparison is a map lookup by that hash, so its
// timing tells nothing about any stored key.
func (p *Policy) ByKey(key string) *Principal {
	if p == nil {
		return nil
	}
	return p.byKey[sha256.Sum256([]byte(key))]
}

// HasKeys reports whether some principal has an API key.
func (p *Policy) HasKeys() bool { return p != nil && len(p.byKey) > 0 }

// ForIdentity returns the principal an authenticated identity of kind
// (a GitHub login, an OIDC claim, the local user) maps to: its
// "kind:identity" entry, else an entry of the bare name that has no API
// key (the local user: any entry of that name), else the default rules
// under the name "kind:identity" (the bare name for the local user), else
// nil (refused). An API-key principal is never the answer for a GitHub or
// OIDC identity: only its key finds it.
func (p *Policy) ForIdentity(kind Kind, identity string) *Principal {
	qualified := identity
	switch kind {
	case KindGitHub:
		qualified = string(KindGitHub) + ":" + strings.ToLower(identity)
	case KindOIDC:
		qualified = string(KindOIDC) + ":" + identity
	}
	if p == nil {
		return &Principal{Name: qualified}
	}
	if pr := p.byName[qualified]; pr != nil {
		return pr
	}
	if pr := p.byName[identity]; pr != nil && (kind == KindLocal || pr.KeySHA256 == "") {
		return pr
	}
	if p.fallback != nil {
		return &Principal{Name: qualified, Rules: *p.fallback}
	}
	return nil
}

// Denial says which rule refused a call.
type Denial struct {
	// Rule is the rule: "read_only" (the gateway's -read-only or the
	// principal's), "tools", "toolsets" or "repos".
	Rule string
	// Detail says what the rule allows, for the caller.
	Detail string
}

// Tool is what the checks need to know about a tool.
type Tool struct {
	// Name is the tool's name.
	Name string
	// ReadOnly is its read-only annotation.
	ReadOnly bool
	// Toolset is its group (toolset.Of).
	Toolset string
}

// Check decides a call of tool on repos (every repository the call names;
// none for a tool that names none) by pr, under the gateway-wide readOnly;
// nil means allowed. Repositories are compared in canonical form.
func Check(pr *Principal, tool Tool, repos []string, readOnly bool) *Denial {
	if readOnly && !tool.ReadOnly {
		return &Denial{Rule: "read_only", Detail: "the gateway is read-only: " + tool.Name + " writes"}
	}
	if pr == nil {
		return nil
	}
	if len(pr.Tools) > 0 && !slices.ContainsFunc(pr.Tools, func(g string) bool { return match(g, tool.Name) }) {
		return &Denial{Rule: "tools", Detail: "allowed tools: " + strings.Join(pr.Tools, ", ")}
	}
	if len(pr.Toolsets) > 0 && !slices.Contains(pr.Toolsets, tool.Toolset) {
		return &Denial{Rule: "toolsets", Detail: "allowed toolsets: " + strings.Join(pr.Toolsets, ", ")}
	}
	if pr.ReadOnly && !tool.ReadOnly {
		return &Denial{Rule: "read_only", Detail: "principal " + pr.Name + " is read-only: " + tool.Name + " writes"}
	}
	for _, repo := range repos {
		if !RepoAllowed(pr, repo) {
			return &Denial{Rule: "repos", Detail: "allowed repositories: " + strings.Join(pr.Repos, ", ")}
		}
	}
	return nil
}

// CheckTools checks a list of tool names or globs given outside a policy
// file (the gateway's -confirm) as the file's are checked: each must match
// one of tools.
func CheckTools(what string, globs, tools []string) error {
	var errs []error
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil || !slices.ContainsFunc(tools, func(t string) bool { return match(g, t) }) {
			errs = append(errs, fmt.Errorf("%s: %q matches no tool (tools: %s)", what, g, strings.Join(tools, ", ")))
		}
	}
	return errors.Join(errs...)
}

// NeedsConfirm reports whether pr's calls of tool must first be confirmed
// by a person (its confirm globs; false without a principal).
func NeedsConfirm(pr *Principal, tool string) bool {
	return pr != nil && slices.ContainsFunc(pr.Confirm, func(g string) bool { return match(g, tool) })
}

// Allowed returns the tools (of all) that pr may call under readOnly, in
// the order given: what its tools/list shows.
func Allowed(pr *Principal, all []Tool, readOnly bool) []string {
	var out []string
	for _, t := range all {
		if d := Check(pr, t, nil, readOnly); d == nil {
			out = append(out, t.Name)
		}
	}
	return out
}

// Caller is an authenticated request's identity.
type Caller struct {
	// Principal holds its rules; nil when the gateway runs without a policy
	// (every tool, every repository).
	Principal *Principal
	// Via names how it authenticated: "api-key", "github", "oidc", "stdio".
	Via Kind
	// GitHubToken is the caller's own GitHub token (GitHub as the OAuth
	// issuer), forwarded to the service for this caller's calls only.
	GitHubToken string
}

// Name is the principal's name ("" without one).
func (c *Caller) Name() string {
	if c == nil || c.Principal == nil {
		return ""
	}
	return c.Principal.Name
}

// callerKey carries the request's caller.
var callerKey = ctxkey.New[*Caller]("policy.caller")

// WithCaller returns ctx carrying the caller.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return callerKey.With(ctx, c)
}

// CallerFrom returns the request's caller (nil: no authentication is
// configured on this transport).
func CallerFrom(ctx context.Context) *Caller {
	return callerKey.From(ctx)
}
