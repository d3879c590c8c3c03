package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"ghops.dev/infra/outcome"
	"ghops.dev/redact"
)

// Sentinels for the documented JSON-RPC codes (the constants and the table
// from code to sentinel are generated from errors.proto into codes_gen.go).
// Every *Error carrying one of these codes matches its sentinel with
// errors.Is, whatever its concrete type.
var (
	// ErrParse is -32700: the gateway could not parse the request as JSON.
	ErrParse = errors.New("parse error")
	// ErrInvalidRequest is -32600: the request was not a valid JSON-RPC request.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrMethodNotFound is -32601: no tool has that name.
	ErrMethodNotFound = errors.New("method not found")
	// ErrInvalidParams is -32602: the arguments broke the tool's schema; the
	// error is an *InvalidParamsError holding the violations.
	ErrInvalidParams = errors.New("invalid params")
	// ErrPermissionDenied is -32001: GitHub refused the credentials or the
	// operation (401 or 403).
	ErrPermissionDenied = errors.New("permission denied")
	// ErrNotFound is -32002: the repository, file, branch or pull request does
	// not exist or is not visible to the token.
	ErrNotFound = errors.New("not found")
	// ErrValidation is -32003: GitHub answered 422 (e.g. "a pull request
	// already exists"). Distinct from ErrInvalidParams, our own schema check.
	ErrValidation = errors.New("github validation failed")
	// ErrRateLimited is -32004: a GitHub rate limit is spent; the error is a
	// *RateLimitError with RetryAfter.
	ErrRateLimited = errors.New("rate limited")
	// ErrNotMergeable is -32005: the pull request cannot be merged (see
	// ErrorData.MergeableState).
	ErrNotMergeable = errors.New("pull request not mergeable")
	// ErrHeadSHAMismatch is -32006: the head moved away from the sha the caller
	// gave (see ErrorData.ExpectedSHA and ActualSHA).
	ErrHeadSHAMismatch = errors.New("head sha mismatch")
	// ErrInternal is -32603: the gateway failed; ErrorData.RequestID names the
	// log entries.
	ErrInternal = errors.New("internal error")
	// ErrOutcomeUnknown matches a -32603 whose data.outcome is "unknown" (a
	// write the gateway sent whose answer it lost) and a *TransportError
	// with OutcomeUnknown (a write whose answer the client lost): either
	// way it may have landed. Do not retry blindly: ErrorData.Check (and the
	// error's text) says what to read first (docs/errors.md, "Outcome
	// unknown"). The gateway's error matches ErrInternal too.
	ErrOutcomeUnknown = errors.New("outcome unknown: the write may have landed")
)

// OutcomeUnknown is data.outcome of a write whose answer was lost.
const OutcomeUnknown = outcome.Unknown

// Error is a JSON-RPC error object answered by the gateway. Every JSON-RPC
// error the client returns is an *Error or wraps one (*InvalidParamsError,
// *RateLimitError), so errors.As(err, &e) with e *Error always gives code,
// message and the raw data. Codes outside the contract keep all three too.
type Error struct {
	// Code is the JSON-RPC error code.
	Code int
	// Message is the gateway's message.
	Message string
	// RawData is the error's data member as sent (nil when absent).
	RawData json.RawMessage
	// Data is RawData decoded into the contract's fields (zero when RawData is
	// absent or not an object).
	Data ErrorData
	// RetryAfterHeader is the HTTP Retry-After header of the answer, if any.
	RetryAfterHeader time.Duration
}

// ErrorData is the contract's data member of an error (seed 000 plus 004's
// context fields). Only what the gateway sent is set.
type ErrorData struct {
	// Tool is the tool that failed.
	Tool string `json:"tool,omitempty"`
	// Timestamp is when the gateway answered (RFC 3339).
	Timestamp string `json:"timestamp,omitempty"`
	// ValidationErrors are the violations of a -32602 answer.
	ValidationErrors []Violation `json:"validation_errors,omitempty"`
	// GitHub is what GitHub said, for upstream errors.
	GitHub *GitHubInfo `json:"github,omitempty"`
	// Resource names what was not found or refused.
	Resource *ResourceInfo `json:"resource,omitempty"`
	// RateLimit holds the rate-limit figures of a -32004 answer.
	RateLimit *RateLimitInfo `json:"rateLimit,omitempty"`
	// RetryAfter is how many seconds to wait, for -32004.
	RetryAfter *int64 `json:"retryAfter,omitempty"`
	// MergeableState is GitHub's mergeable_state, for -32005.
	MergeableState string `json:"mergeable_state,omitempty"`
	// ExpectedSHA is the sha the caller expected, for -32006.
	ExpectedSHA string `json:"expected_sha,omitempty"`
	// ActualSHA is the sha found instead, for -32006.
	ActualSHA string `json:"actual_sha,omitempty"`
	// Patch says why apply_patch refused a patch (-32003, -32002).
	Patch *PatchInfo `json:"patch,omitempty"`
	// RequestID identifies the gateway's log entries, for -32603.
	RequestID string `json:"requestId,omitempty"`
	// Outcome is "unknown" (OutcomeUnknown) for a -32603 write whose answer
	// was lost: it may have landed.
	Outcome string `json:"outcome,omitempty"`
	// Check says, for such a write, how to find out whether it landed
	// (the gateway's wording).
	Check string `json:"check,omitempty"`
}

