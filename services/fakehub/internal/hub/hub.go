// Package hub is fakehub's shared core: the emulator's state (repositories with their git data,
// pull requests, issues, check runs, statuses and workflow runs; tokens and Apps; the lock), the
// request context and reply every area's handlers use, the serving layer (authentication, rate
// limits, fault injection, ETags, paging, accounting, the admin API) and the Go API behind Hub's
// methods. The area packages (gitdata, pulls, issues, actions, search, graphqlapi) register their
// routes on it through New's areas; package fakehub assembles them.
package hub

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"ghops.dev/services/fakehub/internal/faults"
	"ghops.dev/services/fakehub/internal/gitstore"
	"ghops.dev/services/fakehub/internal/ratelimit"
	"ghops.dev/services/fakehub/internal/router"
)

// DemoToken is the token the demo dataset grants write access to octo-org/hello-world.
const DemoToken = "ghops-demo-token"

// Permission is a token's access to a repository.
type Permission string

// Permissions a token may hold on a repository.
const (
	PermNone  Permission = "none"
	PermRead  Permission = "read"
	PermWrite Permission = "write"
)

// Token is an API token. Repos maps "owner/repo" (or "*" for every repository) to a permission;
// public repositories are readable by everyone regardless.
type Token struct {
	Value, Login string
	Repos        map[string]Permission
	// Scopes are the classic token's OAuth scopes ("repo", "read:project", "project", ...);
	// nil grants every scope, so tokens that do not model scopes behave as before.
	Scopes []string
}

// Fault is a fault-injection rule. Route is an OpenAPI route template such as
// "/repos/{owner}/{repo}/pulls/{pull_number}", a glob over the request path or template, or empty for
// every route; Method empty matches any method. Latency, Drop and RateLimit ("primary" or
// "secondary") apply to every matching request; an ErrorStatus (default 500) is answered with
// probability ErrorRate, so 0 never and 1 always. Count limits how many requests the rule affects
// (0 = unlimited).
//
// RateLimitStatus is the HTTP status of a forced rate limit: 403 (the default, 0) or 429. GitHub
// sends either; go-github v66 types only the 403 forms (*github.RateLimitError,
// *github.AbuseRateLimitError) and returns a plain *github.ErrorResponse for a 429, so clients must be
// tested against both. It applies to the request the rule fires on; once a forced primary limit has
// emptied the bucket, later requests that no rule touches are refused with 403.
type Fault struct {
	Method, Route   string
	Latency         time.Duration
	ErrorRate       float64
	ErrorStatus     int
	RateLimit       string
	RateLimitStatus int // 403 (default) or 429
	RetryAfter      int
	Drop            bool
	Count           int
}

// Config configures a Hub. Zero values select defaults: CoreLimit 5000/hour, SearchLimit 30/minute,
// Now time.Now, Logger discarding. AdminToken empty disables the /_fakehub/ admin endpoints. Code
// search is not in SearchLimit's bucket: as on GitHub it has its own, code_search, of 10 a minute.
type Config struct {
	Tokens []Token
	// Apps are the GitHub Apps whose installations may get tokens (apps.go).
	Apps []App
	// AppTokenTTL is the life of an installation token (default DefaultAppTokenTTL).
	AppTokenTTL time.Duration
	AdminToken  string
	Seed        string
	CoreLimit   int
	SearchLimit int
	// GraphQLLimit is the GraphQL requests per hour per token; 0 (the default) means GitHub's
	// 5,000 (points there, requests here). Benchmarks that commit through createCommitOnBranch
	// raise it as they raise CoreLimit.
	GraphQLLimit int
	Faults       []Fault
	Now          func() time.Time
	Logger       *slog.Logger
}

