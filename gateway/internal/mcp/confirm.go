package mcp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"ghops.dev/gateway/internal/pipeline"
	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/toolcall"
)

// This file asks a person to confirm a tool call (toolcall's confirm link)
// the two ways MCP allows:
//
//   - 2026-07-28, multi round-trip requests: the call is answered with an
//     input-required result carrying an elicitation/create input request
//     (key confirmKey) and a sealed requestState; the client asks the
//     person and calls again with inputResponses and the state. The state
//     is an HMAC (under the session secret, so any replica accepts it) over
//     the principal, the tool, a digest of the exact arguments, an expiry
//     and a nonce; a state that does not verify for this caller and this
//     call, has expired, or was already used for a confirmed call (on this
//     replica) is refused with -32001. Nothing is kept between the rounds
//     but the nonces spent.
//   - Earlier versions, elicitation: a client that declared the
//     elicitation capability in initialize gets an elicitation/create
//     request ahead of the call's answer (a stdio line, or an event of the
//     HTTP answer's event stream), and the call waits for the client's
//     response (a later stdio line, or a POST in the same session),
//     matched by the request's id within the same session or stdio
//     connection. Over HTTP the response must reach the same replica
//     (session affinity); 2026-07-28's exchange needs none.
//
// A client that can do neither (no elicitation capability, plain JSON-RPC,
// an HTTP request without a session or without an event-stream answer)
// gets -32001 naming the rule. The person's answer is only as trustworthy
// as the client that shows the question (docs/security.md): confirmation
// keeps a model from acting alone, it does not authenticate the person.

// confirmKey is the key of the confirmation in inputRequests and
// inputResponses, and the boolean property of its form.
const confirmKey = "confirm"

// ConfirmTTL bounds how long a person has to answer: the elicitation
// request's wait, and the life of a 2026-07-28 requestState.
const ConfirmTTL = 10 * time.Minute

// afterConfirm is how long an HTTP answer may still take once the person
// answered an elicitation: the call's own deadline (-call-timeout) is
// shorter; this only keeps the server's write timeout from cutting it.
const afterConfirm = 5 * time.Minute

// maxState bounds a requestState the gateway reads (its own are ~130
// bytes).
const maxState = 512

// confirmSchema is the form a person fills in: one required boolean.
const confirmSchema = `{"type":"object","properties":{"` + confirmKey + `":{"type":"boolean","title":"Allow this call",` +
	`"description":"Allow the agent to make this change on GitHub? It cannot be undone by the gateway."}},"required":["` + confirmKey + `"]}`

// elicitParams encodes elicitation/create's params for q (mode "form"
// from 2025-11-25 on, where the field exists).
func elicitParams(q toolcall.Question, withMode bool) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	if withMode {
		b.WriteString(`"mode":"form",`)
	}
	b.WriteString(`"message":`)
	b.Write(marshalString(q.Message))
	b.WriteString(`,"requestedSchema":` + confirmSchema + `}`)
	return b.Bytes()
}

// verdict reads an ElicitResult: accept with confirm true is Confirmed,
// accept with anything else or decline is Declined, cancel (or anything
// unreadable) Cancelled.
func verdict(result json.RawMessage) toolcall.Verdict {
	r := gjson.ParseBytes(result)
	switch r.Get("action").String() {
	case "accept":
		if c := r.Get("content." + confirmKey); c.Type == gjson.True {
			return toolcall.Confirmed
		}
		return toolcall.Declined
	case "decline":
		return toolcall.Declined
	}
	return toolcall.Cancelled
}

// elicitConfirmer asks through elicitation/create on the call's answer
// stream (versions before 2026-07-28).
type elicitConfirmer struct {
	s        *Server
	x        *pipeline.Body
	scope    string // the session or stdio connection the answer must come from
	capable  bool   // the client declared elicitation in initialize
	withMode bool
}

