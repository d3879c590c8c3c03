package toolgen

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// builder turns message descriptors into schemas.
type builder struct {
	visiting map[protoreflect.FullName]bool
	checks   []Check
	enums    map[string]map[string]string
}

// enter marks md as being built and returns the function that unmarks it;
// a message met again while it is being built is recursive, which a schema
// without $ref cannot describe.
func (bd *builder) enter(md protoreflect.MessageDescriptor, role string) (leave func(), err error) {
	if bd.visiting[md.FullName()] {
		return nil, fmt.Errorf("%s: recursive messages cannot be tool %s", md.FullName(), role)
	}
	bd.visiting[md.FullName()] = true
	return func() { delete(bd.visiting, md.FullName()) }, nil
}

// comment returns a descriptor's leading comment as one line: the proto is
// the one place where parameters are documented.
func comment(d protoreflect.Descriptor) string {
	loc := d.ParentFile().SourceLocations().ByDescriptor(d)
	return strings.Join(strings.Fields(loc.LeadingComments), " ")
}

func fieldRules(fd protoreflect.FieldDescriptor) *validate.FieldRules {
	opts, ok := fd.Options().(*descriptorpb.FieldOptions)
	if !ok || opts == nil || !proto.HasExtension(opts, validate.E_Field) {
		return nil
	}
	fr, _ := proto.GetExtension(opts, validate.E_Field).(*validate.FieldRules)
	return fr
}

// objectNode enters message md for a schema of kind "input" or "output"
// and starts its object node; leave must run when the schema is built.
func (bd *builder) objectNode(md protoreflect.MessageDescriptor, kind string) (n *node, leave func(), err error) {
	if leave, err = bd.enter(md, kind); err != nil {
		return nil, nil, err
	}
	n = newNode("object")
	n.hasProps = true
	return n, leave, nil
}

// inputSchema builds the closed input schema of a request message, with every
// protovalidate rule expressed; at is its JSON Pointer in the tool's schema.
func (bd *builder) inputSchema(md protoreflect.MessageDescriptor, at string) (*node, error) {
	n, leave, err := bd.objectNode(md, "input")
	if err != nil {
		return nil, err
	}
	defer leave()
	n.closed = true
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		ps, required, err := bd.inputField(fd, at+"/properties/"+escapePointer(fd.JSONName()))
		if err != nil {
			return nil, err
		}
		ps.description, ps.brief = parameterDescription(fd)
		n.props = append(n.props, prop{name: fd.JSONName(), s: ps})
		if required {
			n.required = append(n.required, fd.JSONName())
		}
	}
	oneofs := md.Oneofs()
	for i := 0; i < oneofs.Len(); i++ {
		od := oneofs.Get(i)
		if od.IsSynthetic() {
			continue
		}
		var names []string
		for j := 0; j < od.Fields().Len(); j++ {
			names = append(names, od.Fields().Get(j).JSONName())
		}
		var required bool
		if opts, ok := od.Options().(*descriptorpb.OneofOptions); ok && opts != nil && proto.HasExtension(opts, validate.E_Oneof) {
			or, _ := proto.GetExtension(opts, validate.E_Oneof).(*validate.OneofRules)
			if err := onlyFields(or, "required"); err != nil {
				return nil, fmt.Errorf("%s: %w", od.FullName(), err)
			}
			required = or.GetRequired()
		}
		if err := n.oneOfFields(names, required); err != nil {
			return nil, fmt.Errorf("%s: %w", od.FullName(), err)
		}
	}
	if err := bd.messageRules(md, n, at); err != nil {
		return nil, err
	}
	return n, nil
}

// oneOfFields states "at most one of names" (not both, for two fields, as
// the contract's "branch xor ref" always was) or, when required, "exactly
// one of names" (oneOf of one required property each).
func (n *node) oneOfFields(names []string, required bool) error {
	if len(names) < 2 {
		return errors.New("a oneof needs at least two fields")
	}
	if required {
		if n.oneOf != nil {
			return errors.New("more than one required oneof in a message is not supported")
		}
		for _, name := range names {
			r := newNode("")
			r.required = []string{name}
			n.oneOf = append(n.oneOf, r)
		}
		return nil
	}
	if n.not != nil {
		return errors.New("more than one optional oneof in a message is not supported")
	}
	not := newNode("")
	if len(names) == 2 {
		not.required = names
	} else {
		for i := range names {
			for j := i + 1; j < len(names); j++ {
				pair := newNode("")
				pair.required = []string{names[i], names[j]}
				not.anyOf = append(not.anyOf, pair)
			}
		}
	}
	n.not = not
	return nil
}

