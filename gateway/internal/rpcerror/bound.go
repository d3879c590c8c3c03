package rpcerror

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// The bounds of an error answer (docs/errors.md, "Bounded answers"). An
// invalid call costs its sender a few bytes and must not cost the gateway
// (or the client) megabytes: a request with 25,000 unknown keys would
// otherwise be answered with 25,000 violations, each echoing its value.
const (
	// MaxViolations is how many violations validation_errors lists; the
	// number of the others is in data.validation_errors_omitted.
	MaxViolations = 20
	// MaxValueBytes bounds the JSON encoding of each violation's value and
	// of each string of its params.
	MaxValueBytes = 1024
	// MaxStringBytes bounds the JSON encoding of every other string of an
	// error object (the message, a violation's message, path and keyword,
	// GitHub's message, a patch's detail, ...).
	MaxStringBytes = 1024
	// MaxDataBytes bounds the JSON encoding of an error object's data. It
	// is half of MaxErrorBytes because an MCP isError result carries the
	// error object and a text rendering of the same violations.
	MaxDataBytes = 30 << 10
	// MaxErrorBytes is the bound of any error answer's body on /rpc, /mcp
	// and stdio.
	MaxErrorBytes = 64 << 10
	// TruncationMarker ends every string (or value) that was cut.
	TruncationMarker = "…[truncated]"
)

// cut returns s unchanged when its JSON encoding fits in n bytes, else its
// longest prefix (whole runes) whose encoding fits in n bytes together with
// TruncationMarker, followed by the marker.
func cut(s string, n int) string {
	if jsonLen(s) <= n {
		return s
	}
	budget := n - jsonLen(TruncationMarker) + 2 // the quotes are counted once
	size := 2
	for i, r := range s {
		w := runeJSONLen(r, s[i:])
		if size+w > budget {
			return s[:i] + TruncationMarker
		}
		size += w
	}
	return s + TruncationMarker
}

// jsonLen is the length of s encoded by encoding/json, quotes included.
func jsonLen(s string) int {
	n := 2
	for i, r := range s {
		n += runeJSONLen(r, s[i:])
	}
	return n
}

// runeJSONLen is the encoded length of r (the first rune of rest) as
// encoding/json writes it: HTML-escaped, invalid UTF-8 as \ufffd.
func runeJSONLen(r rune, rest string) int {
	switch {
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
		return 6
	case r == utf8.RuneError:
		if _, size := utf8.DecodeRuneInString(rest); size == 1 {
			return 6
		}
	}
	return utf8.RuneLen(r)
}

// cutValue returns v unchanged when its JSON encoding fits in n bytes; a
// longer string is cut (see cut), any other value becomes a string holding
// the start of its JSON text and the marker, so the payload stays valid
// JSON whatever was echoed.
func cutValue(v any, n int) any {
	switch x := v.(type) {
	case nil, bool, float64, int, json.Number:
		return v
	case string:
		if c := cut(x, n); c != x {
			return c
		}
		return v
	case json.RawMessage: // what toolschema echoes: the argument's own text
		if len(x) <= n {
			return v
		}
		var s string
		if x[0] == '"' && json.Unmarshal(x, &s) == nil {
			return cut(s, n)
		}
		return cutText(x, n)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return TruncationMarker
	}
	if len(b) <= n {
		return v
	}
	return cutText(b, n)
}

// cutText is the start of a JSON text as a cut string.
func cutText(b []byte, n int) string {
	if len(b) > n {
		b = b[:n] // cut never keeps more than n bytes of it
	}
	return cut(string(b), n) // its encoding, quoted, is over n: always cut
}

// capViolations keeps the first MaxViolations of vs and returns how many
// it left out.
func capViolations(vs []Violation) ([]Violation, int) {
	unlisted := 0 // found by the validator beyond those it built
	if len(vs) > 0 {
		unlisted = vs[len(vs)-1].Unlisted
	}
	if len(vs) <= MaxViolations {
		return vs, unlisted
	}
	return vs[:MaxViolations:MaxViolations], len(vs) - MaxViolations + unlisted
}

// boundViolations cuts the strings and values of vs (already capped); vs
// is not modified.
func boundViolations(vs []Violation) []Violation {
	if vs == nil {
		return nil
	}
	out := make([]Violation, len(vs))
	for i, v := range vs {
		out[i] = Violation{
			Message: cut(v.Message, MaxStringBytes),
			Path:    cut(v.Path, MaxStringBytes),
			Keyword: cut(v.Keyword, MaxStringBytes),
			Params:  v.Params,
			Value:   cutValue(v.Value, MaxValueBytes),
		}
		for k, p := range v.Params {
			if ps, ok := p.(string); (ok && jsonLen(ps) > MaxValueBytes) || jsonLen(k) > MaxValueBytes {
				out[i].Params = boundParams(v.Params)
				break
			}
		}
	}
	return out
}

