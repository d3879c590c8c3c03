package toolgen

import (
	"fmt"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// celFragment is a message-level CEL rule that the schema expresses with
// if/then, or with dependentRequired for fields given together. The
// expression is pinned: a rule whose id is known but whose expression
// changed fails generation instead of being published stale.
type celFragment struct {
	expression string
	ifField    string // the field that must equal ifConst for the rule to apply
	ifConst    string
	thenField  string // the field that must then match pattern
	pattern    string
	// together, when set, are two fields given both or neither: each is
	// dependentRequired on the other (AJV says so in words, "must have
	// property max_lines when property start_line is present"), and
	// ifField, ifConst, thenField and pattern are unused.
	together [2]string
}

var knownCEL = map[string]celFragment{
	"file.content_base64": {
		expression: "!has(this.encoding) || this.encoding != 'base64' || this.content.matches('^[A-Za-z0-9+/]*={0,2}$')",
		ifField:    "encoding",
		ifConst:    "base64",
		thenField:  "content",
		pattern:    "^[A-Za-z0-9+/]*={0,2}$",
	},
	"job_log.range": {
		expression: "has(this.start_line) == has(this.max_lines)",
		together:   [2]string{"start_line", "max_lines"},
	},
	"add_project_item.number": {
		expression: "has(this.repo) == has(this.number)",
		together:   [2]string{"repo", "number"},
	},
}

// Check is one check of a shared string rule of the contract (a
// protovalidate predefined rule of proto/ghops/v1/rules.proto) that a string
// at At (a JSON Pointer into the input schema) obeys. JSON Schema has no
// keyword that states such a rule in words (a pattern would say only "must
// match pattern"), so the checks travel beside the schema and the gateway
// reports each broken one as an AJV custom keyword: Keyword is the rule's
// name (ref_name), ID and Message the check's.
type Check struct {
	At      string `json:"at"`
	Keyword string `json:"keyword"`
	ID      string `json:"id"`
	Message string `json:"message"`
}

// knownChecks pins the expression of every check the gateway evaluates
// (gateway/internal/toolschema has the Go equivalent of each, by id): a
// check whose expression changed in proto, or a new one, fails generation
// instead of being enforced stale.
var knownChecks = map[string]string{
	"ref_name.dot_dot":       "!rule || !this.contains('..')",
	"ref_name.empty_segment": "!rule || !this.contains('//')",
	"ref_name.slash_edge":    "!rule || !(this.startsWith('/') || this.endsWith('/'))",
	"ref_name.dot_edge":      "!rule || !(this.startsWith('.') || this.endsWith('.'))",
	"ref_name.dot_segment":   "!rule || !this.contains('/.')",
	"ref_name.lock_suffix":   "!rule || !this.matches('[.]lock(/|$)')",
	"ref_name.at_brace":      "!rule || !this.contains('@{')",
	"ref_name.control":       "!rule || !this.matches('[[:cntrl:]]')",
	"repo_name.dot_segment":  "!rule || !this.matches('^[.]{1,2}/|/[.]{1,2}$')",
}

// sharedChecks returns the checks of the shared rules set on a field's
// string rules (true boolean extensions of buf.validate.StringRules) and the
// rules without them, for onlyFields.
func sharedChecks(sr *validate.StringRules, at string) ([]Check, *validate.StringRules, error) {
	plain, _ := proto.Clone(sr).(*validate.StringRules)
	var out []Check
	var err error
	sr.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if !fd.IsExtension() {
			return true
		}
		plain.ProtoReflect().Clear(fd)
		pr, _ := proto.GetExtension(fd.Options(), validate.E_Predefined).(*validate.PredefinedRules)
		if fd.Kind() != protoreflect.BoolKind || fd.IsList() || len(pr.GetCel()) == 0 {
			err = fmt.Errorf("string rule %s cannot be expressed in JSON Schema", fd.FullName())
			return false
		}
		if !v.Bool() {
			return true
		}
		for _, c := range pr.GetCel() {
			expr, ok := knownChecks[c.GetId()]
			if !ok || expr != c.GetExpression() {
				err = fmt.Errorf("string rule %s: check %q cannot be expressed in JSON Schema", fd.FullName(), c.GetId())
				return false
			}
			out = append(out, Check{At: at, Keyword: string(fd.Name()), ID: c.GetId(), Message: c.GetMessage()})
		}
		return true
	})
	return out, plain, err
}

// onlyFields fails when a rules message sets a field outside the allowed
// ones: a rule the generator does not translate must not be silently dropped.
func onlyFields(m proto.Message, allowed ...string) error {
	if m == nil || !m.ProtoReflect().IsValid() {
		return nil
	}
	var err error
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		for _, a := range allowed {
			if string(fd.Name()) == a {
				return true
			}
		}
		err = fmt.Errorf("protovalidate rule %s cannot be expressed in JSON Schema", fd.FullName())
		return false
	})
	if err == nil && len(m.ProtoReflect().GetUnknown()) > 0 {
		err = fmt.Errorf("unknown protovalidate rule in %s", m.ProtoReflect().Descriptor().FullName())
	}
	return err
}
