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

// field renders an unquoted log value (redacted already, see Encoded): "-"
// when empty, and every space, control character, quote or
// '=' replaced by '_' so that the line keeps its key=value shape and never
// breaks.
func field(s string) string {
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
	enc := e.Encoded()
	var b strings.Builder
	b.WriteString("jsonrpc_error tool=")
	b.WriteString(field(enc.Data.GetTool()))
	b.WriteString(" code=")
	b.WriteString(strconv.Itoa(enc.Code))
	b.WriteString(" repo=")
	b.WriteString(field(enc.Log.Repo))
	b.WriteString(" pr=")
	b.WriteString(field(enc.Log.PR))
	b.WriteString(" sha=")
	b.WriteString(field(enc.Log.SHA))
	b.WriteString(" state=")
	b.WriteString(field(enc.Log.State))
	b.WriteString(" msg=")
	b.WriteString(strconv.QuoteToASCII(enc.Message))
	return b.String()
}

// Sink is where error answers are born: every JSON-RPC error response the
// gateway sends goes through Response (or Report), which logs it exactly
// once, as its jsonrpc_error line (docs/errors.md, "The log line"). The line
// goes to its own writer, the same stream as the structured records but
// never inside one: log shippers take the lines that start "jsonrpc_error "
// as the contract's key=value line and every other line as a JSON record. A
// nil *Sink discards.
//
// The one structured record a failure may add is an internal error's cause
// (-32603), which the line, by contract, does not carry: "internal error"
// with the tool, the request id and the redacted cause, so that the line
// says what the caller saw and the record why. Every other failure is the
// line alone (issue 23: each failure was logged twice, as the line and as a
// "jsonrpc error" record).
type Sink struct {
	mu     sync.Mutex
	w      io.Writer
	logger *slog.Logger
}

// NewSink returns a Sink writing lines to w (normally the structured logger's
// own output) and causes to logger (nil: slog.Default()).
func NewSink(w io.Writer, logger *slog.Logger) *Sink {
	if logger == nil {
		logger = slog.Default()
	}
	if w == nil {
		w = io.Discard
	}
	return &Sink{w: w, logger: logger}
}

// Report logs e once: its jsonrpc_error line, and an internal error's cause.
func (s *Sink) Report(ctx context.Context, e *Error) {
	if s == nil || e == nil {
		return
	}
	line := e.LogLine() + "\n"
	s.mu.Lock()
	_, _ = io.WriteString(s.w, line)
	s.mu.Unlock()
	if e.Code != InternalError || e.Cause == nil {
		return
	}
	enc := e.Encoded()
	s.logger.LogAttrs(ctx, slog.LevelError, "internal error",
		slog.String("tool", enc.Data.GetTool()),
		slog.Int("code", enc.Code),
		slog.String("request_id", enc.RequestID),
		slog.String("cause", redact.String(e.Cause.Error())))
}

// Response reports e and returns the JSON-RPC response answering id with it.
// Transports call it once per error object they send.
func (s *Sink) Response(ctx context.Context, id json.RawMessage, e *Error) jsonrpc.Response {
	s.Report(ctx, e)
	return jsonrpc.Response{ID: id, Error: e.JSONRPC()}
}
