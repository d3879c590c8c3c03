package graphql

import (
	"slices"

	"github.com/vektah/gqlparser/v2/ast"
)

// collect flattens a root selection set into its fields in document order.
func collect(set ast.SelectionSet, vars map[string]any) []*ast.Field {
	return collectFor(set, vars, func(string) bool { return true })
}

// collectFor flattens a selection set: fragment spreads and inline fragments whose type
// condition applies are expanded, fields under one response key are merged (their selection
// sets joined), and @skip and @include are honoured.
func collectFor(set ast.SelectionSet, vars map[string]any, applies func(typeCondition string) bool) []*ast.Field {
	var out []*ast.Field
	index := map[string]int{}
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, s := range set {
			switch s := s.(type) {
			case *ast.Field:
				if !included(s.Directives, vars) {
					continue
				}
				if i, ok := index[s.Alias]; ok {
					merged := *out[i]
					merged.SelectionSet = append(slices.Clone(out[i].SelectionSet), s.SelectionSet...)
					out[i] = &merged
					continue
				}
				index[s.Alias] = len(out)
				out = append(out, s)
			case *ast.InlineFragment:
				if included(s.Directives, vars) && (s.TypeCondition == "" || applies(s.TypeCondition)) {
					walk(s.SelectionSet)
				}
			case *ast.FragmentSpread:
				if included(s.Directives, vars) && s.Definition != nil && applies(s.Definition.TypeCondition) {
					walk(s.Definition.SelectionSet)
				}
			}
		}
	}
	walk(set)
	return out
}

// included applies @skip(if:) and @include(if:).
func included(dirs ast.DirectiveList, vars map[string]any) bool {
	if d := dirs.ForName("skip"); d != nil {
		if v, _ := d.ArgumentMap(vars)["if"].(bool); v {
			return false
		}
	}
	if d := dirs.ForName("include"); d != nil {
		if v, _ := d.ArgumentMap(vars)["if"].(bool); !v {
			return false
		}
	}
	return true
}

// selection answers one root field's selection set; it keeps the refusals of nullable fields
// below the root, which answer null beside an error naming their path, as GitHub answers a
// pull request number that does not resolve.
type selection struct {
	e    *Engine
	vars map[string]any
	// refused are the refusals of the last answer, each with its response path.
	refused []*Error
}

// selector answers f's selection set from resolved objects; a resolver may call it more than
// once, and only the last answer's refusals count.
func (e *Engine) selector(f *ast.Field, vars map[string]any) (func(Object) (Object, *Error), *selection) {
	s := &selection{e: e, vars: vars}
	return func(o Object) (Object, *Error) {
		s.refused = nil
		return s.object(o, f.SelectionSet, []any{f.Alias})
	}, s
}

// isA reports whether an object of type typ matches the type condition cond: the type itself,
// an interface it implements or a union it belongs to.
func (e *Engine) isA(typ, cond string) bool {
	if cond == typ {
		return true
	}
	def, abstract := e.Schema.Types[typ], e.Schema.Types[cond]
	if def == nil || abstract == nil {
		return false
	}
	return slices.ContainsFunc(e.Schema.GetPossibleTypes(abstract), func(d *ast.Definition) bool { return d.Name == typ })
}

func (s *selection) object(o Object, set ast.SelectionSet, path []any) (Object, *Error) {
	e := s.e
	typ, _ := o["__typename"].(string)
	out := Object{}
	for _, f := range collectFor(set, s.vars, func(cond string) bool { return e.isA(typ, cond) }) {
		v, ok := o[f.Name]
		if !ok {
			return nil, &Error{Type: Unsupported, Message: e.Unsupported + " (field '" + f.Name + "' on type '" + typ + "' is not implemented)",
				Locations: []Location{locate(f.Position)}}
		}
		at := append(slices.Clip(path), f.Alias)
		if lazy, isLazy := v.(Lazy); isLazy {
			var lerr *Error
			if v, lerr = lazy(f.ArgumentMap(s.vars)); lerr != nil {
				if lerr.Locations == nil {
					lerr.Locations = []Location{locate(f.Position)}
				}
				if f.Definition == nil || f.Definition.Type.NonNull || lerr.Type == Unsupported {
					return nil, lerr
				}
				lerr.Path = at
				s.refused = append(s.refused, lerr)
				out[f.Alias] = nil
				continue
			}
		}
		res, err := s.value(v, f, at)
		if err != nil {
			return nil, err
		}
		out[f.Alias] = res
	}
	return out, nil
}

func (s *selection) value(v any, f *ast.Field, path []any) (any, *Error) {
	switch x := v.(type) {
	case Object:
		return s.object(x, f.SelectionSet, path)
	case []any:
		list := make([]any, len(x))
		for i, item := range x {
			r, err := s.value(item, f, append(slices.Clip(path), i))
			if err != nil {
				return nil, err
			}
			list[i] = r
		}
		return list, nil
	}
	return v, nil
}
