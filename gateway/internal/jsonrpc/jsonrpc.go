// Package jsonrpc implements the JSON-RPC 2.0 envelopes the gateway speaks on
// /rpc and that the MCP layer reuses: parsing a body (a single request or a
// batch, following section 7 of the specification to the letter), ids of every
// legal type kept as json.RawMessage and echoed byte-exact, response encoding
// (result xor error, id null when it is unknown) and the standard codes.
//
// The API:
//
//	ParseBody(b) (items []Item, batch bool, bodyErr *Error)
//	Item{Request *Request; Err *Error; ID json.RawMessage}
//	Response{ID, Result, Error} with MarshalJSON
//	EncodeResponse(r) / EncodeBatch(rs) []byte (never fail: fixed fallback)
//
// Decisions where the specification is silent: members other than jsonrpc,
// method, params and id are ignored; "params": null is treated as absent
// (several clients send it); an invalid request whose id is recoverable (a
// string, number or null) is answered with that id, otherwise with null.
//
// Beyond RFC 8259, a body is JSON only when it is I-JSON (RFC 7493): valid
// UTF-8 with no lone surrogate escape, and no object with two members of
// the same name, at any depth. Anything else is -32700 for the whole body,
// so that no layer ever sees a second copy of a key that another layer read
// first, and no id that is not valid UTF-8 is ever echoed.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tidwall/gjson"
)

// Version is the only protocol version accepted in the "jsonrpc" member.
const Version = "2.0"

// The standard error codes of JSON-RPC 2.0 section 5.1.
const (
	// CodeParseError: the body is not valid JSON.
	CodeParseError = -32700
	// CodeInvalidRequest: the JSON is not a valid request object.
	CodeInvalidRequest = -32600
	// CodeMethodNotFound: the method does not exist.
	CodeMethodNotFound = -32601
	// CodeInvalidParams: invalid method parameters.
	CodeInvalidParams = -32602
	// CodeInternalError: anything else.
	CodeInternalError = -32603
)

// null is the JSON literal used for an unknown id.
var null = json.RawMessage("null")

