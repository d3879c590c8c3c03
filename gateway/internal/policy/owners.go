package policy

import (
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// A tool that creates a repository (create_repository, fork_repository)
// names no existing repository for the repos globs to match: it names the
// owner the new repository will belong to, in a field marked
// RESOURCE_KIND_OWNER. For a principal with repos globs, a writing tool's
// owner is allowed when one of its globs covers every repository that
// owner could get, that is a glob whose owner part matches the owner
// (case-insensitively, globs allowed) and whose name part is "*":
// "octo-org/*" allows creating in octo-org, "octo-org/agent-*" does not
// (the new name is not known to the policy, and the answer naming it would
// be refused anyway). A marked field left empty means the identity's own
// account, whose login the gateway does not know: it is allowed only by a
// glob covering every owner ("*/*"). Read-only tools' owner fields are
// filters (list_repositories): they are not checked, and their answers are
// confined to the repos globs like every list (Confine).

// ownerAllowed reports whether pr's repos globs cover every repository of
// owner ("" for any owner): true without a principal or without globs.
func ownerAllowed(pr *Principal, owner string) bool {
	if pr == nil || len(pr.Repos) == 0 {
		return true
	}
	o := strings.ToLower(owner)
	for _, g := range pr.Repos {
		gOwner, name, ok := strings.Cut(strings.ToLower(g), "/")
		if !ok || name != "*" {
			continue
		}
		if owner == "" && gOwner == "*" || owner != "" && match(gOwner, o) {
			return true
		}
	}
	return false
}

// CheckOwners decides on the owners a writing tool's request names (every
// top-level string field marked RESOURCE_KIND_OWNER, set or not): nil when
// pr's repos globs cover each, else the denial. Read-only tools pass.
func CheckOwners(pr *Principal, readOnly bool, req proto.Message) *Denial {
	if readOnly || pr == nil || len(pr.Repos) == 0 || req == nil {
		return nil
	}
	m := req.ProtoReflect()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.StringKind || fd.IsList() || fd.IsMap() || ResourceKind(fd) != ghopsv1.ResourceKind_RESOURCE_KIND_OWNER {
			continue
		}
		owner := m.Get(fd).String()
		if ownerAllowed(pr, owner) {
			continue
		}
		detail := "allowed repositories: " + strings.Join(pr.Repos, ", ")
		if owner == "" {
			detail = "name the " + string(fd.Name()) + ": without one the new repository belongs to the service's own account, which only a */* glob covers; " + detail
		}
		return &Denial{Rule: "repos", Detail: detail}
	}
	return nil
}
