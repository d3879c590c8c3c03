package mcp

import (
	"bytes"
	"encoding/json"
)

// This file encodes a tools/call's CallToolResult by hand, straight into
// the answer's bytes: tools/call is the method agents call in a loop, and
// an encode through generic types would copy a megabyte file's content
// several times over. TestToolResultsDecodeInSDK checks that the official
// SDK's client decodes these bytes into what the call came to.

// encodeToolResult writes o as a CallToolResult: the
// failure as an isError result (text rendering, the contract error in
// _meta, no structuredContent) or the success (the JSON as text content,
// plus structuredContent from 2025-06-18), with 2026-07-28's resultType and
// serverInfo _meta when modern.
func (s *Server) encodeToolResult(o toolOutcome, modern bool) json.RawMessage {
	var b bytes.Buffer
	b.Grow(2*len(o.Result) + 256)
	b.WriteByte('{')
	if o.Err != nil || modern {
		b.WriteString(`"_meta":{`)
		if o.Err != nil {
			b.WriteString(`"` + ErrorMetaKey + `":`)
			b.Write(errorObject(o.Err))
			if modern {
				b.WriteByte(',')
			}
		}
		if modern {
			b.WriteString(`"io.modelcontextprotocol/serverInfo":`)
			b.Write(s.serverInfo)
		}
		b.WriteString(`},`)
	}
	b.WriteString(`"content":[{"type":"text","text":`)
	if o.Err != nil {
		b.Write(marshalString(RenderError(o.Err, o.reg)))
	} else {
		b.Write(marshalString(string(o.Result)))
	}
	b.WriteString(`}]`)
	switch {
	case o.Err != nil:
		b.WriteString(`,"isError":true`)
	case hasStructuredContent(o.version):
		b.WriteString(`,"structuredContent":`)
		b.Write(o.Result)
	}
	if modern {
		b.WriteString(`,"resultType":"complete"`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshalString encodes s as a JSON string without HTML escaping (every
// byte of a result is paid by an agent, and "<" need not cost six).
func marshalString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}
