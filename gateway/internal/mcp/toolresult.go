package mcp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolschema"
)

// This file encodes a tools/call's CallToolResult by hand, straight into
// the answer's bytes: tools/call is the method agents call in a loop, and
// an encode through generic types would copy a megabyte file's content
// several times over. TestToolResultsDecodeInSDK checks that the official
// SDK's client decodes these bytes into what the call came to.

// encodeToolResult writes a tools/call's result res, or its failure e, as
// a CallToolResult of version: the failure as an isError result (text
// rendering, the contract error in _meta, no structuredContent) or the
// success (the JSON as text content, plus structuredContent from
// 2025-06-18), with 2026-07-28's resultType and serverInfo _meta when
// modern.
func (s *Server) encodeToolResult(res json.RawMessage, e *rpcerror.Error, version string, modern bool) json.RawMessage {
	var b bytes.Buffer
	b.Grow(2*len(res) + 256)
	b.WriteByte('{')
	if e != nil || modern {
		b.WriteString(`"_meta":{`)
		if e != nil {
			b.WriteString(`"` + ErrorMetaKey + `":`)
			b.Write(errorObject(e))
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
	if e != nil {
		b.Write(marshalString(RenderError(e, s.reg)))
	} else {
		b.Write(appendString(b.AvailableBuffer(), string(res)))
	}
	b.WriteString(`}]`)
	switch {
	case e != nil:
		b.WriteString(`,"isError":true`)
	case hasStructuredContent(version):
		b.WriteString(`,"structuredContent":`)
		b.Write(res)
	}
	if modern {
		b.WriteString(`,"resultType":"complete"`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshalString encodes s as a JSON string without HTML escaping (every
// byte of a result is paid by an agent, and "<" need not cost six).
func marshalString(s string) []byte { return appendString(nil, s) }

// appendString appends s as encoding/json's Encoder with SetEscapeHTML(false)
// writes it: '"', '\\' and control characters escaped (\b \f \n \r \t by
// name), invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped. Without the
// Encoder's buffer and reflection: the whole result passes through here on
// every tools/call. FuzzAppendString holds it to the Encoder's bytes.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = toolschema.AppendEscapedASCII(dst, c)
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', "0123456789abcdef"[r&0xf])
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
