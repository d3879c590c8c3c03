// Package graphqlschema holds GitHub's published GraphQL schema (schema.graphql, from the npm
// package @octokit/graphql-schema 15.26.1, MIT: LICENSE.md beside it) and loads it once. It is
// the one copy in the repository: fakehub validates the documents it is sent and the answers it
// gives against it, and the service's tests validate every document the service sends, so the
// emulator and the client cannot drift apart from GitHub's API or from each other.
package graphqlschema

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

//go:embed schema.graphql
var sdl string

// unpublished are the types GitHub serves beyond its published schema that clients fakehub is
// measured with select (unpublished.graphql says which and why).
//
//go:embed unpublished.graphql
var unpublished string

// duplicates lists the fields the published SDL defines twice, as Type.field. GitHub's own
// schema dump repeats them with the same type; a spec-conforming loader refuses a repeated
// field, so the second definition is dropped. Listed so that a schema update which adds or
// removes one fails loading (and TestSchema) rather than being silently absorbed.
var duplicates = []string{
	"EnterpriseOwnerInfo.repositoryDeployKeySetting",
	"EnterpriseOwnerInfo.repositoryDeployKeySettingOrganizations",
}

var load = sync.OnceValues(func() (*ast.Schema, error) {
	doc, err := parser.ParseSchemas(validator.Prelude, &ast.Source{Name: "schema.graphql", Input: sdl},
		&ast.Source{Name: "unpublished.graphql", Input: unpublished})
	if err != nil {
		return nil, err
	}
	dropped, err := dropRepeatedFields(doc)
	if err != nil {
		return nil, err
	}
	if fmt.Sprint(dropped) != fmt.Sprint(duplicates) {
		return nil, fmt.Errorf("schema.graphql repeats %v, duplicates lists %v", dropped, duplicates)
	}
	return validator.ValidateSchemaDocument(doc)
})

// dropRepeatedFields removes the second definition of a field defined twice on one type, when
// both agree on its type; a repeat that disagrees is an error, since neither can be chosen.
func dropRepeatedFields(doc *ast.SchemaDocument) ([]string, error) {
	var dropped []string
	for _, def := range doc.Definitions {
		seen := map[string]*ast.FieldDefinition{}
		kept := def.Fields[:0]
		for _, f := range def.Fields {
			first, dup := seen[f.Name]
			if !dup {
				seen[f.Name] = f
				kept = append(kept, f)
				continue
			}
			if first.Type.String() != f.Type.String() {
				return nil, fmt.Errorf("%s.%s is defined twice with types %s and %s", def.Name, f.Name, first.Type, f.Type)
			}
			dropped = append(dropped, def.Name+"."+f.Name)
		}
		def.Fields = kept
	}
	return dropped, nil
}

// Schema is the loaded schema. Loading it takes a noticeable fraction of a second (the SDL is
// over a megabyte), so it happens once per process, on first use; the schema is read-only
// afterwards and safe to share between goroutines.
func Schema() (*ast.Schema, error) { return load() }

// Validate parses query and validates it against the schema with GraphQL's standard rules,
// as GitHub does before it runs a document; it returns the first refusal with its position.
func Validate(query string) error {
	s, err := Schema()
	if err != nil {
		return err
	}
	if _, errs := gqlparser.LoadQueryWithRules(s, query, nil); len(errs) > 0 {
		return errs[0]
	}
	return nil
}
