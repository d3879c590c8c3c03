package toolschema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// maxViolations caps the list: AJV has no cap, but an object with thousands
// of unknown keys must not turn into thousands of violations (the error
// answer's own bounds are rpcerror's). No more than this many are built.
const maxViolations = 50

// AJV's rule groups, in the order AJV v8 (allErrors) evaluates keywords: a
// type check up front when the schema's type has no group in use, then
// "any" (const, enum, not, oneOf, if/then), numbers, strings (with the
// contract's shared rules as custom keywords after pattern), arrays,
// objects. Violations are sorted by these ranks along their schema path, so
// the order is AJV's whatever order the library found them in.
const (
	rankType = iota
	rankConst
	rankEnum
	rankNot
	rankOneOf
	rankIf
	rankMaximum
	rankMinimum
	rankExclusiveMaximum
	rankExclusiveMinimum
	rankStringType
	rankMaxLength
	rankMinLength
	rankPattern
	rankFormat
	rankCheck
	rankArrayType
	rankMaxItems
	rankMinItems
	rankUniqueItems // AJV: the validation vocabulary's array keywords, then items
	rankItems
	rankObjectType
	rankMaxProperties
	rankMinProperties
	rankRequired
	rankAdditional
	rankProperties
	// rankDependentRequired: AJV's draft 2020-12 vocabulary adds
	// dependentRequired after the applicators, so after properties.
	rankDependentRequired
)

// sorted is a violation and its place in AJV's order.
type sorted struct {
	key []int
	v   Violation
}

// adapter turns the library's errors into the contract's violations.
type adapter struct {
	t    *Tool
	src  *source
	inst any
	out  []sorted
	// unbuilt counts violations found but never built (the cap).
	unbuilt int
}

// valueAt returns the instance's value at loc (nil when there is none).
func (a *adapter) valueAt(loc []string) any {
	v := a.inst
	for _, tok := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// leaves collects the errors that say what is wrong; groups (and the root
// schema's wrapper) only carry them.
func leaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	switch e.ErrorKind.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			out = leaves(c, out)
		}
		return out
	}
	return append(out, e)
}

// place is the sort key of the subschema at ptr for the instance at loc: the
// ranks of the keywords that lead there, with property, index and key
// orders. It returns the subschema itself too.
func (a *adapter) place(ptr string, loc []string) ([]int, *subschema) {
	var key []int
	cur := ""
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	if ptr == "" {
		toks = nil
	}
	li := 0
	for i := 0; i < len(toks); i++ {
		s := a.t.index[cur]
		switch toks[i] {
		case "properties":
			if i+1 >= len(toks) {
				return key, a.t.index[ptr]
			}
			name := toks[i+1]
			pos := 0
			if s != nil {
				pos = s.props[unescapePointer(name)]
			}
			key = append(key, rankProperties, pos)
			cur += "/properties/" + name
			i++
			li++
		case "items":
			n := 0
			if li < len(loc) {
				n, _ = strconv.Atoi(loc[li])
			}
			key = append(key, rankItems, n)
			cur += "/items"
			li++
		case "additionalProperties":
			pos := 0
			if li < len(loc) {
				pos = slices.Index(a.src.keys(loc[:li]), loc[li])
			}
			key = append(key, rankAdditional, pos)
			cur += "/additionalProperties"
			li++
		case "then":
			key = append(key, rankIf, 0)
			cur += "/then"
		default:
			cur += "/" + toks[i]
		}
	}
	return key, a.t.index[ptr]
}

func unescapePointer(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
}

func (a *adapter) add(key []int, loc []string, keyword, message string, params map[string]any) {
	a.out = append(a.out, sorted{key: key, v: Violation{
		Message: message,
		Path:    displayPath(pointer(loc)),
		Keyword: keyword,
		Params:  params,
		Value:   a.src.raw(loc),
	}})
}

func with(key []int, more ...int) []int {
	return append(slices.Clip(key), more...)
}

