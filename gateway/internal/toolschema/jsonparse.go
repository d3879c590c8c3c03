package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arguments so that hostile input cannot make
// the recursive parser or validator grow without limit. protojson refuses
// deeper input anyway, and no tool takes more than three levels.
const maxDepth = 128

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jvalue is one parsed JSON value. Objects keep their members in input order
// (AJV reports additional properties in that order) and every value keeps its
// byte span so that a violation can echo the instance as it was sent.
type jvalue struct {
	kind    jkind
	b       bool
	s       string // decoded string, or the raw text of a number
	elems   []jvalue
	members []jmember
	start   int
	end     int
}

type jmember struct {
	key string
	val jvalue
}

func (v *jvalue) get(key string) (*jvalue, bool) {
	for i := range v.members {
		if v.members[i].key == key {
			return &v.members[i].val, true
		}
	}
	return nil, false
}

// raw returns the value's text from the input, compacted.
func (v *jvalue) raw(src []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, src[v.start:v.end]); err != nil {
		// Unreachable: the span was produced by a successful parse.
		return json.RawMessage(`null`)
	}
	return json.RawMessage(b.Bytes())
}

// parseError is a syntax error at a byte offset.
type parseError struct {
	off int
	msg string
}

func (e *parseError) Error() string { return fmt.Sprintf("offset %d: %s", e.off, e.msg) }

// parseJSON parses one strict RFC 8259 document. It rejects what protojson
// rejects, so that input accepted here always decodes: invalid UTF-8, lone
// UTF-16 surrogate escapes, duplicate object keys and trailing data.
func parseJSON(src []byte) (jvalue, error) {
	p := parser{src: src}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return jvalue{}, err
	}
	p.ws()
	if p.i != len(src) {
		return jvalue{}, p.fail("unexpected data after the value")
	}
	return v, nil
}

type parser struct {
	src []byte
	i   int
}

func (p *parser) fail(msg string) error { return &parseError{off: p.i, msg: msg} }

func (p *parser) ws() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (jvalue, error) {
	if depth > maxDepth {
		return jvalue{}, p.fail("nesting too deep")
	}
	if p.i >= len(p.src) {
		return jvalue{}, p.fail("unexpected end of input")
	}
	start := p.i
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return jvalue{}, err
		}
		return jvalue{kind: jString, s: s, start: start, end: p.i}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if err := p.number(); err != nil {
			return jvalue{}, err
		}
		return jvalue{kind: jNumber, s: string(p.src[start:p.i]), start: start, end: p.i}, nil
	default:
		for _, lit := range []struct {
			text string
			v    jvalue
		}{{"true", jvalue{kind: jBool, b: true}}, {"false", jvalue{kind: jBool}}, {"null", jvalue{kind: jNull}}} {
			if bytes.HasPrefix(p.src[p.i:], []byte(lit.text)) {
				p.i += len(lit.text)
				v := lit.v
				v.start, v.end = start, p.i
				return v, nil
			}
		}
		return jvalue{}, p.fail("invalid character")
	}
}

// separator consumes what follows a member or element: ',' (more follow)
// or the closing byte (done).
func (p *parser) separator(closing byte) (done bool, err error) {
	p.ws()
	if p.i >= len(p.src) {
		return false, p.fail("unexpected end of input")
	}
	switch p.src[p.i] {
	case ',':
		p.i++
		return false, nil
	case closing:
		p.i++
		return true, nil
	}
	return false, p.fail("expected ',' or '" + string(closing) + "'")
}

func (p *parser) object(depth int) (jvalue, error) {
	v := jvalue{kind: jObject, start: p.i}
	p.i++ // {
	p.ws()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		v.end = p.i
		return v, nil
	}
	var seen map[string]struct{}
	for {
		p.ws()
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return jvalue{}, p.fail("expected a property name")
		}
		keyOff := p.i
		key, err := p.str()
		if err != nil {
			return jvalue{}, err
		}
		if seen == nil {
			seen = make(map[string]struct{}, 8)
		}
		if _, dup := seen[key]; dup {
			return jvalue{}, &parseError{off: keyOff, msg: fmt.Sprintf("duplicate property %q", key)}
		}
		seen[key] = struct{}{}
		p.ws()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return jvalue{}, p.fail("expected ':'")
		}
		p.i++
		p.ws()
		val, err := p.value(depth + 1)
		if err != nil {
			return jvalue{}, err
		}
		v.members = append(v.members, jmember{key: key, val: val})
		done, err := p.separator('}')
		if err != nil {
			return jvalue{}, err
		}
		if done {
			v.end = p.i
			return v, nil
		}
	}
}