// Hub is the emulator. It is safe for concurrent use.
type Hub struct {
	cfg     Config
	now     func() time.Time
	log     *slog.Logger
	routes  *router.Router
	Handle  map[*router.Route]handlerFunc
	readers map[*router.Route]func(*ReqCtx) bool // routes that may run under the read lock; see call
	limiter *ratelimit.Limiter
	faults  *faults.Set

	// Mu guards repos, tokens and everything inside them. Handlers that only read take it shared, so
	// concurrent reads proceed in parallel; everything that mutates (writes, lazily computed
	// mergeability) takes it exclusively.
	Mu sync.RWMutex
	// ExclusiveReads makes every handler take mu exclusively, as before the read-write lock; a
	// benchmark knob (export_test.go) for comparing the two on the same machine and load.
	ExclusiveReads bool
	Repos          map[string]*Repo
	tokens         map[string]*tokenInfo
	apps           apps // its own lock (apps.go)
	NextID         int64
	Ticking        time.Time // last timestamp handed out by stamp
	Seeding        bool      // while seeding, stamp ticks from seedEpoch regardless of the clock

	// Areas holds the state of areas that only they read (package projects' projects), by
	// area name; guarded by Mu like Repos.
	Areas map[string]any

	statsMu  sync.Mutex
	stats    Stats
	requests []RequestRecord
}

type tokenInfo struct {
	Token
	id int64
	// installation marks a GitHub App installation token, which GitHub refuses on user endpoints.
	installation bool
}

// maxRequestLog bounds the request log so that benchmarks do not grow it without end.
const maxRequestLog = 100000

// New builds a hub serving the routes areas register, in their order, and seeding the dataset
// named by cfg.Seed ("" for none, "demo" by seedDemo).
func New(cfg Config, areas []func(*Hub, AddFunc), seedDemo func(*Hub) error) (*Hub, error) {
	h := &Hub{
		cfg:    cfg,
		now:    cfg.Now,
		log:    cfg.Logger,
		Repos:  map[string]*Repo{},
		tokens: map[string]*tokenInfo{},
		NextID: 1000,
		faults: faults.NewSet(),
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if h.cfg.CoreLimit <= 0 {
		h.cfg.CoreLimit = 5000
	}
	if h.cfg.SearchLimit <= 0 {
		h.cfg.SearchLimit = 30
	}
	h.limiter = ratelimit.New(h.now)
	h.resetStatsLocked()
	tokens := cfg.Tokens
	if cfg.Seed == "demo" {
		tokens = append([]Token{{Value: DemoToken, Login: "octocat", Repos: map[string]Permission{"octo-org/hello-world": PermWrite}}}, tokens...)
	}
	for i, t := range tokens {
		if t.Value == "" {
			return nil, fmt.Errorf("fakehub: token %d has no value", i)
		}
		if t.Login == "" {
			t.Login = fmt.Sprintf("user%d", i+1)
		}
		h.tokens[t.Value] = &tokenInfo{Token: t, id: int64(i + 1)}
	}
	if err := h.initApps(cfg.Apps); err != nil {
		return nil, err
	}
	h.SetFaults(cfg.Faults)
	h.buildRoutes(areas)
	switch cfg.Seed {
	case "":
	case "demo":
		if err := seedDemo(h); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("fakehub: unknown seed %q", cfg.Seed)
	}
	return h, nil
}

// RepoOptions describes a repository to create.
type RepoOptions struct {
	Owner, Name, Description, DefaultBranch, Language string
	Private, Empty                                    bool
	Topics                                            []string
	// ForkOf is the "owner/name" a fork was made from ("" for none).
	ForkOf string
}

// Errors returned by the Go API.
var (
	ErrRepoExists   = errors.New("fakehub: repository already exists")
	ErrRepoNotFound = errors.New("fakehub: repository not found")
	ErrRefNotFound  = errors.New("fakehub: branch or commit not found")
	// ErrWorkflowNotFound is a workflow name, file name or id the repository has none of.
	ErrWorkflowNotFound = errors.New("fakehub: workflow not found")
)

// CreateRepo creates a repository; unless Empty it gets an initial commit holding README.md on its
// default branch (default "main").
func (h *Hub) CreateRepo(o RepoOptions) error {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	_, err := h.CreateRepoLocked(o)
	return err
}

// Commit commits files (path -> content) on top of a branch, creating the branch from the default
// branch if it is missing, and returns the new commit id. repo is "owner/name".
func (h *Hub) Commit(repoName, branch, message string, files map[string]string) (string, error) {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return "", err
	}
	sha, err := r.CommitFiles(branch, message, files, h.Stamp())
	if err != nil {
		return "", err
	}
	return sha.String(), nil
}

// CreateBranch creates branch at from, which may be a branch name or a commit id.
func (h *Hub) CreateBranch(repoName, branch, from string) error {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return err
	}
	sha, ok := r.Resolve(from)
	if !ok {
		return ErrRefNotFound
	}
	return r.Git.SetRef("refs/heads/"+branch, sha)
}

