// Package contentclean cleans the service's answers of what GitHub's users
// wrote or their builds printed before a model reads it (docs/security.md,
// the content threat). It works from the descriptors alone, like package
// reposcope: every answer field marked (ghops.v1.content) =
// CONTENT_USER_TEXT or CONTENT_LOG, at any depth (nested messages, repeated
// fields, map values), loses its invisible characters and terminal control
// sequences (package textclean) and has its secrets replaced by
// redact.Mark (package redact's Secrets: fixed token shapes and the
// service's own credentials). A new tool whose answer fields carry the
// marking is covered with no code here.
//
// Nothing is silently different: what was removed is counted in the
// answer's content_report field (ghopsv1.ContentReport), set only when
// something was removed, so that an answer whose text was clean is byte for
// byte what it was without this package; and in the service's metrics. The
// report is per answer, with the paths of the changed fields, rather than a
// count beside every marked field: one field per answer keeps the answers'
// shapes (and their goldens) unchanged and tells the model in one place.
//
// Fields not marked are never touched; file contents (read_file, the
// README) are deliberately unmarked, because an agent writes them back and
// they must stay byte-exact.
package contentclean

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/infra/callmeta"
	"ghops.dev/services/github/internal/textclean"
)

// ReportField is the name of the field, in every answer with marked fields,
// that holds the answer's ghopsv1.ContentReport.
const ReportField = "content_report"

// MaxReportFields caps ContentReport.fields.
const MaxReportFields = 20

// Metric kinds passed to a Cleaner's count hook.
const (
	KindInvisible = "invisible"
	KindControl   = "control"
	KindSecret    = "secret"
)

// Cleaner cleans answers. Its zero value cleans without known secrets and
// counts nothing.
type Cleaner struct {
	known []string
	count func(kind string, n int)
}

// New returns a Cleaner that also redacts every occurrence of the known
// secrets (the service's token, the lines of its App key, the secrets
// callers authenticate with) and reports what it removed to count (the
// service's metrics; nil for none).
func New(known []string, count func(kind string, n int)) *Cleaner {
	var k []string
	for _, s := range known {
		if s = strings.TrimSpace(s); s != "" {
			k = append(k, s)
		}
	}
	return &Cleaner{known: k, count: count}
}

// KeyLines returns the lines of a PEM private key that are worth redacting
// wherever they appear on their own (a build that prints a key prints it
// line by line): the base64 lines, not the headers or a short last line.
func KeyLines(pem []byte) []string {
	var out []string
	for _, l := range strings.Split(string(pem), "\n") {
		if l = strings.TrimSpace(l); len(l) >= 16 && !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}

// Unary is the server interceptor that cleans each successful answer. The
// secrets a caller sent (its own GitHub token, x-github-token) are redacted
// too.
func (c *Cleaner) Unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err != nil {
		return resp, err
	}
	if m, ok := resp.(proto.Message); ok && m != nil {
		known := c.known
		if v := metadata.ValueFromIncomingContext(ctx, callmeta.GitHubToken); len(v) > 0 && v[0] != "" {
			known = append(append([]string(nil), known...), v[0])
		}
		c.clean(m, known)
	}
	return resp, nil
}

// Clean cleans msg in place, sets its content_report when something was
// removed (adding to a report already there), and returns that report (nil
// when nothing was removed).
func (c *Cleaner) Clean(msg proto.Message) *ghopsv1.ContentReport {
	return c.clean(msg, c.known)
}

func (c *Cleaner) clean(msg proto.Message, known []string) *ghopsv1.ContentReport {
	m := msg.ProtoReflect()
	if !m.IsValid() {
		return nil
	}
	p := planFor(m.Descriptor())
	if p.empty() {
		return nil
	}
	w := walker{known: known}
	w.message(m, p)
	var rep *ghopsv1.ContentReport // a report set earlier (AddLog, content trust), or nil
	if p.report != nil && m.Has(p.report) {
		rep, _ = m.Get(p.report).Message().Interface().(*ghopsv1.ContentReport)
	}
	if !w.changed() && rep == nil {
		return nil
	}
	if rep == nil {
		if rep = ReportOf(m); rep == nil {
			rep = &ghopsv1.ContentReport{} // an answer without the field: returned only
		}
	}
	rep.InvisibleRemoved += int32(w.removed.Invisible)
	rep.ControlsRemoved += int32(w.removed.Controls)
	rep.SecretsRedacted += int32(w.secrets)
	addFields(rep, w.fields...)
	if c.count != nil {
		// The whole report, so that what handlers removed while reading
		// (AddLog) is counted too.
		c.count(KindInvisible, int(rep.InvisibleRemoved))
		c.count(KindControl, int(rep.ControlsRemoved))
		c.count(KindSecret, int(rep.SecretsRedacted))
	}
	return rep
}

