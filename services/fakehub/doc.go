// Package fakehub provides a stateful GitHub REST API emulator for tests, benchmarks and demos: real
// git objects and merges, tokens with per-repository permissions, GitHub's error bodies and rate
// limits, ETags and paging, fault injection and request accounting. Start it in-process with New and
// serve it with any http.Server (or fakehubtest.Start), or run cmd/fakehub.
//
// Its answers are held to GitHub's own OpenAPI description: the conformance test
// (conformance_test.go) checks status, headers and body of every operation it serves against
// testdata/openapi-subset.json, which cmd/openapi-subset cuts out of the npm package
// @octokit/openapi (testdata/README.md).
//
// # Layout
//
// The emulator is organised as GitHub is. internal/hub holds the shared state (repositories, pull
// requests, issues, workflow runs, tokens, the lock), the request context and reply (ReqCtx,
// Reply, WithRepo, paging, error bodies), the serving layer (authentication, rate limits, faults,
// ETags, accounting) and the Go API behind Hub's methods. Each area is a package that registers its
// routes: internal/gitdata (git data, contents, commits, branches, compare, raw downloads),
// internal/pulls, internal/issues, internal/actions, internal/search and internal/graphqlapi
// (the GraphQL endpoint and its mutations); internal/seed writes the demo dataset; internal/admin
// and internal/faults serve /_fakehub/ and fault injection. This package only assembles them (New)
// and keeps the exported API as aliases of package hub.
//
// # Adding an endpoint
//
//  1. Write its handler in the area's package as a method of that package's api type (a
//     *hub.Hub): func (h *api) getThing(c *hub.ReqCtx, r *hub.Repo) *hub.Reply.
//  2. Register it in the area's register method with add(method, OpenAPI template,
//     h.WithRepo(hub.PermRead or hub.PermWrite, h.getThing)); a GET runs under the shared lock
//     unless it passes a settled predicate (see hub.AddFunc). A new area gets a Register function
//     and a place in New's list, whose order is the routing order.
//  3. State that several areas share goes into internal/hub (exported); state only the area
//     reads stays in the area.
//  4. Demo data goes into internal/seed; a conformance case for every new operation goes into
//     conformance_cases_test.go (GraphQL: graphql_conformance_test.go), and the route's OpenAPI
//     operation into testdata/openapi-subset.json through cmd/openapi-subset.
package fakehub
