package mcp

import (
	"fmt"
	"strconv"
	"strings"

	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolschema"
)

// RenderError renders a contract error as text for the model, the content
// of an isError result (docs/errors.md): "Error <code>: <title>", then one
// "  - path: message" line per violation (-32602), or one "  - key: value"
// line per context field. Each violation's text names the offending
// property and says what is expected (toolschema.Registry.Text, from the
// tool's schema when reg has the tool), not only AJV's message.
func RenderError(e *rpcerror.Error, reg *toolschema.Registry) string {
	// The text reaches the model and, through it, anyone: it is written
	// from the encoded error, redacted once (rpcerror.Encoded).
	enc := e.Encoded()
	d := enc.Data
	var b strings.Builder
	title := enc.Message
	if enc.Code == rpcerror.InvalidParamsCode && len(d.GetValidationErrors()) > 0 {
		title = "Invalid params"
	}
	fmt.Fprintf(&b, "Error %d: %s", enc.Code, title)
	for i, v := range d.GetValidationErrors() {
		text := v.GetMessage()
		if i < len(enc.Violations) {
			if reg != nil {
				text = reg.Text(d.GetTool(), enc.Violations[i])
			} else {
				text = enc.Violations[i].Text()
			}
		}
		fmt.Fprintf(&b, "\n  - %s: %s", v.GetPath(), text)
	}
	if n := d.GetValidationErrorsOmitted(); n > 0 {
		fmt.Fprintf(&b, "\n  - and %d more", n)
	}
	var lines []string
	add := func(k, v string) {
		if v != "" {
			lines = append(lines, k+": "+v)
		}
	}
	if gh := d.GetGithub(); gh != nil {
		msg := gh.GetMessage()
		if msg == enc.Message {
			msg = ""
		}
		if gh.GetStatus() != 0 {
			msg = strings.TrimSpace(strconv.Itoa(int(gh.GetStatus())) + " " + msg)
		}
		add("github", msg)
		add("documentation_url", gh.GetDocumentationUrl())
	}
	if r := d.GetResource(); r != nil {
		add("resource", strings.TrimSpace(r.GetType()+" "+r.GetId()))
	}
	if d.RetryAfter != nil {
		add("retryAfter", strconv.Itoa(int(d.GetRetryAfter()))+"s")
	}
	add("mergeable_state", d.GetMergeableState())
	add("expected_sha", d.GetExpectedSha())
	add("actual_sha", d.GetActualSha())
	if p := d.GetPatch(); p != nil {
		where := p.GetFile()
		if p.GetHunk() > 0 {
			where += " hunk " + strconv.Itoa(int(p.GetHunk()))
		}
		if p.GetLine() > 0 {
			where += " line " + strconv.Itoa(int(p.GetLine()))
		}
		add("patch", strings.TrimSpace(p.GetCode()+" "+where))
	}
	if p := d.GetProtocol(); p != nil {
		add("protocol", "requested "+p.GetRequested()+", supported "+strings.Join(p.GetSupported(), ", "))
	}
	add("outcome", d.GetOutcome())
	add("check", d.GetCheck())
	add("requestId", d.GetRequestId())
	for _, l := range lines {
		b.WriteString("\n  - " + l)
	}
	return b.String()
}
