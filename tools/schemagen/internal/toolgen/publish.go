package toolgen

import (
	"encoding/json"
	"math"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// What tools/list publishes of a tool. Every byte of a definition is read
// by the model on every session, so a definition (its compact JSON object in
// tools/list, title and annotations included) is held to definitionBudget,
// and the schemas it carries are published by rules, not edited per tool:
//
// Input: the published schema keeps what a caller needs to form a call:
// properties with their types, descriptions, enums and formats, what is
// required (required, oneOf, not, dependentRequired), map values, counts
// (minItems, maxItems, min/maxProperties) and upper bounds narrower than
// the integer kind's own range (per_page at most 100). It leaves out
// patterns (a field whose description states a long pattern in words
// publishes its resource kind's description instead: the words are told
// when the rule is broken), string lengths, uniqueItems, if/then (the
// base64 content rule), additionalProperties false, lower bounds (numbers
// and counts start at 1 or 0) and the bounds that only restate an integer
// kind's range: those are
// the contract's checks, which the gateway enforces against the full
// schema (Tool.ValidationSchema) and reports as AJV-style -32602 errors that
// name the rule and, for a pattern too long to read, state it in words. A
// published input schema only drops keywords of the full one, so whatever
// the gateway accepts, the published schema accepts too.
//
// Output: every answer field at the top with its type; the envelope objects
// that many tools' answers carry (sharedAnswers or more: the content report,
// the page) as {"type":"object"}, documented once (docs/architecture.md)
// rather than in every tool; other nested objects with their properties to
// a depth of two objects (a list's items keep their fields), or of one,
// or none (a bare object: the description says what the answer holds) when
// the definition would exceed the budget. Only properties are dropped,
// never a type changed or a requirement added, so every answer still
// validates: MCP requires structuredContent to conform to outputSchema, and
// it does (the gateway's TestEncodeResultMatchesOutputSchema and the real
// clients of gateway/e2e check it).

// definitionBudget is the most bytes a tool's definition in tools/list may
// take (the gateway's TestToolsListBudget holds every tool to it).
const definitionBudget = 1024

// sharedAnswers is how many tools' answers must carry a message for it to be
// an envelope, published as a bare object.
const sharedAnswers = 5

// outputDepths are the depths of nested objects an output schema is
// published with, richest first: the first whose definition fits the budget
// is taken, the last one when none does.
var outputDepths = []int{2, 1, 0}

// rangeBounds are the extremes of the integer kinds' ranges: a minimum or
// maximum equal to one only restates the kind and is not published. Zero,
// the unsigned kinds' minimum, is a real bound a caller reads and stays.
var rangeBounds = map[string]bool{
	strconv.Itoa(math.MinInt32): true, strconv.Itoa(math.MaxInt32): true,
	strconv.FormatUint(math.MaxUint32, 10): true,
	strconv.FormatInt(math.MinInt64, 10):   true, strconv.FormatInt(math.MaxInt64, 10): true,
	strconv.FormatUint(math.MaxUint64, 10): true,
}

// publishedInput returns a copy of input schema n as tools/list publishes
// it (the rules above); n is not changed.
func (n *node) publishedInput() *node {
	if n == nil {
		return nil
	}
	c := *n
	c.pattern = ""
	c.minLength, c.maxLength = -1, -1
	c.uniqueItems = false
	c.ifS, c.thenS = nil, nil
	c.closed = false
	if len(n.pattern) > readablePattern && n.brief != "" {
		// The pattern's words are told when it is broken (Words).
		c.description = n.brief
	}
	c.minimum, c.exclusiveMinimum = "", ""
	if rangeBounds[c.maximum] {
		c.maximum = ""
	}
	c.items = n.items.publishedInput()
	c.values = n.values.publishedInput()
	c.props = make([]prop, len(n.props))
	for i, p := range n.props {
		c.props[i] = prop{name: p.name, s: p.s.publishedInput()}
	}
	return &c
}

// publishedOutput returns a copy of output schema n as tools/list publishes
// it: envelope objects bare, and objects nested below depth objects (the
// top is depth 0) bare; n is not changed.
func (n *node) publishedOutput(depth int, envelope func(protoreflect.FullName) bool) *node {
	return n.outline(0, depth, envelope)
}

func (n *node) outline(level, depth int, envelope func(protoreflect.FullName) bool) *node {
	if n == nil {
		return nil
	}
	if n.typ == "object" && n.message != "" && (level >= depth || level > 0 && envelope(n.message)) {
		return newNode("object")
	}
	c := *n
	next := level
	if n.message != "" {
		next++
	}
	// Array items and map values are at the depth of their field.
	c.items = n.items.outline(level, depth, envelope)
	c.values = n.values.outline(level, depth, envelope)
	c.props = make([]prop, len(n.props))
	for i, p := range n.props {
		c.props[i] = prop{name: p.name, s: p.s.outline(next, depth, envelope)}
	}
	return &c
}

// envelopes counts, for every message, the tools whose full output schema
// carries it below the top, and returns the test for an envelope.
func envelopes(outs []*node) func(protoreflect.FullName) bool {
	count := map[protoreflect.FullName]int{}
	for _, out := range outs {
		seen := map[protoreflect.FullName]bool{}
		for _, p := range out.props {
			p.s.walk(func(n *node) {
				if n.message != "" && !seen[n.message] {
					seen[n.message] = true
					count[n.message]++
				}
			})
		}
	}
	return func(m protoreflect.FullName) bool { return count[m] >= sharedAnswers }
}

// definitionSize is the bytes of a tool's definition in tools/list with
// the given schemas: the gateway's encoding (its members in the order the
// MCP SDK's Tool type has them, every annotation explicit).
func definitionSize(name string, to *ghopsv1.ToolOptions, in, out json.RawMessage) int {
	type annotations struct {
		DestructiveHint bool `json:"destructiveHint"`
		IdempotentHint  bool `json:"idempotentHint"`
		OpenWorldHint   bool `json:"openWorldHint"`
		ReadOnlyHint    bool `json:"readOnlyHint"`
	}
	b, _ := json.Marshal(struct { // plain values always marshal
		Annotations  annotations     `json:"annotations"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		Name         string          `json:"name"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Title        string          `json:"title"`
	}{
		annotations{to.GetDestructive(), to.GetIdempotent(), to.GetOpenWorld(), to.GetReadOnly()},
		to.GetDescription(), in, name, out, to.GetTitle(),
	})
	return len(b)
}

// kindDescriptions describe the parameters whose meaning a name such as
// repo or prNumber does not say in full, by the resource they name: a
// parameter without a comment of its own takes its kind's, so that every
// tool's repo says "owner/name" without a comment on each field (a new
// tool's too).
var kindDescriptions = map[ghopsv1.ResourceKind]string{
	ghopsv1.ResourceKind_RESOURCE_KIND_REPOSITORY:   "owner/name",
	ghopsv1.ResourceKind_RESOURCE_KIND_PROJECT:      "owner/number",
	ghopsv1.ResourceKind_RESOURCE_KIND_PULL_REQUEST: "Pull request number",
	ghopsv1.ResourceKind_RESOURCE_KIND_ISSUE:        "Issue number",
	ghopsv1.ResourceKind_RESOURCE_KIND_PATH:         "Path from the repository root",
}

// parameterDescription is an input field's description: its leading
// comment (the proto is the one place where parameters are documented), or
// its resource kind's; brief is the kind's.
func parameterDescription(fd protoreflect.FieldDescriptor) (description, brief string) {
	opts, ok := fd.Options().(*descriptorpb.FieldOptions)
	if ok && opts != nil && proto.HasExtension(opts, ghopsv1.E_Resource) {
		kind, _ := proto.GetExtension(opts, ghopsv1.E_Resource).(ghopsv1.ResourceKind)
		brief = kindDescriptions[kind]
	}
	if c := comment(fd); c != "" {
		return c, brief
	}
	return brief, brief
}
