// Package metrics holds the service's Prometheus collectors: RPCs by method
// and code, GitHub calls by route template and HTTP status, GitHub's
// rate-limit remaining by resource, cache lookups per tier, Redis errors,
// the waits and refusals of the GitHub budget, and what was removed from
// answers' user text and logs (package contentclean). Each Server owns its own registry, so
// several servers can run in one test process.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"ghops.dev/infra/promreg"
	"ghops.dev/infra/roundtrip"
)

// Metrics is one registry with the service's collectors.
type Metrics struct {
	// Registry holds every collector below plus the Go and process collectors.
	Registry      *prometheus.Registry
	rpcs          *prometheus.CounterVec
	githubCalls   *prometheus.CounterVec
	rateRemaining *prometheus.GaugeVec
	cacheLookups  *prometheus.CounterVec
	redisErrors   *prometheus.CounterVec
	budgetWaits   *prometheus.HistogramVec
	budgetRefused *prometheus.CounterVec
	content       *prometheus.CounterVec
	withheld      *prometheus.CounterVec
}

// New registers the collectors in a fresh registry (package promreg, which
// adds the Go runtime and process collectors).
func New() *Metrics {
	m := &Metrics{
		Registry: promreg.New(),
		rpcs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ghops_grpc_requests_total", Help: "gRPC calls handled, by method and status code.",
		}, []string{"method", "code"}),
		githubCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ghops_github_requests_total", Help: "HTTP requests sent to GitHub, by route template and status (0: no answer).",
		}, []string{"route", "status"}),
		rateRemaining: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ghops_github_rate_limit_remaining", Help: "GitHub's x-ratelimit-remaining as last seen, by resource.",
		}, []string{"resource"}),
	}
	m.cacheLookups = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ghops_cache_lookups_total", Help: "Cacheable GitHub reads by the tier that had an answer (lru, redis, none) and outcome (hit: GitHub not asked; revalidated: 304; stale; miss).",
	}, []string{"tier", "outcome"})
	m.redisErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ghops_redis_errors_total", Help: "Failed Redis operations, by operation (reads then go on uncached, budgets follow -budget-fail-open; Redis is left alone for a second after each).",
	}, []string{"op"})
	m.budgetWaits = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "ghops_budget_wait_seconds", Help: "Time GitHub requests waited for the token's budget, by kind (slot: concurrency cap; pace: write pacing).",
		Buckets: []float64{0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60},
	}, []string{"kind"})
	m.budgetRefused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ghops_budget_refusals_total", Help: "GitHub requests not sent because of the token's budget, by reason (exhausted, busy, paced, share, unavailable).",
	}, []string{"reason"})
	m.content = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ghops_content_removed_total", Help: "What was removed from answers' user text and job logs, by kind (invisible: invisible characters; control: terminal control sequences and characters; secret: credentials redacted).",
	}, []string{"kind"})
	m.withheld = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ghops_content_withheld_total", Help: "Texts of untrusted authors withheld from answers under content_trust=collaborators, by method.",
	}, []string{"method"})
	m.Registry.MustRegister(m.cacheLookups, m.redisErrors, m.budgetWaits, m.budgetRefused, m.content, m.withheld)
	m.Registry.MustRegister(m.rpcs, m.githubCalls, m.rateRemaining)
	return m
}

// CacheLookup counts one cacheable read (package httpcache's hook).
func (m *Metrics) CacheLookup(tier, outcome string) {
	m.cacheLookups.WithLabelValues(tier, outcome).Inc()
}

// ContentRemoved counts n removals of kind from an answer (package
// contentclean's hook).
func (m *Metrics) ContentRemoved(kind string, n int) {
	if n > 0 {
		m.content.WithLabelValues(kind).Add(float64(n))
	}
}

// RedisError counts one failed Redis operation (package redisconn's hook).
func (m *Metrics) RedisError(op string) { m.redisErrors.WithLabelValues(op).Inc() }

// BudgetWait records one wait for the budget (package budget's hook).
func (m *Metrics) BudgetWait(kind string, d time.Duration) {
	m.budgetWaits.WithLabelValues(kind).Observe(d.Seconds())
}

// BudgetRefusal counts one request the budget did not send.
func (m *Metrics) BudgetRefusal(reason string) { m.budgetRefused.WithLabelValues(reason).Inc() }

// ContentWithheld counts n texts withheld from an answer of method
// (package contenttrust's hook).
func (m *Metrics) ContentWithheld(method string, n int) {
	m.withheld.WithLabelValues(method).Add(float64(n))
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promreg.Handler(m.Registry)
}

