package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
)

// Value returns v with every string redacted: v is a JSON-shaped value
// (nil, bool, float64, json.Number, string, []any, map[string]any, as
// encoding/json decodes into any) or json.RawMessage, []string,
// map[string]string. A string under a secret-named key (IsSecretName) is
// replaced whole; map keys are redacted too. Any other type is redacted
// through its JSON encoding and, when that changes, returned as the decoded
// generic value. v itself is never modified; when nothing needs redacting,
// v is returned as is.
func Value(v any) any {
	out, _ := value(v)
	return out
}

// value is Value that also reports whether anything changed, so that clean
// containers are not copied.
func value(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, json.Number:
		return v, false
	case string:
		if s := String(x); s != x {
			return s, true
		}
		return v, false // v, not x: boxing x again would allocate
	case []any:
		var out []any
		for i, e := range x {
			r, changed := value(e)
			if changed && out == nil {
				out = append(make([]any, 0, len(x)), x[:i]...)
			}
			if out != nil {
				out = append(out, r)
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case map[string]any:
		return mapValue(x)
	case []string:
		var out []string
		for i, e := range x {
			r := String(e)
			if r != e && out == nil {
				out = append(make([]string, 0, len(x)), x[:i]...)
			}
			if out != nil {
				out = append(out, r)
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = e
		}
		r, changed := mapValue(m)
		if !changed {
			return v, false
		}
		out := make(map[string]string, len(x))
		for k, e := range r.(map[string]any) {
			out[k] = e.(string)
		}
		return out, true
	case json.RawMessage:
		r := JSON(x)
		if bytes.Equal(r, x) {
			return v, false
		}
		return json.RawMessage(r), true
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			// Not encodable: it cannot reach a response or a JSON log either.
			return v, false
		}
		r := JSON(raw)
		if bytes.Equal(r, raw) {
			return v, false
		}
		var generic any
		if err := json.Unmarshal(r, &generic); err != nil {
			return Mark, true
		}
		return generic, true
	}
}

// secretValue is the redacted value of a secret-named member: Mark, except
// for an empty value and one starting with '[', taken for a placeholder
// such as Mark itself (as the text rules do).
func secretValue(s string) (any, bool) {
	if s == "" || s[0] == '[' {
		return s, false
	}
	return Mark, true
}

// mapValue redacts a JSON object's keys and values; a clean object is not
// copied.
func mapValue(x map[string]any) (any, bool) {
	type change struct {
		key, newKey string
		v           any
	}
	var changes []change
	for k, e := range x {
		var r any
		var c bool
		if s, ok := e.(string); ok && IsSecretName(k) {
			if r, c = secretValue(s); !c {
				r = e
			}
		} else {
			r, c = value(e)
		}
		if nk := String(k); c || nk != k {
			changes = append(changes, change{k, nk, r})
		}
	}
	if changes == nil {
		return x, false
	}
	out := make(map[string]any, len(x))
	for k, e := range x {
		out[k] = e
	}
	for _, c := range changes {
		delete(out, c.key)
	}
	for _, c := range changes {
		out[c.newKey] = c.v
	}
	return out, true
}

// JSON returns the JSON text raw with every string redacted as Value does,
// keeping the members' order and the numbers' spelling. Text that is not
// JSON is redacted as a string. When nothing needs redacting, raw itself is
// returned.
func JSON(raw []byte) []byte {
	// Fast path: without escapes every decoded string is a substring of
	// raw, so a raw text with no match has no string with one.
	if bytes.IndexByte(raw, '\\') < 0 && !Contains(string(raw)) {
		return raw
	}
	w := &rewriter{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := w.value(dec); err != nil {
		return []byte(String(string(raw)))
	}
	if _, err := dec.Token(); err != io.EOF {
		return []byte(String(string(raw)))
	}
	if !w.changed {
		return raw
	}
	return w.out.Bytes()
}

// rewriter copies JSON tokens, strings redacted, and notes whether any
// string changed.
type rewriter struct {
	out     bytes.Buffer
	changed bool
}

// value copies one JSON value from dec, strings redacted.
func (w *rewriter) value(dec *json.Decoder) error {
	out := &w.out
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			out.WriteByte('{')
			for first := true; dec.More(); first = false {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				if !first {
					out.WriteByte(',')
				}
				w.string(k)
				out.WriteByte(':')
				if IsSecretName(k) {
					if err := w.secret(dec); err != nil {
						return err
					}
					continue
				}
				if err := w.value(dec); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil { // '}'
				return err
			}
			out.WriteByte('}')
		case '[':
			out.WriteByte('[')
			for first := true; dec.More(); first = false {
				if !first {
					out.WriteByte(',')
				}
				if err := w.value(dec); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil { // ']'
				return err
			}
			out.WriteByte(']')
		default:
			return errors.New("unexpected delimiter")
		}
	case string:
		w.string(t)
	case json.Number:
		out.WriteString(t.String())
	case bool:
		out.WriteString(strconv.FormatBool(t))
	case nil:
		out.WriteString("null")
	}
	return nil
}

// secret copies the value of a secret-named member: a string becomes Mark,
// anything else is copied as usual.
func (w *rewriter) secret(dec *json.Decoder) error {
	if !dec.More() {
		return errors.New("missing value")
	}
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s) // raw is a valid JSON string
		r, changed := secretValue(s)
		w.changed = w.changed || changed
		w.write(r.(string))
		return nil
	}
	inner := json.NewDecoder(bytes.NewReader(raw))
	inner.UseNumber()
	return w.value(inner)
}

// string writes s redacted.
func (w *rewriter) string(s string) {
	r := String(s)
	if r != s {
		w.changed = true
	}
	w.write(r)
}

// write writes s as a JSON string, escaped as encoding/json does.
func (w *rewriter) write(s string) {
	b, _ := json.Marshal(s) // a string always encodes
	w.out.Write(b)
}

// Error returns err with its message redacted (String, plus every
// occurrence of the given secrets); errors.Is and errors.As still see err.
// A nil err stays nil.
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	return &redacted{err: err, secrets: secrets}
}

// redacted is an error whose message is redacted.
type redacted struct {
	err     error
	secrets []string
}

func (r *redacted) Error() string { return StringWith(r.err.Error(), r.secrets...) }
func (r *redacted) Unwrap() error { return r.err }