// PatchInfo is data.patch: apply_patch's refusal and where.
type PatchInfo struct {
	// Code is PATCH_EMPTY, PATCH_MALFORMED, PATCH_DOES_NOT_APPLY or FILE_NOT_FOUND.
	Code string `json:"code"`
	// File is the file concerned.
	File string `json:"file,omitempty"`
	// Hunk is the 1-based hunk of File.
	Hunk int `json:"hunk,omitempty"`
	// Line is the file's line (PATCH_DOES_NOT_APPLY) or the patch's (PATCH_MALFORMED).
	Line int `json:"line,omitempty"`
	// Detail says what was wrong.
	Detail string `json:"detail,omitempty"`
}

// Violation is one entry of a -32602 answer's validation_errors, AJV-style.
type Violation struct {
	// Message is e.g. "must have required property 'query'".
	Message string `json:"message"`
	// Path is the instance path, "root" for the arguments object itself.
	Path string `json:"path"`
	// Keyword is the JSON Schema keyword that failed, e.g. "required".
	Keyword string `json:"keyword"`
	// Params are the keyword's parameters, e.g. {"missingProperty":"query"}.
	Params map[string]any `json:"params,omitempty"`
	// Value is the offending value.
	Value any `json:"value,omitempty"`
}

// GitHubInfo is data.github: GitHub's own answer.
type GitHubInfo struct {
	// Status is GitHub's HTTP status.
	Status int `json:"status,omitempty"`
	// Message is GitHub's message.
	Message string `json:"message,omitempty"`
	// DocumentationURL is GitHub's link explaining the failure.
	DocumentationURL string `json:"documentation_url,omitempty"`
}

// ResourceInfo is data.resource: the GitHub object concerned.
type ResourceInfo struct {
	// Type is e.g. "repository" or "pr".
	Type string `json:"type,omitempty"`
	// ID is e.g. "octo-org/hello-world#2".
	ID string `json:"id,omitempty"`
}

// RateLimitInfo is data.rateLimit.
type RateLimitInfo struct {
	// Limit is x-ratelimit-limit.
	Limit int64 `json:"limit"`
	// Remaining is x-ratelimit-remaining.
	Remaining int64 `json:"remaining"`
	// Reset is x-ratelimit-reset in Unix seconds.
	Reset int64 `json:"reset"`
	// RetryAfter is the wait in seconds.
	RetryAfter int64 `json:"retryAfter,omitempty"`
}

// Error renders "jsonrpc error -32002 (not found): message", the message
// redacted (package redact): whatever answered may have echoed a secret. An
// unknown outcome adds what to check.
func (e *Error) Error() string {
	msg := redact.String(e.Message)
	if e.OutcomeUnknown() && e.Data.Check != "" {
		msg += " (" + redact.String(e.Data.Check) + ")"
	}
	if s, ok := codeSentinels[e.Code]; ok {
		return fmt.Sprintf("jsonrpc error %d (%s): %s", e.Code, s, msg)
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, msg)
}

// OutcomeUnknown reports whether e is a write whose answer was lost: it may
// have landed, so read the state it would have changed (e.Data.Check)
// before retrying it.
func (e *Error) OutcomeUnknown() bool {
	return e.Code == CodeInternal && e.Data.Outcome == OutcomeUnknown
}

// Is reports whether target is the sentinel of e's code, or
// ErrOutcomeUnknown for a write whose answer was lost.
func (e *Error) Is(target error) bool {
	if target == ErrOutcomeUnknown {
		return e.OutcomeUnknown()
	}
	s, ok := codeSentinels[e.Code]
	return ok && s == target
}

// MarshalJSON renders the error object as the gateway sent it.
func (e *Error) MarshalJSON() ([]byte, error) {
	type wire struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}
	return json.Marshal(wire{Code: e.Code, Message: e.Message, Data: e.RawData})
}

// InvalidParamsError is a -32602 answer: the arguments broke the tool's
// schema. It matches ErrInvalidParams and unwraps to its *Error.
type InvalidParamsError struct {
	// RPC is the error object as answered.
	RPC *Error
	// Violations are the validation errors, in the gateway's order.
	Violations []Violation
}

