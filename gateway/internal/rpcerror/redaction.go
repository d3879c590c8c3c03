package rpcerror

import (
	"encoding/json"
	"sync/atomic"

	"ghops.dev/redact"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Every string of an error that can leave the gateway goes through package
// redact exactly once: when the error is encoded (Encoded), for the answer,
// the jsonrpc_error line and the MCP text rendering alike. The constructors
// keep what they are given, so that whatever a transport sets afterwards
// is redacted by the same one pass, and no error pays for redaction twice
// (it used to be redacted by the constructor, by FromStatus, by JSONRPC and
// by the log line: up to four times). The data message is redacted by
// walking its fields (protoreflect), so a field added to errors.proto is
// redacted without a line here.

// Encoded is an error as it leaves the gateway: every string redacted once
// and bounded (bound.go). Transports and the log read it, never the Error's
// own fields.
type Encoded struct {
	// Code is the JSON-RPC code.
	Code int
	// Message is the JSON-RPC message, redacted and cut.
	Message string
	// Data is the data object, redacted and bounded, validation_errors
	// included.
	Data *Data
	// DataJSON is Data's JSON text, as answered (appendMessage).
	DataJSON []byte
	// Violations are the listed violations, redacted and cut as Data lists
	// them: what an MCP text rendering explains (toolschema's Text).
	Violations []Violation
	// Log is the log line's context fields, redacted.
	Log LogFields
	// RequestID is the request id, redacted.
	RequestID string
}

// encodings counts the errors encoded: the tests show with it that an error
// is redacted once however many times it is written.
var encodings atomic.Int64

// Encoded returns e as encoded, made on first use and kept: an error is
// written several times (the answer, the log line, an MCP text rendering),
// and the one encoding serves them all. Set every field before the first
// call: later changes are not seen. Safe for concurrent use (two first
// calls racing may both encode; one result is kept).
func (e *Error) Encoded() *Encoded {
	if enc := e.enc.Load(); enc != nil {
		return enc
	}
	e.enc.CompareAndSwap(nil, e.encode())
	return e.enc.Load()
}

// encode redacts and bounds e: the one redaction pass.
func (e *Error) encode() *Encoded {
	encodings.Add(1)
	d := &Data{}
	if e.Data != nil {
		d = proto.Clone(e.Data).(*Data)
	}
	redactMessage(d.ProtoReflect())
	capped, omitted := capViolations(e.Violations)
	d.ValidationErrorsOmitted += int32(omitted)
	listed := redactViolations(capped)
	dataJSON, listed := bound(d, listed)
	enc := &Encoded{
		Code:       e.Code,
		Data:       d,
		DataJSON:   dataJSON,
		Violations: listed,
		Log:        LogFields{Repo: redact.String(e.Log.Repo), PR: redact.String(e.Log.PR), SHA: redact.String(e.Log.SHA), State: redact.String(e.Log.State)},
		RequestID:  redact.String(e.RequestID),
	}
	msg := e.Message
	if e.listing != "" && e.Message == e.listing {
		// InvalidParams's message lists the violations: written from those
		// listed, redacted and cut already (as the data carries them), and
		// ended by the count of the rest.
		vs := make([]Violation, len(d.GetValidationErrors()))
		for i, v := range d.GetValidationErrors() {
			vs[i].Message = v.GetMessage()
		}
		msg = cut(ValidationMessage(vs), MaxStringBytes-64)
		if n := d.GetValidationErrorsOmitted(); n > 0 {
			msg += omittedMessage(int(n))
		}
	} else {
		msg = redact.String(msg)
	}
	enc.Message = cut(msg, MaxStringBytes)
	return enc
}

// setFields returns m's populated fields, collected before the caller changes
// m: Range must not see the message it walks being modified.
func setFields(m protoreflect.Message) []protoreflect.FieldDescriptor {
	var fds []protoreflect.FieldDescriptor
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		fds = append(fds, fd)
		return true
	})
	return fds
}

// redactMessage redacts every string of m in place, map keys included.
func redactMessage(m protoreflect.Message) {
	for _, fd := range setFields(m) {
		v := m.Get(fd)
		switch {
		case fd.IsMap():
			redactMap(m.Mutable(fd).Map(), fd.MapValue())
		case fd.IsList():
			l := m.Mutable(fd).List()
			for i := range l.Len() {
				switch fd.Kind() {
				case protoreflect.StringKind:
					l.Set(i, protoreflect.ValueOfString(redact.String(l.Get(i).String())))
				case protoreflect.MessageKind, protoreflect.GroupKind:
					redactMessage(l.Get(i).Message())
				}
			}
		case fd.Kind() == protoreflect.StringKind:
			if r := redact.String(v.String()); r != v.String() {
				m.Set(fd, protoreflect.ValueOfString(r))
			}
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			redactMessage(m.Mutable(fd).Message())
		}
	}
}

// redactMap redacts a string-keyed map's keys and its values (vd).
func redactMap(mp protoreflect.Map, vd protoreflect.FieldDescriptor) {
	type entry struct {
		k string
		v protoreflect.Value
	}
	var entries []entry
	mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		if s, ok := k.Interface().(string); ok {
			entries = append(entries, entry{s, v})
		}
		return true
	})
	for _, en := range entries {
		v := en.v
		switch vd.Kind() {
		case protoreflect.StringKind:
			v = protoreflect.ValueOfString(redact.String(v.String()))
		case protoreflect.MessageKind, protoreflect.GroupKind:
			redactMessage(v.Message())
		}
		if nk := redact.String(en.k); nk != en.k {
			mp.Clear(protoreflect.ValueOfString(en.k).MapKey())
			mp.Set(protoreflect.ValueOfString(nk).MapKey(), v)
			continue
		}
		mp.Set(protoreflect.ValueOfString(en.k).MapKey(), v)
	}
}

// redactViolations returns a copy of vs with every string redacted (the
// offending value and the params included, a value under a secret-named
// key replaced whole: redact.Value).
func redactViolations(vs []Violation) []Violation {
	if vs == nil {
		return nil
	}
	out := make([]Violation, len(vs))
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
		out[i] = Violation{
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