// addFields adds the paths not yet in rep.Fields, up to MaxReportFields.
func addFields(rep *ghopsv1.ContentReport, fields ...string) {
	for _, f := range fields {
		if len(rep.Fields) < MaxReportFields && !slices.Contains(rep.Fields, f) {
			rep.Fields = append(rep.Fields, f)
		}
	}
}

// AddLog adds to rep what was removed from log lines that were cleaned
// while they were read (package joblog cleans each line before it caps it
// and looks for errors, so that the caps count what the model reads):
// removed, from the lines at the indexes cleaned of the list at path (for
// example "lines"). It returns rep, created when nil and something was
// removed; nil when nothing was.
func AddLog(rep *ghopsv1.ContentReport, removed textclean.Removed, cleaned []int, path string) *ghopsv1.ContentReport {
	if !removed.Any() {
		return rep
	}
	if rep == nil {
		rep = &ghopsv1.ContentReport{}
	}
	rep.InvisibleRemoved += int32(removed.Invisible)
	rep.ControlsRemoved += int32(removed.Controls)
	for _, i := range cleaned {
		addFields(rep, path+"["+strconv.Itoa(i)+"]")
	}
	return rep
}

// textField is a marked string field.
type textField struct {
	fd  protoreflect.FieldDescriptor
	log bool
}

// plan is what to visit in one message type: its marked fields, the
// message fields under which marked fields lie, and its report field.
type plan struct {
	texts  []textField
	nested []nestedField
	report protoreflect.FieldDescriptor
}

type nestedField struct {
	fd   protoreflect.FieldDescriptor
	plan *plan
}

func (p *plan) empty() bool { return len(p.texts) == 0 && len(p.nested) == 0 }

var (
	plansMu sync.Mutex
	plans   sync.Map // protoreflect.FullName -> *plan
)

// ReportOf returns answer m's content report, setting an empty one on m
// first when it has none; nil when m's type has no report field. Every
// writer of the report (this package, content trust) goes through it, so
// that they add to one report.
func ReportOf(m protoreflect.Message) *ghopsv1.ContentReport {
	fd := planFor(m.Descriptor()).report
	if fd == nil {
		return nil
	}
	if m.Has(fd) {
		if r, ok := m.Get(fd).Message().Interface().(*ghopsv1.ContentReport); ok {
			return r
		}
	}
	r := &ghopsv1.ContentReport{}
	m.Set(fd, protoreflect.ValueOfMessage(r.ProtoReflect()))
	return r
}

// HasReport reports whether answer type md has the content report field.
func HasReport(md protoreflect.MessageDescriptor) bool { return planFor(md).report != nil }

// planFor returns md's plan, computed once per message type so that an
// answer without marked fields costs one map lookup.
func planFor(md protoreflect.MessageDescriptor) *plan {
	if p, ok := plans.Load(md.FullName()); ok {
		return p.(*plan)
	}
	plansMu.Lock()
	defer plansMu.Unlock()
	return build(md, map[protoreflect.FullName]*plan{})
}

// build computes md's plan and those of the types under it, storing each.
// A type met again while being built (a recursive type) is visited: its
// plan is shared, filled in by the time it is used.
func build(md protoreflect.MessageDescriptor, building map[protoreflect.FullName]*plan) *plan {
	if p, ok := plans.Load(md.FullName()); ok {
		return p.(*plan)
	}
	if p, ok := building[md.FullName()]; ok {
		return p
	}
	p := &plan{}
	building[md.FullName()] = p
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		switch {
		case fd.Kind() == protoreflect.StringKind && !fd.IsMap():
			switch k, _ := proto.GetExtension(fd.Options(), ghopsv1.E_Content).(ghopsv1.Content); k {
			case ghopsv1.Content_CONTENT_USER_TEXT:
				p.texts = append(p.texts, textField{fd: fd})
			case ghopsv1.Content_CONTENT_LOG:
				p.texts = append(p.texts, textField{fd: fd, log: true})
			}
		case fd.Name() == ReportField && fd.Message() != nil && fd.Message().FullName() == "ghops.v1.ContentReport":
			p.report = fd
		case fd.IsMap() && fd.MapValue().Message() != nil:
			p.nest(fd, fd.MapValue().Message(), building)
		case !fd.IsMap() && fd.Message() != nil:
			p.nest(fd, fd.Message(), building)
		}
	}
	delete(building, md.FullName())
	plans.Store(md.FullName(), p)
	return p
}

// nest adds the message field fd, of type md, when marked fields lie under
// it (or may: md is still being built).
func (p *plan) nest(fd protoreflect.FieldDescriptor, md protoreflect.MessageDescriptor, building map[protoreflect.FullName]*plan) {
	sub := build(md, building)
	if _, open := building[md.FullName()]; open || !sub.empty() {
		p.nested = append(p.nested, nestedField{fd: fd, plan: sub})
	}
}