// Error renders the error object; the gateway's message already lists the
// violations' messages.
func (e *InvalidParamsError) Error() string { return e.RPC.Error() }

// Unwrap returns the underlying *Error.
func (e *InvalidParamsError) Unwrap() error { return e.RPC }

// RateLimitError is a -32004 answer. It matches ErrRateLimited and unwraps
// to its *Error.
type RateLimitError struct {
	// RPC is the error object as answered.
	RPC *Error
	// RetryAfter is how long to wait before retrying: data.retryAfter, else
	// data.rateLimit.retryAfter, else the HTTP Retry-After header; zero when
	// none was given.
	RetryAfter time.Duration
	// Limit, Remaining and Reset are data.rateLimit's figures (zero when
	// absent).
	Limit, Remaining int64
	// Reset is when the limit resets (zero when unknown).
	Reset time.Time
}

// Error renders the error and the wait.
func (e *RateLimitError) Error() string {
	if e.RetryAfter > 0 {
		return e.RPC.Error() + " (retry after " + e.RetryAfter.String() + ")"
	}
	return e.RPC.Error()
}

// Unwrap returns the underlying *Error.
func (e *RateLimitError) Unwrap() error { return e.RPC }

// NewError maps one JSON-RPC error object to the client's typed error:
// *InvalidParamsError for -32602, *RateLimitError for -32004, *Error for
// every other code (documented or not). retryAfterHeader is the HTTP
// Retry-After of the answer (zero when absent).
func NewError(code int, message string, data json.RawMessage, retryAfterHeader time.Duration) error {
	e := &Error{Code: code, Message: message, RetryAfterHeader: retryAfterHeader}
	if len(data) > 0 && string(data) != "null" {
		e.RawData = append(json.RawMessage(nil), data...)
		// data is advisory: a shape we do not know leaves Data zero.
		_ = json.Unmarshal(data, &e.Data)
	}
	switch code {
	case CodeInvalidParams:
		return &InvalidParamsError{RPC: e, Violations: e.Data.ValidationErrors}
	case CodeRateLimited:
		rl := &RateLimitError{RPC: e}
		switch {
		case e.Data.RetryAfter != nil && *e.Data.RetryAfter > 0:
			rl.RetryAfter = time.Duration(*e.Data.RetryAfter) * time.Second
		case e.Data.RateLimit != nil && e.Data.RateLimit.RetryAfter > 0:
			rl.RetryAfter = time.Duration(e.Data.RateLimit.RetryAfter) * time.Second
		default:
			rl.RetryAfter = retryAfterHeader
		}
		if r := e.Data.RateLimit; r != nil {
			rl.Limit, rl.Remaining = r.Limit, r.Remaining
			if r.Reset > 0 {
				rl.Reset = time.Unix(r.Reset, 0).UTC()
			}
		}
		return rl
	}
	return e
}

// Transport and protocol failure sentinels. A *TransportError matches
// ErrTransport and exactly one kind below; a *ProtocolError matches
// ErrProtocol and exactly one kind below.
var (
	// ErrTransport matches every *TransportError: no valid JSON-RPC answer came
	// back over HTTP.
	ErrTransport = errors.New("transport failure")
	// ErrConnection: the HTTP request failed (connection refused, DNS, TLS,
	// timeout, connection reset).
	ErrConnection = errors.New("connection failed")
	// ErrHTTPStatus: the gateway (or a proxy in front of it) answered an HTTP
	// error status without a JSON-RPC body, e.g. a 502 HTML page.
	ErrHTTPStatus = errors.New("unexpected HTTP status")
	// ErrPayloadTooLarge: the gateway answered 413; the request body is over
	// its size limit.
	ErrPayloadTooLarge = errors.New("request body too large for the gateway")
	// ErrNotJSON: the body is not JSON at all (e.g. an HTML error page).
	ErrNotJSON = errors.New("response is not JSON")
	// ErrTruncated: the body starts as JSON but ends early.
	ErrTruncated = errors.New("response truncated")
	// ErrResponseTooLarge: the body exceeds the client's response size limit.
	ErrResponseTooLarge = errors.New("response too large")

	// ErrProtocol matches every *ProtocolError: the body is JSON but not a
	// valid JSON-RPC 2.0 answer to the request sent.
	ErrProtocol = errors.New("invalid JSON-RPC response")
	// ErrBadVersion: jsonrpc is missing or not "2.0".
	ErrBadVersion = errors.New(`jsonrpc member is not "2.0"`)
	// ErrResultAndError: both result and error are present.
	ErrResultAndError = errors.New("both result and error present")
	// ErrNoResultNorError: neither result nor error is present.
	ErrNoResultNorError = errors.New("neither result nor error present")
	// ErrMalformedError: the error member is not {code: integer, message: string, data?}.
	ErrMalformedError = errors.New("malformed error object")
	// ErrIDMismatch: the id is missing or not the request's.
	ErrIDMismatch = errors.New("response id does not match the request")
	// ErrMissingResponse: a request got no response (also a 204 or empty body).
	ErrMissingResponse = errors.New("missing response")
	// ErrExtraResponse: a batch answer holds a response to no request.
	ErrExtraResponse = errors.New("unexpected extra response")
	// ErrDuplicateID: a batch answer holds two responses with the same id.
	ErrDuplicateID = errors.New("duplicate response id")
	// ErrBadShape: the body is JSON but neither an object nor (for a batch) an
	// array of objects, or a result does not decode into the tool's response.
	ErrBadShape = errors.New("unexpected response shape")
)

