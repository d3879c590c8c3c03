package rpcerror

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"ghops.dev/gateway/internal/toolschema"
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
func capViolations(vs []toolschema.Violation) ([]toolschema.Violation, int) {
	unlisted := 0 // found by the validator beyond those it built
	if len(vs) > 0 {
		unlisted = vs[len(vs)-1].Unlisted
	}
	if len(vs) <= MaxViolations {
		return vs, unlisted
	}
	return vs[:MaxViolations:MaxViolations], len(vs) - MaxViolations + unlisted
}

// boundViolations keeps the first MaxViolations of vs and cuts their
// strings and values; it returns how many were left out. vs is not
// modified.
func boundViolations(vs []toolschema.Violation) ([]toolschema.Violation, int) {
	if vs == nil {
		return nil, 0
	}
	vs, omitted := capViolations(vs)
	out := make([]toolschema.Violation, len(vs))
	for i, v := range vs {
		out[i] = toolschema.Violation{
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
	return out, omitted
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

// bounded returns d with every string cut, the violations capped and, if
// the JSON encoding is still over MaxDataBytes, violations dropped from the
// end (counted in ValidationErrorsOmitted) until it fits.
func (d Data) bounded() Data {
	d.Tool = cut(d.Tool, MaxStringBytes)
	var omitted int
	d.ValidationErrors, omitted = boundViolations(d.ValidationErrors)
	d.ValidationErrorsOmitted += omitted
	if g := d.GitHub; g != nil {
		if m, u := cut(g.Message, MaxStringBytes), cut(g.DocumentationURL, MaxStringBytes); m != g.Message || u != g.DocumentationURL {
			d.GitHub = &GitHub{Status: g.Status, Message: m, DocumentationURL: u}
		}
	}
	if r := d.Resource; r != nil {
		if t, id := cut(r.Type, MaxStringBytes), cut(r.ID, MaxStringBytes); t != r.Type || id != r.ID {
			d.Resource = &Resource{Type: t, ID: id}
		}
	}
	d.MergeableState = cut(d.MergeableState, MaxStringBytes)
	d.ExpectedSHA = cut(d.ExpectedSHA, MaxStringBytes)
	d.ActualSHA = cut(d.ActualSHA, MaxStringBytes)
	if p := d.Protocol; p != nil && jsonLen(p.Requested) > MaxStringBytes {
		d.Protocol = &Protocol{Requested: cut(p.Requested, MaxStringBytes), Supported: p.Supported}
	}
	d.Requested = cut(d.Requested, MaxStringBytes)
	if p := d.Patch; p != nil {
		if f, det := cut(p.File, MaxStringBytes), cut(p.Detail, MaxStringBytes); f != p.File || det != p.Detail {
			d.Patch = &Patch{Code: p.Code, File: f, Hunk: p.Hunk, Line: p.Line, Detail: det}
		}
	}
	if p := d.Policy; p != nil {
		if pr, det := cut(p.Principal, MaxStringBytes), cut(p.Detail, MaxStringBytes); pr != p.Principal || det != p.Detail {
			d.Policy = &Policy{Principal: pr, Rule: p.Rule, Detail: det}
		}
	}
	d.RequestID = cut(d.RequestID, MaxStringBytes)
	for len(d.ValidationErrors) > 0 {
		b, err := json.Marshal(d)
		if err == nil && len(b) <= MaxDataBytes {
			break
		}
		keep := len(d.ValidationErrors) / 2
		d.ValidationErrorsOmitted += len(d.ValidationErrors) - keep
		d.ValidationErrors = d.ValidationErrors[:keep:keep]
	}
	return d
}