// convert adds the violations of one leaf error.
func (a *adapter) convert(e *jsonschema.ValidationError, thens map[string]bool) {
	loc := e.InstanceLocation
	ptr := schemaPointer(e.SchemaURL)
	key, s := a.place(ptr, loc)
	if s == nil {
		s = &subschema{}
	}
	if strings.HasSuffix(ptr, "/then") || strings.Contains(ptr, "/then/") {
		objPtr := ptr[:strings.LastIndex(ptr, "/then")]
		objKey, _ := a.place(objPtr, loc)
		// The object is where the then keyword sits: the error's location
		// minus the properties the then schema descended into.
		rest := strings.TrimPrefix(ptr[strings.LastIndex(ptr, "/then")+len("/then"):], "/")
		objLoc := loc[:max(0, len(loc)-strings.Count(rest, "properties/"))]
		if p := pointer(objLoc); !thens[p] {
			thens[p] = true
			a.add(with(objKey, rankIf, 1), objLoc, "if", `must match "then" schema`, map[string]any{"failingKeyword": "then"})
		}
	}
	limit := func(name string) json.Number { return s.numbers[name] }
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		r := rankType
		switch {
		case s.upfront:
		case s.typ == "string":
			r = rankStringType
		case s.typ == "array":
			r = rankArrayType
		case s.typ == "object":
			r = rankObjectType
		}
		a.add(with(key, r), loc, "type", "must be "+s.typ, map[string]any{"type": s.typ})
		if n, ok := a.valueAt(loc).(json.Number); ok && s.typ == "integer" {
			// The library stops at a type error; AJV goes on to the number
			// group for a number that is not an integer.
			f, _ := n.Float64()
			if m, ok := s.numbers["maximum"]; ok {
				if lim, _ := m.Float64(); f > lim {
					a.add(with(key, rankMaximum), loc, "maximum", "must be <= "+m.String(), map[string]any{"comparison": "<=", "limit": m})
				}
			}
			if m, ok := s.numbers["minimum"]; ok {
				if lim, _ := m.Float64(); f < lim {
					a.add(with(key, rankMinimum), loc, "minimum", "must be >= "+m.String(), map[string]any{"comparison": ">=", "limit": m})
				}
			}
		}
		if s.enum != nil {
			// The library stops at a type error; AJV also reports enum.
			a.add(with(key, rankEnum), loc, "enum", "must be equal to one of the allowed values", map[string]any{"allowedValues": s.enum})
		}
	case *kind.Const:
		a.add(with(key, rankConst), loc, "const", "must be equal to constant", map[string]any{"allowedValue": k.Want})
	case *kind.Enum:
		a.add(with(key, rankEnum), loc, "enum", "must be equal to one of the allowed values", map[string]any{"allowedValues": s.enum})
	case *kind.Not:
		a.add(with(key, rankNot), loc, "not", "must NOT be valid", map[string]any{})
	case *kind.OneOf:
		var passing any
		if len(k.Subschemas) > 0 {
			passing = k.Subschemas
		}
		a.add(with(key, rankOneOf), loc, "oneOf", "must match exactly one schema in oneOf", map[string]any{"passingSchemas": passing})

	case *kind.Maximum:
		a.add(with(key, rankMaximum), loc, "maximum", "must be <= "+limit("maximum").String(), map[string]any{"comparison": "<=", "limit": limit("maximum")})
	case *kind.Minimum:
		a.add(with(key, rankMinimum), loc, "minimum", "must be >= "+limit("minimum").String(), map[string]any{"comparison": ">=", "limit": limit("minimum")})
	case *kind.ExclusiveMaximum:
		a.add(with(key, rankExclusiveMaximum), loc, "exclusiveMaximum", "must be < "+limit("exclusiveMaximum").String(), map[string]any{"comparison": "<", "limit": limit("exclusiveMaximum")})
	case *kind.ExclusiveMinimum:
		a.add(with(key, rankExclusiveMinimum), loc, "exclusiveMinimum", "must be > "+limit("exclusiveMinimum").String(), map[string]any{"comparison": ">", "limit": limit("exclusiveMinimum")})
	case *kind.MaxLength:
		a.add(with(key, rankMaxLength), loc, "maxLength", "must NOT be longer than "+strconv.Itoa(k.Want)+" characters", map[string]any{"limit": k.Want})
	case *kind.MinLength:
		a.add(with(key, rankMinLength), loc, "minLength", "must NOT be shorter than "+strconv.Itoa(k.Want)+" characters", map[string]any{"limit": k.Want})
	case *kind.Pattern:
		a.add(with(key, rankPattern), loc, "pattern", `must match pattern "`+s.pattern+`"`, map[string]any{"pattern": s.pattern})

	case *kind.Format:
		a.add(with(key, rankFormat), loc, "format", `must match format "`+k.Want+`"`, map[string]any{"format": k.Want})
	case *kind.MaxItems:
		a.add(with(key, rankMaxItems), loc, "maxItems", "must NOT have more than "+strconv.Itoa(k.Want)+" items", map[string]any{"limit": k.Want})
	case *kind.MinItems:
		a.add(with(key, rankMinItems), loc, "minItems", "must NOT have fewer than "+strconv.Itoa(k.Want)+" items", map[string]any{"limit": k.Want})
	case *kind.UniqueItems:
		i, j := k.Duplicates[1], k.Duplicates[0]
		a.add(with(key, rankUniqueItems), loc, "uniqueItems", fmt.Sprintf("must NOT have duplicate items (items ## %d and %d are identical)", j, i), map[string]any{"i": i, "j": j})
	case *kind.MaxProperties:
		a.add(with(key, rankMaxProperties), loc, "maxProperties", "must NOT have more than "+strconv.Itoa(k.Want)+" properties", map[string]any{"limit": k.Want})
	case *kind.MinProperties:
		a.add(with(key, rankMinProperties), loc, "minProperties", "must NOT have fewer than "+strconv.Itoa(k.Want)+" properties", map[string]any{"limit": k.Want})
	case *kind.Required:
		for _, m := range k.Missing {
			a.add(with(key, rankRequired, slices.Index(s.required, m)), loc, "required", "must have required property '"+m+"'", map[string]any{"missingProperty": m})
		}
	case *kind.DependentRequired:
		// AJV v8's dependencies error: one per missing property, the
		// message naming all of the property's dependencies.
		// The error's schema location is the property's entry; the list
		// and the order are the object schema's.
		objPtr := ptr
		if i := strings.LastIndex(ptr, "/dependentRequired/"); i >= 0 {
			objPtr = ptr[:i]
		}
		objKey, obj := a.place(objPtr, loc)
		if obj == nil {
			obj = &subschema{}
		}
		key = objKey
		deps := obj.depsOf(k.Prop)
		noun := "property"
		if len(deps) != 1 {
			noun = "properties"
		}
		missing := slices.Clone(k.Missing)
		slices.SortFunc(missing, func(x, y string) int { return slices.Index(deps, x) - slices.Index(deps, y) })
		for _, m := range missing {
			a.add(with(key, rankDependentRequired, slices.Index(obj.dependents, k.Prop), slices.Index(deps, m)), loc, "dependentRequired",
				"must have "+noun+" "+strings.Join(deps, ", ")+" when property "+k.Prop+" is present",
				map[string]any{"property": k.Prop, "missingProperty": m, "depsCount": len(deps), "deps": strings.Join(deps, ", ")})
		}
	case *kind.AdditionalProperties:
		order := a.src.keys(loc)
		extra := map[string]bool{}
		for _, p := range k.Properties {
			extra[p] = true
		}
		n := 0
		for i, p := range order {
			if !extra[p] {
				continue
			}
			if n == maxViolations {
				// The rest cannot be among the first maxViolations: counted,
				// never built.
				a.unbuilt += len(k.Properties) - n
				break
			}
			n++
			a.add(with(key, rankAdditional, -1, i), loc, "additionalProperties", "must NOT have additional properties", map[string]any{"additionalProperty": p})
		}
	default:
		a.add(with(key, rankType), loc, "type", "must be valid", map[string]any{})
	}
}

