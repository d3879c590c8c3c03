package toolcall

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"ghops.dev/redact"

	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
)

// This file is the confirm link: a tool the caller's principal lists under
// confirm (policy.NeedsConfirm), or the gateway's -confirm, runs only once
// a person has allowed it through the MCP client. The link knows nothing of
// MCP: the transport puts a Confirmer in the call's context (WithConfirmer)
// that asks the way the client can (elicitation/create on an open answer
// stream, or 2026-07-28's input-required result with sealed request
// state); a call without one, or whose client cannot ask, is refused with
// -32001, rule "confirm". Every answer but Confirmed ends the call before
// the service is called, so a declined, cancelled or unanswered
// confirmation writes nothing.

// Verdict is what came of asking a person to confirm a call.
type Verdict int

// The verdicts.
const (
	// Confirmed: the person allowed the call; it runs.
	Confirmed Verdict = iota + 1
	// Declined: the person said no.
	Declined
	// Cancelled: the person dismissed the question, the client went away
	// or the question went unanswered too long.
	Cancelled
	// Asked: the question went out in the call's answer (2026-07-28's
	// input-required result); the client calls again with the answer. The
	// transport answers the call, never the refusal the link returns.
	Asked
	// CannotAsk: the client cannot ask a person (no elicitation
	// capability, no answer stream, plain JSON-RPC).
	CannotAsk
	// Invalid: the answer presented is not one the gateway asked for this
	// call (tampered, expired, already used, for other arguments or for
	// another caller).
	Invalid
)

// Question is a confirmation the gateway asks for.
type Question struct {
	// Tool is the tool called.
	Tool string
	// Repo is the repository the call acts on ("" when it names none).
	Repo string
	// Message is what the person reads: the tool, the repository and the
	// key arguments, bounded and cleaned of control and invisible
	// characters (the arguments come from a model, which may have read
	// them in GitHub content).
	Message string
	// Digest identifies the exact call (tool and arguments): an answer
	// holds for this digest only.
	Digest [sha256.Size]byte
}

// Answer is what a Confirmer came to.
type Answer struct {
	// Verdict is the outcome.
	Verdict Verdict
	// Reason says why, for CannotAsk and Invalid: one sentence for the
	// caller, naming no secret.
	Reason string
}

// Confirmer asks the person behind a call's client to confirm it. A
// transport that can ask puts one in the call's context (WithConfirmer).
type Confirmer interface {
	// Confirm asks q and waits for the answer (or, on a stateless
	// exchange, reads the answer the retried call carries, or answers
	// Asked). It returns Cancelled when ctx ends first.
	Confirm(ctx context.Context, q Question) Answer
}

type confirmerKey struct{}

// WithConfirmer returns ctx under which calls that need a person's
// confirmation ask it through c.
func WithConfirmer(ctx context.Context, c Confirmer) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, confirmerKey{}, c)
}

// ConfirmerFrom returns the Confirmer WithConfirmer put in ctx (nil: the
// call's client cannot be asked).
func ConfirmerFrom(ctx context.Context) Confirmer {
	c, _ := ctx.Value(confirmerKey{}).(Confirmer)
	return c
}

// WithConfirm makes every caller's calls of these tools (names or
// path.Match globs: the gateway's -confirm) wait for a person's
// confirmation, on top of the tools each principal's confirm lists.
func WithConfirm(tools []string) Option {
	return func(c *Caller) { c.confirm = slices.Clone(tools) }
}

// NeedsConfirm reports whether caller's calls of tool wait for a person's
// confirmation: the gateway's -confirm or the principal's confirm names it.
func (c *Caller) NeedsConfirm(caller *policy.Caller, tool string) bool {
	for _, g := range c.confirm {
		if ok, err := path.Match(g, tool); err == nil && ok {
			return true
		}
	}
	return caller != nil && policy.NeedsConfirm(caller.Principal, tool)
}

// Confirm runs a call that needs a person's confirmation (NeedsConfirm)
// only once the Confirmer in its context says Confirmed; any other verdict
// is -32001 with rule "confirm", and the service is not called. It sits
// after Policy (a call the policy refuses is never put to a person) and
// before Limits (a person's time holds no concurrency slot and does not eat
// into the call's deadline).
func (c *Caller) Confirm() Interceptor {
	return Interceptor{Name: "confirm", Wrap: func(next Handler) Handler {
		return func(ctx context.Context, r *Request) *rpcerror.Error {
			if !c.NeedsConfirm(r.Caller, r.Tool.Name) {
				return next(ctx, r)
			}
			q := NewQuestion(r.Tool.Name, r.Message)
			a := Answer{Verdict: CannotAsk, Reason: "this transport has no way to ask (plain JSON-RPC)"}
			if cf := ConfirmerFrom(ctx); cf != nil {
				a = cf.Confirm(ctx, q)
			}
			c.recordConfirmation(ctx, r, q, a)
			if a.Verdict == Confirmed {
				return next(ctx, r)
			}
			e := confirmRefusal(r.Caller, q, a)
			e.Log = fillLog(e.Log, r.Args)
			return e
		}
	}}
}