// BranchSHA returns the commit a branch points at.
func (h *Hub) BranchSHA(repoName, branch string) (string, error) {
	h.Mu.RLock()
	defer h.Mu.RUnlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return "", err
	}
	sha, err := r.Git.Ref("refs/heads/" + branch)
	if err != nil {
		return "", ErrRefNotFound
	}
	return sha.String(), nil
}

// CreatePullRequest opens a pull request from head to base (branch names in the same repository) and
// returns its number. Its mergeability is computed lazily, as on GitHub.
func (h *Hub) CreatePullRequest(repoName, head, base, title, body string, draft bool) (int, error) {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return 0, err
	}
	pr, verr := h.OpenPullLocked(r, head, base, title, body, draft, "")
	if verr != nil {
		return 0, errors.New("fakehub: " + verr.Message + ": " + verr.detail())
	}
	return pr.Number, nil
}

// AddCheckRun records a check run on a commit; status is queued, in_progress or completed and
// conclusion (for completed runs) success, failure, neutral, cancelled, skipped or timed_out.
func (h *Hub) AddCheckRun(repoName, sha, name, status, conclusion string) error {
	return h.recordOnCommit(repoName, sha, func(r *Repo, full string, id int64) {
		t := h.Stamp()
		cr := &CheckRun{ID: id, Name: name, Status: status, Conclusion: conclusion, SHA: full, Started: t}
		if status == "completed" {
			cr.Completed = t
		}
		r.Checks[full] = append(r.Checks[full], cr)
	})
}

// AddStatus records a commit status (state error, failure, pending or success) for a context.
func (h *Hub) AddStatus(repoName, sha, context, state string) error {
	return h.recordOnCommit(repoName, sha, func(r *Repo, full string, id int64) {
		r.Statuses[full] = append(r.Statuses[full], &CommitStatus{ID: id, Context: context, State: state, At: h.Stamp()})
	})
}

// ProtectBranch protects a branch, requiring the named checks (check runs or statuses) to pass and
// the head branch to be up to date ("strict"), before a pull request into it can merge.
func (h *Hub) ProtectBranch(repoName, branch string, requiredChecks []string) error {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return err
	}
	if _, err := r.Git.Ref("refs/heads/" + branch); err != nil {
		return ErrRefNotFound
	}
	r.Protected[branch] = append([]string{}, requiredChecks...)
	return nil
}

// SetFaults replaces the fault-injection rules.
func (h *Hub) SetFaults(f []Fault) {
	rules := make([]faults.Rule, len(f))
	for i, x := range f {
		rules[i] = faults.Rule(x)
	}
	h.faults.Replace(rules)
}

// Faults returns the current fault rules, Count being the firings left (0 = unlimited).
func (h *Hub) Faults() []Fault {
	rules := h.faults.Rules()
	out := make([]Fault, len(rules))
	for i, x := range rules {
		out[i] = Fault(x)
	}
	return out
}

// Stats counts the API requests served since the last reset.
type Stats struct {
	Total     int            `json:"total"`
	ByRoute   map[string]int `json:"by_route"`
	ByStatus  map[int]int    `json:"by_status"`
	RateUnits map[string]int `json:"rate_units"`
}

// Stats returns a copy of the counters.
func (h *Hub) Stats() Stats {
	h.statsMu.Lock()
	defer h.statsMu.Unlock()
	s := Stats{Total: h.stats.Total, ByRoute: map[string]int{}, ByStatus: map[int]int{}, RateUnits: map[string]int{}}
	for k, v := range h.stats.ByRoute {
		s.ByRoute[k] = v
	}
	for k, v := range h.stats.ByStatus {
		s.ByStatus[k] = v
	}
	for k, v := range h.stats.RateUnits {
		s.RateUnits[k] = v
	}
	return s
}

// ResetStats clears the counters and the request log (not the rate-limit buckets).
func (h *Hub) ResetStats() {
	h.statsMu.Lock()
	defer h.statsMu.Unlock()
	h.resetStatsLocked()
}

func (h *Hub) resetStatsLocked() {
	h.stats = Stats{ByRoute: map[string]int{}, ByStatus: map[int]int{}, RateUnits: map[string]int{}}
	h.requests = nil
}

