package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// subschema is what the adapter needs to know of one subschema of a tool's
// input schema to report a violation as AJV does: AJV's rule groups decide
// where a type error goes, and AJV reports required properties in schema
// order and properties in declaration order, which the library's
// map-based errors do not keep.
type subschema struct {
	typ      string
	enum     []any
	required []string
	props    map[string]int // declaration order
	numbers  map[string]json.Number
	pattern  string
	upfront  bool // a type error comes before the "any" group (AJV)
	checks   []check
	// alternatives are the required sets of anyOf or oneOf: the names a
	// model is told for not (at most one of) and oneOf (exactly one of).
	alternatives [][]string
	words        string // the pattern in words, when it is too long to read
	// dependents are the properties of dependentRequired in declaration
	// order, which AJV reports them in, and deps what each requires.
	dependents []string
	deps       map[string][]string
}

// depsOf is what dependentRequired requires with prop.
func (s *subschema) depsOf(prop string) []string { return s.deps[prop] }

// schemaIndex maps the JSON Pointer of every subschema of a tool's input
// schema to what the adapter needs of it.
type schemaIndex map[string]*subschema

// indexSchema reads a generated schema (keeping property order) and indexes
// its subschemas.
func indexSchema(raw []byte) (schemaIndex, error) {
	idx := schemaIndex{}
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if err := idx.read(dec, ""); err != nil {
		return nil, err
	}
	return idx, nil
}

var stringRules = []string{"minLength", "maxLength", "pattern", "format"}
var arrayRules = []string{"items", "minItems", "maxItems", "uniqueItems"}
var objectRules = []string{"properties", "required", "additionalProperties", "minProperties", "maxProperties", "dependentRequired"}

func (idx schemaIndex) read(dec *jsontext.Decoder, ptr string) error {
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return errors.New("schema is not an object")
	}
	s := &subschema{numbers: map[string]json.Number{}}
	idx[ptr] = s
	seen := map[string]bool{}
	for dec.PeekKind() != '}' {
		k, err := dec.ReadToken()
		if err != nil {
			return err
		}
		key := k.String()
		seen[key] = true
		switch key {
		case "properties":
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			s.props = map[string]int{}
			for dec.PeekKind() != '}' {
				name, err := dec.ReadToken()
				if err != nil {
					return err
				}
				n := name.String()
				s.props[n] = len(s.props)
				if err := idx.read(dec, ptr+"/properties/"+escapePointer(n)); err != nil {
					return err
				}
			}
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
		case "dependentRequired":
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			for dec.PeekKind() != '}' {
				name, err := dec.ReadToken()
				if err != nil {
					return err
				}
				prop := name.String() // before the next read voids the token
				v, err := dec.ReadValue()
				if err != nil {
					return err
				}
				var deps []string
				if err := json.Unmarshal(v, &deps); err != nil {
					return err
				}
				if s.deps == nil {
					s.deps = map[string][]string{}
				}
				s.dependents = append(s.dependents, prop)
				s.deps[prop] = deps
			}
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
		case "items", "not", "if", "then":
			if err := idx.read(dec, ptr+"/"+key); err != nil {
				return err
			}
		case "additionalProperties":
			if dec.PeekKind() == '{' {
				if err := idx.read(dec, ptr+"/"+key); err != nil {
					return err
				}
			} else if err := dec.SkipValue(); err != nil {
				return err
			}
		default:
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			switch key {
			case "type":
				err = json.Unmarshal(v, &s.typ)
			case "enum":
				err = json.Unmarshal(v, &s.enum)
			case "required":
				err = json.Unmarshal(v, &s.required)
			case "pattern":
				err = json.Unmarshal(v, &s.pattern)
			case "anyOf", "oneOf":
				var alts []struct {
					Required []string `json:"required"`
				}
				err = json.Unmarshal(v, &alts)
				for _, a := range alts {
					s.alternatives = append(s.alternatives, a.Required)
				}
			case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
				s.numbers[key] = json.Number(v)
			}
			if err != nil {
				return err
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	has := func(keys []string) bool {
		for _, k := range keys {
			if seen[k] {
				return true
			}
		}
		return false
	}
	switch s.typ {
	case "integer", "number", "boolean":
		s.upfront = true
	case "string":
		s.upfront = !has(stringRules)
	case "array":
		s.upfront = !has(arrayRules)
	case "object":
		s.upfront = !has(objectRules)
	}
	return nil
}

// schemaPointer is the JSON Pointer part of a schema location URL.
func schemaPointer(loc string) string {
	if i := strings.IndexByte(loc, '#'); i >= 0 {
		return loc[i+1:]
	}
	return ""
}
