package ops

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
)

// update_project_items sends every (item, field) change of a call as one
// aliased mutation in a single document, up to maxBatchAliases a document.
// The number of aliases varies, so the document is built, not written:
// from the two constant templates below (which TestGraphQLDocuments
// validates like every other document), by copying their one mutation
// field under an alias with numbered variables, and printed with
// gqlparser's formatter. An AST printer rather than a family of fixed
// documents, because each alias is either a set or a clear, and the
// family would need a document per mix; values travel only as variables.

// Templates of one change each.
const (
	setValueMutation   = `mutation($project: ID!, $item: ID!, $field: ID!, $value: ProjectV2FieldValue!) { set: updateProjectV2ItemFieldValue(input: {projectId: $project, itemId: $item, fieldId: $field, value: $value}) { projectV2Item { id } } }`
	clearValueMutation = `mutation($project: ID!, $item: ID!, $field: ID!) { clear: clearProjectV2ItemFieldValue(input: {projectId: $project, itemId: $item, fieldId: $field}) { projectV2Item { id } } }`
)

// maxBatchAliases caps the changes of one mutation document.
const maxBatchAliases = 100

// fieldChange is one field of one item to set (value) or clear (value nil).
type fieldChange struct {
	item, field string
	value       map[string]any
}

// template is a parsed template: its operation.
type template struct{ op *ast.OperationDefinition }

var templates = sync.OnceValues(func() (map[bool]template, error) {
	out := map[bool]template{}
	for clear, src := range map[bool]string{false: setValueMutation, true: clearValueMutation} {
		doc, err := parser.ParseQuery(&ast.Source{Input: src})
		if err != nil {
			return nil, err
		}
		out[clear] = template{op: doc.Operations[0]}
	}
	return out, nil
})

// batchDocument is the mutation document of changes and its variables.
func batchDocument(project string, changes []fieldChange) (string, map[string]any, error) {
	tpl, err := templates()
	if err != nil {
		return "", nil, err
	}
	if len(changes) == 0 || len(changes) > maxBatchAliases {
		return "", nil, fmt.Errorf("%d changes in one document", len(changes))
	}
	op := &ast.OperationDefinition{Operation: ast.Mutation}
	vars := map[string]any{"project": project}
	op.VariableDefinitions = append(op.VariableDefinitions, tpl[false].op.VariableDefinitions.ForName("project"))
	for k, ch := range changes {
		t := tpl[ch.value == nil].op
		suffix := fmt.Sprint(k)
		rename := func(name string) string {
			if name == "project" {
				return name
			}
			return name + suffix
		}
		for _, vd := range t.VariableDefinitions {
			if vd.Variable != "project" {
				op.VariableDefinitions = append(op.VariableDefinitions, &ast.VariableDefinition{Variable: rename(vd.Variable), Type: vd.Type})
			}
		}
		src := t.SelectionSet[0].(*ast.Field)
		f := &ast.Field{Alias: "c" + suffix, Name: src.Name, SelectionSet: src.SelectionSet}
		for _, a := range src.Arguments {
			f.Arguments = append(f.Arguments, &ast.Argument{Name: a.Name, Value: renamed(a.Value, rename)})
		}
		op.SelectionSet = append(op.SelectionSet, f)
		vars["item"+suffix], vars["field"+suffix] = ch.item, ch.field
		if ch.value != nil {
			vars["value"+suffix] = ch.value
		}
	}
	var b strings.Builder
	formatter.NewFormatter(&b, formatter.WithIndent(" ")).FormatQueryDocument(&ast.QueryDocument{Operations: ast.OperationList{op}})
	return b.String(), vars, nil
}

// renamed copies v with its variables renamed.
func renamed(v *ast.Value, rename func(string) string) *ast.Value {
	if v == nil {
		return nil
	}
	out := &ast.Value{Kind: v.Kind, Raw: v.Raw}
	if v.Kind == ast.Variable {
		out.Raw = rename(v.Raw)
	}
	for _, c := range v.Children {
		out.Children = append(out.Children, &ast.ChildValue{Name: c.Name, Value: renamed(c.Value, rename)})
	}
	return out
}

// itemAlias prefixes the aliases of the items a project read names.
const itemAlias = "item"

// maxNamedItems caps the items one read names (update_project_items' 50).
const maxNamedItems = 50

// projectDocument is projectQuery with one aliased copy of itemNodeQuery's
// field per id (item0, item1, ...), each reading its id from its own
// variable: the ids are checked against the project in the same request.
// Built like batchDocument, for the same reason (the count varies).
func projectDocument(ids []string) (string, map[string]any, error) {
	if len(ids) == 0 {
		return projectQuery, map[string]any{}, nil
	}
	if len(ids) > maxNamedItems {
		return "", nil, fmt.Errorf("%d items in one read", len(ids))
	}
	parsed, err := itemTemplates()
	if err != nil {
		return "", nil, err
	}
	base, item := parsed[0], parsed[1]
	op := &ast.OperationDefinition{Operation: ast.Query, VariableDefinitions: base.VariableDefinitions, SelectionSet: slices.Clone(base.SelectionSet)}
	src := item.SelectionSet[0].(*ast.Field)
	vars := map[string]any{}
	for k, id := range ids {
		name := itemAlias + strconv.Itoa(k)
		op.VariableDefinitions = append(slices.Clone(op.VariableDefinitions), &ast.VariableDefinition{Variable: name, Type: item.VariableDefinitions[0].Type})
		f := &ast.Field{Alias: name, Name: src.Name, SelectionSet: src.SelectionSet}
		for _, a := range src.Arguments {
			f.Arguments = append(f.Arguments, &ast.Argument{Name: a.Name, Value: renamed(a.Value, func(string) string { return name })})
		}
		op.SelectionSet = append(op.SelectionSet, f)
		vars[name] = id
	}
	var b strings.Builder
	formatter.NewFormatter(&b, formatter.WithIndent(" ")).FormatQueryDocument(&ast.QueryDocument{Operations: ast.OperationList{op}})
	return b.String(), vars, nil
}

var itemTemplates = sync.OnceValues(func() ([]*ast.OperationDefinition, error) {
	var out []*ast.OperationDefinition
	for _, src := range []string{projectQuery, itemNodeQuery} {
		doc, err := parser.ParseQuery(&ast.Source{Input: src})
		if err != nil {
			return nil, err
		}
		out = append(out, doc.Operations[0])
	}
	return out, nil
})
