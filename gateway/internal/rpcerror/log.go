package rpcerror

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"ghops.dev/redact"

	"ghops.dev/gateway/internal/jsonrpc"
)

// maxField caps an unquoted log field so a hostile name cannot flood the log.
const maxField = 200

// field renders an unquoted log value: "-" when empty, token-shaped parts
// redacted (package redact), and every space, control character, quote or
// '=' replaced by '_' so that the line keeps its key=value shape and never
// breaks.
func field(s string) string {
	s = redact.String(s)
	if s == "" {
		return "-"
	}
	if len(s) > maxField {
		s = s[:maxField]
	}
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '=' || r == '\\' || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return '_'
		}
		return r
	}, s)
}

// LogLine renders seed 000's line:
//
//	jsonrpc_error tool=... code=... repo=owner/repo pr=... sha=... state=... msg="..."
//
// with "-" for what is absent and the message quoted with Go escaping
// (quotes, backslashes, newlines and every non-printable rune escaped), so
// the line never breaks.
func (e *Error) LogLine() string {
	var b strings.Builder
	b.WriteString("jsonrpc_error tool=")
	b.WriteString(field(e.Data.Tool))
	b.WriteString(" code=")
	b.WriteString(strconv.Itoa(e.Code))
	b.WriteString(" repo=")
	b.WriteString(field(e.Log.Repo))
	b.WriteString(" pr=")
	b.WriteString(field(e.Log.PR))
	b.WriteString(" sha=")
	b.WriteString(field(e.Log.SHA))
	b.WriteString(" state=")
	b.WriteString(field(e.Log.State))
	b.WriteString(" msg=")
	b.WriteString(strconv.QuoteToASCII(cut(redact.String(e.Message), MaxStringBytes)))
	return b.String()
}

// Sink is where error answers are born: every JSON-RPC error response the
// gateway sends goes through Response (or Report), which writes exactly one
// jsonrpc_error line to the line writer and one ordinary slog record (with
// the redacted cause for -32603). A nil *Sink discards.
type Sink struct {
	mu     sync.Mutex
	w      io.Writer
	logger *slog.Logger
}

// NewSink returns a Sink writing lines to w (normally the structured logger's
// own output) and records to logger (nil: slog.Default()).
func NewSink(w io.Writer, logger *slog.Logger) *Sink {
	if logger == nil {
		logger = slog.Default()
	}
	if w == nil {
		w = io.Discard
	}
	return &Sink{w: w, logger: logger}
}

// Report logs e once: the jsonrpc_error line and a structured record.
func (s *Sink) Report(ctx context.Context, e *Error) {
	if s == nil || e == nil {
		return
	}
	line := e.LogLine() + "\n"
	s.mu.Lock()
	_, _ = io.WriteString(s.w, line)
	s.mu.Unlock()
	attrs := []slog.Attr{
		slog.String("tool", redact.String(e.Data.Tool)),
		slog.Int("code", e.Code),
		slog.String("request_id", redact.String(e.RequestID)),
	}
	level := slog.LevelInfo
	if e.Code == InternalError {
		level = slog.LevelError
		if e.Cause != nil {
			attrs = append(attrs, slog.String("cause", redact.String(e.Cause.Error())))
		}
	}
	s.logger.LogAttrs(ctx, level, "jsonrpc error", attrs...)
}

// Response reports e and returns the JSON-RPC response answering id with it.
// Transports call it once per error object they send.
func (s *Sink) Response(ctx context.Context, id json.RawMessage, e *Error) jsonrpc.Response {
	s.Report(ctx, e)
	return jsonrpc.Response{ID: id, Error: e.JSONRPC()}
}