func (bd *builder) messageRules(md protoreflect.MessageDescriptor, n *node, at string) error {
	opts, ok := md.Options().(*descriptorpb.MessageOptions)
	if !ok || opts == nil || !proto.HasExtension(opts, validate.E_Message) {
		return nil
	}
	mr, _ := proto.GetExtension(opts, validate.E_Message).(*validate.MessageRules)
	if err := onlyFields(mr, "oneof", "cel"); err != nil {
		return fmt.Errorf("%s: %w", md.FullName(), err)
	}
	for _, oo := range mr.GetOneof() {
		var names []string
		for _, name := range oo.GetFields() {
			fd := md.Fields().ByName(protoreflect.Name(name))
			if fd == nil || !fd.HasPresence() {
				return fmt.Errorf("%s: message oneof field %q must exist and have presence", md.FullName(), name)
			}
			names = append(names, fd.JSONName())
		}
		if err := n.oneOfFields(names, oo.GetRequired()); err != nil {
			return fmt.Errorf("%s: message oneof: %w", md.FullName(), err)
		}
	}
	for _, c := range mr.GetCel() {
		frag, ok := knownCEL[c.GetId()]
		if ok && frag.expression == c.GetExpression() && frag.together[0] != "" {
			a, b := md.Fields().ByName(protoreflect.Name(frag.together[0])), md.Fields().ByName(protoreflect.Name(frag.together[1]))
			if a == nil || b == nil || !a.HasPresence() || !b.HasPresence() {
				return fmt.Errorf("%s: CEL rule %q refers to missing fields or fields without presence", md.FullName(), c.GetId())
			}
			n.depRequired = append(n.depRequired,
				dependency{prop: a.JSONName(), deps: []string{b.JSONName()}},
				dependency{prop: b.JSONName(), deps: []string{a.JSONName()}})
			continue
		}
		if !ok || frag.expression != c.GetExpression() || n.ifS != nil {
			return fmt.Errorf("%s: %w", md.FullName(), notExpressible(c))
		}
		ifFD := md.Fields().ByName(protoreflect.Name(frag.ifField))
		thenFD := md.Fields().ByName(protoreflect.Name(frag.thenField))
		if ifFD == nil || thenFD == nil {
			return fmt.Errorf("%s: CEL rule %q refers to missing fields", md.FullName(), c.GetId())
		}
		cv := frag.ifConst
		ifN := newNode("")
		ifN.hasProps = true
		cn := newNode("")
		cn.constVal = &cv
		ifN.props = []prop{{name: ifFD.JSONName(), s: cn}}
		ifN.required = []string{ifFD.JSONName()}
		thenN := newNode("")
		thenN.hasProps = true
		pn := newNode("")
		pn.pattern = frag.pattern
		thenN.props = []prop{{name: thenFD.JSONName(), s: pn}}
		n.ifS, n.thenS = ifN, thenN
	}
	return nil
}

