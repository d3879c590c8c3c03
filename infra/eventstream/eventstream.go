// Package eventstream reads the data of server-sent events from a whole,
// bounded body: the MCP Streamable HTTP answers (text/event-stream) that
// the client and ghops-load read back, which each used to parse with
// their own scanner (and one joined multi-line data without the newline
// the format requires).
//
// It is a few lines of the WHATWG event-stream rules rather than a
// library because the bodies are already read whole and capped by their
// callers, only the data field matters (a JSON-RPC message per event), and
// the MCP SDK's own reader is internal to it.
package eventstream

import (
	"bytes"
	"strings"
)

// Data returns the data of each event in stream that carries any, in
// order: the values of its "data:" lines (one leading space dropped)
// joined by "\n". Other fields (event, id, retry) and comment lines are
// skipped; a last event not followed by a blank line still counts. Lines
// may end in "\n", "\r\n" or "\r".
func Data(stream []byte) [][]byte {
	var events [][]byte
	var cur []byte
	has := false
	flush := func() {
		if has {
			events = append(events, cur)
		}
		cur, has = nil, false
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(stream), "\r\n", "\n"), "\r", "\n")
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			flush()
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		if field != "data" {
			continue
		}
		value = strings.TrimPrefix(value, " ")
		if has {
			cur = append(cur, '\n')
		}
		cur, has = append(cur, value...), true
	}
	flush()
	return events
}

// Last returns the data of the last event that carries any, or nil.
func Last(stream []byte) []byte {
	events := Data(stream)
	for i := len(events) - 1; i >= 0; i-- {
		if len(bytes.TrimSpace(events[i])) > 0 {
			return events[i]
		}
	}
	return nil
}
