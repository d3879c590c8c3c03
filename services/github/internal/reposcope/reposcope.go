// Package reposcope confines the service's GitHub requests to the
// repository the call is about. The gateway's policy decides on the
// repository a call names, but the service builds its URLs from other
// fields too (a branch, a path, an answer of GitHub), and URL resolution can
// turn a value into another repository's path (docs/security.md). So a
// server interceptor puts the repositories named by the request's fields
// marked (ghops.v1.resource) = RESOURCE_KIND_REPOSITORY into the call's
// context, read generically from the descriptor so that a new tool needs no
// code, and a Transport at the top of the GitHub client's stack refuses,
// without sending it, any request whose path is not under
// /repos/{owner}/{repo}/ of one of them or one of the few endpoints that
// belong to no repository (Endpoint). ghpath refuses bad values first, with
// the field's name; this is the defence for what it does not see.
package reposcope

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

type scopeKey struct{}

// With returns ctx whose requests may also reach the repositories repos
// ("owner/name"). Handlers use it only for a repository of the service's
// own configuration (validate_environment's default), never for input.
func With(ctx context.Context, repos ...string) context.Context {
	prev, _ := ctx.Value(scopeKey{}).([]string)
	next := append(append([]string(nil), prev...), repos...)
	return context.WithValue(ctx, scopeKey{}, next)
}

// From returns the repositories the call in ctx may reach.
func From(ctx context.Context) []string {
	repos, _ := ctx.Value(scopeKey{}).([]string)
	return repos
}

type ownerKey struct{}

// withOwners returns ctx whose requests may also reach the account-level
// repository endpoints of owners (user or organization logins).
func withOwners(ctx context.Context, owners ...string) context.Context {
	prev, _ := ctx.Value(ownerKey{}).([]string)
	return context.WithValue(ctx, ownerKey{}, append(append([]string(nil), prev...), owners...))
}

// repoFields caches, per request type, its fields marked as repositories;
// ownerFields those marked as owners.
var repoFields, ownerFields sync.Map // protoreflect.FullName -> []protoreflect.FieldDescriptor

func fieldsOf(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	return markedFields(&repoFields, md, ghopsv1.ResourceKind_RESOURCE_KIND_REPOSITORY)
}

// markedFields returns md's top-level singular string fields marked kind,
// cached in cache.
func markedFields(cache *sync.Map, md protoreflect.MessageDescriptor, kind ghopsv1.ResourceKind) []protoreflect.FieldDescriptor {
	if v, ok := cache.Load(md.FullName()); ok {
		fds, _ := v.([]protoreflect.FieldDescriptor)
		return fds
	}
	var fds []protoreflect.FieldDescriptor
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.StringKind || fd.IsList() || fd.IsMap() {
			continue
		}
		if k, _ := proto.GetExtension(fd.Options(), ghopsv1.E_Resource).(ghopsv1.ResourceKind); k == kind {
			fds = append(fds, fd)
		}
	}
	cache.Store(md.FullName(), fds)
	return fds
}

// Repositories returns the values of msg's top-level fields marked as
// repositories, the empty ones left out.
func Repositories(msg proto.Message) []string {
	return values(msg, fieldsOf(msg.ProtoReflect().Descriptor()))
}

// Owners returns the values of msg's top-level fields marked as owners
// (RESOURCE_KIND_OWNER), the empty ones left out.
func Owners(msg proto.Message) []string {
	return values(msg, markedFields(&ownerFields, msg.ProtoReflect().Descriptor(), ghopsv1.ResourceKind_RESOURCE_KIND_OWNER))
}

