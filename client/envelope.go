package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"time"
)

// rpcRequest is one JSON-RPC 2.0 request as the client sends it.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      int64           `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// envelope is one validated JSON-RPC 2.0 response: exactly one of result and
// rpcErr is set.
type envelope struct {
	id     string // the id token, compact ("null" for an unknown id)
	result json.RawMessage
	rpcErr *wireError
}

// wireError is a validated error object.
type wireError struct {
	code    int
	message string
	data    json.RawMessage
}

func (w *wireError) toError(retryAfterHeader time.Duration) error {
	return NewError(w.code, w.message, w.data, retryAfterHeader)
}

// parseEnvelope validates one response object: jsonrpc "2.0", an id, exactly
// one of result and error, and a well-formed error object.
func parseEnvelope(raw json.RawMessage) (envelope, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return envelope{}, protoErr(ErrBadShape, "a response must be a JSON object, got %s", describeJSON(raw))
	}
	var env envelope
	idRaw, hasID := members["id"]
	if hasID {
		env.id = compactToken(idRaw)
	}
	version, ok := members["jsonrpc"]
	if !ok {
		return env, protoErr(ErrBadVersion, "the jsonrpc member is missing")
	}
	var v string
	if err := json.Unmarshal(version, &v); err != nil || v != "2.0" {
		return env, protoErr(ErrBadVersion, "jsonrpc is %s", truncateText(string(version), 40))
	}
	result, hasResult := members["result"]
	errRaw, hasError := members["error"]
	switch {
	case hasResult && hasError:
		return env, protoErr(ErrResultAndError, "id %s", idText(env.id, hasID))
	case !hasResult && !hasError:
		return env, protoErr(ErrNoResultNorError, "id %s", idText(env.id, hasID))
	}
	if !hasID {
		return env, protoErr(ErrIDMismatch, "the id member is missing")
	}
	if !validID(env.id) {
		return env, protoErr(ErrIDMismatch, "id %s is not a string, number or null", truncateText(env.id, 40))
	}
	if hasResult {
		if env.id == "null" {
			return env, protoErr(ErrIDMismatch, "a result with id null answers no request")
		}
		env.result = result
		return env, nil
	}
	we, err := parseErrorObject(errRaw)
	if err != nil {
		return env, err
	}
	env.rpcErr = we
	return env, nil
}

// parseErrorObject validates {code: integer, message: string, data?: any}.
func parseErrorObject(raw json.RawMessage) (*wireError, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return nil, protoErr(ErrMalformedError, "error must be an object, got %s", describeJSON(raw))
	}
	codeRaw, ok := members["code"]
	if !ok {
		return nil, protoErr(ErrMalformedError, "error.code is missing")
	}
	code, err := strconv.Atoi(string(bytes.TrimSpace(codeRaw)))
	if err != nil {
		return nil, protoErr(ErrMalformedError, "error.code %s is not an integer", truncateText(string(codeRaw), 40))
	}
	msgRaw, ok := members["message"]
	if !ok {
		return nil, protoErr(ErrMalformedError, "error.message is missing")
	}
	var msg string
	if err := json.Unmarshal(msgRaw, &msg); err != nil {
		return nil, protoErr(ErrMalformedError, "error.message is not a string")
	}
	return &wireError{code: code, message: msg, data: members["data"]}, nil
}

// decodeSingle validates the answer to one request with id wantID and
// returns its result or its JSON-RPC error as wireError.
func decodeSingle(body []byte, wantID string) (envelope, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return envelope{}, protoErr(ErrMissingResponse, "empty body for request id %s", wantID)
	}
	if body[0] == '[' {
		return envelope{}, protoErr(ErrBadShape, "a batch (array) answered a single request")
	}
	env, err := parseEnvelope(body)
	if err != nil {
		return env, err
	}
	if env.id == wantID {
		return env, nil
	}
	// An error with id null is the server saying it could not read our id
	// (parse error, invalid request): it still answers this request.
	if env.id == "null" && env.rpcErr != nil {
		return env, nil
	}
	return env, protoErr(ErrIDMismatch, "got id %s, want %s", truncateText(env.id, 40), wantID)
}

// decodeBatch validates the answer to a batch whose requests carry wantIDs
// (all distinct) and returns the envelopes in request order. A single error
// object with id null answers the whole batch (e.g. batch too large): it is
// returned as the batch's error.
func decodeBatch(body []byte, wantIDs []string, retryAfter time.Duration) ([]envelope, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, protoErr(ErrMissingResponse, "empty body for a batch of %d", len(wantIDs))
	}
	if body[0] == '{' {
		env, err := parseEnvelope(body)
		if err != nil {
			return nil, err
		}
		if env.rpcErr != nil && env.id == "null" {
			return nil, env.rpcErr.toError(retryAfter)
		}
		return nil, protoErr(ErrBadShape, "a single response (id %s) answered a batch", truncateText(env.id, 40))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		return nil, protoErr(ErrBadShape, "a batch answer must be an array, got %s", describeJSON(body))
	}
	index := make(map[string]int, len(wantIDs))
	for i, id := range wantIDs {
		index[id] = i
	}
	out := make([]envelope, len(wantIDs))
	seen := make([]bool, len(wantIDs))
	for _, item := range items {
		env, err := parseEnvelope(item)
		if err != nil {
			return nil, err
		}
		i, ok := index[env.id]
		if !ok {
			if env.id == "null" && env.rpcErr != nil {
				// An invalid element of ours: we cannot tell which.
				return nil, protoErr(ErrExtraResponse, "error with id null in a batch answer: %d %s", env.rpcErr.code, truncateText(env.rpcErr.message, 80))
			}
			return nil, protoErr(ErrExtraResponse, "id %s matches no request", truncateText(env.id, 40))
		}
		if seen[i] {
			return nil, protoErr(ErrDuplicateID, "id %s answered twice", env.id)
		}
		seen[i] = true
		out[i] = env
	}
	for i, ok := range seen {
		if !ok {
			return nil, protoErr(ErrMissingResponse, "no response for request id %s (%d of %d answered)", wantIDs[i], len(items), len(wantIDs))
		}
	}
	return out, nil
}

// validID reports whether a compact id token is a string, a number or null.
func validID(tok string) bool {
	if tok == "" {
		return false
	}
	c := tok[0]
	return c == '"' || tok == "null" || c == '-' || (c >= '0' && c <= '9')
}

func compactToken(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func idText(id string, present bool) string {
	if !present {
		return "(absent)"
	}
	return truncateText(id, 40)
}

// describeJSON names the kind of a JSON value for messages.
func describeJSON(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// truncateText cuts s to at most n bytes on a rune boundary.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}

// classifyNonJSON tells a truncated JSON body from a body that is not JSON.
func classifyNonJSON(body []byte) error {
	trimmed := bytes.TrimSpace(body)
	var v any
	err := json.Unmarshal(trimmed, &v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && errors.As(err, &se) && se.Offset >= int64(len(trimmed)) {
		return ErrTruncated
	}
	return ErrNotJSON
}