// boundParams returns a copy of p with each key and string member cut to
// MaxValueBytes. A string member may echo the caller (additionalProperty
// names the unknown key); members of other types come from the schema
// (allowedValues, limits) and are left whole, under the data bound.
func boundParams(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		if s, ok := v.(string); ok {
			v = cut(s, MaxValueBytes)
		}
		out[cut(k, MaxValueBytes)] = v
	}
	return out
}

// omittedMessage is the end of a -32602 message whose violations were
// capped.
func omittedMessage(n int) string {
	return ", and " + strconv.Itoa(n) + " more"
}

// bound cuts every string of d (redacted) to MaxStringBytes, sets its
// validation_errors to listed (capped and redacted) with their strings and
// values cut, and, while the JSON text is over MaxDataBytes, drops
// violations from the end (counted in validation_errors_omitted). It
// returns the JSON text and the violations listed, cut. Strings are cut after they are redacted, so that a
// cut never leaves the start of a token behind.
func bound(d *Data, listed []Violation) ([]byte, []Violation) {
	cutMessage(d.ProtoReflect())
	bounded := boundViolations(listed)
	var values [][]byte
	if len(bounded) > 0 {
		// The validator's violations (Error.Violations) are the list; a
		// list set on Data directly is kept only without them.
		d.ValidationErrors = make([]*ghopsv1.Violation, len(bounded))
		values = make([][]byte, len(bounded))
		for i, v := range bounded {
			d.ValidationErrors[i] = violationProto(v)
			values[i] = valueText(v.Value)
		}
	}
	for {
		b := encodeData(d, values)
		if escapedLen(b) <= MaxDataBytes || len(d.ValidationErrors) == 0 {
			return b, bounded[:min(len(bounded), len(d.ValidationErrors))]
		}
		keep := len(d.ValidationErrors) / 2
		d.ValidationErrorsOmitted += int32(len(d.ValidationErrors) - keep)
		d.ValidationErrors = d.ValidationErrors[:keep:keep]
		if keep == 0 {
			d.ValidationErrors = nil
		}
	}
}

// escapedLen is the length of b once HTML-escaped, as encoding/json.Marshal
// writes it (the MCP result's text copy of the error object is written so):
// '<', '>' and '&' take six bytes there.
func escapedLen(b []byte) int {
	return len(b) + 5*(bytes.Count(b, []byte("<"))+bytes.Count(b, []byte(">"))+bytes.Count(b, []byte("&")))
}

// cutMessage cuts every string of m in place to MaxStringBytes (see cut).
func cutMessage(m protoreflect.Message) {
	for _, fd := range setFields(m) {
		switch {
		case fd.IsMap():
			continue // only in Struct values, bounded as violations
		case fd.IsList():
			l := m.Mutable(fd).List()
			for i := range l.Len() {
				switch fd.Kind() {
				case protoreflect.StringKind:
					l.Set(i, protoreflect.ValueOfString(cut(l.Get(i).String(), MaxStringBytes)))
				case protoreflect.MessageKind:
					cutMessage(l.Get(i).Message())
				}
			}
		case fd.Kind() == protoreflect.StringKind:
			if s := m.Get(fd).String(); jsonLen(s) > MaxStringBytes {
				m.Set(fd, protoreflect.ValueOfString(cut(s, MaxStringBytes)))
			}
		case fd.Kind() == protoreflect.MessageKind:
			cutMessage(m.Mutable(fd).Message())
		}
	}
}

// violationProto is v as errors.proto's Violation: params and value, JSON
// of any shape, become google.protobuf.Struct and Value (through their JSON
// text, so that a number is a JSON number whatever its Go type).
func violationProto(v Violation) *ghopsv1.Violation {
	out := &ghopsv1.Violation{Message: v.Message, Path: v.Path, Keyword: v.Keyword}
	if v.Params != nil {
		if pv := jsonValue(v.Params); pv.GetStructValue() != nil {
			out.Params = pv.GetStructValue()
		} else {
			out.Params = &structpb.Struct{}
		}
	}
	if v.Value != nil {
		out.Value = jsonValue(v.Value)
	}
	return out
}

// valueText is the JSON text of a violation's value as the caller spelled
// it: the argument's own text (members' order and numbers kept), compacted
// as encoding/json writes a json.RawMessage; null when it does not encode.
func valueText(v any) []byte {
	if raw, ok := v.(json.RawMessage); ok {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) != nil {
			return []byte("null")
		}
		return buf.Bytes()
	}
	return appendJSON(nil, v)
}

// jsonValue is v (any JSON-encodable value) as a google.protobuf.Value; a
// value that does not encode is the truncation marker.
func jsonValue(v any) *structpb.Value {
	raw, ok := v.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			return structpb.NewStringValue(TruncationMarker)
		}
		raw = b
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return structpb.NewStringValue(TruncationMarker)
	}
	pv, err := structpb.NewValue(generic)
	if err != nil {
		return structpb.NewStringValue(TruncationMarker)
	}
	return pv
}
