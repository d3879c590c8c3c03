package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// maxDepth bounds the nesting of arguments so that hostile input cannot make
// the validator recurse without limit; no tool takes more than three levels.
const maxDepth = 128

// readInstance reads one JSON text as the instance the JSON Schema library
// validates (objects as map[string]any, numbers as json.Number), in one pass
// of a strict reader. Our own code, because no library gives both: the
// library's own reader (encoding/json) keeps the last of duplicate property
// names and replaces invalid UTF-8 and lone surrogates, which protojson
// refuses; a validator that saw one value of a duplicated key while the
// decoder saw another would be a bypass. jsontext refuses all three (I-JSON,
// RFC 7493) and trailing data.
func readInstance(src []byte) (any, error) {
	r := readers.Get().(*reader)
	defer r.release()
	r.src.Reset(src)
	r.dec.Reset(&r.src)
	dec := r.dec
	v, err := readValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errors.New("unexpected data after the value")
	}
	return v, nil
}

// reader is a pooled strict decoder: every call reads its arguments, and a
// decoder's buffers are the larger part of what reading them allocates.
type reader struct {
	src bytes.Reader
	dec *jsontext.Decoder
}

var readers = sync.Pool{New: func() any {
	r := &reader{}
	r.dec = jsontext.NewDecoder(&r.src)
	return r
}}

// release drops the arguments (a pooled decoder must not keep them alive)
// and returns r to the pool.
func (r *reader) release() {
	r.src.Reset(nil)
	r.dec.Reset(&r.src)
	readers.Put(r)
}

func readValue(dec *jsontext.Decoder) (any, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 't', 'f':
		return tok.Bool(), nil
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case '{':
		if dec.StackDepth() > maxDepth {
			return nil, errors.New("nesting too deep")
		}
		m := map[string]any{}
		for dec.PeekKind() != '}' {
			k, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := k.String() // the token is void after the next read
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		_, err := dec.ReadToken()
		return m, err
	case '[':
		if dec.StackDepth() > maxDepth {
			return nil, errors.New("nesting too deep")
		}
		a := []any{}
		for dec.PeekKind() != ']' {
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.ReadToken()
		return a, err
	}
	return nil, errors.New("invalid JSON")
}

// source is the arguments as sent, for what a violation echoes: the
// instance's own text (compacted, key order kept) and an object's key order
// (AJV reports additional properties in that order), which the library's
// map[string]any does not keep. Each location is read once.
type source struct {
	src  []byte
	raws map[string]json.RawMessage
}

// seek returns a decoder positioned before the value at loc.
func (s *source) seek(loc []string) (*jsontext.Decoder, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(s.src))
	for _, tok := range loc {
		switch dec.PeekKind() {
		case '{':
			if _, err := dec.ReadToken(); err != nil {
				return nil, false
			}
			for {
				if dec.PeekKind() == '}' {
					return nil, false
				}
				k, err := dec.ReadToken()
				if err != nil {
					return nil, false
				}
				if k.String() == tok {
					break
				}
				if dec.SkipValue() != nil {
					return nil, false
				}
			}
		case '[':
			i, err := strconv.Atoi(tok)
			if err != nil {
				return nil, false
			}
			if _, err := dec.ReadToken(); err != nil {
				return nil, false
			}
			for ; i > 0; i-- {
				if dec.PeekKind() == ']' || dec.SkipValue() != nil {
					return nil, false
				}
			}
			if dec.PeekKind() == ']' {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return dec, true
}

// raw returns the compacted text of the value at loc (JSON null when there
// is none).
func (s *source) raw(loc []string) json.RawMessage {
	k := pointer(loc)
	if r, ok := s.raws[k]; ok {
		return r
	}
	r := json.RawMessage("null")
	if dec, ok := s.seek(loc); ok {
		if v, err := dec.ReadValue(); err == nil {
			var b bytes.Buffer
			if json.Compact(&b, v) == nil {
				r = b.Bytes()
			}
		}
	}
	if s.raws == nil {
		s.raws = map[string]json.RawMessage{}
	}
	s.raws[k] = r
	return r
}

// keys returns the property names of the object at loc in input order.
func (s *source) keys(loc []string) []string {
	dec, ok := s.seek(loc)
	if !ok || dec.PeekKind() != '{' {
		return nil
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil
	}
	var out []string
	for dec.PeekKind() != '}' {
		k, err := dec.ReadToken()
		if err != nil {
			return out
		}
		out = append(out, k.String())
		if dec.SkipValue() != nil {
			return out
		}
	}
	return out
}

// pointer renders an instance location as AJV's instancePath.
func pointer(loc []string) string {
	var b bytes.Buffer
	for _, t := range loc {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

// escapePointer escapes one JSON Pointer reference token (RFC 6901).
func escapePointer(s string) string {
	if !bytes.ContainsAny([]byte(s), "~/") {
		return s
	}
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// displayPath renders an AJV instancePath as the contract's path: the root
// (empty pointer) is "root".
func displayPath(p string) string {
	if p == "" {
		return "root"
	}
	return p
}
