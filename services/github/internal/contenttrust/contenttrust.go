// Package contenttrust withholds, from the service's answers, text written
// by GitHub users who cannot write to the repository, when the call's
// principal trusts only collaborators (the gateway's -content-trust and the
// policy file's content_trust, sent as callmeta.ContentTrust).
//
// Text on a public repository can be written by anyone: an issue, a
// comment or a pull request's description may carry instructions for the
// model that reads the answer (prompt injection). With
// content_trust=collaborators the server interceptor Unary replaces, in every
// message of the answer whose field marked (ghops.v1.content) =
// CONTENT_AUTHOR_ASSOCIATION is not OWNER, MEMBER or COLLABORATOR, each
// non-empty singular string field marked CONTENT_USER_TEXT with a marker
// that names the author (the field marked CONTENT_AUTHOR), the association
// and the rule. The association itself is always left in the answer, so
// the model sees who wrote each item. Everything is read from the
// descriptors, so a new answer message with the markings is covered without
// code.
//
// What it does not do (docs/security.md):
//
//   - It is not an authorization boundary: the text is still on GitHub,
//     and anyone whose token can read the repository can read it. It
//     narrows what the model reads, nothing more. A caller can only narrow
//     its own view with callmeta.ContentTrust, so the service honours the
//     value from any authenticated caller.
//   - Private repositories are left alone: only people given access write
//     there. A repository's visibility is GitHub's "private" flag from GET
//     /repos/{owner}/{repo} (conditional, through the service's cache),
//     asked only when the setting is collaborators; when GitHub does not
//     answer, the repository counts as public and the text is withheld.
//   - Text in a message with no association field (a commit message, a
//     check run's title) is passed: GitHub names no association for it, and
//     commits on a repository's branches got there through someone with
//     write access. Repeated fields (label names) are passed: they are
//     chosen by people with triage access, not by the item's author.
//   - An empty association (GitHub sent none) counts as untrusted.
package contenttrust

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/infra/callmeta"
	"ghops.dev/services/github/internal/contentclean"

	"ghops.dev/services/github/internal/reposcope"
)

// Visibility reports whether repository repo ("owner/name") is private, as
// GitHub answers it to the call in ctx.
type Visibility func(ctx context.Context, repo string) (private bool, err error)

// Guard is the content-trust interceptor's state.
type Guard struct {
	// Visibility looks repositories up; a failed lookup counts as public.
	Visibility Visibility
	// OnWithheld, when set, is told how many texts an answer of method
	// withheld (for a metric); it is called only when n > 0.
	OnWithheld func(method string, n int)
}

// Collaborators reports whether the call in ctx trusts only
// collaborators' text: its metadata carries callmeta.ContentTrust with
// the value callmeta.ContentTrustCollaborators (several values: any of
// them, since each can only narrow).
func Collaborators(ctx context.Context) bool {
	for _, v := range metadata.ValueFromIncomingContext(ctx, callmeta.ContentTrust) {
		if strings.EqualFold(strings.TrimSpace(v), callmeta.ContentTrustCollaborators) {
			return true
		}
	}
	return false
}

// Unary is the server interceptor: after the handler, with
// content_trust=collaborators, it withholds untrusted text from the answer
// (see the package doc). It runs after reposcope.Unary, so that the
// visibility lookup of the request's repository is in the call's scope.
func (g *Guard) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err != nil || !Collaborators(ctx) {
		return resp, err
	}
	m, ok := resp.(proto.Message)
	if !ok {
		return resp, nil
	}
	repo := ""
	if r, ok := req.(proto.Message); ok {
		if repos := reposcope.Repositories(r); len(repos) == 1 {
			repo = repos[0]
		}
	}
	n := g.Withhold(ctx, repo, m)
	if n > 0 && g.OnWithheld != nil && info != nil {
		g.OnWithheld(info.FullMethod, n)
	}
	return resp, nil
}

// Withhold replaces the untrusted text of answer msg (see the package
// doc) and returns how many texts it replaced. repo is the repository the
// request named ("" when none or several): a message's own field marked
// RESOURCE_KIND_REPOSITORY (a search item's) names the repository of its
// text instead. The count is added to the answer's top-level
// ContentReport (texts_withheld) when it is not 0. msg must be the call's own answer, not a shared value.
func (g *Guard) Withhold(ctx context.Context, repo string, msg proto.Message) int {
	w := &walk{ctx: ctx, g: g, private: map[string]bool{}}
	m := msg.ProtoReflect()
	w.message(m, repo, 0)
	if w.n > 0 {
		// The answer's one content report, which package contentclean adds
		// its own counts to: set only when something was withheld, so that
		// an answer with nothing withheld is GitHub's.
		if rep := contentclean.ReportOf(m); rep != nil {
			rep.TextsWithheld += int32(w.n)
		}
	}
	return w.n
}

// maxDepth bounds the walk: answers nest a few levels.
const maxDepth = 16

type walk struct {
	ctx     context.Context
	g       *Guard
	private map[string]bool // per call: repository -> private
	n       int
}