// verdictNames name the verdicts in the confirmation records.
var verdictNames = map[Verdict]string{
	Confirmed: "confirmed", Declined: "declined", Cancelled: "cancelled",
	Asked: "asked", CannotAsk: "cannot_ask", Invalid: "invalid",
}

// recordConfirmation writes the audit trail's "confirmation" record of a
// question put to a person and its answer, beside the "audit" record of
// the write that follows a confirmed one: who was asked about which tool
// and repository, and what came of it. Asked (the question went out in a
// 2026-07-28 answer) is recorded too: the retry's record says the rest.
func (c *Caller) recordConfirmation(ctx context.Context, r *Request, q Question, a Answer) {
	if c.audit == nil {
		return
	}
	c.audit.LogAttrs(ctx, slog.LevelInfo, "confirmation",
		slog.String("principal", r.Caller.Name()), slog.String("tool", q.Tool), slog.String("repo", redact.String(q.Repo)),
		slog.String("verdict", verdictNames[a.Verdict]), slog.String("request_id", r.RequestID))
}

// confirmRefusal is the -32001 of a call that was not confirmed.
func confirmRefusal(caller *policy.Caller, q Question, a Answer) *rpcerror.Error {
	on := q.Tool
	if q.Repo != "" {
		on += " on " + q.Repo
	}
	var msg, detail string
	switch a.Verdict {
	case Declined:
		msg = "the user declined " + on
		detail = q.Tool + " needs a person's confirmation; the user declined it and nothing was written"
	case Cancelled:
		msg = "the confirmation of " + on + " was cancelled or not answered"
		detail = q.Tool + " needs a person's confirmation; none came and nothing was written"
	case Asked:
		msg = "the confirmation of " + on + " was asked for"
		detail = q.Tool + " needs a person's confirmation; call again with the answer"
	case Invalid:
		msg = "the confirmation presented is not valid for " + on
		detail = q.Tool + " needs a person's confirmation; " + a.Reason
	default:
		msg = q.Tool + " needs a person's confirmation and this client cannot ask for one"
		detail = q.Tool + " needs a person's confirmation, which this client cannot give: " + a.Reason
	}
	return rpcerror.New(rpcerror.PermissionDenied, "Permission denied: "+msg, rpcerror.Tool(q.Tool), rpcerror.Refusal(caller.Name(), "confirm", detail))
}

// Bounds of a Question's message: what a person reads must fit a dialog,
// and an argument (a pull request body) may be 64 KB.
const (
	maxArgs     = 12  // arguments shown
	maxArgRunes = 120 // runes of one argument's value
)

// NewQuestion describes a call of tool with the validated request req: the
// repository it names, the message a person reads and the call's digest.
func NewQuestion(tool string, req proto.Message) Question {
	q := Question{Tool: tool}
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	h := sha256.New()
	h.Write([]byte("ghops-confirm\x00" + tool + "\x00"))
	h.Write(b)
	copy(q.Digest[:], h.Sum(nil))
	if repos, ok := policy.Repos(req); ok && len(repos) > 0 {
		q.Repo = clean(repos[0], maxArgRunes)
	}
	var lines []string
	m := req.ProtoReflect()
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len() && len(lines) < maxArgs; i++ {
		fd := fields.Get(i)
		if !m.Has(fd) || (q.Repo != "" && string(fd.Name()) == "repo") {
			continue
		}
		lines = append(lines, fd.JSONName()+": "+describeValue(fd, m.Get(fd)))
	}
	var b2 strings.Builder
	b2.WriteString("Allow " + tool)
	if q.Repo != "" {
		b2.WriteString(" on " + q.Repo)
	}
	b2.WriteString("?")
	for _, l := range lines {
		b2.WriteString("\n" + l)
	}
	q.Message = b2.String()
	return q
}

// describeValue renders one argument for a person: a scalar as its value,
// bounded and cleaned; a list or a message by its size.
func describeValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch {
	case fd.IsList():
		return strconv.Itoa(v.List().Len()) + " item(s)"
	case fd.IsMap():
		return strconv.Itoa(v.Map().Len()) + " entries"
	}
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "(object)"
	case protoreflect.StringKind:
		return strconv.Quote(clean(v.String(), maxArgRunes))
	case protoreflect.BytesKind:
		return strconv.Itoa(len(v.Bytes())) + " bytes"
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
	}
	return fmt.Sprint(v.Interface())
}

// clean removes control characters (C0, C1), format characters (bidi
// controls, zero-width characters, Unicode tags) and invalid UTF-8 from s,
// turns line breaks and tabs into spaces and bounds it to n runes (an
// ellipsis marks a cut): an argument cannot reorder, hide or forge the
// lines of the message a person confirms.
func clean(s string, n int) string {
	var b strings.Builder
	runes := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			continue
		case r == '\n' || r == '\r' || r == '\t':
			r = ' '
		case unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r):
			continue
		}
		if runes == n {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		runes++
	}
	return b.String()
}
