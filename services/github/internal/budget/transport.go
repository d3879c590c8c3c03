package budget

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"ghops.dev/services/github/internal/tokenid"

	"ghops.dev/infra/roundtrip"
)

// Transport applies a Budget to every request it sends: the principal's
// share (Charge) and Admit before, Observe the answer's x-ratelimit-*
// headers after. A refused request is not sent and its error (from
// RoundTrip, so wrapped in a *url.Error by net/http) is the budget's.
type Transport struct {
	// Base sends the requests (http.DefaultTransport when nil).
	Base http.RoundTripper
	// Budget is the state; nil sends everything.
	Budget Budget
	// SharePercent is the percentage of a token's limit one principal
	// may spend per window (0 or 100 and above: no share is kept).
	SharePercent int

	limits sync.Map // token + "\x00" + resource -> the limit GitHub last reported
}

// share is the number of requests a principal may send to resource with
// token in one window: SharePercent of the token's limit (GitHub's last
// reported figure, else DefaultLimit), at least one.
func (t *Transport) share(token, resource string) (share, limit int) {
	limit = DefaultLimit(resource)
	if v, ok := t.limits.Load(token + "\x00" + resource); ok {
		limit = v.(int)
	}
	return max(limit*t.SharePercent/100, 1), limit
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := roundtrip.OrDefault(t.Base)
	if t.Budget == nil {
		return base.RoundTrip(req)
	}
	ctx := req.Context()
	token := tokenid.Of(req)
	resource := ResourceOf(req.URL.Path)
	if principal := PrincipalOf(ctx); principal != "" && t.SharePercent > 0 && t.SharePercent < 100 {
		share, limit := t.share(token, resource)
		if err := t.Budget.Charge(ctx, token, principal, resource, share); err != nil {
			var spent *Spent
			if errors.As(err, &spent) {
				spent.Percent, spent.Limit = t.SharePercent, limit
			}
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, err
		}
	}
	release, err := t.Budget.Admit(ctx, token, resource, IsWrite(req))
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	resp, err := base.RoundTrip(req)
	release()
	if resp != nil {
		if s, ok := SnapshotOf(resp.Header); ok {
			if PrincipalOf(ctx) != "" {
				// Only tokens whose budget is shared among principals (the
				// service's own, one identity) are kept: callers' own tokens
				// would grow the map without end.
				t.limits.Store(token+"\x00"+s.Resource, s.Limit)
			}
			t.Budget.Observe(ctx, token, s)
		}
	}
	return resp, err
}

// IsWrite tells whether req creates content on GitHub (a REST mutation);
// GraphQL POSTs are reads here (the service's GraphQL calls are queries).
func IsWrite(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return !strings.HasSuffix(req.URL.Path, "/graphql")
}

// ResourceOf names the rate-limit bucket GitHub counts a request path in.
func ResourceOf(path string) string {
	switch {
	case strings.HasSuffix(path, "/graphql"):
		return "graphql"
	case strings.Contains(path, "/search/code"):
		return "code_search"
	case strings.Contains(path, "/search/"):
		return "search"
	}
	return "core"
}

// SnapshotOf reads GitHub's x-ratelimit-* headers; ok is false when they
// are absent or malformed.
func SnapshotOf(h http.Header) (Snapshot, bool) {
	lim, err1 := strconv.Atoi(h.Get("X-Ratelimit-Limit"))
	rem, err2 := strconv.Atoi(h.Get("X-Ratelimit-Remaining"))
	rst, err3 := strconv.ParseInt(h.Get("X-Ratelimit-Reset"), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || lim <= 0 || rem < 0 || rst <= 0 {
		return Snapshot{}, false
	}
	res := h.Get("X-Ratelimit-Resource")
	if res == "" {
		res = "core"
	}
	return Snapshot{Resource: res, Limit: lim, Remaining: rem, Reset: time.Unix(rst, 0)}, true
}

// FromCacheHeader is the header go-github reads as "this answer came from
// a cache" and then leaves its own rate-limit state alone.
const FromCacheHeader = "X-From-Cache"

// Sole makes the budget the sole keeper of GitHub's primary rate limit: it
// marks every answer with FromCacheHeader, so that go-github never records
// a limit and never refuses a request itself. go-github's refusal claimed a
// 403 GitHub never sent, printed the reset with Go's monotonic clock, and
// was known to one client of one replica only; the budget's says the
// request was not sent, until when, and is shared. Put it above every
// other transport (go-github calls it directly).
type Sole struct {
	// Base sends the requests.
	Base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (s Sole) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.Base.RoundTrip(req)
	if resp != nil && resp.Header != nil && resp.Header.Get(FromCacheHeader) == "" {
		resp.Header.Set(FromCacheHeader, "1")
	}
	return resp, err
}