// FallbackBody is the fixed body written when a response cannot be encoded.
// It is valid JSON-RPC and never depends on run-time data.
var FallbackBody = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}`)

// Request is one valid JSON-RPC request or notification.
type Request struct {
	// ID is the raw id exactly as sent; nil means the member was absent (a
	// notification), the bytes "null" mean an explicit null id.
	ID json.RawMessage
	// Method is the method name.
	Method string
	// Params is the raw params member (an object or an array), nil if absent.
	Params json.RawMessage
}

// IsNotification reports whether the request has no id member and so gets no
// response.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Error is a JSON-RPC error object.
type Error struct {
	// Code is the error code.
	Code int `json:"code"`
	// Message is the short description.
	Message string `json:"message"`
	// Data is the optional structured payload.
	Data any `json:"data,omitempty"`
}

// Error implements error.
func (e *Error) Error() string { return "jsonrpc " + strconv.Itoa(e.Code) + ": " + e.Message }

// NewError returns an error object with the standard message for a standard
// code ("Parse error", "Invalid Request", ...) or msg when msg is not empty.
func NewError(code int, msg string) *Error {
	if msg == "" {
		msg = StandardMessage(code)
	}
	return &Error{Code: code, Message: msg}
}

// StandardMessage returns the specification's message for a standard code, or
// "Server error" for anything else.
func StandardMessage(code int) string {
	switch code {
	case CodeParseError:
		return "Parse error"
	case CodeInvalidRequest:
		return "Invalid Request"
	case CodeMethodNotFound:
		return "Method not found"
	case CodeInvalidParams:
		return "Invalid params"
	case CodeInternalError:
		return "Internal error"
	}
	return "Server error"
}

// Item is one element of a parsed body: either a valid Request or the Err to
// answer for an invalid element, with ID the id to answer it with (null when
// it could not be recovered).
type Item struct {
	// Request is the valid request, nil when Err is set.
	Request *Request
	// Err is the error to answer for an invalid element.
	Err *Error
	// ID is the id to answer Err with.
	ID json.RawMessage
	// Raw is the element as sent (a slice of the body).
	Raw json.RawMessage
}

// ParseBody parses a request body. A body that is not JSON yields bodyErr
// -32700; a body that is neither an object nor an array, or an empty array,
// yields bodyErr -32600: in both cases the answer is one error object with id
// null. Otherwise items holds one entry per request (one for a single
// object), and batch says whether the body was an array (so the answer, if
// any, is an array).
func ParseBody(b []byte) (items []Item, batch bool, bodyErr *Error) {
	if !jsontext.Value(b).IsValid() {
		return nil, false, NewError(CodeParseError, parseDetail(b))
	}
	t := bytes.TrimLeft(b, " \t\r\n")
	switch t[0] {
	case '{':
		it := parseOne(t)
		it.Raw = t
		return []Item{it}, false, nil
	case '[':
		var elems []json.RawMessage
		gjson.ParseBytes(t).ForEach(func(_, v gjson.Result) bool {
			elems = append(elems, rawOf(t, v))
			return true
		})
		if len(elems) == 0 {
			return nil, false, NewError(CodeInvalidRequest, "")
		}
		items = make([]Item, len(elems))
		for i, e := range elems {
			items[i] = parseOne(e)
			items[i].Raw = e
		}
		return items, true, nil
	default:
		return nil, false, NewError(CodeInvalidRequest, "")
	}
}

// maxDetailName bounds how much of a client's key name a parse error quotes.
const maxDetailName = 64

// parseDetail says why b is not I-JSON, for the -32700 message: a duplicate
// key or invalid UTF-8 (with where), or just "Parse error" for plain syntax
// errors, as the specification words it. It runs only on refused bodies.
func parseDetail(b []byte) string {
	_, err := jsontext.NewDecoder(bytes.NewReader(b)).ReadValue()
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return ""
	}
	where := ""
	if p := string(se.JSONPointer); p != "" {
		where = " at " + strconv.Quote(clipName(p))
	}
	switch {
	case errors.Is(err, jsontext.ErrDuplicateName):
		return "Parse error: duplicate key" + where
	case bytes.Contains([]byte(se.Err.Error()), []byte("UTF-8")), bytes.Contains([]byte(se.Err.Error()), []byte("surrogate")):
		return "Parse error: invalid UTF-8" + where
	}
	return ""
}

// clipName shortens a JSON pointer for a message, keeping valid UTF-8.
func clipName(p string) string {
	if len(p) <= maxDetailName {
		return p
	}
	p = p[:maxDetailName]
	for len(p) > 0 && !utf8.ValidString(p) {
		p = p[:len(p)-1]
	}
	return p + "..."
}

// parseOne validates one request object.
func parseOne(b json.RawMessage) Item {
	invalid := func(id json.RawMessage) Item {
		if id == nil {
			id = null
		}
		return Item{Err: NewError(CodeInvalidRequest, ""), ID: id}
	}
	if len(b) == 0 || b[0] != '{' {
		return invalid(nil)
	}
	var m [4]gjson.Result
	Members(b, requestMembers, m[:])
	var id json.RawMessage
	if m[0].Exists() {
		raw := rawOf(b, m[0])
		if !validID(raw) {
			return invalid(nil)
		}
		id = raw
	}
	if m[1].Type != gjson.String || m[1].Str != Version {
		return invalid(id)
	}
	if m[2].Type != gjson.String {
		return invalid(id)
	}
	var params json.RawMessage
	if p := m[3]; p.Exists() && p.Type != gjson.Null {
		if !p.IsObject() && !p.IsArray() {
			return invalid(id)
		}
		params = rawOf(b, p)
	}
	return Item{Request: &Request{ID: id, Method: strings.Clone(m[2].Str), Params: params}, ID: id}
}

// requestMembers are the members of a request object parseOne reads.
var requestMembers = []string{"id", "jsonrpc", "method", "params"}

// Members reads the members of the JSON object obj named in names into out
// (out[i] for names[i]; a member not found stays the zero Result), in one
// pass and without decoding their values, which may hold a megabyte. obj
// must be valid I-JSON, as every body ParseBody accepts and every value in
// it is: no name then appears twice, so one pass finds each. gjson's
// GetManyBytes scans obj once per name and copies every string it returns,
// on the path of every call; here obj is read through a string view of its
// bytes, not a copy (nothing changes obj while the view is read), so a
// string the caller keeps beyond obj must be copied (strings.Clone). Names
// are compared unescaped, as GetManyBytes compares them.
func Members(obj []byte, names []string, out []gjson.Result) {
	view := unsafe.String(unsafe.SliceData(obj), len(obj))
	gjson.Parse(view).ForEach(func(k, v gjson.Result) bool {
		for i, name := range names {
			if k.Str == name {
				out[i] = v
				break
			}
		}
		return true
	})
}

// rawOf returns the bytes of a value gjson found in b, as a slice of b when
// gjson says where it is.
func rawOf(b []byte, r gjson.Result) json.RawMessage {
	if r.Index > 0 && r.Index+len(r.Raw) <= len(b) {
		return json.RawMessage(b[r.Index : r.Index+len(r.Raw)])
	}
	return json.RawMessage(r.Raw)
}

// validID reports whether raw is a legal id: a string, a number or null.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	case bytes.Equal(raw, null):
		return true
	}
	return false
}

// Response is one JSON-RPC response. Exactly one of Result and Error is
// written: Error when it is set, otherwise Result (null when nil).
type Response struct {
	// ID is the raw id to echo; nil is written as null.
	ID json.RawMessage
	// Result is the raw result JSON.
	Result json.RawMessage
	// Error is the error object.
	Error *Error
}

// MarshalJSON writes {"jsonrpc":"2.0","id":...,"result"|"error":...} with
// the id bytes exactly as received.
func (r Response) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	if r.ID == nil {
		buf.Write(null)
	} else {
		buf.Write(r.ID)
	}
	if r.Error != nil {
		buf.WriteString(`,"error":`)
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r.Error); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
	} else {
		buf.WriteString(`,"result":`)
		if r.Result == nil {
			buf.Write(null)
		} else {
			buf.Write(r.Result)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// errInvalid reports an encoded response that is not valid JSON.
var errInvalid = errors.New("jsonrpc: response is not valid JSON")

// encode is MarshalJSON plus a validity check; unlike json.Marshal it keeps
// the id bytes (and "<", ">", "&" in strings) exactly as given.
func encode(r Response) ([]byte, error) {
	b, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if !json.Valid(b) {
		return nil, errInvalid
	}
	return b, nil
}

// EncodeResponse encodes one response; if that fails (a result that is not
// valid JSON, an unencodable data value) it returns FallbackBody.
func EncodeResponse(r Response) []byte {
	b, err := encode(r)
	if err != nil {
		return FallbackBody
	}
	return b
}

// EncodeBatch encodes a batch answer as an array. An element that cannot be
// encoded is replaced by an internal error carrying the same id (or the fixed
// fallback if even that fails), so the other answers survive.
func EncodeBatch(rs []Response) []byte {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, r := range rs {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := encode(r)
		if err != nil {
			b, err = encode(Response{ID: r.ID, Error: NewError(CodeInternalError, "")})
			if err != nil {
				b = FallbackBody
			}
		}
		buf.Write(b)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

// EncodeResult encodes a successful response without re-validating result,
// which must be valid JSON produced by the caller's own encoder (a nil
// result is written as null). id comes from ParseBody, so it is valid too.
func EncodeResult(id, result json.RawMessage) []byte {
	if id == nil {
		id = null
	}
	if result == nil {
		result = null
	}
	b := make([]byte, 0, len(id)+len(result)+32)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// EncodeNotification encodes a server notification. method is one of the
// server's own constants and params valid JSON from its own encoder (nil:
// no params), so neither is re-validated.
func EncodeNotification(method string, params json.RawMessage) []byte {
	b := make([]byte, 0, len(method)+len(params)+48)
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = strconv.AppendQuote(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}