// inputField returns a field's schema and whether the field is required.
func (bd *builder) inputField(fd protoreflect.FieldDescriptor, at string) (*node, bool, error) {
	fr := fieldRules(fd)
	if cs := fr.GetCel(); len(cs) > 0 {
		return nil, false, fmt.Errorf("%s: %w", fd.FullName(), notExpressible(cs[0]))
	}
	switch {
	case fd.IsMap():
		if err := onlyFields(fr, "required", "map"); err != nil {
			return nil, false, fmt.Errorf("%s: %w", fd.FullName(), err)
		}
		if fd.MapKey().Kind() != protoreflect.StringKind {
			// JSON object keys are strings; protojson would accept "12" for an
			// integer key, but no tool needs one, so refuse rather than guess.
			return nil, false, fmt.Errorf("%s: map keys must be strings in tool input", fd.FullName())
		}
		mr := fr.GetMap()
		if err := onlyFields(mr, "min_pairs", "max_pairs", "values"); err != nil {
			return nil, false, fmt.Errorf("%s: %w", fd.FullName(), err)
		}
		vals, err := bd.inputValue(fd.MapValue(), mr.GetValues(), at+"/additionalProperties")
		if err != nil {
			return nil, false, err
		}
		n := newNode("object")
		n.values = vals
		n.minProps, n.maxProps = bound(mr.MinPairs), bound(mr.MaxPairs)
		return n, fr.GetRequired() || n.minProps > 0, nil
	case fd.IsList():
		if err := onlyFields(fr, "required", "repeated"); err != nil {
			return nil, false, fmt.Errorf("%s: %w (rules on the items go in repeated.items)", fd.FullName(), err)
		}
		rr := fr.GetRepeated()
		if err := onlyFields(rr, "min_items", "max_items", "unique", "items"); err != nil {
			return nil, false, fmt.Errorf("%s: %w", fd.FullName(), err)
		}
		item, err := bd.inputValue(fd, rr.GetItems(), at+"/items")
		if err != nil {
			return nil, false, err
		}
		n := newNode("array")
		n.items = item
		n.minItems, n.maxItems = bound(rr.MinItems), bound(rr.MaxItems)
		n.uniqueItems = rr.GetUnique()
		// An absent list is an empty one: required when empty is not allowed.
		return n, fr.GetRequired() || n.minItems > 0, nil
	}
	n, err := bd.inputValue(fd, fr, at)
	if err != nil {
		return nil, false, err
	}
	required := fr.GetRequired()
	if fd.Kind() == protoreflect.EnumKind {
		// An absent enum is its zero value (UNSPECIFIED), which defined_only
		// accepts; only in and not_in can refuse it.
		er := fr.GetEnum()
		zeroOK := len(er.GetIn()) == 0
		for _, x := range er.GetIn() {
			zeroOK = zeroOK || x == 0
		}
		for _, x := range er.GetNotIn() {
			zeroOK = zeroOK && x != 0
		}
		required = required || (!fd.HasPresence() && !zeroOK)
	} else if !required && !fd.HasPresence() && zeroFails(n) {
		// Without presence, an absent field is its zero value, which protovalidate
		// checks: when the zero value breaks a rule, the field is required.
		required = true
	}
	return n, required, nil
}

// notExpressible refuses a CEL rule the generator cannot state in JSON
// Schema (one not pinned in knownCEL, or pinned with another expression):
// the published schema must be the one enforced, so the build fails rather
// than the gateway leaving the rule to the service.
func notExpressible(c *validate.Rule) error {
	return fmt.Errorf("CEL rule %q (%s) cannot be stated in JSON Schema: use a rule the generator knows (docs/architecture.md, Tool schemas)", c.GetId(), c.GetExpression())
}

// ruleField is the field of buf.validate.FieldRules that holds the rules of
// each scalar kind.
var ruleField = map[protoreflect.Kind]protoreflect.Name{
	protoreflect.Int32Kind: "int32", protoreflect.Int64Kind: "int64",
	protoreflect.Uint32Kind: "uint32", protoreflect.Uint64Kind: "uint64",
	protoreflect.Sint32Kind: "sint32", protoreflect.Sint64Kind: "sint64",
	protoreflect.Fixed32Kind: "fixed32", protoreflect.Fixed64Kind: "fixed64",
	protoreflect.Sfixed32Kind: "sfixed32", protoreflect.Sfixed64Kind: "sfixed64",
	protoreflect.FloatKind: "float", protoreflect.DoubleKind: "double",
	protoreflect.BoolKind: "bool", protoreflect.StringKind: "string",
	protoreflect.EnumKind: "enum",
}

// integerRange is the range of each integer kind, always published: it is
// enforced either way, and a schema should say what the validator does.
var integerRange = map[protoreflect.Kind][2]string{
	protoreflect.Int32Kind:    {strconv.Itoa(math.MinInt32), strconv.Itoa(math.MaxInt32)},
	protoreflect.Sint32Kind:   {strconv.Itoa(math.MinInt32), strconv.Itoa(math.MaxInt32)},
	protoreflect.Sfixed32Kind: {strconv.Itoa(math.MinInt32), strconv.Itoa(math.MaxInt32)},
	protoreflect.Uint32Kind:   {"0", strconv.FormatUint(math.MaxUint32, 10)},
	protoreflect.Fixed32Kind:  {"0", strconv.FormatUint(math.MaxUint32, 10)},
	protoreflect.Int64Kind:    {strconv.FormatInt(math.MinInt64, 10), strconv.FormatInt(math.MaxInt64, 10)},
	protoreflect.Sint64Kind:   {strconv.FormatInt(math.MinInt64, 10), strconv.FormatInt(math.MaxInt64, 10)},
	protoreflect.Sfixed64Kind: {strconv.FormatInt(math.MinInt64, 10), strconv.FormatInt(math.MaxInt64, 10)},
	protoreflect.Uint64Kind:   {"0", strconv.FormatUint(math.MaxUint64, 10)},
	protoreflect.Fixed64Kind:  {"0", strconv.FormatUint(math.MaxUint64, 10)},
}

