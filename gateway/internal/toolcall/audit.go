package toolcall

import (
	"context"
	"log/slog"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/redact"

	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
)

// resourceDepth is how deep the audit looks into an answer for the
// resources a write created (create_issue's issue.number is one level
// down); requests name theirs at the top level.
const resourceDepth = 2

// resource is one thing a write acted on, as the audit record names it:
// Kind is the marking's name without its prefix, lower-cased ("repository",
// "ref", "issue", "pull_request", "run", "job", "comment", "path"), so a
// new ResourceKind is named without code here.
type resource struct {
	Kind  string
	Value string // strings as sent (redacted); numbers in decimal
	num   int64
	isNum bool
}

// kindName is k's name in the audit record.
func kindName(k ghopsv1.ResourceKind) string {
	return strings.ToLower(strings.TrimPrefix(k.String(), "RESOURCE_KIND_"))
}

// resourcesOf lists what a write names, from the fields marked
// (ghops.v1.resource) (proto/ghops/v1/tool.proto), never from field names:
// the request's singular top-level fields first, then, when the write
// succeeded (resp non-nil), the answer's singular fields down to
// resourceDepth, for what the write created (the new issue's number, the
// comment's id). One value per kind, the first found in field order
// (create_pull_request's head before its base); unset fields name nothing.
func resourcesOf(req, resp proto.Message) []resource {
	var out []resource
	seen := map[ghopsv1.ResourceKind]bool{}
	var visit func(m protoreflect.Message, depth int)
	visit = func(m protoreflect.Message, depth int) {
		fields := m.Descriptor().Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if fd.IsList() || fd.IsMap() || !m.Has(fd) {
				continue
			}
			if fd.Kind() == protoreflect.MessageKind {
				if depth+1 < resourceDepth {
					visit(m.Get(fd).Message(), depth+1)
				}
				continue
			}
			k := policy.ResourceKind(fd)
			if k == ghopsv1.ResourceKind_RESOURCE_KIND_UNSPECIFIED || seen[k] {
				continue
			}
			r := resource{Kind: kindName(k)}
			v := m.Get(fd)
			switch fd.Kind() {
			case protoreflect.StringKind:
				r.Value = redact.String(v.String())
			case protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Sint32Kind, protoreflect.Sint64Kind,
				protoreflect.Sfixed32Kind, protoreflect.Sfixed64Kind:
				r.num, r.isNum = v.Int(), true
				r.Value = strconv.FormatInt(r.num, 10)
			case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
				r.Value = strconv.FormatUint(v.Uint(), 10)
			default:
				continue
			}
			if r.Value == "" {
				continue
			}
			seen[k] = true
			out = append(out, r)
		}
	}
	if req != nil {
		visit(req.ProtoReflect(), resourceDepth-1) // top level only
	}
	if resp != nil {
		visit(resp.ProtoReflect(), 0)
	}
	return out
}

// resourceGroup is the record's "resource" object.
func resourceGroup(rs []resource) slog.Attr {
	attrs := make([]any, 0, len(rs))
	for _, r := range rs {
		if r.isNum {
			attrs = append(attrs, slog.Int64(r.Kind, r.num))
		} else {
			attrs = append(attrs, slog.String(r.Kind, r.Value))
		}
	}
	return slog.Group("resource", attrs...)
}

// lookup is the value of kind in rs, or "".
func lookup(rs []resource, k ghopsv1.ResourceKind) string {
	name := kindName(k)
	for _, r := range rs {
		if r.Kind == name {
			return r.Value
		}
	}
	return ""
}

// resultSHA is the commit a successful write produced: the answer's sha
// (commit_sha, head_sha; top level or one message deep), else the
// request's expected sha (merge_pull_request's head). A result, not a
// resource: no marking names it.
func resultSHA(req, resp proto.Message) string {
	find := func(m protoreflect.Message, deep bool) string {
		sha := ""
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Kind() == protoreflect.StringKind && !fd.IsList() && (fd.Name() == "sha" || fd.Name() == "commit_sha" || fd.Name() == "head_sha"):
				sha = v.String()
			case deep && fd.Kind() == protoreflect.MessageKind && !fd.IsList() && !fd.IsMap():
				sub := v.Message()
				sub.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
					if fd.Kind() == protoreflect.StringKind && !fd.IsList() && (fd.Name() == "head_sha" || fd.Name() == "sha") {
						sha = v.String()
					}
					return sha == ""
				})
			}
			return sha == ""
		})
		return sha
	}
	if resp == nil {
		return ""
	}
	if sha := find(resp.ProtoReflect(), true); sha != "" {
		return sha
	}
	if req != nil {
		return find(req.ProtoReflect(), false)
	}
	return ""
}

// writeAudit writes the one audit record of a write call: who, what, the
// resources it acted on (resourcesOf: "resource", plus "repo", "branch" and
// "pr" at the top level as before), the resulting sha and the outcome
// ("ok", the error code, or "unknown" when the answer was lost:
// rpcerror.LostAnswer). It never holds a token or key: the principal's
// name is all there is of the caller.
func (c *Caller) writeAudit(ctx context.Context, caller *policy.Caller, tool, requestID string, req, resp proto.Message, err error) {
	if c.audit == nil {
		return
	}
	outcome := "ok"
	var result proto.Message
	switch {
	case rpcerror.LostAnswer(err):
		// The write was sent and its answer lost: it may have landed, and
		// the record must not say it failed.
		outcome = rpcerror.OutcomeUnknown
	case err != nil:
		e := rpcerror.FromStatus(tool, err, requestID)
		outcome = strconv.Itoa(e.Code)
	default:
		result = resp
	}
	rs := resourcesOf(req, result)
	c.audit.LogAttrs(ctx, slog.LevelInfo, "audit",
		slog.String("principal", caller.Name()), slog.String("tool", tool),
		resourceGroup(rs),
		slog.String("repo", lookup(rs, ghopsv1.ResourceKind_RESOURCE_KIND_REPOSITORY)),
		slog.String("branch", lookup(rs, ghopsv1.ResourceKind_RESOURCE_KIND_REF)),
		slog.String("pr", lookup(rs, ghopsv1.ResourceKind_RESOURCE_KIND_PULL_REQUEST)),
		slog.String("sha", resultSHA(req, result)),
		slog.String("outcome", outcome), slog.String("request_id", requestID))
}