func (p *parser) array(depth int) (jvalue, error) {
	v := jvalue{kind: jArray, start: p.i}
	p.i++ // [
	p.ws()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		v.end = p.i
		return v, nil
	}
	for {
		p.ws()
		el, err := p.value(depth + 1)
		if err != nil {
			return jvalue{}, err
		}
		v.elems = append(v.elems, el)
		done, err := p.separator(']')
		if err != nil {
			return jvalue{}, err
		}
		if done {
			v.end = p.i
			return v, nil
		}
	}
}

// number consumes a JSON number (RFC 8259 grammar, no leading zeros).
func (p *parser) number() error {
	s := p.src
	if p.i < len(s) && s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(s) && s[p.i] == '0':
		p.i++
	case p.i < len(s) && s[p.i] >= '1' && s[p.i] <= '9':
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
	default:
		return p.fail("invalid number")
	}
	if p.i < len(s) && s[p.i] == '.' {
		p.i++
		n := p.i
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
		if p.i == n {
			return p.fail("invalid number")
		}
	}
	if p.i < len(s) && (s[p.i] == 'e' || s[p.i] == 'E') {
		p.i++
		if p.i < len(s) && (s[p.i] == '+' || s[p.i] == '-') {
			p.i++
		}
		n := p.i
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
		if p.i == n {
			return p.fail("invalid number")
		}
	}
	return nil
}

// str consumes a string and returns it decoded.
func (p *parser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	// Fast path: no escapes.
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c == '"' {
			s := p.src[start:p.i]
			if !utf8.Valid(s) {
				return "", &parseError{off: start, msg: "invalid UTF-8 in string"}
			}
			p.i++
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.fail("control character in string")
		}
		p.i++
	}
	buf := append([]byte(nil), p.src[start:p.i]...)
	for {
		if p.i >= len(p.src) {
			return "", p.fail("unterminated string")
		}
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(buf) {
				return "", &parseError{off: start, msg: "invalid UTF-8 in string"}
			}
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("control character in string")
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		// Escape.
		if p.i+1 >= len(p.src) {
			return "", p.fail("unterminated string")
		}
		e := p.src[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.fail("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// A high surrogate must be followed by an escaped low one.
				if p.i+1 >= len(p.src) || p.src[p.i] != '\\' || p.src[p.i+1] != 'u' {
					return "", p.fail("lone surrogate in \\u escape")
				}
				p.i += 2
				r2, ok := p.hex4()
				if !ok {
					return "", p.fail("invalid \\u escape")
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return "", p.fail("lone surrogate in \\u escape")
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.fail("invalid escape")
		}
	}
}

func (p *parser) hex4() (rune, bool) {
	if p.i+4 > len(p.src) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.src[p.i:p.i+4]), 16, 16)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

// isIntegerText reports whether a JSON number's text denotes an integer,
// deciding exactly on the decimal digits (as protojson does) rather than on a
// rounded float64: 2.0 and 1e2 are integers, 2.5 and 2.0000000000000001 are not.
func isIntegerText(text string) bool {
	s := text
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	var intp, frac, exp string
	intp = s
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == 'e' || s[i] == 'E' {
			intp = s[:i]
			rest := s[i:]
			if rest[0] == '.' {
				rest = rest[1:]
				j := 0
				for j < len(rest) && rest[j] != 'e' && rest[j] != 'E' {
					j++
				}
				frac, rest = rest[:j], rest[j:]
			}
			if rest != "" {
				exp = rest[1:]
			}
			break
		}
	}
	digits := intp + frac
	point := len(intp) // value = 0.digits[...] shifted: digits with the point after index `point`
	// Strip leading zeros (they move the point left) and trailing zeros.
	for digits != "" && digits[0] == '0' {
		digits = digits[1:]
		point--
	}
	for digits != "" && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if digits == "" {
		return true // zero
	}
	e := 0
	if exp != "" {
		neg := exp[0] == '-'
		if exp[0] == '+' || exp[0] == '-' {
			exp = exp[1:]
		}
		for _, c := range exp {
			if e < 1<<30 {
				e = e*10 + int(c-'0')
			}
		}
		if neg {
			e = -e
		}
	}
	return len(digits) <= point+e
}

// numberValue returns a number's value as a float64 for bound checks; the
// bounds are int32, exact in a float64, so rounding never flips a verdict
// on an integer.
func numberValue(text string) float64 {
	f, _ := strconv.ParseFloat(text, 64) // ±Inf on overflow, which compares correctly
	return f
}