// Confirm implements toolcall.Confirmer.
func (c *elicitConfirmer) Confirm(ctx context.Context, q toolcall.Question) toolcall.Answer {
	switch {
	case !c.capable:
		return toolcall.Answer{Verdict: toolcall.CannotAsk, Reason: "the client did not declare the elicitation capability"}
	case c.scope == "":
		return toolcall.Answer{Verdict: toolcall.CannotAsk, Reason: "the request has no session to answer in"}
	case !c.x.CanNotify():
		return toolcall.Answer{Verdict: toolcall.CannotAsk, Reason: "the request does not accept an event-stream answer (Accept: text/event-stream)"}
	}
	var nonce [12]byte
	_, _ = rand.Read(nonce[:])
	id := `"ghops-confirm-` + hex.EncodeToString(nonce[:]) + `"`
	key := inflightKey(c.scope, json.RawMessage(id))
	answer := make(chan json.RawMessage, 1)
	c.s.waiting.Store(key, answer)
	defer c.s.waiting.Delete(key)
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"elicitation/create","params":`)
	b.Write(elicitParams(q, c.withMode))
	b.WriteByte('}')
	// The HTTP answer must outlive the server's write timeout (one call's
	// worth): the person's time, then the call's.
	c.x.ExtendWrite(ConfirmTTL + afterConfirm)
	c.x.Send(b.Bytes())
	wait := time.NewTimer(ConfirmTTL)
	defer wait.Stop()
	select {
	case msg := <-answer:
		c.x.ExtendWrite(afterConfirm)
		r := gjson.GetBytes(msg, "result")
		if !r.Exists() {
			return toolcall.Answer{Verdict: toolcall.CannotAsk, Reason: "the client answered the elicitation with an error"}
		}
		return toolcall.Answer{Verdict: verdict(json.RawMessage(r.Raw))}
	case <-ctx.Done():
	case <-wait.C:
	}
	// Tell the client the question is void: a late "accept" writes nothing.
	c.x.Notify("notifications/cancelled", json.RawMessage(`{"requestId":`+id+`,"reason":"the call ended before the confirmation"}`))
	return toolcall.Answer{Verdict: toolcall.Cancelled}
}

// deliver hands a client's response (raw) to the elicitation waiting for
// it in scope; a response nobody waits for (late, unknown, or from
// another session) is dropped.
func (s *Server) deliver(scope string, raw json.RawMessage) {
	id := gjson.GetBytes(raw, "id")
	if !id.Exists() {
		return
	}
	if ch, ok := s.waiting.Load(inflightKey(scope, json.RawMessage(id.Raw))); ok {
		select {
		case ch.(chan json.RawMessage) <- raw:
		default: // answered already
		}
	}
}

// mrtrConfirmer reads, or asks for, the confirmation of a 2026-07-28 call.
type mrtrConfirmer struct {
	s         *Server
	binding   string
	capable   bool            // the request's clientCapabilities declare elicitation (form)
	state     string          // params.requestState ("" when absent)
	responses json.RawMessage // params.inputResponses (nil when absent)

	asked json.RawMessage // the input-required result to answer with, once asked
}

// Confirm implements toolcall.Confirmer.
func (c *mrtrConfirmer) Confirm(_ context.Context, q toolcall.Question) toolcall.Answer {
	if !c.capable {
		return toolcall.Answer{Verdict: toolcall.CannotAsk, Reason: "the request's clientCapabilities do not declare elicitation"}
	}
	if c.state == "" {
		return c.ask(q)
	}
	nonce, why := c.s.confirms.open(c.state, c.binding, q)
	if why != "" {
		return toolcall.Answer{Verdict: toolcall.Invalid, Reason: why}
	}
	resp := gjson.GetBytes(c.responses, gjsonKey(confirmKey))
	if !resp.IsObject() {
		// Retried without the answer: ask again, as the specification
		// asks of missing input.
		return c.ask(q)
	}
	v := verdict(json.RawMessage(resp.Raw))
	if v == toolcall.Confirmed && !c.s.confirms.spend(nonce) {
		return toolcall.Answer{Verdict: toolcall.Invalid, Reason: "this requestState was already used for a confirmed call"}
	}
	return toolcall.Answer{Verdict: v}
}

// ask records the input-required result that puts q to the person.
func (c *mrtrConfirmer) ask(q toolcall.Question) toolcall.Answer {
	var b bytes.Buffer
	b.WriteString(`{"resultType":"input_required","_meta":{"io.modelcontextprotocol/serverInfo":`)
	b.Write(c.s.serverInfo)
	b.WriteString(`},"inputRequests":{"` + confirmKey + `":{"method":"elicitation/create","params":`)
	b.Write(elicitParams(q, true))
	b.WriteString(`}},"requestState":`)
	b.Write(marshalString(c.s.confirms.seal(c.binding, q)))
	b.WriteByte('}')
	c.asked = b.Bytes()
	return toolcall.Answer{Verdict: toolcall.Asked}
}

// confirmStates seals and opens 2026-07-28 request states and remembers
// the nonces of the confirmed ones until they expire.
type confirmStates struct {
	secret []byte
	now    func() time.Time

	mu    sync.Mutex
	spent map[string]time.Time // nonce -> expiry
}

// maxSpent bounds the remembered nonces; past it, expired ones are swept.
const maxSpent = 10000

// seal returns the state of a question put to binding's principal: "c1."
// + base64url(expiry unix "." nonce) + "." + base64url(HMAC), the MAC
// covering the principal, the call's digest and the payload.
func (c *confirmStates) seal(binding string, q toolcall.Question) string {
	var nonce [12]byte
	_, _ = rand.Read(nonce[:])
	payload := strconv.FormatInt(c.now().Add(ConfirmTTL).Unix(), 10) + "." + base64.RawURLEncoding.EncodeToString(nonce[:])
	p := base64.RawURLEncoding.EncodeToString([]byte(payload))
	return "c1." + p + "." + base64.RawURLEncoding.EncodeToString(c.mac(p, binding, q))
}

// mac is the HMAC-SHA256 of an encoded payload for binding and q.
func (c *confirmStates) mac(p, binding string, q toolcall.Question) []byte {
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte("ghops-mcp-confirm\x00"))
	m.Write([]byte(binding))
	m.Write([]byte{0})
	m.Write(q.Digest[:])
	m.Write([]byte(p))
	return m.Sum(nil)
}

// open checks state for binding and q and returns its nonce, or why it is
// refused (one sentence for the caller, naming no secret).
func (c *confirmStates) open(state, binding string, q toolcall.Question) (string, string) {
	const bad = "the requestState was not issued for this call by this caller (tampered, or for other arguments, another tool or another principal)"
	parts := strings.Split(state, ".")
	if len(state) > maxState || len(parts) != 3 || parts[0] != "c1" {
		return "", bad
	}
	got, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !hmac.Equal(got, c.mac(parts[1], binding, q)) {
		return "", bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", bad
	}
	exp, nonce, ok := strings.Cut(string(raw), ".")
	secs, err := strconv.ParseInt(exp, 10, 64)
	if !ok || err != nil {
		return "", bad
	}
	if !c.now().Before(time.Unix(secs, 0)) {
		return "", "the requestState has expired: call again without it to be asked anew"
	}
	return nonce, ""
}

// spend marks nonce used and reports whether it was unused.
func (c *confirmStates) spend(nonce string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, used := c.spent[nonce]; used {
		return false
	}
	now := c.now()
	if len(c.spent) >= maxSpent {
		for n, exp := range c.spent {
			if !now.Before(exp) {
				delete(c.spent, n)
			}
		}
	}
	if c.spent == nil {
		c.spent = map[string]time.Time{}
	}
	c.spent[nonce] = now.Add(ConfirmTTL + time.Minute)
	return true
}

// elicitationDeclared reports whether a ClientCapabilities object (raw)
// declares form elicitation: "elicitation" present, empty (form, for
// backward compatibility) or with "form".
func elicitationDeclared(caps json.RawMessage) bool {
	e := gjson.GetBytes(caps, "elicitation")
	if !e.IsObject() {
		return false
	}
	if !e.Get("url").Exists() {
		return true
	}
	return e.Get("form").Exists()
}

// mayConfirm reports whether a call by ctx's caller may need a person's
// confirmation: the gateway's -confirm names tools, or the caller's
// principal has confirm.
func (s *Server) mayConfirm(ctx context.Context) bool {
	if s.confirmAny {
		return true
	}
	c := policy.CallerFrom(ctx)
	return c != nil && c.Principal != nil && len(c.Principal.Confirm) > 0
}

// confirmer puts in ctx the Confirmer of a tools/call served at version
// with params (meta its _meta): the 2026-07-28 exchange (returned too, for Serve to answer with
// what it asked) or elicitation on the answer stream. It reads
// requestState and inputResponses here, for the calls that may need
// them only: a search of params may cross a megabyte of file content.
func (t *transport) confirmer(ctx context.Context, x *pipeline.Body, version string, meta, params json.RawMessage) (context.Context, *mrtrConfirmer) {
	if version == V20260728 {
		caps := rawIn(meta, gjson.GetBytes(meta, gjsonKey(metaClientCapabilities)))
		m := &mrtrConfirmer{s: t.s, binding: binding(ctx), capable: elicitationDeclared(caps)}
		st := gjson.GetManyBytes(params, "requestState", "inputResponses")
		if st[0].Type == gjson.String {
			m.state = st[0].Str
		}
		m.responses = rawIn(params, st[1])
		return toolcall.WithConfirmer(ctx, m), m
	}
	c := &elicitConfirmer{s: t.s, x: x, scope: t.scope(x), withMode: version >= V20251125}
	if t.stdio {
		cn := connOf(x)
		cn.mu.Lock()
		c.capable = cn.elicit
		cn.mu.Unlock()
	} else if env, ok := x.State.(*headerState); ok {
		c.capable = env.elicit
	}
	return toolcall.WithConfirmer(ctx, c), nil
}

// initElicitation reports whether initialize's params declare the
// elicitation capability (form).
func initElicitation(params json.RawMessage) bool {
	return elicitationDeclared(rawIn(params, gjson.GetBytes(params, "capabilities")))
}
