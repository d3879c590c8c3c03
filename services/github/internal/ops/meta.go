package ops

import (
	"context"
	"strings"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/types/known/timestamppb"

	"ghops.dev/services/github/internal/ghstatus"
)

// meBuckets are the rate-limit buckets get_me reports, in this order: the
// ones the tools spend (REST, search, code search, GraphQL); GitHub lists a
// dozen more that no tool touches.
var meBuckets = []string{"core", "search", "code_search", "graphql"}

// rateLimits is the part of GET /rate_limit get_me reads.
type rateLimits struct {
	Resources map[string]struct {
		Limit     int   `json:"limit"`
		Remaining int   `json:"remaining"`
		Reset     int64 `json:"reset"`
	} `json:"resources"`
}

// GetMe implements the get_me tool: GET /user (login, and a classic
// token's scopes from X-OAuth-Scopes) and GET /rate_limit, which counts
// against no limit. An App installation acts as no user: GitHub refuses it
// /user, so the answer names the installation from the service's
// configuration instead. The token itself never appears: its kind comes
// from its prefix or the configuration (Environment.Credential).
func (s *Service) GetMe(ctx context.Context, _ *ghopsv1.GetMeRequest) (*ghopsv1.GetMeResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolGetMe}
	gh := s.client(ctx)
	out := &ghopsv1.GetMeResponse{TokenKind: "unknown"}
	if s.env.Credential != nil {
		out.TokenKind = s.env.Credential(ctx)
	}
	if s.installation(ctx) {
		out.Identity = "app installation"
	} else {
		me, resp, err := get[*githubUser](ctx, s, gh, "user", nil)
		if err != nil {
			return nil, s.fail(ctx, err, c)
		}
		out.Login, out.Identity = me.Login, strings.ToLower(me.Type)
		if resp != nil {
			if v, ok := resp.Header["X-Oauth-Scopes"]; ok {
				for _, sc := range strings.Split(strings.Join(v, ","), ",") {
					if sc = strings.TrimSpace(sc); sc != "" {
						out.Scopes = append(out.Scopes, sc)
					}
				}
			}
		}
	}
	limits, _, err := get[*rateLimits](ctx, s, gh, "rate_limit", nil)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	for _, name := range meBuckets {
		if b, ok := limits.Resources[name]; ok {
			out.RateLimits = append(out.RateLimits, &ghopsv1.RateBucket{Resource: name, Limit: int32(b.Limit), Remaining: int32(b.Remaining),
				ResetsAt: timestamppb.New(time.Unix(b.Reset, 0))})
		}
	}
	return out, nil
}

// githubUser is the part of GET /user get_me reads.
type githubUser struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}
