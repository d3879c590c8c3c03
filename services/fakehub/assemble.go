package fakehub

import (
	"ghops.dev/services/fakehub/internal/actions"
	"ghops.dev/services/fakehub/internal/gitdata"
	"ghops.dev/services/fakehub/internal/graphqlapi"
	"ghops.dev/services/fakehub/internal/hub"
	"ghops.dev/services/fakehub/internal/issues"
	"ghops.dev/services/fakehub/internal/projects"
	"ghops.dev/services/fakehub/internal/pulls"
	"ghops.dev/services/fakehub/internal/releases"
	"ghops.dev/services/fakehub/internal/repos"
	"ghops.dev/services/fakehub/internal/search"
	"ghops.dev/services/fakehub/internal/seed"
)

// New builds a hub serving every area's routes, seeding the dataset named by cfg.Seed ("" for
// none, "demo").
func New(cfg Config) (*Hub, error) {
	// The order is the routing order (the first matching route wins); hub.RegisterCore comes first.
	return hub.New(cfg, []func(*hub.Hub, hub.AddFunc){
		hub.RegisterCore,
		search.Register,
		issues.Register,
		gitdata.Register,
		pulls.Register,
		graphqlapi.Register,
		actions.Register,
		releases.Register,
		repos.Register,
		projects.Register,
	}, seed.Demo)
}

// The emulator and its Go API live in package hub; these names keep them where callers find them.
type (
	// Hub is the emulator. It is safe for concurrent use.
	Hub = hub.Hub
	// Config configures a Hub (hub.Config).
	Config = hub.Config
	// Token is an API token (hub.Token).
	Token = hub.Token
	// Permission is a token's access to a repository.
	Permission = hub.Permission
	// Fault is a fault-injection rule (hub.Fault).
	Fault = hub.Fault
	// Stats counts the API requests served since the last reset.
	Stats = hub.Stats
	// RequestRecord is one API request in the log (hub.RequestRecord).
	RequestRecord = hub.RequestRecord
	// RepoOptions describes a repository to create.
	RepoOptions = hub.RepoOptions
	// App is a GitHub App whose installations may get tokens (hub.App).
	App = hub.App
	// Installation is an installation of an App (hub.Installation).
	Installation = hub.Installation
	// JobSpec describes a job of a workflow run added with Hub.AddWorkflowRun.
	JobSpec = hub.JobSpec
	// RunSpec describes the state of a workflow run added with Hub.AddWorkflowRunOf.
	RunSpec = hub.RunSpec
)

// Permissions a token may hold on a repository.
const (
	PermNone  = hub.PermNone
	PermRead  = hub.PermRead
	PermWrite = hub.PermWrite
)

// DemoToken is the token the demo dataset grants write access to octo-org/hello-world.
const DemoToken = hub.DemoToken

// DemoReviewerToken is the demo dataset's second user, monalisa, who reviews octocat's pull
// requests on octo-org/hello-world.
const DemoReviewerToken = hub.DemoReviewerToken

// DefaultAppTokenTTL is the life of an installation token unless Config.AppTokenTTL says otherwise.
const DefaultAppTokenTTL = hub.DefaultAppTokenTTL

// Errors returned by the Go API.
var (
	ErrRepoExists   = hub.ErrRepoExists
	ErrRepoNotFound = hub.ErrRepoNotFound
	ErrRefNotFound  = hub.ErrRefNotFound
	// ErrWorkflowNotFound is a workflow Hub.SetDispatchJobs does not find.
	ErrWorkflowNotFound = hub.ErrWorkflowNotFound
)

// Associations are the author associations Hub.SetAuthorAssociation accepts.
var Associations = hub.Associations

// ParseFaults decodes the admin API's JSON list of faults (also used for the binary's --faults flag).
func ParseFaults(data []byte) ([]Fault, error) { return hub.ParseFaults(data) }
