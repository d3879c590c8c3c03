package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"ghops.dev/gateway/internal/toolschema"
)

// listTTLMillis is the freshness hint (ttlMs) of cacheable stateless results:
// the tool set only changes with a deployment.
const listTTLMillis = 300000

// toolPages are one protocol version's tools/list answers, encoded once.
type toolPages struct {
	pages [][]byte // the result objects, page by page
}

// catalog holds the tools/list pages of every version and the cursor key.
type catalog struct {
	byVersion   map[string]*toolPages
	fingerprint string         // ties cursors to this exact tool set
	cursors     map[string]int // cursor -> page index, the same for every version
}

// marshalString encodes s as a JSON string without HTML escaping, so that the
// bytes agents pay for are not inflated by \u003c and friends.
func marshalString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// compactJSON returns raw without insignificant whitespace ("{}" when empty
// or invalid, which NewRegistry never produces).
func compactJSON(raw []byte) []byte {
	var b bytes.Buffer
	if len(raw) == 0 || json.Compact(&b, raw) != nil {
		return []byte("{}")
	}
	return b.Bytes()
}

// encodeTool writes one tool object as version v describes it: name, title
// (2025-06-18+), description, inputSchema, outputSchema (2025-06-18+) and
// annotations (2025-03-26+). Annotations only state what differs from the
// specification's defaults (readOnlyHint false, destructiveHint true,
// idempotentHint false, openWorldHint true), except destructiveHint which a
// writing tool always states: every byte of this answer is paid by an agent.
func encodeTool(b *bytes.Buffer, t *toolschema.Tool, f features) {
	b.WriteString(`{"name":`)
	b.Write(marshalString(t.Name))
	if f.title && t.Title != "" {
		b.WriteString(`,"title":`)
		b.Write(marshalString(t.Title))
	}
	if t.Description != "" {
		b.WriteString(`,"description":`)
		b.Write(marshalString(t.Description))
	}
	b.WriteString(`,"inputSchema":`)
	b.Write(compactJSON(t.InputSchema))
	if f.outputSchema && len(t.OutputSchema) > 0 {
		b.WriteString(`,"outputSchema":`)
		b.Write(compactJSON(t.OutputSchema))
	}
	if f.annotations {
		var parts []string
		if f.annotationsTitled && t.Title != "" {
			parts = append(parts, `"title":`+string(marshalString(t.Title)))
		}
		a := t.Annotations
		if a.ReadOnlyHint {
			parts = append(parts, `"readOnlyHint":true`)
		} else {
			parts = append(parts, `"destructiveHint":`+strconv.FormatBool(a.DestructiveHint))
			if a.IdempotentHint {
				parts = append(parts, `"idempotentHint":true`)
			}
		}
		if !a.OpenWorldHint {
			parts = append(parts, `"openWorldHint":false`)
		}
		b.WriteString(`,"annotations":{`)
		b.WriteString(strings.Join(parts, ","))
		b.WriteByte('}')
	}
	b.WriteByte('}')
}

// newCatalog encodes the tools/list answers of every supported version, cut
// into pages of pageSize tools (pageSize <= 0: one page).
func newCatalog(tools []*toolschema.Tool, pageSize int, serverMeta []byte) *catalog {
	h := sha256.New()
	for _, t := range tools {
		h.Write([]byte(t.Name))
		h.Write([]byte{0})
		h.Write(t.InputSchema)
		h.Write([]byte{0})
		h.Write(t.OutputSchema)
		h.Write([]byte{0})
	}
	c := &catalog{byVersion: map[string]*toolPages{}, fingerprint: hex.EncodeToString(h.Sum(nil)[:6]), cursors: map[string]int{}}
	if pageSize <= 0 || pageSize > len(tools) {
		pageSize = len(tools)
	}
	for _, v := range SupportedVersions {
		f := featuresOf(v)
		tp := &toolPages{}
		for start := 0; start < len(tools) || (start == 0 && len(tools) == 0); start += pageSize {
			end := min(start+pageSize, len(tools))
			var b bytes.Buffer
			b.WriteString(`{"tools":[`)
			for i, t := range tools[start:end] {
				if i > 0 {
					b.WriteByte(',')
				}
				encodeTool(&b, t, f)
			}
			b.WriteByte(']')
			if end < len(tools) {
				b.WriteString(`,"nextCursor":`)
				cur := c.cursor(end)
				c.cursors[cur] = len(tp.pages) + 1
				b.Write(marshalString(cur))
			}
			if f.stateless {
				b.WriteString(`,"ttlMs":` + strconv.Itoa(listTTLMillis) + `,"cacheScope":"public","resultType":"complete","_meta":`)
				b.Write(serverMeta)
			}
			b.WriteByte('}')
			tp.pages = append(tp.pages, b.Bytes())
			if len(tools) == 0 {
				break
			}
		}
		c.byVersion[v] = tp
	}
	return c
}

// cursor returns the opaque cursor of the page starting at tool index start.
// It names the tool-set fingerprint so that a cursor from another deployment
// (a different tool set) is refused instead of silently skipping tools, and
// it needs no server state: any replica decodes it.
func (c *catalog) cursor(start int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("t1:" + c.fingerprint + ":" + strconv.Itoa(start)))
}

// page returns the result object for cursor (empty: the first page); ok is
// false for a cursor this catalog did not issue.
func (c *catalog) page(version, cursor string) ([]byte, bool) {
	tp := c.byVersion[version]
	if tp == nil {
		return nil, false
	}
	i := 0
	if cursor != "" {
		var ok bool
		if i, ok = c.cursors[cursor]; !ok || i >= len(tp.pages) {
			return nil, false
		}
	}
	return tp.pages[i], true
}
