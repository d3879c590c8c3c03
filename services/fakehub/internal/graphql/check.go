package graphql

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"
)

// CheckResponse checks an answer's body against the schema, as the conformance test checks
// REST answers against the OpenAPI description: the body holds only data and errors; every
// error has a message, and well-formed locations and path; and data answers exactly the
// operation's selection set, each value of its field's schema type (a null only where the type
// is nullable or an error's path reaches it, an enum among its values, an Int an integer, an
// object's __typename a type the field may hold). It returns the first difference.
func CheckResponse(schema *ast.Schema, query, operationName string, variables map[string]any, body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var resp map[string]any
	if err := dec.Decode(&resp); err != nil {
		return fmt.Errorf("body is not a JSON object: %w", err)
	}
	for k := range resp {
		if k != "data" && k != "errors" {
			return fmt.Errorf("unexpected top-level key %q", k)
		}
	}
	errored, err := checkErrors(resp["errors"])
	if err != nil {
		return err
	}
	data, has := resp["data"]
	if !has {
		if resp["errors"] == nil {
			return fmt.Errorf("neither data nor errors")
		}
		return nil
	}
	doc, verr := Validate(schema, query)
	if verr != nil {
		return fmt.Errorf("data given for a document that does not validate: %v", verr)
	}
	op, errs := operation(doc, operationName)
	if errs != nil {
		return fmt.Errorf("data given without an operation to run: %s", errs[0].Message)
	}
	vars, vErr := validator.VariableValues(schema, op, variables)
	if vErr != nil {
		return fmt.Errorf("data given for invalid variables: %v", vErr)
	}
	root := schema.Query
	switch op.Operation {
	case ast.Mutation:
		root = schema.Mutation
	case ast.Subscription:
		root = schema.Subscription
	}
	c := checker{schema: schema, vars: vars, errored: errored}
	return c.object(data, root, op.SelectionSet, "data")
}

// checkErrors checks the errors list and returns the response paths its entries name.
func checkErrors(v any) (map[string]bool, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("errors is not a non-empty list: %v", v)
	}
	paths := map[string]bool{}
	for i, item := range list {
		e, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("errors[%d] is not an object", i)
		}
		if msg, _ := e["message"].(string); msg == "" {
			return nil, fmt.Errorf("errors[%d] has no message", i)
		}
		if err := checkLocations(e["locations"]); err != nil {
			return nil, fmt.Errorf("errors[%d]: %w", i, err)
		}
		if p, has := e["path"]; has {
			parts, ok := p.([]any)
			if !ok || len(parts) == 0 {
				return nil, fmt.Errorf("errors[%d] path is not a non-empty list", i)
			}
			key := "data"
			for _, part := range parts {
				key += "." + fmt.Sprint(part)
			}
			paths[key] = true
		}
	}
	return paths, nil
}

func checkLocations(v any) error {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("locations is not a list")
	}
	for _, item := range list {
		l, _ := item.(map[string]any)
		for _, k := range []string{"line", "column"} {
			n, ok := l[k].(json.Number)
			if i, err := n.Int64(); !ok || err != nil || i < 1 {
				return fmt.Errorf("location %v has no positive %s", item, k)
			}
		}
	}
	return nil
}

// checker walks data beside the selection set and the schema.
type checker struct {
	schema  *ast.Schema
	vars    map[string]any
	errored map[string]bool
}

// object checks one object value of the (possibly abstract) type def.
func (c *checker) object(v any, def *ast.Definition, set ast.SelectionSet, at string) error {
	o, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: %v is not an object of type %s", at, v, def.Name)
	}
	if !def.IsAbstractType() {
		return c.concrete(o, def.Name, set, at)
	}
	// An object of an interface or union is of one of its possible types: the one __typename
	// names when it was selected, else any whose selection the object answers.
	if name, has := o["__typename"]; has {
		concrete := c.schema.Types[fmt.Sprint(name)]
		if concrete == nil || !slices.Contains(c.schema.GetPossibleTypes(def), concrete) {
			return fmt.Errorf("%s: __typename %v is no type of %s", at, name, def.Name)
		}
		return c.concrete(o, concrete.Name, set, at)
	}
	var first error
	for _, d := range c.schema.GetPossibleTypes(def) {
		err := c.concrete(o, d.Name, set, at)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return fmt.Errorf("%s: answers no type of %s: %w", at, def.Name, first)
}

// concrete checks an object of the object type typ.
func (c *checker) concrete(o map[string]any, typ string, set ast.SelectionSet, at string) error {
	e := Engine{Schema: c.schema}
	fields := collectFor(set, c.vars, func(cond string) bool { return e.isA(typ, cond) })
	for k := range o {
		if !slices.ContainsFunc(fields, func(f *ast.Field) bool { return f.Alias == k }) {
			return fmt.Errorf("%s: key %q was not selected", at, k)
		}
	}
	for _, f := range fields {
		val, has := o[f.Alias]
		if !has {
			return fmt.Errorf("%s: selected field %q is missing", at, f.Alias)
		}
		if f.Name == "__typename" {
			if val != typ {
				return fmt.Errorf("%s.__typename is %v, want %s", at, val, typ)
			}
			continue
		}
		if f.Definition == nil {
			return fmt.Errorf("%s.%s has no definition on %s", at, f.Alias, typ)
		}
		if err := c.value(val, f.Definition.Type, f, at+"."+f.Alias); err != nil {
			return err
		}
	}
	return nil
}

// value checks one value of type t.
func (c *checker) value(v any, t *ast.Type, f *ast.Field, at string) error {
	if v == nil {
		if t.NonNull && !c.erroredBelow(at) {
			return fmt.Errorf("%s is null, but its type %s is not nullable", at, t)
		}
		return nil
	}
	if t.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: %v is not a list of %s", at, v, t.Elem)
		}
		for i, item := range list {
			if err := c.value(item, t.Elem, f, fmt.Sprintf("%s.%d", at, i)); err != nil {
				return err
			}
		}
		return nil
	}
	def := c.schema.Types[t.NamedType]
	if def == nil {
		return fmt.Errorf("%s: unknown type %s", at, t.NamedType)
	}
	switch def.Kind {
	case ast.Object, ast.Interface, ast.Union:
		return c.object(v, def, f.SelectionSet, at)
	case ast.Enum:
		s, _ := v.(string)
		if def.EnumValues.ForName(s) == nil {
			return fmt.Errorf("%s: %v is not a value of enum %s", at, v, def.Name)
		}
		return nil
	}
	return scalar(v, def.Name, at)
}

// erroredBelow reports whether an error's path is at or below at: a non-null field's error
// makes its parent null.
func (c *checker) erroredBelow(at string) bool {
	for p := range c.errored {
		if p == at || strings.HasPrefix(p, at+".") {
			return true
		}
	}
	return false
}

// scalar checks a scalar: the built-in ones by JSON type, GitHub's custom scalars (DateTime,
// GitObjectID, URI, Base64String, ...) as strings, as GitHub serialises them.
func scalar(v any, name, at string) error {
	ok := false
	switch name {
	case "Int":
		n, isNum := v.(json.Number)
		_, err := n.Int64()
		ok = isNum && err == nil
	case "Float":
		_, ok = v.(json.Number)
	case "Boolean":
		_, ok = v.(bool)
	default:
		_, ok = v.(string)
	}
	if !ok {
		return fmt.Errorf("%s: %v is not a %s", at, v, name)
	}
	return nil
}
