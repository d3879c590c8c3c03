package rpcerror

import (
	"fmt"
	"strings"
)

// Violation is one AJV-style validation error, serialised exactly as
// {message, path, keyword, params, value}. Path is AJV's instancePath
// ("/files/0/path"), "root" for the arguments object itself. Value is the
// offending instance as sent (a json.RawMessage): the object for required,
// additionalProperties and not, the property value otherwise; nil when the
// arguments are not JSON at all.
type Violation struct {
	Message string         `json:"message"`
	Path    string         `json:"path"`
	Keyword string         `json:"keyword"`
	Params  map[string]any `json:"params"`
	Value   any            `json:"value"`
	// Unlisted counts the violations of the same arguments found after
	// this one but never built (Decode lists at most 50); it is set on the
	// last violation only, so that the contract's count of the rest
	// (data.validation_errors_omitted) is exact however many there are.
	Unlisted int `json:"-"`
}

// Text is the violation as a model reads it (docs/errors.md, the rendered
// text of -32602): the message, naming the offending property and saying
// what is expected where the AJV message does not (the unknown property's
// name, the allowed values). The JSON payload keeps the contract's AJV
// wording. toolschema.Registry.Text says more where the tool's schema is
// needed.
func (v Violation) Text() string {
	switch v.Keyword {
	case "additionalProperties":
		if p, ok := v.Params["additionalProperty"].(string); ok {
			return v.Message + " (" + p + ")"
		}
	case "enum":
		var vals []string
		switch a := v.Params["allowedValues"].(type) {
		case []string:
			vals = a
		case []any:
			for _, x := range a {
				vals = append(vals, fmt.Sprint(x))
			}
		}
		if len(vals) > 0 {
			return v.Message + ": " + strings.Join(vals, ", ")
		}
	case "const":
		if c, ok := v.Params["allowedValue"]; ok {
			return v.Message + ": " + fmt.Sprint(c)
		}
	}
	return v.Message
}

// ValidationMessage renders violations as the contract's top-level message:
// "Validation errors: " followed by the messages joined with ", ".
func ValidationMessage(vs []Violation) string {
	var b strings.Builder
	b.WriteString("Validation errors: ")
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.Message)
	}
	return b.String()
}
