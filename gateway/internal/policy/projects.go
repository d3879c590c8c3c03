package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// GitHub Projects belong to a user or an organization, not to a
// repository, so repos globs cannot decide on them: a principal's projects
// globs do, for every request field the contract marks as a project
// reference (RESOURCE_KIND_PROJECT, "owner/number"), read from the
// descriptors like repositories. A tool that also names a repository (an
// issue added to a project) needs both allowed. A project's items from
// repositories outside the principal's repos are withheld by Confine like
// any list entry that names such a repository, and counted in the answer's
// withheld field.

// checkProjectGlobs refuses a projects entry that is no owner/number glob.
func checkProjectGlobs(where string, globs []string) []error {
	var errs []error
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil || strings.Count(g, "/") != 1 {
			errs = append(errs, fmt.Errorf("%s: projects glob %q must look like owner/number (globs allowed)", where, g))
		}
	}
	return errs
}

// ProjectAllowed reports whether pr may touch project ref ("owner/number",
// owner in any case): true without a principal or without projects globs.
func ProjectAllowed(pr *Principal, ref string) bool {
	if pr == nil || len(pr.Projects) == 0 {
		return true
	}
	c := strings.ToLower(ref)
	return slices.ContainsFunc(pr.Projects, func(g string) bool { return match(strings.ToLower(g), c) })
}

// Projects returns the value of every project-marked string field of m's
// top level (project references are never nested in a request).
func Projects(m proto.Message) []string {
	if m == nil {
		return nil
	}
	var out []string
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() == protoreflect.StringKind && !fd.IsList() && !fd.IsMap() && ResourceKind(fd) == ghopsv1.ResourceKind_RESOURCE_KIND_PROJECT {
			out = append(out, v.String())
		}
		return true
	})
	return out
}

// CheckProjects decides on the projects req names: nil when pr may touch
// every one, else the denial naming its projects globs.
func CheckProjects(pr *Principal, req proto.Message) *Denial {
	if pr == nil || len(pr.Projects) == 0 {
		return nil
	}
	for _, ref := range Projects(req) {
		if !ProjectAllowed(pr, ref) {
			return &Denial{Rule: "projects", Detail: "allowed projects: " + strings.Join(pr.Projects, ", ")}
		}
	}
	return nil
}