// TransportError is a failure to obtain a JSON-RPC answer over HTTP. It
// never contains the token.
type TransportError struct {
	// Kind is one of ErrConnection, ErrHTTPStatus, ErrPayloadTooLarge,
	// ErrNotJSON, ErrTruncated, ErrResponseTooLarge.
	Kind error
	// URL is the endpoint called, without credentials or query.
	URL string
	// StatusCode is the HTTP status, when an answer came (0 otherwise).
	StatusCode int
	// ContentType is the answer's Content-Type, when an answer came.
	ContentType string
	// Snippet is the start of the body, whitespace collapsed, for diagnosis.
	Snippet string
	// RetryAfter is the HTTP Retry-After header of the answer, if any.
	RetryAfter time.Duration
	// Err is the underlying cause, if any.
	Err error
	// OutcomeUnknown is set on the failure of a write (a tool that is not
	// read-only) whose request may have reached the gateway but whose answer
	// was lost (ErrConnection after the connection was made, ErrTruncated):
	// the write may have landed. It matches ErrOutcomeUnknown.
	OutcomeUnknown bool

	sent bool // the request may have left (not a failed dial)
}

// Error renders one line saying what happened and where.
func (e *TransportError) Error() string {
	var b strings.Builder
	b.WriteString("transport: ")
	b.WriteString(e.Kind.Error())
	if e.StatusCode != 0 {
		b.WriteString(" (HTTP " + strconv.Itoa(e.StatusCode))
		if e.ContentType != "" {
			b.WriteString(", " + e.ContentType)
		}
		b.WriteString(")")
	}
	if e.URL != "" {
		b.WriteString(" from POST " + e.URL)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	if e.Snippet != "" {
		b.WriteString(": body starts " + strconv.Quote(e.Snippet))
	}
	if e.OutcomeUnknown {
		b.WriteString(": " + outcome.Message + " (" + outcome.Check + ")")
	}
	return b.String()
}

// Is matches ErrTransport and e.Kind, and ErrOutcomeUnknown when
// e.OutcomeUnknown.
func (e *TransportError) Is(target error) bool {
	return target == ErrTransport || target == e.Kind || (target == ErrOutcomeUnknown && e.OutcomeUnknown)
}

// markOutcome sets OutcomeUnknown on err, the failure of a call of a write,
// when it is a transport failure after the request may have left.
func markOutcome(err error) error {
	var te *TransportError
	if errors.As(err, &te) && te.sent && (te.Kind == ErrConnection || te.Kind == ErrTruncated) {
		te.OutcomeUnknown = true
	}
	return err
}

// Unwrap returns the cause.
func (e *TransportError) Unwrap() error { return e.Err }

// ProtocolError is a JSON answer that breaks JSON-RPC 2.0 or does not answer
// the request sent (wrong id, missing or extra batch replies).
type ProtocolError struct {
	// Kind is one of ErrBadVersion, ErrResultAndError, ErrNoResultNorError,
	// ErrMalformedError, ErrIDMismatch, ErrMissingResponse, ErrExtraResponse,
	// ErrDuplicateID, ErrBadShape.
	Kind error
	// Detail says more, e.g. which id was expected.
	Detail string
	// Err is the underlying cause, if any.
	Err error
}

// Error renders "invalid JSON-RPC response: <kind>: <detail>", redacted.
func (e *ProtocolError) Error() string {
	s := "invalid JSON-RPC response: " + e.Kind.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return redact.String(s)
}

// Is matches ErrProtocol and e.Kind.
func (e *ProtocolError) Is(target error) bool { return target == ErrProtocol || target == e.Kind }

// Unwrap returns the cause.
func (e *ProtocolError) Unwrap() error { return e.Err }

func protoErr(kind error, format string, args ...any) *ProtocolError {
	return &ProtocolError{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}
