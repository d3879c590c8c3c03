// Package policy decides who may call which tool on which repository, and
// how much: the gateway's policy file (-policy, YAML), the principals it
// names, and the checks every tool call passes before any GitHub call.
//
// A policy file:
//
//	principals:
//	  - name: ci-bot            # unique; also the identity OAuth and stdio map to
//	    key_sha256: 9f86d0...   # hex SHA-256 of an API key (keys are never stored in clear)
//	    read_only: true         # only read-only tools
//	    tools: ["get_*", "read_file"]   # tool names or globs (default: all)
//	    repos: ["octo-org/*"]   # owner/name globs (default: all)
//	    rate_per_minute: 120    # token bucket, burst of one minute (default: unlimited)
//	    concurrency: 4          # calls in flight at once (default: unlimited)
//	default:                    # rules for an authenticated identity with no entry
//	  read_only: true           # (absent: such identities are refused)
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

	"go.yaml.in/yaml/v3"
)

// Rules are what one principal may do.
type Rules struct {
	// ReadOnly allows only read-only tools.
	ReadOnly bool `yaml:"read_only"`
	// Tools are tool names or path.Match globs (empty: every tool).
	Tools []string `yaml:"tools"`
	// Repos are owner/name path.Match globs (empty: every repository).
	Repos []string `yaml:"repos"`
	// RatePerMinute bounds the calls a minute (0: unlimited).
	RatePerMinute int `yaml:"rate_per_minute"`
	// Concurrency bounds the calls in flight at once (0: unlimited).
	Concurrency int `yaml:"concurrency"`
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

// Policy is a parsed, checked policy file.
type Policy struct {
	principals []*Principal
	byName     map[string]*Principal
	byKey      map[[sha256.Size]byte]*Principal
	fallback   *Rules
}

// file is the YAML document.
type file struct {
	Principals []*Principal `yaml:"principals"`
	Default    *Rules       `yaml:"default"`
}

// nameRE is what a principal name may look like (it reaches logs and
// metrics labels).
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$`)

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
		if !nameRE.MatchString(pr.Name) {
			errs = append(errs, fmt.Errorf("principals[%d]: name %q must be 1-100 letters, digits or ._@+- and start with a letter or digit", i, pr.Name))
			continue
		}
		if p.byName[pr.Name] != nil {
			errs = append(errs, fmt.Errorf("%s: named twice", where))
			continue
		}
		p.byName[pr.Name] = pr
		p.principals = append(p.principals, pr)
		if pr.KeySHA256 != "" {
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
	for _, g := range r.Repos {
		if _, err := path.Match(g, ""); err != nil || strings.Count(g, "/") != 1 {
			errs = append(errs, fmt.Errorf("%s: repos glob %q must look like owner/name (globs allowed)", where, g))
		}
	}
	if r.RatePerMinute < 0 || r.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("%s: rate_per_minute and concurrency must not be negative", where))
	}
	return errs
}

// match reports whether name matches glob (case-sensitive, as tool names
// and GitHub owner/name paths in the API are compared).
func match(glob, name string) bool {
	ok, err := path.Match(glob, name)
	return err == nil && ok
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

// ForIdentity returns the principal an authenticated identity (a GitHub
// login, an OIDC claim, the local user) maps to: its entry, else the
// default rules under that name, else nil (refused).
func (p *Policy) ForIdentity(identity string) *Principal {
	if p == nil {
		return &Principal{Name: identity}
	}
	if pr := p.byName[identity]; pr != nil {
		return pr
	}
	if p.fallback != nil {
		return &Principal{Name: identity, Rules: *p.fallback}
	}
	return nil
}

// Denial says which rule refused a call.
type Denial struct {
	// Rule is the rule: "read_only" (the gateway's -read-only or the
	// principal's), "tools" or "repos".
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
}

// Check decides a call of tool on repo ("" when the tool names none) by pr,
// under the gateway-wide readOnly; nil means allowed.
func Check(pr *Principal, tool Tool, repo string, readOnly bool) *Denial {
	if readOnly && !tool.ReadOnly {
		return &Denial{Rule: "read_only", Detail: "the gateway is read-only: " + tool.Name + " writes"}
	}
	if pr == nil {
		return nil
	}
	if len(pr.Tools) > 0 && !slices.ContainsFunc(pr.Tools, func(g string) bool { return match(g, tool.Name) }) {
		return &Denial{Rule: "tools", Detail: "allowed tools: " + strings.Join(pr.Tools, ", ")}
	}
	if pr.ReadOnly && !tool.ReadOnly {
		return &Denial{Rule: "read_only", Detail: "principal " + pr.Name + " is read-only: " + tool.Name + " writes"}
	}
	if repo != "" && len(pr.Repos) > 0 && !slices.ContainsFunc(pr.Repos, func(g string) bool { return match(g, repo) }) {
		return &Denial{Rule: "repos", Detail: "allowed repositories: " + strings.Join(pr.Repos, ", ")}
	}
	return nil
}

// Allowed returns the tools (of all) that pr may call under readOnly, in
// the order given: what its tools/list shows.
func Allowed(pr *Principal, all []Tool, readOnly bool) []string {
	var out []string
	for _, t := range all {
		if d := Check(pr, t, "", readOnly); d == nil {
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
	Via string
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

// contextKey is the type of this package's context key.
type contextKey struct{}

// WithCaller returns ctx carrying the caller.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, contextKey{}, c)
}

// CallerFrom returns the request's caller (nil: no authentication is
// configured on this transport).
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(contextKey{}).(*Caller)
	return c
}
