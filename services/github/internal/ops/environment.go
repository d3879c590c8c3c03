package ops

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/metadata"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/infra/callmeta"

	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/reposcope"
)

// Environment is what validate_environment reports about the service's own
// configuration; the server fills it at start.
type Environment struct {
	// Version is the service's version.
	Version string
	// CheckRepo is the repository whose rights are checked when the call
	// names none ("" for none).
	CheckRepo string
	// Credential describes the GitHub credential a call uses, never the
	// credential itself: "classic personal access token", "GitHub App
	// installation 42", "none" ... (nil: "unknown").
	Credential func(ctx context.Context) string
	// Warnings are the service's configuration warnings.
	Warnings []string
}

// Levels of a check, worst last.
const (
	levelOK      = "ok"
	levelWarning = "warning"
	levelError   = "error"
)

// WithEnvironment sets what validate_environment reports of the service.
func (s *Service) WithEnvironment(env Environment) *Service {
	s.env = env
	return s
}

// ValidateEnvironment implements the validate_environment tool. It always
// answers a diagnosis: GitHub's failures become checks at level error, not
// call errors, so that an operator sees every finding at once. No token
// appears in it (checks name the credential's kind only, and every message
// is redacted).
func (s *Service) ValidateEnvironment(ctx context.Context, req *ghopsv1.ValidateEnvironmentRequest) (*ghopsv1.ValidateEnvironmentResponse, error) {
	var checks []*ghopsv1.EnvironmentCheck
	add := func(name, level, format string, args ...any) {
		checks = append(checks, &ghopsv1.EnvironmentCheck{Name: name, Level: level, Message: ghstatus.Sanitize(fmt.Sprintf(format, args...))})
	}
	gh := s.client(ctx)
	credential := "unknown"
	if s.env.Credential != nil {
		credential = s.env.Credential(ctx)
	}

	start := time.Now()
	limits, _, err := gh.RateLimit.Get(ctx)
	latency := time.Since(start).Round(time.Millisecond)
	reachable := err == nil || ghstatus.HTTPStatus(err) != 0
	switch {
	case !reachable:
		add("github.reachable", levelError, "GitHub did not answer at %s: %s", gh.BaseURL.Redacted(), ghstatus.Text(err))
	case latency > 2*time.Second:
		add("github.reachable", levelWarning, "GitHub answered in %s (slow)", latency)
	default:
		add("github.reachable", levelOK, "GitHub answered in %s", latency)
	}

	if reachable {
		s.checkCredential(ctx, gh, credential, add)
		for _, r := range []struct {
			name string
			rate *github.Rate
		}{{"core", limits.GetCore()}, {"search", limits.GetSearch()}, {"graphql", limits.GetGraphQL()}} {
			if r.rate == nil || err != nil {
				continue
			}
			level := levelOK
			switch {
			case r.rate.Remaining == 0:
				level = levelError
			case r.rate.Remaining*10 < r.rate.Limit:
				level = levelWarning
			}
			add("rate_limit."+r.name, level, "%d of %d left, reset at %s", r.rate.Remaining, r.rate.Limit, r.rate.Reset.UTC().Format(time.RFC3339))
		}
		repo, rctx := req.GetRepo(), ctx
		if repo == "" {
			// The service's own configuration, not input: the call may
			// reach it (package reposcope).
			repo, rctx = s.env.CheckRepo, reposcope.With(ctx, s.env.CheckRepo)
		}
		if repo != "" {
			s.checkRepo(rctx, gh, repo, add)
		}
	}

	add("service.version", levelOK, "ghops-github %s", orDev(s.env.Version))
	add("service.health", levelOK, "serving")
	for _, w := range s.env.Warnings {
		add("service.config", levelWarning, "%s", w)
	}
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get(callmeta.GatewayVersion); len(v) > 0 {
		add("gateway.version", levelOK, "ghops-gateway %s", orDev(v[0]))
		add("gateway.health", levelOK, "serving (it relayed this call)")
	} else {
		add("gateway.version", levelOK, "no gateway: the service was called directly over gRPC")
	}
	for _, w := range md.Get(callmeta.GatewayWarning) {
		add("gateway.config", levelWarning, "%s", w)
	}

	out := &ghopsv1.ValidateEnvironmentResponse{Level: levelOK, Checks: checks}
	for _, c := range checks {
		if rank(c.GetLevel()) > rank(out.GetLevel()) {
			out.Level = c.GetLevel()
		}
	}
	return out, nil
}

// checkCredential reports whose credential the calls use and of which kind.
func (s *Service) checkCredential(ctx context.Context, gh *github.Client, credential string, add func(name, level, format string, args ...any)) {
	switch {
	case credential == "none":
		add("github.token", levelWarning, "no GitHub credential: anonymous calls (60 requests an hour, public repositories only)")
		return
	case strings.HasPrefix(credential, "GitHub App installation"):
		// An installation token may not read /user; that the rate-limit
		// call above succeeded proves the token exchange worked.
		add("github.token", levelOK, "%s: installation token obtained", credential)
		return
	}
	user, resp, err := gh.Users.Get(ctx, "")
	if err != nil {
		add("github.token", levelError, "the %s was refused by GitHub (HTTP %d): %s", credential, ghstatus.HTTPStatus(err), ghstatus.Text(err))
		return
	}
	msg := fmt.Sprintf("valid %s of %s", credential, user.GetLogin())
	if resp != nil {
		if scopes, ok := resp.Header["X-Oauth-Scopes"]; ok {
			list := strings.TrimSpace(strings.Join(scopes, ","))
			if list == "" {
				list = "none"
			}
			msg += ", scopes: " + list
		}
	}
	add("github.token", levelOK, "%s", msg)
}

// checkRepo reports what the credential may do on repo.
func (s *Service) checkRepo(ctx context.Context, gh *github.Client, repo string, add func(name, level, format string, args ...any)) {
	owner, name := splitRepo(repo)
	r, _, err := gh.Repositories.Get(ctx, owner, name)
	if err != nil {
		add("github.repo", levelError, "%s: not visible with this credential (HTTP %d)", repo, ghstatus.HTTPStatus(err))
		return
	}
	p := r.GetPermissions()
	switch {
	case p["admin"] || p["maintain"]:
		add("github.repo", levelOK, "%s: read, write and administer", repo)
	case p["push"]:
		add("github.repo", levelOK, "%s: read and write (commit_files, apply_patch, pull requests)", repo)
	case p["pull"] || len(p) == 0:
		add("github.repo", levelWarning, "%s: read only; the write tools will be refused", repo)
	default:
		add("github.repo", levelWarning, "%s: permissions %v", repo, p)
	}
}

// CredentialKind names a GitHub token's kind from its documented prefix,
// never revealing the token.
func CredentialKind(token string) string {
	for _, k := range []struct{ prefix, kind string }{
		{"ghp_", "classic personal access token"},
		{"github_pat_", "fine-grained personal access token"},
		{"gho_", "OAuth token"},
		{"ghu_", "GitHub App user token"},
		{"ghs_", "GitHub App installation token"},
	} {
		if strings.HasPrefix(token, k.prefix) {
			return k.kind
		}
	}
	return "token of unknown kind"
}

// rank orders levels: ok < warning < error.
func rank(level string) int { return slices.Index([]string{levelOK, levelWarning, levelError}, level) }

func orDev(v string) string {
	if v == "" {
		return "dev"
	}
	return v
}