// kindRules returns the rules message of the field's kind and fails when
// the field carries rules of another kind.
func kindRules(fd protoreflect.FieldDescriptor, fr *validate.FieldRules) (protoreflect.Message, error) {
	if fr == nil {
		return nil, nil
	}
	var (
		got protoreflect.Message
		err error
	)
	want := ruleField[fd.Kind()]
	fr.ProtoReflect().Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case f.Name() == "required":
		case f.Name() == want && want != "":
			got = v.Message()
		case f.Name() == "timestamp" && fd.Kind() == protoreflect.MessageKind && fd.Message().FullName() == "google.protobuf.Timestamp":
			err = fmt.Errorf("%s: timestamp rules cannot be expressed in JSON Schema", fd.FullName())
		default:
			err = fmt.Errorf("%s: %s rules on a %s field", fd.FullName(), f.Name(), fd.Kind())
		}
		return err == nil
	})
	return got, err
}

func numberText(v protoreflect.Value) string {
	switch x := v.Interface().(type) {
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return ""
}

// step returns an integer bound moved by one (gt 0 is minimum 1), so that an
// exclusive bound on an integer reads as the inclusive one.
func step(text string, up bool) string {
	d := int64(-1)
	if up {
		d = 1
	}
	if strings.HasPrefix(text, "-") {
		i, _ := strconv.ParseInt(text, 10, 64)
		return strconv.FormatInt(i+d, 10)
	}
	u, _ := strconv.ParseUint(text, 10, 64)
	if !up && u == 0 {
		return "-1"
	}
	return strconv.FormatUint(uint64(int64(u)+d), 10)
}

// inputValue is the schema of one value of a field (the field itself, an
// item of a list or a value of a map) under rules fr.
func (bd *builder) inputValue(fd protoreflect.FieldDescriptor, fr *validate.FieldRules, at string) (*node, error) {
	rules, err := kindRules(fd, fr)
	if err != nil {
		return nil, err
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		n := newNode("string")
		if rules == nil {
			return n, nil
		}
		sr, _ := rules.Interface().(*validate.StringRules)
		checks, plain, err := sharedChecks(sr, at)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fd.FullName(), err)
		}
		if err := onlyFields(plain, "min_len", "max_len", "pattern", "in"); err != nil {
			return nil, fmt.Errorf("%s: %w", fd.FullName(), err)
		}
		bd.checks = append(bd.checks, checks...)
		if sr.MinLen != nil {
			n.minLength = int(sr.GetMinLen())
		}
		if sr.MaxLen != nil {
			n.maxLength = int(sr.GetMaxLen())
		}
		if sr.Pattern != nil {
			if _, err := regexp.Compile(sr.GetPattern()); err != nil {
				return nil, fmt.Errorf("%s: pattern: %w", fd.FullName(), err)
			}
			n.pattern = sr.GetPattern()
		}
		if len(sr.GetIn()) > 0 {
			n.enum = append([]string(nil), sr.GetIn()...)
		}
		return n, nil
	case protoreflect.BoolKind:
		if err := onlyFields(protoMessage(rules)); err != nil {
			return nil, fmt.Errorf("%s: %w", fd.FullName(), err)
		}
		return newNode("boolean"), nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		n := newNode("number")
		err := boundRules(fd, rules, n, func(gt bool, bound string) {
			if gt {
				n.exclusiveMinimum = bound
			} else {
				n.exclusiveMaximum = bound
			}
		})
		if err != nil {
			return nil, err
		}
		return n, nil
	case protoreflect.EnumKind:
		ed := fd.Enum()
		if bd.enums == nil {
			bd.enums = map[string]map[string]string{}
		}
		names := map[string]string{}
		for i := 0; i < ed.Values().Len(); i++ {
			ev := ed.Values().Get(i)
			names[EnumWireName(ev)] = string(ev.Name())
		}
		bd.enums[string(ed.FullName())] = names
		return enumValue(fd, rules)
	case protoreflect.MessageKind:
		if rules != nil {
			return nil, fmt.Errorf("%s: scalar rules on a message field", fd.FullName())
		}
		if fd.Message().FullName() == "google.protobuf.Timestamp" {
			// protojson reads a Timestamp from an RFC 3339 string (JSON
			// Schema's date-time format) narrowed by the pattern: upper-case
			// T and Z, years 0001 to 9999, at most nine fraction digits.
			n := newNode("string")
			n.format = "date-time"
			n.pattern = timestampPattern
			return n, nil
		}
		if fd.Message().FullName() == "google.protobuf.Value" {
			// A value whose type the service decides (a GitHub Projects
			// field value: a number for a number field, text otherwise);
			// the contract takes a string or a number, no other JSON.
			str, num := newNode("string"), newNode("number")
			str.maxLength = valueMaxLength
			n := newNode("")
			n.anyOf = []*node{str, num}
			return n, nil
		}
		if isWellKnown(fd.Message()) {
			return nil, fmt.Errorf("%s: well-known type %s is not supported in tool input", fd.FullName(), fd.Message().FullName())
		}
		return bd.inputSchema(fd.Message(), at)
	}
	rng, ok := integerRange[fd.Kind()]
	if !ok {
		return nil, fmt.Errorf("%s: field kind %s is not supported in tool input", fd.FullName(), fd.Kind())
	}
	n := newNode("integer")
	n.minimum, n.maximum = rng[0], rng[1]
	err = boundRules(fd, rules, n, func(gt bool, bound string) {
		// An integer's exclusive bound is the inclusive one next to it.
		if gt {
			n.minimum = step(bound, true)
		} else {
			n.maximum = step(bound, false)
		}
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// boundRules reads the bounds of a number field, the only rules its schema
// supports: gte and lte become n's minimum and maximum, and gt and lt go to
// exclusive (gt true for gt), which integers and floats express
// differently.
func boundRules(fd protoreflect.FieldDescriptor, rules protoreflect.Message, n *node, exclusive func(gt bool, bound string)) error {
	if rules == nil {
		return nil
	}
	if err := onlyFields(protoMessage(rules), "gte", "lte", "gt", "lt"); err != nil {
		return fmt.Errorf("%s: %w", fd.FullName(), err)
	}
	rules.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch bound := numberText(v); f.Name() {
		case "gte":
			n.minimum = bound
		case "lte":
			n.maximum = bound
		default:
			exclusive(f.Name() == "gt", bound)
		}
		return true
	})
	return nil
}

