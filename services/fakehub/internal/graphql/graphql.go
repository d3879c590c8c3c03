// Package graphql runs the GraphQL documents fakehub is sent, as GitHub's endpoint does: the
// document is parsed and validated against GitHub's published schema (package graphqlschema)
// by gqlparser, the variables are coerced to their declared types, and only then are the
// operation's root fields handed to the resolvers fakehub registers. A document GitHub would
// refuse is refused the same way (an errors list with messages and locations, nothing run);
// a valid one that asks for something fakehub does not model is refused as UNSUPPORTED, so that
// a client relying on it learns at once that the emulator cannot serve it.
package graphql

import (
	"errors"
	"regexp"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// Error types GitHub gives failures of a valid document (an invalid one has no type).
const (
	NotFound      = "NOT_FOUND"
	Forbidden     = "FORBIDDEN"
	Unprocessable = "UNPROCESSABLE"
	// Unsupported marks everything fakehub does not implement.
	Unsupported = "UNSUPPORTED"
)

// Location is a position in the document, from 1.
type Location struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Error is one entry of an answer's errors list.
type Error struct {
	Type      string     `json:"type,omitempty"`
	Path      []any      `json:"path,omitempty"`
	Locations []Location `json:"locations,omitempty"`
	Message   string     `json:"message"`
}

// Refusal is an error of type typ, as a resolver refuses a field.
func Refusal(typ, message string) *Error { return &Error{Type: typ, Message: message} }

// Response is an answer's body: data (absent when the document was refused before running,
// an object otherwise, even an empty one) and errors.
type Response struct {
	Data   any      `json:"data,omitempty"`
	Errors []*Error `json:"errors,omitempty"`
}

// Object is a resolved object: its fields by name, and "__typename", the schema type it is of.
// A nested object is an Object too, a list a []any.
type Object = map[string]any

// Field is a root field being resolved.
type Field struct {
	// Name is the field's name in the schema.
	Name string
	// Args are the field's arguments with variables substituted and defaults applied: strings,
	// int64 or float64 numbers, bools, nil, []any and map[string]any.
	Args map[string]any
	// Select answers the field's selection set from a resolved object: only the selected fields,
	// under their response keys. A selected field missing from the object is one fakehub does not
	// model, refused as Unsupported. A resolver may call it before it changes anything, to refuse
	// an unanswerable selection first, as GitHub refuses a whole invalid document.
	Select func(Object) (Object, *Error)
}

// Resolver resolves one root field to an object, or refuses it.
type Resolver func(f Field) (Object, *Error)

// Lazy is a field value resolved only when selected, with the field's arguments (variables
// substituted, defaults applied): a connection's page or a pull request found by number. It
// answers an Object, a []any or a scalar, or refuses the field.
type Lazy func(args map[string]any) (any, *Error)

// Engine runs documents against the schema with a set of root mutation resolvers.
type Engine struct {
	// Schema is GitHub's schema (graphqlschema.Schema).
	Schema *ast.Schema
	// Mutations are the mutation fields served, by name.
	Mutations map[string]Resolver
	// Queries are the query fields served, by name.
	Queries map[string]Resolver
	// Unsupported is the message of an Unsupported refusal; a detail in parentheses follows it.
	Unsupported string
}

// Execute runs query with its variables and operation name. It never panics on any input.
func (e *Engine) Execute(query, operationName string, variables map[string]any) Response {
	doc, errs := e.parse(query)
	if errs != nil {
		return Response{Errors: errs}
	}
	op, errs := operation(doc, operationName)
	if errs != nil {
		return Response{Errors: errs}
	}
	vars, err := validator.VariableValues(e.Schema, op, variables)
	if err != nil {
		return Response{Errors: variableErrors(op, err)}
	}
	roots, rootType := e.Mutations, "Mutation"
	switch op.Operation {
	case ast.Mutation:
	case ast.Query:
		roots, rootType = e.Queries, "Query"
	default:
		return e.unsupported(string(op.Operation) + " operations")
	}
	fields := collect(op.SelectionSet, vars)
	for _, f := range fields {
		if roots[f.Name] == nil && f.Name != "__typename" {
			return e.unsupported("field " + f.Name)
		}
	}
	data := map[string]any{}
	var out []*Error
	for _, f := range fields {
		if f.Name == "__typename" {
			data[f.Alias] = rootType
			continue
		}
		sel, answered := e.selector(f, vars)
		v, rerr := roots[f.Name](Field{Name: f.Name, Args: f.ArgumentMap(vars), Select: sel})
		if rerr != nil {
			rerr.Path = []any{f.Alias}
			if rerr.Locations == nil {
				rerr.Locations = []Location{locate(f.Position)}
			}
			out = append(out, rerr)
			data[f.Alias] = nil
			continue
		}
		data[f.Alias] = v
		out = append(out, answered.refused...)
	}
	return Response{Data: data, Errors: out}
}

// Validate parses and validates query against schema, as Execute does before running
// anything, and returns the first refusal. The service's tests use it on the documents it sends.
func Validate(schema *ast.Schema, query string) (*ast.QueryDocument, error) {
	e := Engine{Schema: schema}
	doc, errs := e.parse(query)
	if errs != nil {
		return nil, errors.New(errs[0].Message)
	}
	return doc, nil
}

func (e *Engine) parse(query string) (*ast.QueryDocument, []*Error) {
	doc, err := parser.ParseQuery(&ast.Source{Name: "query", Input: query})
	if err != nil {
		var gerr *gqlerror.Error
		if errors.As(err, &gerr) {
			return nil, fromList(gqlerror.List{gerr})
		}
		return nil, []*Error{{Message: err.Error()}}
	}
	if list := validator.ValidateWithRules(e.Schema, doc, rules.NewDefaultRules()); len(list) > 0 {
		return nil, fromList(list)
	}
	return doc, nil
}

// operation picks the operation to run: the one named, or the only one.
func operation(doc *ast.QueryDocument, name string) (*ast.OperationDefinition, []*Error) {
	if name == "" && len(doc.Operations) == 1 {
		return doc.Operations[0], nil
	}
	if name == "" {
		return nil, []*Error{{Message: "An operation name is required"}}
	}
	if op := doc.Operations.ForName(name); op != nil {
		return op, nil
	}
	return nil, []*Error{{Message: "No operation named \"" + name + "\""}}
}

func (e *Engine) unsupported(detail string) Response {
	return Response{Errors: []*Error{{Type: Unsupported, Message: e.Unsupported + " (" + detail + ")"}}}
}

// unknownField is the validator's message for a field the type does not have.
var unknownField = regexp.MustCompile(`^Cannot query field "([^"]+)" on type "([^"]+)"\.`)

// githubMessage words a validation message as GitHub does where clients match on the words:
// an unknown field is "Field 'f' doesn't exist on type 'T'" (clients probing a preview field
// fall back on exactly that message).
func githubMessage(msg string) string {
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		return "Field '" + m[1] + "' doesn't exist on type '" + m[2] + "'"
	}
	return msg
}

