package rpcerror

import (
	"encoding/json"

	"ghops.dev/redact"

	"ghops.dev/gateway/internal/toolschema"
)

// Every string of an error that can leave the gateway goes through package
// redact: the constructors (New, InvalidParams, Internal, FromStatus) redact
// what they are given, and JSONRPC redacts again what a transport may have
// set afterwards, so that a token echoed by a client (a tool name, an
// argument value in validation_errors) or by GitHub (a message, a resource
// id) is never answered in clear. TestRedactedCoversEveryField keeps this
// list complete.

// Redacted returns a copy of e whose message, data, log fields and request id
// hold no secret: what may be rendered for a client or a log. The cause is
// kept (the Sink logs it redacted).
func (e *Error) Redacted() *Error {
	c := *e
	c.Message = cut(redact.String(e.Message), MaxStringBytes)
	c.Data = e.Data.redacted()
	c.Log = LogFields{Repo: redact.String(e.Log.Repo), PR: redact.String(e.Log.PR), SHA: redact.String(e.Log.SHA), State: redact.String(e.Log.State)}
	c.RequestID = redact.String(e.RequestID)
	return &c
}

// redacted returns d with every string redacted and then bounded (see
// bound.go: the violations are capped before they are redacted, so that a
// flood of them costs nothing, and cut after, so that a cut never leaves
// the start of a token behind); the structs it points to are copied when
// they change (or always, for the rare ones), never modified.
func (d Data) redacted() Data {
	d.Tool = redact.String(d.Tool)
	var omitted int
	d.ValidationErrors, omitted = capViolations(d.ValidationErrors)
	d.ValidationErrorsOmitted += omitted
	d.ValidationErrors = redactViolations(d.ValidationErrors)
	if g := d.GitHub; g != nil {
		if m, u := redact.String(g.Message), redact.String(g.DocumentationURL); m != g.Message || u != g.DocumentationURL {
			d.GitHub = &GitHub{Status: g.Status, Message: m, DocumentationURL: u}
		}
	}
	if r := d.Resource; r != nil {
		if t, id := redact.String(r.Type), redact.String(r.ID); t != r.Type || id != r.ID {
			d.Resource = &Resource{Type: t, ID: id}
		}
	}
	d.MergeableState = redact.String(d.MergeableState)
	d.ExpectedSHA = redact.String(d.ExpectedSHA)
	d.ActualSHA = redact.String(d.ActualSHA)
	if p := d.Protocol; p != nil {
		sup, _ := redact.Value(p.Supported).([]string)
		d.Protocol = &Protocol{Requested: redact.String(p.Requested), Supported: sup}
	}
	if d.Supported != nil {
		d.Supported, _ = redact.Value(d.Supported).([]string)
	}
	d.Requested = redact.String(d.Requested)
	if p := d.Patch; p != nil {
		d.Patch = &Patch{Code: redact.String(p.Code), File: redact.String(p.File), Hunk: p.Hunk, Line: p.Line, Detail: redact.String(p.Detail)}
	}
	if p := d.Policy; p != nil {
		d.Policy = &Policy{Principal: redact.String(p.Principal), Rule: redact.String(p.Rule), Detail: redact.String(p.Detail)}
	}
	d.RequestID = redact.String(d.RequestID)
	d.Outcome = redact.String(d.Outcome)
	d.Check = redact.String(d.Check)
	d.Timestamp = redact.String(d.Timestamp)
	return d.bounded()
}

// redactViolations returns a copy of vs with every string redacted (the
// offending value and the params included).
func redactViolations(vs []toolschema.Violation) []toolschema.Violation {
	if vs == nil {
		return nil
	}
	out := make([]toolschema.Violation, len(vs))
	// Violations of one object echo the same argument text (toolschema
	// shares it): redact each text once, not once per violation.
	type rawKey struct {
		p *byte
		n int
	}
	seen := map[rawKey]any{}
	for i, v := range vs {
		var value any
		if raw, ok := v.Value.(json.RawMessage); ok && len(raw) > 0 {
			k := rawKey{&raw[0], len(raw)}
			if value, ok = seen[k]; !ok {
				value = redact.Value(v.Value)
				seen[k] = value
			}
		} else {
			value = redact.Value(v.Value)
		}
		out[i] = toolschema.Violation{
			Message: redact.String(v.Message),
			Path:    redact.String(v.Path),
			Keyword: redact.String(v.Keyword),
			Params:  v.Params,
			Value:   value,
		}
		if p, ok := redact.Value(v.Params).(map[string]any); ok {
			out[i].Params = p
		}
	}
	return out
}