// bound is a count rule as a node keeps it: -1 when the rule is absent.
func bound(rule *uint64) int {
	if rule == nil {
		return -1
	}
	return int(*rule)
}

func protoMessage(m protoreflect.Message) proto.Message {
	if m == nil {
		return nil
	}
	return m.Interface()
}

// EnumWireName is the contract's name of an enum value: lowercase, without
// the enum's prefix (ISSUE_STATE_OPEN of IssueState is "open").
func EnumWireName(ev protoreflect.EnumValueDescriptor) string {
	return strings.ToLower(strings.TrimPrefix(string(ev.Name()), enumPrefix(ev.Parent().(protoreflect.EnumDescriptor))))
}

// enumPrefix is the upper snake case of the enum's name and "_", the prefix
// buf lint (ENUM_VALUE_PREFIX) requires of every value.
func enumPrefix(ed protoreflect.EnumDescriptor) string {
	var b strings.Builder
	for i, r := range string(ed.Name()) {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String()) + "_"
}

// enumValue is an enum as the contract's lowercase strings. The zero value
// (UNSPECIFIED, buf lint's ENUM_ZERO_VALUE_SUFFIX) is not offered: it means
// "not given", which is said by leaving the parameter out.
func enumValue(fd protoreflect.FieldDescriptor, rules protoreflect.Message) (*node, error) {
	n := newNode("string")
	var er *validate.EnumRules
	if rules != nil {
		er, _ = rules.Interface().(*validate.EnumRules)
		if err := onlyFields(er, "defined_only", "in", "not_in"); err != nil {
			return nil, fmt.Errorf("%s: %w", fd.FullName(), err)
		}
	}
	allowed := func(num protoreflect.EnumNumber) bool {
		if len(er.GetIn()) > 0 {
			found := false
			for _, x := range er.GetIn() {
				found = found || protoreflect.EnumNumber(x) == num
			}
			if !found {
				return false
			}
		}
		for _, x := range er.GetNotIn() {
			if protoreflect.EnumNumber(x) == num {
				return false
			}
		}
		return true
	}
	vals := fd.Enum().Values()
	n.enum = []string{}
	for i := 0; i < vals.Len(); i++ {
		ev := vals.Get(i)
		if ev.Number() == 0 || !allowed(ev.Number()) {
			continue
		}
		n.enum = append(n.enum, EnumWireName(ev))
	}
	return n, nil
}

// valueMaxLength bounds a google.protobuf.Value input given as a string.
const valueMaxLength = 1024

