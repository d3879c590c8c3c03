// Package graphql parses the executable GraphQL documents fakehub answers: one operation with
// optional variable definitions and a selection set of fields, aliases and arguments. Fragments,
// directives and block strings are refused as unsupported rather than misread, so that a client
// relying on them learns at once that the emulator cannot serve it. The input is untrusted: the
// parser bounds nesting and never panics.
package graphql

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MaxDepth bounds the nesting of selection sets, lists and input objects.
const MaxDepth = 32

// Document is a parsed operation.
type Document struct {
	// Operation is "query", "mutation" or "subscription"; a bare selection set is a "query".
	Operation string
	// Name is the operation's name, empty when anonymous.
	Name string
	// Defaults holds the default value of each declared variable that has one.
	Defaults map[string]any
	// Declared lists the declared variable names.
	Declared map[string]bool
	// Fields is the top-level selection set.
	Fields []*Field
}

// Field is one selected field.
type Field struct {
	// Alias is the response key when given, else empty.
	Alias string
	// Name is the field's name.
	Name string
	// Args are the field's arguments: string, float64 or int64 numbers (as json.Number), bool,
	// nil, Enum, Var, []any or map[string]any.
	Args map[string]any
	// Fields is the field's own selection set, nil for a scalar.
	Fields []*Field
	// Line and Column locate the field in the document, from 1.
	Line, Column int
}

// Key is the field's response key: its alias, or else its name.
func (f *Field) Key() string {
	if f.Alias != "" {
		return f.Alias
	}
	return f.Name
}

// Var is a reference to a variable, $name.
type Var string

// Enum is an enum literal such as OPEN.
type Enum string

// Error is a syntax error or an unsupported construct, with its position.
type Error struct {
	Line, Column int
	Message      string
	// Unsupported is set when the document is valid GraphQL that fakehub does not implement.
	Unsupported bool
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s at [%d, %d]", e.Message, e.Line, e.Column)
}

// ErrUndefinedVariable is wrapped by Resolve when a value names a variable that has no value.
var ErrUndefinedVariable = errors.New("variable has no value")

// Resolve replaces the variables in v with their values (vars first, then the document's
// defaults); an undeclared variable or one without a value is an error.
func (d *Document) Resolve(v any, vars map[string]any) (any, error) {
	return d.resolve(v, vars, 0)
}

func (d *Document) resolve(v any, vars map[string]any, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, errors.New("value nested too deeply")
	}
	switch x := v.(type) {
	case Var:
		if !d.Declared[string(x)] {
			return nil, fmt.Errorf("variable $%s is not declared: %w", x, ErrUndefinedVariable)
		}
		if val, ok := vars[string(x)]; ok {
			return val, nil
		}
		if val, ok := d.Defaults[string(x)]; ok {
			return val, nil
		}
		return nil, fmt.Errorf("variable $%s: %w", x, ErrUndefinedVariable)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := d.resolve(e, vars, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := d.resolve(e, vars, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	}
	return v, nil
}

// Parse parses a document holding exactly one operation.
func Parse(src string) (*Document, error) {
	p := &parser{lex: lexer{src: src, line: 1, col: 1}}
	if err := p.next(); err != nil {
		return nil, err
	}
	d, err := p.document()
	if err != nil {
		return nil, err
	}
	return d, nil
}

type tokKind int

const (
	tEOF tokKind = iota
	tName
	tString
	tNumber
	tPunct
)

type token struct {
	kind      tokKind
	text      string // punctuator, name, number text or decoded string
	line, col int
}

type lexer struct {
	src       string
	pos       int
	line, col int
}

func (l *lexer) errorf(format string, a ...any) *Error {
	return &Error{Line: l.line, Column: l.col, Message: fmt.Sprintf(format, a...)}
}

func (l *lexer) advance(n int) {
	for i := 0; i < n && l.pos < len(l.src); i++ {
		if l.src[l.pos] == '\n' {
			l.line, l.col = l.line+1, 1
		} else {
			l.col++
		}
		l.pos++
	}
}

func isNameStart(c byte) bool { return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }

func (l *lexer) token() (token, error) {
	// Ignored tokens: whitespace, line terminators, commas, comments and a byte order mark.
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',':
			l.advance(1)
		case c == '#':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' && l.src[l.pos] != '\r' {
				l.advance(1)
			}
		case strings.HasPrefix(l.src[l.pos:], "\uFEFF"):
			l.advance(3)
		default:
			goto scan
		}
	}
	return token{kind: tEOF, line: l.line, col: l.col}, nil
