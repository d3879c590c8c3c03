package policy

import (
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// Resources are read from the descriptors: the contract marks every field
// that names a repository, ref or path (and the numbers of issues, pull
// requests, runs, jobs and comments, which the audit names and the policy
// does not read) with the field option (ghops.v1.resource)
// (proto/ghops/v1/tool.proto), so a new tool whose fields carry the
// marking is covered without code here.

// fieldKinds caches each field's resource kind.
var fieldKinds sync.Map // protoreflect.FullName -> ghopsv1.ResourceKind

// ResourceKind returns the resource kind fd is marked with
// (RESOURCE_KIND_UNSPECIFIED for none).
func ResourceKind(fd protoreflect.FieldDescriptor) ghopsv1.ResourceKind {
	if k, ok := fieldKinds.Load(fd.FullName()); ok {
		return k.(ghopsv1.ResourceKind)
	}
	k := ghopsv1.ResourceKind_RESOURCE_KIND_UNSPECIFIED
	if opts := fd.Options(); opts != nil && proto.HasExtension(opts, ghopsv1.E_Resource) {
		k = proto.GetExtension(opts, ghopsv1.E_Resource).(ghopsv1.ResourceKind)
	}
	fieldKinds.Store(fd.FullName(), k)
	return k
}

// isRepo reports whether fd is a string field naming repositories.
func isRepo(fd protoreflect.FieldDescriptor) bool {
	return fd.Kind() == protoreflect.StringKind && ResourceKind(fd) == ghopsv1.ResourceKind_RESOURCE_KIND_REPOSITORY
}

// maxDepth bounds the walk over nested messages (the contract nests a few
// levels; a deeper message is not walked further, and Repos reports it).
const maxDepth = 16

// Repos returns the value of every repository-marked field of m, at any
// depth (repeated fields included), as sent: the policy checks each one.
// ok is false when m nests deeper than the walk goes, which the caller
// refuses rather than deciding on part of the request.
func Repos(m proto.Message) (repos []string, ok bool) {
	if m == nil {
		return nil, true
	}
	ok = collect(m.ProtoReflect(), 0, &repos)
	return repos, ok
}

// collect appends m's repository values to out.
func collect(m protoreflect.Message, depth int, out *[]string) bool {
	if depth > maxDepth {
		return false
	}
	ok := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
		case isRepo(fd):
			if fd.IsList() {
				for i := range v.List().Len() {
					*out = append(*out, v.List().Get(i).String())
				}
			} else if s := v.String(); s != "" {
				*out = append(*out, s)
			}
		case fd.Kind() == protoreflect.MessageKind && fd.IsList():
			for i := range v.List().Len() {
				ok = ok && collect(v.List().Get(i).Message(), depth+1, out)
			}
		case fd.Kind() == protoreflect.MessageKind:
			ok = ok && collect(v.Message(), depth+1, out)
		}
		return ok
	})
	return ok
}

// Confine removes from an answer m what pr may not see: every element of
// a repeated message field that names (at any depth) a repository outside
// pr's repos globs, and every such value of a repeated repository field.
// A message level that lost (or may have lost) elements this way has its
// integer total_count field set to what it still lists: for a confined
// principal total_count is the number of results of this page it may see,
// never GitHub's count of all matches (docs/security.md). A singular
// repository field outside the globs (GitHub answered about another
// repository than the one asked for, a renamed one say) cannot be
// removed: Confine returns it, and the caller refuses the whole answer.
// Nothing is touched when pr has no repos globs.
func Confine(pr *Principal, m proto.Message) (denied string) {
	if pr == nil || len(pr.Repos) == 0 || m == nil {
		return ""
	}
	return confine(pr, m.ProtoReflect(), 0)
}

// confine filters one message level.
func confine(pr *Principal, m protoreflect.Message, depth int) string {
	if depth > maxDepth {
		return "(nested too deep)"
	}
	denied, lists, kept, removed := "", 0, 0, 0
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
		case isRepo(fd) && fd.IsList():
			l := v.List()
			n := 0
			for i := range l.Len() {
				if s := l.Get(i).String(); RepoAllowed(pr, s) {
					l.Set(n, l.Get(i))
					n++
				}
			}
			l.Truncate(n)
		case isRepo(fd):
			if s := v.String(); s != "" && !RepoAllowed(pr, s) {
				denied = s
			}
		case fd.Kind() == protoreflect.MessageKind && fd.IsList():
			// Below, with the empty lists.
		case fd.Kind() == protoreflect.MessageKind:
			denied = confine(pr, v.Message(), depth+1)
		}
		return denied == ""
	})
	if denied != "" {
		return denied
	}
	// Every list of results that may name repositories counts, the empty
	// ones too: GitHub's total_count beside an empty page still tells how
	// many matches exist.
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsMap() || !fd.IsList() || fd.Kind() != protoreflect.MessageKind || !namesRepos(fd.Message(), 0) {
			continue
		}
		l := m.Mutable(fd).List()
		n := 0
		for j := range l.Len() {
			if confine(pr, l.Get(j).Message(), depth+1) == "" {
				l.Set(n, l.Get(j))
				n++
			}
		}
		removed += l.Len() - n
		l.Truncate(n)
		lists++
		kept += n
	}
	if removed > 0 {
		// An answer that counts what it withholds (a project's items of
		// repositories outside the globs) counts these too.
		if fd := m.Descriptor().Fields().ByName("withheld"); fd != nil && !fd.IsList() && fd.Kind() == protoreflect.Int32Kind {
			m.Set(fd, protoreflect.ValueOfInt32(int32(m.Get(fd).Int())+int32(removed)))
		}
	}
	if lists > 0 {
		if fd := m.Descriptor().Fields().ByName("total_count"); fd != nil && !fd.IsList() {
			switch fd.Kind() {
			case protoreflect.Int32Kind:
				m.Set(fd, protoreflect.ValueOfInt32(int32(kept)))
			case protoreflect.Int64Kind:
				m.Set(fd, protoreflect.ValueOfInt64(int64(kept)))
			}
		}
	}
	return ""
}

// messageRepos caches namesRepos by message.
var messageRepos sync.Map // protoreflect.FullName -> bool

// namesRepos reports whether messages of type md carry a repository field
// at some depth (their lists are the ones Confine filters).
func namesRepos(md protoreflect.MessageDescriptor, depth int) bool {
	if v, ok := messageRepos.Load(md.FullName()); ok {
		return v.(bool)
	}
	r := walkRepos(md, depth)
	if depth == 0 {
		messageRepos.Store(md.FullName(), r)
	}
	return r
}

// walkRepos is namesRepos without the cache.
func walkRepos(md protoreflect.MessageDescriptor, depth int) bool {
	if depth > maxDepth {
		return false
	}
	fs := md.Fields()
	for i := range fs.Len() {
		fd := fs.Get(i)
		switch {
		case fd.IsMap():
		case isRepo(fd):
			return true
		case fd.Kind() == protoreflect.MessageKind && namesRepos(fd.Message(), depth+1):
			return true
		}
	}
	return false
}
