package mcp

import (
	"fmt"
	"strconv"
	"strings"

	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolschema"
	"ghops.dev/redact"
)

// RenderError renders a contract error as text for the model, the content
// of an isError result (docs/errors.md): "Error <code>: <title>", then one
// "  - path: message" line per violation (-32602), or one "  - key: value"
// line per context field. Each violation's text names the offending
// property and says what is expected (toolschema.Registry.Text, from the
// tool's schema when reg has the tool), not only AJV's message.
func RenderError(e *rpcerror.Error, reg *toolschema.Registry) string {
	texts := make([]string, len(e.Data.ValidationErrors))
	for i, v := range e.Data.ValidationErrors {
		if reg != nil {
			texts[i] = reg.Text(e.Data.Tool, v)
		} else {
			texts[i] = v.Text()
		}
	}
	e = e.Redacted() // the text reaches the model and, through it, anyone
	var b strings.Builder
	title := e.Message
	if e.Code == rpcerror.InvalidParamsCode && len(e.Data.ValidationErrors) > 0 {
		title = "Invalid params"
	}
	fmt.Fprintf(&b, "Error %d: %s", e.Code, title)
	for i, v := range e.Data.ValidationErrors {
		text := v.Message
		if i < len(texts) {
			text = redact.String(texts[i])
		}
		fmt.Fprintf(&b, "\n  - %s: %s", v.Path, text)
	}
	if n := e.Data.ValidationErrorsOmitted; n > 0 {
		fmt.Fprintf(&b, "\n  - and %d more", n)
	}
	d := e.Data
	var lines []string
	add := func(k, v string) {
		if v != "" {
			lines = append(lines, k+": "+v)
		}
	}
	if d.GitHub != nil {
		gh := d.GitHub.Message
		if gh == e.Message {
			gh = ""
		}
		if d.GitHub.Status != 0 {
			gh = strings.TrimSpace(strconv.Itoa(d.GitHub.Status) + " " + gh)
		}
		add("github", gh)
		add("documentation_url", d.GitHub.DocumentationURL)
	}
	if d.Resource != nil {
		add("resource", strings.TrimSpace(d.Resource.Type+" "+d.Resource.ID))
	}
	if d.RetryAfter != nil {
		add("retryAfter", strconv.Itoa(*d.RetryAfter)+"s")
	}
	add("mergeable_state", d.MergeableState)
	add("expected_sha", d.ExpectedSHA)
	add("actual_sha", d.ActualSHA)
	if p := d.Patch; p != nil {
		where := p.File
		if p.Hunk > 0 {
			where += " hunk " + strconv.Itoa(p.Hunk)
		}
		if p.Line > 0 {
			where += " line " + strconv.Itoa(p.Line)
		}
		add("patch", strings.TrimSpace(p.Code+" "+where))
	}
	if d.Protocol != nil {
		add("protocol", "requested "+d.Protocol.Requested+", supported "+strings.Join(d.Protocol.Supported, ", "))
	}
	add("outcome", d.Outcome)
	add("check", d.Check)
	add("requestId", d.RequestID)
	for _, l := range lines {
		b.WriteString("\n  - " + l)
	}
	return b.String()
}