scan:
	start, line, col := l.pos, l.line, l.col
	c := l.src[l.pos]
	switch {
	case strings.HasPrefix(l.src[l.pos:], "..."):
		l.advance(3)
		return token{kind: tPunct, text: "...", line: line, col: col}, nil
	case strings.IndexByte("!$&()=:@[]{}|", c) >= 0:
		l.advance(1)
		return token{kind: tPunct, text: string(c), line: line, col: col}, nil
	case isNameStart(c):
		for l.pos < len(l.src) && (isNameStart(l.src[l.pos]) || isDigit(l.src[l.pos])) {
			l.advance(1)
		}
		return token{kind: tName, text: l.src[start:l.pos], line: line, col: col}, nil
	case c == '-' || isDigit(c):
		if c == '-' {
			l.advance(1)
		}
		digits := func() int {
			n := 0
			for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
				l.advance(1)
				n++
			}
			return n
		}
		if digits() == 0 {
			return token{}, &Error{Line: line, Column: col, Message: "invalid number"}
		}
		if l.pos < len(l.src) && l.src[l.pos] == '.' {
			l.advance(1)
			if digits() == 0 {
				return token{}, &Error{Line: line, Column: col, Message: "invalid number"}
			}
		}
		if l.pos < len(l.src) && (l.src[l.pos] == 'e' || l.src[l.pos] == 'E') {
			l.advance(1)
			if l.pos < len(l.src) && (l.src[l.pos] == '+' || l.src[l.pos] == '-') {
				l.advance(1)
			}
			if digits() == 0 {
				return token{}, &Error{Line: line, Column: col, Message: "invalid number"}
			}
		}
		text := l.src[start:l.pos]
		if !json.Valid([]byte(text)) { // GraphQL forbids leading zeros as JSON does
			return token{}, &Error{Line: line, Column: col, Message: "invalid number " + text}
		}
		return token{kind: tNumber, text: text, line: line, col: col}, nil
	case c == '"':
		if strings.HasPrefix(l.src[l.pos:], `"""`) {
			return token{}, &Error{Line: line, Column: col, Message: "block strings are not supported", Unsupported: true}
		}
		l.advance(1)
	str:
		for {
			if l.pos >= len(l.src) || l.src[l.pos] == '\n' || l.src[l.pos] == '\r' {
				return token{}, &Error{Line: line, Column: col, Message: "unterminated string"}
			}
			switch l.src[l.pos] {
			case '\\':
				l.advance(2)
			case '"':
				l.advance(1)
				break str
			default:
				l.advance(1)
			}
		}
		var s string
		// GraphQL string escapes are JSON's (bar \u{...}, which JSON rejects and so do we).
		if err := json.Unmarshal([]byte(l.src[start:l.pos]), &s); err != nil {
			return token{}, &Error{Line: line, Column: col, Message: "invalid string"}
		}
		return token{kind: tString, text: s, line: line, col: col}, nil
	}
	return token{}, l.errorf("unexpected character %q", c)
}

type parser struct {
	lex lexer
	tok token
}

func (p *parser) next() error {
	t, err := p.lex.token()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) errorf(format string, a ...any) *Error {
	return &Error{Line: p.tok.line, Column: p.tok.col, Message: fmt.Sprintf(format, a...)}
}

func (p *parser) unsupported(what string) *Error {
	e := p.errorf("%s are not supported", what)
	e.Unsupported = true
	return e
}

func (p *parser) is(text string) bool { return p.tok.kind == tPunct && p.tok.text == text }

func (p *parser) expect(text string) error {
	if !p.is(text) {
		return p.errorf("expected %q, found %s", text, p.describe())
	}
	return p.next()
}

func (p *parser) describe() string {
	switch p.tok.kind {
	case tEOF:
		return "end of document"
	case tString:
		return "a string"
	}
	return fmt.Sprintf("%q", p.tok.text)
}

func (p *parser) name() (string, error) {
	if p.tok.kind != tName {
		return "", p.errorf("expected a name, found %s", p.describe())
	}
	n := p.tok.text
	return n, p.next()
}

func (p *parser) document() (*Document, error) {
	d := &Document{Operation: "query", Defaults: map[string]any{}, Declared: map[string]bool{}}
	switch {
	case p.is("{"):
	case p.tok.kind == tName && (p.tok.text == "query" || p.tok.text == "mutation" || p.tok.text == "subscription"):
		d.Operation = p.tok.text
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.tok.kind == tName {
			d.Name = p.tok.text
			if err := p.next(); err != nil {
				return nil, err
			}
		}
		if p.is("(") {
			if err := p.variables(d); err != nil {
				return nil, err
			}
		}
		if p.is("@") {
			return nil, p.unsupported("directives")
		}
	case p.tok.kind == tName && p.tok.text == "fragment":
		return nil, p.unsupported("fragments")
	default:
		return nil, p.errorf("expected an operation, found %s", p.describe())
	}
	fields, err := p.selectionSet(0)
	if err != nil {
		return nil, err
	}
	d.Fields = fields
	if p.tok.kind != tEOF {
		if p.tok.kind == tName && p.tok.text == "fragment" {
			return nil, p.unsupported("fragments")
		}
		e := p.errorf("documents with more than one operation are not supported")
		e.Unsupported = true
		return nil, e
	}
	return d, nil
}