// values returns the non-empty values of fds in msg.
func values(msg proto.Message, fds []protoreflect.FieldDescriptor) []string {
	m := msg.ProtoReflect()
	var out []string
	for _, fd := range fds {
		if v := m.Get(fd).String(); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Unary is the server interceptor that scopes each call to the
// repositories its request names. It runs after validation, so the values
// already obey the contract. Streaming RPCs get no scope (only the
// Endpoint allowlist): the service has no streaming tool.
func Unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if m, ok := req.(proto.Message); ok {
		if repos := Repositories(m); len(repos) > 0 {
			ctx = With(ctx, repos...)
		}
		if owners := Owners(m); len(owners) > 0 {
			ctx = withOwners(ctx, owners...)
		}
	}
	return handler(ctx, req)
}

// Endpoint is a request that belongs to no repository and is allowed
// whatever the scope: Path is the URL's escaped path, in full. A call whose
// request names an owner (fields marked RESOURCE_KIND_OWNER) may also reach
// that owner's repository list (GET users/{owner}/repos, GET and POST
// orgs/{owner}/repos), and no other account's.
type Endpoint struct {
	Method, Path string
}

// Endpoints lists what the service legitimately calls outside any
// repository, for the GitHub API at base (with its trailing slash) and the
// GraphQL endpoint graphql: search (the search, search_issues and
// search_code tools), the token's user and the rate limits
// (validate_environment, get_me), the repositories the identity reaches and
// creates (list_repositories and create_repository without an owner: GET
// and POST user/repos, GET installation/repositories) and GraphQL
// (update_pull_request's draft flag, which REST cannot change). Search spans repositories by design: the query
// names them (repo:, org:), not a field this guard could read, so what a
// search may reach is the gateway's to confine, by the answer items' fields
// marked as repositories; the requests themselves only read.
func Endpoints(base, graphql *url.URL) []Endpoint {
	p := base.EscapedPath()
	return []Endpoint{
		{http.MethodGet, p + "search/repositories"},
		{http.MethodGet, p + "search/issues"},
		{http.MethodGet, p + "search/code"},
		{http.MethodGet, p + "user"},
		{http.MethodGet, p + "rate_limit"},
		{http.MethodGet, p + "user/repos"},
		{http.MethodPost, p + "user/repos"},
		{http.MethodGet, p + "installation/repositories"},
		{http.MethodPost, graphql.EscapedPath()},
	}
}

// Refused is the error of a request the Transport did not send. It names
// the method and path (no query: a value there is no secret, but it is not
// needed) for the service's log; callers answer an internal error.
type Refused struct {
	Method, Path, Why string
}

// Error implements error.
func (e *Refused) Error() string {
	return fmt.Sprintf("request outside the call's repository not sent: %s %s: %s", e.Method, e.Path, e.Why)
}

// Transport refuses the requests that leave the call's scope and passes
// the others to Base. API is the GitHub API's base URL (with its trailing
// slash): requests to another scheme or host, or outside its path, are
// refused too.
type Transport struct {
	Base  http.RoundTripper
	API   *url.URL
	Allow []Endpoint
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.check(req); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return t.Base.RoundTrip(req)
}

func (t *Transport) check(req *http.Request) error {
	path := req.URL.EscapedPath()
	refuse := func(why string) error { return &Refused{Method: req.Method, Path: path, Why: why} }
	if !strings.EqualFold(req.URL.Scheme, t.API.Scheme) || !strings.EqualFold(req.URL.Host, t.API.Host) {
		return refuse("not the GitHub API's host")
	}
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		s, err := url.PathUnescape(seg)
		switch {
		case err != nil:
			return refuse("a segment is not valid escaping")
		case s == "" && i != 0 && i != len(segs)-1:
			return refuse("empty segment")
		case s == "." || s == ".." || strings.Contains(s, "/"):
			return refuse(`a "." or ".." segment or an escaped "/"`)
		}
	}
	for _, e := range t.Allow {
		if req.Method == e.Method && path == e.Path {
			return nil
		}
	}
	base := t.API.EscapedPath()
	rest, ok := strings.CutPrefix(path, base)
	if !ok {
		return refuse("outside the GitHub API")
	}
	parts := strings.SplitN(rest, "/", 4)
	if len(parts) == 3 && parts[2] == "repos" && (parts[0] == "orgs" || parts[0] == "users" && req.Method == http.MethodGet) {
		if owner, _ := url.PathUnescape(parts[1]); ownerInScope(req.Context(), owner) {
			return nil
		}
		return refuse("not the owner of the call")
	}
	if len(parts) < 3 || parts[0] != "repos" {
		return refuse("not a repository's endpoint")
	}
	owner, _ := url.PathUnescape(parts[1])
	name, _ := url.PathUnescape(parts[2])
	if owner == "" || name == "" {
		return refuse("no owner or no name")
	}
	if inScope(req.Context(), owner, name) {
		return nil
	}
	return refuse("not the repository of the call")
}

// inScope reports whether owner/name is one of the repositories of the
// call in ctx, compared as GitHub compares them (case-insensitively).
func inScope(ctx context.Context, owner, name string) bool {
	for _, r := range From(ctx) {
		// A scope value that is not "owner/name" (validation would have
		// refused it) scopes nothing.
		o, n, ok := strings.Cut(r, "/")
		if ok && o != "" && n != "" && !strings.Contains(n, "/") && strings.EqualFold(o, owner) && strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// ownerInScope reports whether owner is an owner the call in ctx names,
// compared case-insensitively as GitHub compares logins.
func ownerInScope(ctx context.Context, owner string) bool {
	owners, _ := ctx.Value(ownerKey{}).([]string)
	for _, o := range owners {
		if owner != "" && strings.EqualFold(o, owner) {
			return true
		}
	}
	return false
}

// CheckNamed is the guard for a request that names its repository in its
// body rather than its path: a GraphQL mutation passes the Transport as an
// Endpoint (POST /graphql), so its builder calls CheckNamed with the
// repository the body will name ("owner/name", as in the mutation's
// repositoryNameWithOwner) before sending it. It answers a *Refused, for
// the service's log and an internal error, when that repository is not one
// of the call's in ctx; nothing is sent then.
func CheckNamed(ctx context.Context, what, repo string) error {
	owner, name, ok := strings.Cut(repo, "/")
	if ok && owner != "" && name != "" && !strings.Contains(name, "/") && inScope(ctx, owner, name) {
		return nil
	}
	return &Refused{Method: http.MethodPost, Path: what, Why: "the body names a repository that is not the call's"}
}
