package mcp

import (
	"bytes"
	"encoding/json"
)

// This file is the envelope's own tools/call path. Every other method goes
// through an SDK session; tools/call, the one method agents call in a loop,
// runs the same handler code (Server.run) directly and encodes the
// CallToolResult here, because the SDK's dispatch of one call costs more
// than the rest of the gateway's work on it together (a goroutine with a
// growing stack per request, two JSON decodes each allocating 32 KiB, two
// channel hops: measured in docs/benchmarks.md), which would break the
// gateway's CPU budget per call. TestFastPathMatchesSDK checks that both
// paths answer byte-equivalent results at every protocol version.

// encodeToolResult writes o as the CallToolResult the SDK would: the
// failure as an isError result (text rendering, the contract error in
// _meta, no structuredContent) or the success (the JSON as text content,
// plus structuredContent from 2025-06-18), with 2026-07-28's resultType and
// serverInfo _meta when modern.
func (s *Server) encodeToolResult(o toolOutcome, modern bool) json.RawMessage {
	var b bytes.Buffer
	b.Grow(2*len(o.res) + 256)
	b.WriteByte('{')
	if o.err != nil || modern {
		b.WriteString(`"_meta":{`)
		if o.err != nil {
			b.WriteString(`"` + ErrorMetaKey + `":`)
			b.Write(errorObject(o.err))
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
	if o.err != nil {
		b.Write(marshalString(RenderError(o.err, o.reg)))
	} else {
		b.Write(marshalString(string(o.res)))
	}
	b.WriteString(`}]`)
	switch {
	case o.err != nil:
		b.WriteString(`,"isError":true`)
	case hasStructuredContent(o.version):
		b.WriteString(`,"structuredContent":`)
		b.Write(o.res)
	}
	if modern {
		b.WriteString(`,"resultType":"complete"`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshalString encodes s as a JSON string without HTML escaping, as the
// SDK's encoder does (every byte of a result is paid by an agent).
func marshalString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}