// UnaryInterceptor counts unary calls by method and code.
func (m *Metrics) UnaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	m.rpcs.WithLabelValues(info.FullMethod, status.Code(err).String()).Inc()
	return resp, err
}

// StreamInterceptor counts streaming calls by method and code.
func (m *Metrics) StreamInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	err := handler(srv, ss)
	m.rpcs.WithLabelValues(info.FullMethod, status.Code(err).String()).Inc()
	return err
}

// Transport returns a round tripper over base that counts each request to
// GitHub by route and records the rate-limit remaining; apiPath is the path
// of the API root (e.g. "/"), stripped before the route is named.
func (m *Metrics) Transport(base http.RoundTripper, apiPath string) http.RoundTripper {
	base = roundtrip.OrDefault(base)
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		route := Route(req.Method, strings.TrimPrefix(req.URL.Path, strings.TrimSuffix(apiPath, "/")))
		resp, err := base.RoundTrip(req)
		code := "0"
		if resp != nil {
			code = strconv.Itoa(resp.StatusCode)
			if rem := resp.Header.Get("X-Ratelimit-Remaining"); rem != "" {
				if n, perr := strconv.ParseFloat(rem, 64); perr == nil {
					res := resp.Header.Get("X-Ratelimit-Resource")
					if !knownResource(res) {
						res = "other"
					}
					m.rateRemaining.WithLabelValues(res).Set(n)
				}
			}
		}
		m.githubCalls.WithLabelValues(route, code).Inc()
		return resp, err
	})
}

func knownResource(r string) bool {
	switch r {
	case "core", "search", "graphql", "code_search", "integration_manifest":
		return true
	}
	return false
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// routes are the GitHub route templates the service uses, as path segments;
// "*" matches one segment and "**" the rest of the path.
var routes = [][]string{
	{"search", "repositories"},
	{"repos", "{owner}", "{repo}"},
	{"repos", "{owner}", "{repo}", "readme"},
	{"repos", "{owner}", "{repo}", "contents"},
	{"repos", "{owner}", "{repo}", "contents", "{path}"},
	{"repos", "{owner}", "{repo}", "git", "trees"},
	{"repos", "{owner}", "{repo}", "git", "trees", "{tree_sha}"},
	{"repos", "{owner}", "{repo}", "git", "blobs"},
	{"repos", "{owner}", "{repo}", "git", "blobs", "{file_sha}"},
	{"repos", "{owner}", "{repo}", "git", "commits"},
	{"repos", "{owner}", "{repo}", "git", "commits", "{commit_sha}"},
	{"repos", "{owner}", "{repo}", "git", "ref", "{ref}"},
	{"repos", "{owner}", "{repo}", "git", "refs"},
	{"repos", "{owner}", "{repo}", "git", "refs", "{ref}"},
	{"repos", "{owner}", "{repo}", "commits"},
	{"repos", "{owner}", "{repo}", "commits", "{ref}", "check-runs"},
	{"repos", "{owner}", "{repo}", "commits", "{ref}", "status"},
	{"repos", "{owner}", "{repo}", "branches"},
	{"repos", "{owner}", "{repo}", "pulls"},
	{"repos", "{owner}", "{repo}", "pulls", "{pull_number}"},
	{"repos", "{owner}", "{repo}", "pulls", "{pull_number}", "merge"},
	{"rate_limit"},
	{"graphql"},        // api.github.com and root layouts
	{"api", "graphql"}, // Enterprise Server, whose REST root is /api/v3
}

// Route names the GitHub route template of a request path relative to the
// API root, e.g. "GET /repos/{owner}/{repo}/pulls/{pull_number}". Paths the
// service does not use are named "other", keeping label cardinality bounded.
// Multi-segment parameters ({path}, {ref}) swallow the middle of the path:
// the fixed tail after them decides.
func Route(method, path string) string {
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete, http.MethodHead:
	default:
		method = "OTHER"
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var best []string
	for _, r := range routes {
		if match(r, segs) && (best == nil || len(r) > len(best)) {
			best = r
		}
	}
	if best == nil {
		return method + " other"
	}
	return method + " /" + strings.Join(best, "/")
}

func match(route, segs []string) bool {
	// {path} and {ref} may span several segments; everything else is one.
	var i int
	for ri, r := range route {
		if i >= len(segs) {
			return false
		}
		if r == "{path}" || r == "{ref}" {
			tail := route[ri+1:]
			n := len(segs) - i - len(tail)
			if n < 1 {
				return false
			}
			i += n
			continue
		}
		if !strings.HasPrefix(r, "{") && r != segs[i] {
			return false
		}
		if strings.HasPrefix(r, "{") && segs[i] == "" {
			return false
		}
		i++
	}
	return i == len(segs)
}