// isPrivate looks repo up once per call; "" (unknown) and failures are
// public.
func (w *walk) isPrivate(repo string) bool {
	if repo == "" || w.g.Visibility == nil {
		return false
	}
	key := strings.ToLower(repo)
	if p, ok := w.private[key]; ok {
		return p
	}
	// A search item's repository is GitHub's, not the request's: the one
	// read of its visibility is allowed past the call's scope.
	p, err := w.g.Visibility(reposcope.With(w.ctx, repo), repo)
	p = p && err == nil
	w.private[key] = p
	return p
}

func (w *walk) message(m protoreflect.Message, repo string, depth int) {
	if depth > maxDepth {
		return
	}
	f := fieldsOf(m.Descriptor())
	if f.repo != nil {
		if v := m.Get(f.repo).String(); v != "" {
			repo = v
		}
	}
	if f.association != nil && len(f.texts) > 0 {
		assoc := m.Get(f.association).String()
		if !Trusted(assoc) && !w.isPrivate(repo) {
			author := ""
			if f.author != nil {
				author = m.Get(f.author).String()
			}
			marker := Marker(author, assoc, repo)
			for _, fd := range f.texts {
				if m.Get(fd).String() != "" {
					m.Set(fd, protoreflect.ValueOfString(marker))
					w.n++
				}
			}
		}
	}
	for _, fd := range f.nested {
		switch {
		case fd.IsList():
			l := m.Get(fd).List()
			for i := 0; i < l.Len(); i++ {
				w.message(l.Get(i).Message(), repo, depth+1)
			}
		case fd.IsMap():
			m.Get(fd).Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
				w.message(v.Message(), repo, depth+1)
				return true
			})
		case m.Has(fd):
			w.message(m.Get(fd).Message(), repo, depth+1)
		}
	}
}

// Trusted reports whether GitHub's author_association value belongs to
// someone with write access to the repository: OWNER, MEMBER (of the
// owning organisation) or COLLABORATOR.
func Trusted(association string) bool {
	switch association {
	case "OWNER", "MEMBER", "COLLABORATOR":
		return true
	}
	return false
}

// Marker is the text that replaces a withheld one: who wrote it and why it
// is withheld, for the model and the person reading its answer.
func Marker(author, association, repo string) string {
	who := "an author"
	if author != "" {
		who = "@" + author
	}
	if association == "" {
		association = "association unknown"
	}
	where := "the repository"
	if repo != "" {
		where = repo
	}
	return fmt.Sprintf("[withheld by ghops: written by %s (%s), who has no write access to %s; content_trust=collaborators]", who, association, where)
}

// fields are one message type's marked fields.
type fields struct {
	association, author, repo protoreflect.FieldDescriptor
	texts                     []protoreflect.FieldDescriptor // singular strings marked CONTENT_USER_TEXT
	nested                    []protoreflect.FieldDescriptor // message fields, lists and maps of messages
}

var cache sync.Map // protoreflect.FullName -> *fields

func fieldsOf(md protoreflect.MessageDescriptor) *fields {
	if v, ok := cache.Load(md.FullName()); ok {
		f, _ := v.(*fields)
		return f
	}
	f := &fields{}
	fds := md.Fields()
	for i := 0; i < fds.Len(); i++ {
		fd := fds.Get(i)
		if fd.Message() != nil && (!fd.IsMap() || fd.MapValue().Message() != nil) {
			if fd.IsMap() || !strings.HasPrefix(string(fd.Message().FullName()), "google.protobuf.") {
				f.nested = append(f.nested, fd)
			}
			continue
		}
		if fd.Kind() != protoreflect.StringKind || fd.IsList() || fd.IsMap() {
			continue
		}
		switch c, _ := proto.GetExtension(fd.Options(), ghopsv1.E_Content).(ghopsv1.Content); c {
		case ghopsv1.Content_CONTENT_USER_TEXT:
			f.texts = append(f.texts, fd)
		case ghopsv1.Content_CONTENT_AUTHOR_ASSOCIATION:
			f.association = fd
		case ghopsv1.Content_CONTENT_AUTHOR:
			f.author = fd
		}
		if k, _ := proto.GetExtension(fd.Options(), ghopsv1.E_Resource).(ghopsv1.ResourceKind); k == ghopsv1.ResourceKind_RESOURCE_KIND_REPOSITORY {
			f.repo = fd
		}
	}
	cache.Store(md.FullName(), f)
	return f
}

// Covered reports whether answer type md can carry text this package
// withholds (some message in it has an association field and user text),
// for the test that every such answer reports its count.
func Covered(md protoreflect.MessageDescriptor) bool {
	return covered(md, map[protoreflect.FullName]bool{})
}

func covered(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	f := fieldsOf(md)
	if f.association != nil && len(f.texts) > 0 {
		return true
	}
	for _, fd := range f.nested {
		sub := fd.Message()
		if fd.IsMap() {
			sub = fd.MapValue().Message()
		}
		if covered(sub, seen) {
			return true
		}
	}
	return false
}