// ResetRateLimits refills every rate-limit bucket.
func (h *Hub) ResetRateLimits() { h.limiter.Reset() }

// RequestRecord is one API request in the log. Route is the OpenAPI template ("" when no route
// matched); Resource the rate-limit bucket; Counted whether it spent a rate-limit unit.
type RequestRecord struct {
	Method   string `json:"method"`
	Path     string `json:"path"`
	Route    string `json:"route"`
	Status   int    `json:"status"`
	Resource string `json:"resource"`
	Counted  bool   `json:"counted"`
}

// Requests returns the request log, oldest first.
func (h *Hub) Requests() []RequestRecord {
	h.statsMu.Lock()
	defer h.statsMu.Unlock()
	return append([]RequestRecord(nil), h.requests...)
}

func (h *Hub) record(rec RequestRecord) {
	h.statsMu.Lock()
	defer h.statsMu.Unlock()
	h.stats.Total++
	name := rec.Method + " " + rec.Route
	if rec.Route == "" {
		name = rec.Method + " (unmatched)"
	}
	h.stats.ByRoute[name]++
	h.stats.ByStatus[rec.Status]++
	if rec.Counted {
		h.stats.RateUnits[rec.Resource]++
	}
	if len(h.requests) >= maxRequestLog {
		h.requests = h.requests[1:]
	}
	h.requests = append(h.requests, rec)
}

// Stamp returns the current time to the second, strictly after the previous stamp, so that commits
// made in one second still order as git log would show them.
func (h *Hub) Stamp() time.Time {
	t := h.now().UTC().Truncate(time.Second)
	if h.Seeding || !t.After(h.Ticking) {
		t = h.Ticking.Add(time.Second)
	}
	h.Ticking = t
	return t
}

// RepoKey is the key of repos for "owner/name": repository names are case-insensitive.
func RepoKey(name string) string { return strings.ToLower(name) }

// recordOnCommit resolves sha (a commit id, branch, tag or ref) in repository repoName under h.mu,
// takes the next object id and calls record with the repository, the full commit id and that id; a
// sha that does not resolve is ErrRefNotFound and records nothing.
func (h *Hub) recordOnCommit(repoName, sha string, record func(r *Repo, full string, id int64)) error {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r, err := h.repoLocked(repoName)
	if err != nil {
		return err
	}
	full, ok := r.Resolve(sha)
	if !ok {
		return ErrRefNotFound
	}
	h.NextID++
	record(r, full.String(), h.NextID)
	return nil
}

func (h *Hub) repoLocked(name string) (*Repo, error) {
	r, ok := h.Repos[RepoKey(name)]
	if !ok {
		return nil, ErrRepoNotFound
	}
	return r, nil
}

// SortedRepos lists the repositories in creation order; the caller holds Mu.
func (h *Hub) SortedRepos() []*Repo {
	out := make([]*Repo, 0, len(h.Repos))
	for _, r := range h.Repos {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// CreateRepoLocked creates a repository (see CreateRepo); the caller holds Mu exclusively.
func (h *Hub) CreateRepoLocked(o RepoOptions) (*Repo, error) {
	if o.Owner == "" || o.Name == "" {
		return nil, errors.New("fakehub: repository needs an owner and a name")
	}
	full := o.Owner + "/" + o.Name
	if _, ok := h.Repos[RepoKey(full)]; ok {
		return nil, ErrRepoExists
	}
	if o.DefaultBranch == "" {
		o.DefaultBranch = "main"
	}
	h.NextID++
	t := h.Stamp()
	r := &Repo{
		id: h.NextID, Opts: o, Git: gitstore.New(), created: t, Pushed: t,
		Checks: map[string][]*CheckRun{}, Statuses: map[string][]*CommitStatus{}, Protected: map[string][]string{},
	}
	h.Repos[RepoKey(full)] = r
	if !o.Empty {
		readme := "# " + o.Name + "\n"
		if o.Description != "" {
			readme += "\n" + o.Description + "\n"
		}
		if _, err := r.CommitFiles(o.DefaultBranch, "Initial commit", map[string]string{"README.md": readme}, t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// SeedEpoch is the fixed clock the demo dataset is written with, so its commit ids never change.
var SeedEpoch = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