func (p *parser) variables(d *Document) error {
	if err := p.expect("("); err != nil {
		return err
	}
	for !p.is(")") {
		if err := p.expect("$"); err != nil {
			return err
		}
		n, err := p.name()
		if err != nil {
			return err
		}
		if d.Declared[n] {
			return p.errorf("variable $%s is declared twice", n)
		}
		d.Declared[n] = true
		if err := p.expect(":"); err != nil {
			return err
		}
		if err := p.typeRef(0); err != nil {
			return err
		}
		if p.is("=") {
			if err := p.next(); err != nil {
				return err
			}
			v, err := p.value(true, 0)
			if err != nil {
				return err
			}
			d.Defaults[n] = v
		}
		if p.is("@") {
			return p.unsupported("directives")
		}
	}
	if len(d.Declared) == 0 {
		return p.errorf("empty variable definitions")
	}
	return p.next()
}

func (p *parser) typeRef(depth int) error {
	if depth > MaxDepth {
		return p.errorf("type nested too deeply")
	}
	if p.is("[") {
		if err := p.next(); err != nil {
			return err
		}
		if err := p.typeRef(depth + 1); err != nil {
			return err
		}
		if err := p.expect("]"); err != nil {
			return err
		}
	} else if _, err := p.name(); err != nil {
		return err
	}
	if p.is("!") {
		return p.next()
	}
	return nil
}

func (p *parser) selectionSet(depth int) ([]*Field, error) {
	if depth > MaxDepth {
		return nil, p.errorf("selection nested too deeply")
	}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var out []*Field
	for !p.is("}") {
		if p.is("...") {
			return nil, p.unsupported("fragments")
		}
		f := &Field{Line: p.tok.line, Column: p.tok.col}
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		f.Name = n
		if p.is(":") {
			if err := p.next(); err != nil {
				return nil, err
			}
			if f.Name, err = p.name(); err != nil {
				return nil, err
			}
			f.Alias = n
		}
		if p.is("(") {
			if f.Args, err = p.arguments(depth); err != nil {
				return nil, err
			}
		}
		if p.is("@") {
			return nil, p.unsupported("directives")
		}
		if p.is("{") {
			if f.Fields, err = p.selectionSet(depth + 1); err != nil {
				return nil, err
			}
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, p.errorf("empty selection set")
	}
	return out, p.next()
}

func (p *parser) arguments(depth int) (map[string]any, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	args := map[string]any{}
	for !p.is(")") {
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		if _, dup := args[n]; dup {
			return nil, p.errorf("argument %s given twice", n)
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		v, err := p.value(false, depth+1)
		if err != nil {
			return nil, err
		}
		args[n] = v
	}
	if len(args) == 0 {
		return nil, p.errorf("empty arguments")
	}
	return args, p.next()
}

// value parses a value; constant forbids variables (as in defaults).
func (p *parser) value(constant bool, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, p.errorf("value nested too deeply")
	}
	t := p.tok
	switch {
	case p.is("$"):
		if constant {
			return nil, p.errorf("variables are not allowed here")
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		n, err := p.name()
		return Var(n), err
	case t.kind == tString:
		return t.text, p.next()
	case t.kind == tNumber:
		return json.Number(t.text), p.next()
	case t.kind == tName:
		if err := p.next(); err != nil {
			return nil, err
		}
		switch t.text {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		return Enum(t.text), nil
	case p.is("["):
		if err := p.next(); err != nil {
			return nil, err
		}
		list := []any{}
		for !p.is("]") {
			v, err := p.value(constant, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, p.next()
	case p.is("{"):
		if err := p.next(); err != nil {
			return nil, err
		}
		o := map[string]any{}
		for !p.is("}") {
			n, err := p.name()
			if err != nil {
				return nil, err
			}
			if _, dup := o[n]; dup {
				return nil, p.errorf("input field %s given twice", n)
			}
			if err := p.expect(":"); err != nil {
				return nil, err
			}
			v, err := p.value(constant, depth+1)
			if err != nil {
				return nil, err
			}
			o[n] = v
		}
		return o, p.next()
	}
	return nil, p.errorf("expected a value, found %s", p.describe())
}