// checkStrings adds the broken shared-rule checks of the strings of inst.
func (a *adapter) checkStrings(inst any) {
	for _, c := range a.t.checked {
		a.visit(inst, c.toks, nil, c.ptr, c.s)
	}
}

// visit walks inst along a schema pointer to every string it applies to.
func (a *adapter) visit(inst any, toks, loc []string, ptr string, s *subschema) {
	if len(toks) == 0 {
		str, ok := inst.(string)
		if !ok {
			return
		}
		var key []int // the sort key, computed only for a broken check
		for i, c := range s.checks {
			if c.broken(str) {
				if key == nil {
					key, _ = a.place(ptr, loc)
				}
				a.add(with(key, rankCheck, i), loc, c.keyword, c.message, map[string]any{"rule": c.id})
			}
		}
		return
	}
	switch toks[0] {
	case "properties":
		if len(toks) < 2 {
			return
		}
		obj, ok := inst.(map[string]any)
		if !ok {
			return
		}
		name := unescapePointer(toks[1])
		if v, ok := obj[name]; ok {
			a.visit(v, toks[2:], append(slices.Clip(loc), name), ptr, s)
		}
	case "items":
		arr, ok := inst.([]any)
		if !ok {
			return
		}
		for i, v := range arr {
			a.visit(v, toks[1:], append(slices.Clip(loc), strconv.Itoa(i)), ptr, s)
		}
	case "additionalProperties":
		obj, ok := inst.(map[string]any)
		if !ok {
			return
		}
		for k, v := range obj {
			a.visit(v, toks[1:], append(slices.Clip(loc), k), ptr, s)
		}
	}
}

// result sorts the violations into AJV's order and caps them.
func (a *adapter) result() []Violation {
	slices.SortStableFunc(a.out, func(x, y sorted) int { return slices.Compare(x.key, y.key) })
	n := min(len(a.out), maxViolations)
	vs := make([]Violation, n)
	for i := range vs {
		vs[i] = a.out[i].v
	}
	if rest := a.unbuilt + len(a.out) - n; rest > 0 && n > 0 {
		vs[n-1].Unlisted = rest
	}
	return vs
}
