package contentclean

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"ghops.dev/redact"
	"ghops.dev/services/github/internal/textclean"
)

// walker visits one answer, accumulating what was removed.
type walker struct {
	known   []string
	removed textclean.Removed
	secrets int
	// path is the field path being visited, as segments, turned into a
	// string only for a field that changed.
	path   []segment
	fields []string
}

// segment is one step of a field path: a field's name and, in a list or
// map, the element's index or key.
type segment struct {
	name  string
	index int    // -1 when not a list element
	key   string // a map key, when not ""
}

func (w *walker) changed() bool { return w.removed.Any() || w.secrets != 0 }

func (w *walker) message(m protoreflect.Message, p *plan) {
	for _, t := range p.texts {
		if !m.Has(t.fd) {
			continue
		}
		name := string(t.fd.Name())
		if !t.fd.IsList() {
			if out, ok := w.text(m.Get(t.fd).String(), name, -1, ""); ok {
				m.Set(t.fd, protoreflect.ValueOfString(out))
			}
			continue
		}
		l := m.Get(t.fd).List() // populated (Has), so a mutable reference
		inKey := false
		for i := 0; i < l.Len(); i++ {
			s := l.Get(i).String()
			hidden := false
			if t.log {
				// A build that prints a private key prints it over many
				// lines: the lines after an opening line without its end,
				// to the end line, go too (the block counts once, on its
				// opening line).
				s, hidden, inKey = keyLines(s, inKey)
			}
			out, ok := w.text(s, name, i, "")
			if hidden && !ok {
				w.note(name, i, "")
			}
			if ok || hidden {
				l.Set(i, protoreflect.ValueOfString(out))
			}
		}
	}
	for _, n := range p.nested {
		if !m.Has(n.fd) {
			continue
		}
		name := string(n.fd.Name())
		switch {
		case n.fd.IsList():
			l := m.Get(n.fd).List()
			for i := 0; i < l.Len(); i++ {
				w.path = append(w.path, segment{name: name, index: i})
				w.message(l.Get(i).Message(), n.plan)
				w.path = w.path[:len(w.path)-1]
			}
		case n.fd.IsMap():
			m.Get(n.fd).Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				w.path = append(w.path, segment{name: name, index: -1, key: k.String()})
				w.message(v.Message(), n.plan)
				w.path = w.path[:len(w.path)-1]
				return true
			})
		default:
			w.path = append(w.path, segment{name: name, index: -1})
			w.message(m.Get(n.fd).Message(), n.plan)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

// text cleans one marked value; ok is true when it changed.
func (w *walker) text(s, name string, index int, key string) (string, bool) {
	out, rem := textclean.Clean(s)
	out, n := redact.Secrets(out, w.known...)
	if !rem.Any() && n == 0 {
		return s, false
	}
	w.removed.Add(rem)
	w.secrets += n
	w.note(name, index, key)
	return out, true
}

// note records the path of a changed field (up to MaxReportFields).
func (w *walker) note(name string, index int, key string) {
	if len(w.fields) >= MaxReportFields {
		return
	}
	var b strings.Builder
	for _, s := range append(w.path, segment{name: name, index: index, key: key}) {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
		switch {
		case s.key != "":
			b.WriteString("[" + strconv.Quote(s.key) + "]")
		case s.index >= 0:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		}
	}
	w.fields = append(w.fields, b.String())
}

// keyLines handles the lines of a private key printed over several log
// lines. inKey says whether an earlier line opened a key without closing
// it. A line inside the key becomes redact.Mark (hidden is true); the line
// that closes it keeps only what follows the end marker, after the mark.
// open says whether a key is open after s (a line that opens one is left
// to redact.Secrets, which redacts from its opening marker on). Only lines
// that end in base64 (at least 16 characters, a key's body) count as part
// of the key, so a log that prints only a key's opening marker (a grep, a
// test) loses nothing more than that line's part.
func keyLines(s string, inKey bool) (out string, hidden, open bool) {
	if inKey {
		if i := strings.Index(s, "-----END"); i >= 0 {
			rest := s[i+len("-----END"):]
			if j := strings.Index(rest, "-----"); j >= 0 {
				return redact.Mark + rest[j+len("-----"):], true, false
			}
		}
		if f := strings.Fields(s); len(f) > 0 && isKeyBody(f[len(f)-1]) {
			return redact.Mark, true, true
		}
		// Not a line of the key (a key is printed in base64 lines): the
		// key was cut off, and the log goes on.
	}
	i := strings.LastIndex(s, "-----BEGIN")
	if i < 0 || !strings.Contains(s[i:], "PRIVATE KEY-----") || strings.Contains(s[i:], "-----END") {
		return s, false, false
	}
	return s, false, true
}

// isKeyBody reports whether f looks like a line of a PEM body: 16 or more
// base64 characters.
func isKeyBody(f string) bool {
	if len(f) < 16 {
		return false
	}
	for i := 0; i < len(f); i++ {
		c := f[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}