func fromList(list gqlerror.List) []*Error {
	out := make([]*Error, 0, len(list))
	for _, g := range list {
		e := &Error{Message: githubMessage(g.Message)}
		for _, l := range g.Locations {
			e.Locations = append(e.Locations, Location{Line: l.Line, Column: l.Column})
		}
		out = append(out, e)
	}
	return out
}

// variableErrors reports a variable that does not coerce to its declared type, located at its
// definition, as GitHub does ("Variable $id of type ID! was provided invalid value").
func variableErrors(op *ast.OperationDefinition, err error) []*Error {
	var gerr *gqlerror.Error
	if !errors.As(err, &gerr) {
		return []*Error{{Message: err.Error()}}
	}
	e := &Error{Message: gerr.Message}
	if len(gerr.Path) > 1 {
		if name, ok := gerr.Path[1].(ast.PathName); ok {
			if v := op.VariableDefinitions.ForName(string(name)); v != nil {
				e.Message = "Variable $" + v.Variable + " of type " + v.Type.String() + " was provided invalid value"
				e.Locations = []Location{locate(v.Position)}
			}
		}
	}
	return []*Error{e}
}

func locate(p *ast.Position) Location {
	if p == nil {
		return Location{}
	}
	return Location{Line: p.Line, Column: p.Column}
}