// timestampPattern is the part of protojson's Timestamp syntax that the
// date-time format does not state.
const timestampPattern = `^(?:[1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9])-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.][0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})$`

// zeroFails reports whether the zero value of a scalar breaks a rule.
func zeroFails(n *node) bool {
	switch n.typ {
	case "string":
		if n.minLength > 0 || (n.pattern != "" && !regexp.MustCompile(n.pattern).MatchString("")) {
			return true
		}
		if n.enum != nil {
			for _, e := range n.enum {
				if e == "" {
					return false
				}
			}
			return true
		}
	case "integer", "number":
		lo, _ := strconv.ParseFloat(n.minimum, 64)
		hi, _ := strconv.ParseFloat(n.maximum, 64)
		elo, _ := strconv.ParseFloat(n.exclusiveMinimum, 64)
		ehi, _ := strconv.ParseFloat(n.exclusiveMaximum, 64)
		return (n.minimum != "" && lo > 0) || (n.maximum != "" && hi < 0) ||
			(n.exclusiveMinimum != "" && elo >= 0) || (n.exclusiveMaximum != "" && ehi <= 0)
	}
	return false
}

func isWellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile() != nil && md.ParentFile().Package() == "google.protobuf"
}

// escapePointer escapes one JSON Pointer reference token (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// maxExactInt is 2^53-1, the bound of a 64-bit integer in an answer: the
// gateway writes them as JSON numbers (not protojson's strings) so that an
// id an answer gives passes back as given into an input, which takes
// integers, and refuses a value beyond the bound, which a JavaScript or
// float64 reader would round (docs/architecture.md, Tool schemas).
const maxExactInt = "9007199254740991"

// outputSchema builds the schema of a response message as the gateway's
// EncodeResult renders it (protojson with proto names and default values):
// Timestamps as date-time strings, 64-bit integers as integers up to
// maxExactInt (not protojson's strings), enums as their proto names. It
// names no required properties: every answer of the gateway has every field without presence
// (EmitDefaultValues), and the list cost a quarter of the output schemas'
// bytes in tools/list (issue 20, point 6; docs/benchmarks.md). What is given
// up is only the mark of the few fields that may be absent (optional scalars
// and messages); every answer still validates. Types and formats stay: they
// are what a client reads the answer by.
func (bd *builder) outputSchema(md protoreflect.MessageDescriptor) (*node, error) {
	n, leave, err := bd.objectNode(md, "output")
	if err != nil {
		return nil, err
	}
	defer leave()
	n.message = md.FullName()
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		var s *node
		switch {
		case fd.IsMap():
			if s, err = bd.outputValue(fd.MapValue()); err != nil {
				return nil, err
			}
			m := newNode("object")
			m.values = s
			s = m
		case fd.IsList():
			if s, err = bd.outputValue(fd); err != nil {
				return nil, err
			}
			a := newNode("array")
			a.items = s
			s = a
		default:
			if s, err = bd.outputValue(fd); err != nil {
				return nil, err
			}
		}
		n.props = append(n.props, prop{name: string(fd.Name()), s: s})
	}
	return n, nil
}

func (bd *builder) outputValue(fd protoreflect.FieldDescriptor) (*node, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return newNode("string"), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return newNode("integer"), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		// Only the maximum is published: ids are not negative, and the
		// bytes of every definition count (the gateway still refuses a
		// value below -maxExactInt).
		n := newNode("integer")
		n.maximum = maxExactInt
		return n, nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return newNode("number"), nil
	case protoreflect.BoolKind:
		return newNode("boolean"), nil
	case protoreflect.EnumKind:
		n := newNode("string")
		vals := fd.Enum().Values()
		n.enum = []string{}
		for i := 0; i < vals.Len(); i++ {
			n.enum = append(n.enum, string(vals.Get(i).Name()))
		}
		return n, nil
	case protoreflect.MessageKind:
		if fd.Message().FullName() == "google.protobuf.Timestamp" {
			n := newNode("string")
			n.format = "date-time"
			return n, nil
		}
		if isWellKnown(fd.Message()) {
			return nil, fmt.Errorf("%s: well-known type %s is not supported in tool output", fd.FullName(), fd.Message().FullName())
		}
		return bd.outputSchema(fd.Message())
	default:
		// bytes has a JSON form (base64) that needs a decision; refuse until
		// one is made.
		return nil, fmt.Errorf("%s: field kind %s is not supported in tool output", fd.FullName(), fd.Kind())
	}
}
