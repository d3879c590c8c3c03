// Package rpcerror is the gateway's error contract: THE one table from gRPC
// statuses (code plus the google.rpc.ErrorInfo reason, a ghopsv1.ErrorReason
// value name) to the contract's JSON-RPC codes, the data payload every error
// carries (errors.proto's ErrorData), the optional HTTP status of each code
// (HTTPStatus, the one place a code's status is read), the one encoding of
// an error (Encoded: redacted once, bounded, data written in declaration
// order) and the one-line jsonrpc_error log record. The codes, the table and the reason map are
// generated from proto/ghops/v1/errors.proto into table_gen.go by
// `make generate` (tools/errgen).
//
// The API:
//
//	Table() []Row                                  // every code: name, default message, mapped HTTP status
//	HTTPStatus(code) int                           // the mapped status of a code, from the generated table
//	ReasonCode(ghopsv1.ErrorReason) (int, bool)    // errors.proto's reason table
//	GRPCCode(codes.Code) int                       // the table for statuses without a reason
//	FromStatus(tool, err, requestID) *Error        // gRPC / context / any error -> contract error
//	New(code, msg, opts...) *Error; Newf(code, format, args...) *Error  // Tool, Refusal, RetryAfter, Violations
//	Internal(tool, requestID, cause) *Error; InvalidParams(tool, vs) *Error
//	(*Error).Encoded() *Encoded; (*Error).JSONRPC() *jsonrpc.Error; (*Error).LogLine() string
//	NewSink(w, logger) *Sink; (*Sink).Response(id, e) jsonrpc.Response  // the one place an error answer is born
//
// -32603 answers say "Internal error" and carry only tool, timestamp and
// requestId: the cause goes to the log, redacted of anything token-shaped.
// Every string of an error is redacted (package redact) exactly once, when
// the error is encoded, before it can reach a client or a log: see
// redaction.go.
package rpcerror

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/redact"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ghops.dev/gateway/internal/jsonrpc"
)

// Row is one line of the code table.
type Row struct {
	// Code is the JSON-RPC code.
	Code int
	// Message is the default error message for the code.
	Message string
	// HTTPStatus is the /rpc status when status mapping is enabled.
	HTTPStatus int
}

// Table returns a copy of the code table, in documentation order.
func Table() []Row { return append([]Row(nil), table...) }

// row returns the table row of code, or the internal error row.
func row(code int) Row {
	for _, r := range table {
		if r.Code == code {
			return r
		}
	}
	return internalRow
}

// HTTPStatus returns the mapped HTTP status of a code (500 for an unknown code).
func HTTPStatus(code int) int { return row(code).HTTPStatus }

// ReasonCode returns the JSON-RPC code of a reason; false for
// ERROR_REASON_UNSPECIFIED and unknown values.
func ReasonCode(r ghopsv1.ErrorReason) (int, bool) {
	c, ok := reasons[r]
	return c, ok
}

// GRPCCode returns the JSON-RPC code for a gRPC code when no reason is known
// (-32603 for every code not in the table).
func GRPCCode(c codes.Code) int {
	if v, ok := grpcCodes[c]; ok {
		return v
	}
	return InternalError
}

// DefaultRetryAfter is the Retry-After, in seconds, of a -32004 whose status
// carries no figure.
const DefaultRetryAfter = 60

// Error is a contract error: the JSON-RPC error plus what the transports and
// the log need. Its strings are as given: nothing is redacted or cut until
// the error is encoded (Encoded), once, for the answer, the log line and
// any text rendering alike.
type Error struct {
	// Code is the JSON-RPC code.
	Code int
	// Message is the JSON-RPC message.
	Message string
	// Data is the payload sent as error.data (never nil for an Error made
	// by this package's constructors). Its validation_errors are written
	// from Violations.
	Data *Data
	// Violations are -32602's violations as the validator reports them;
	// they are written as data.validation_errors (at most MaxViolations,
	// each bounded, the rest counted in validation_errors_omitted).
	Violations []Violation
	// RetryAfter is the Retry-After header value in seconds (0: none).
	RetryAfter int
	// Log holds the log line's fields not in Data.
	Log LogFields
	// RequestID identifies the call in the structured log (sent in data only
	// for -32603).
	RequestID string
	// Cause is the underlying error; logged (redacted), never sent.
	Cause error

	// listing is the message InvalidParams set, which lists the
	// violations: while Message is still that, the encoded message lists
	// those listed in data and ends with the count of the rest.
	listing string
	// enc is the error as encoded, made on first use (see Encoded).
	enc atomic.Pointer[Encoded]
}

// Error implements error without data or cause. The message is redacted
// for this rendering alone (a Go error may end up in any log); the wire and
// the jsonrpc_error line use Encoded.
func (e *Error) Error() string {
	return "jsonrpc error " + strconv.Itoa(e.Code) + ": " + redact.String(e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// LogFields are the jsonrpc_error line's context fields; empty means "-".
type LogFields struct {
	// Repo is owner/repo.
	Repo string
	// PR is the pull request number.
	PR string
	// SHA is the commit sha involved.
	SHA string
	// State is GitHub's mergeable_state.
	State string
}

// Data is error.data: errors.proto's ErrorData, the message the client
// decodes too. tool and timestamp are always present; the rest only for
// the codes that carry them (see docs/errors.md).
type Data = ghopsv1.ErrorData

// GitHub is data.github: errors.proto's GitHubError, of which the gateway
// sends status, message and documentation_url.
type GitHub = ghopsv1.GitHubError

// Resource is data.resource: errors.proto's Resource.
type Resource = ghopsv1.Resource

// RateLimit is data.rateLimit: errors.proto's RateLimit.
type RateLimit = ghopsv1.RateLimit

// Patch is data.patch, apply_patch's refusal: errors.proto's PatchError.
type Patch = ghopsv1.PatchError

// Policy is data.policy, the gateway rule that refused a call:
// errors.proto's PolicyRefusal.
type Policy = ghopsv1.PolicyRefusal

// Protocol is data.protocol, an MCP protocol-version mismatch:
// errors.proto's ProtocolMismatch.
type Protocol = ghopsv1.ProtocolMismatch

// now is the clock; tests replace it.
var now = time.Now

// Timestamp formats t as the contract's timestamp (2025-10-12T15:49:21.049Z).
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// New returns an error of code whose message is msg (the code's default
// message when msg is ""), with the always-present data (tool, timestamp)
// and whatever opts add: the one way an error is made whole, so that no
// caller patches its fields afterwards.
func New(code int, msg string, opts ...Option) *Error {
	if msg == "" {
		msg = row(code).Message
	}
	e := &Error{
		Code:    code,
		Message: msg,
		Data:    &Data{Timestamp: Timestamp(now())},
	}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Newf is New with the message formatted from format and args.
func Newf(code int, format string, args ...any) *Error {
	return New(code, fmt.Sprintf(format, args...))
}

// Option completes an error New makes.
type Option func(*Error)

// Tool names the tool the error is about (data.tool).
func Tool(name string) Option { return func(e *Error) { e.Data.Tool = name } }

// Refusal names the gateway rule that refused the call (data.policy): the
// principal, the rule and its detail.
func Refusal(principal, rule, detail string) Option {
	return func(e *Error) { e.Data.Policy = &Policy{Principal: principal, Rule: rule, Detail: detail} }
}

// RetryAfter is how long to wait before retrying, in seconds: data.retryAfter
// and the Retry-After header.
func RetryAfter(secs int) Option {
	return func(e *Error) {
		wire := int32(min(secs, math.MaxInt32))
		e.Data.RetryAfter = &wire
		e.RetryAfter = secs
	}
}

// RequestID identifies the call in the log; a -32603 sends it in data too
// (data.requestId), as the one thing a caller can quote about it.
func RequestID(id string) Option {
	return func(e *Error) {
		e.RequestID = id
		if e.Code == InternalError {
			e.Data.RequestId = id
		}
	}
}

// Cause is the underlying error: logged (redacted), never sent.
func Cause(err error) Option { return func(e *Error) { e.Cause = err } }

// Violations are -32602's violations (data.validation_errors).
func Violations(vs []Violation) Option { return func(e *Error) { e.Violations = vs } }

// Internal returns a -32603 that carries only tool, timestamp and requestId;
// cause is kept for the log.
func Internal(tool, requestID string, cause error) *Error {
	return New(InternalError, "", Tool(tool), RequestID(requestID), Cause(cause))
}

// Unavailable returns the -32603 of a service the gateway cannot reach:
// the message says so (the caller may retry later), the cause is kept for
// the log only.
func Unavailable(tool, requestID string, cause error) *Error {
	return New(InternalError, "Service unavailable", Tool(tool), RequestID(requestID), Cause(cause))
}

// InvalidParams returns the -32602 of our own validation: the message is
// "Validation errors: " followed by the listed violations' messages (and
// ", and N more" for those not listed, see Encoded).
func InvalidParams(tool string, vs []Violation) *Error {
	// The message lists the violations; it is written when the error is
	// encoded, from those listed then (redacted and bounded).
	capped, _ := capViolations(vs)
	e := New(InvalidParamsCode, ValidationMessage(capped), Tool(tool), Violations(vs))
	e.listing = e.Message
	return e
}

// JSONRPC returns the wire error object: the encoded message and data (see
// Encoded).
func (e *Error) JSONRPC() *jsonrpc.Error {
	enc := e.Encoded()
	return &jsonrpc.Error{Code: enc.Code, Message: enc.Message, Data: json.RawMessage(enc.DataJSON)}
}

// detail returns the last detail of type T in ds (nil without one): the
// service attaches at most one of each kind, and a later one overrides.
func detail[T any](ds []any) T {
	var found T
	for _, d := range ds {
		if v, ok := d.(T); ok {
			found = v
		}
	}
	return found
}

// FromStatus maps any error of a service call to a contract error: a gRPC
// status by its ErrorInfo reason (errors.proto's table) or, without one, by
// its code; a context error or any other error to -32603. It reads the
// GitHubError, RetryInfo, ResourceInfo and BadRequest details into data. It
// returns nil for a nil error.
func FromStatus(tool string, err error, requestID string) *Error {
	if err == nil {
		return nil
	}
	var st *status.Status
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		st = status.FromContextError(err)
	default:
		s, ok := status.FromError(err)
		if !ok {
			return Internal(tool, requestID, err)
		}
		st = s
	}

	ds := st.Details()
	info := detail[*errdetails.ErrorInfo](ds)
	gh := detail[*ghopsv1.GitHubError](ds)
	rinf := detail[*errdetails.RetryInfo](ds)
	res := detail[*errdetails.ResourceInfo](ds)
	bad := detail[*errdetails.BadRequest](ds)
	pe := detail[*ghopsv1.PatchError](ds)

	if info == nil && st.Code() == codes.Unavailable {
		// The service itself attaches an ErrorInfo to every status it
		// sends, GitHub's 5xx included; a bare Unavailable comes from the
		// connection to it.
		return Unavailable(tool, requestID, err)
	}
	if info.GetReason() == ghopsv1.ErrorReason_ERROR_REASON_CALLER_UNAUTHENTICATED.String() {
		// The service refused the gateway's own credentials: a deployment
		// fault the end user can only wait out, like an unreachable service.
		return Unavailable(tool, requestID, err)
	}
	code := GRPCCode(st.Code())
	if info != nil {
		if c, ok := ReasonCode(ghopsv1.ErrorReason(ghopsv1.ErrorReason_value[info.GetReason()])); ok {
			code = c
		}
	}
	if code == InternalError {
		return Internal(tool, requestID, err)
	}

	var log LogFields
	if info != nil {
		md := info.GetMetadata()
		log = LogFields{Repo: md["repo"], PR: md["pr"], SHA: md["sha"]}
	}

	if code == InvalidParamsCode {
		e := InvalidParams(tool, badRequestViolations(bad, st.Message()))
		e.Log, e.Cause, e.RequestID = log, err, requestID
		if res != nil && (res.GetResourceType() != "" || res.GetResourceName() != "") {
			// A name the named resource lacks (a project's field, sprint
			// or view): data.resource says which (docs/errors.md).
			e.Data.Resource = &Resource{Type: res.GetResourceType(), Id: res.GetResourceName()}
		}
		return e
	}

	e := New(code, strings.TrimSpace(st.Message()), Tool(tool), RequestID(requestID), Cause(err))
	if gh != nil {
		if gh.GetStatus() != 0 || gh.GetMessage() != "" || gh.GetDocumentationUrl() != "" {
			e.Data.Github = &GitHub{Status: gh.GetStatus(), Message: gh.GetMessage(), DocumentationUrl: gh.GetDocumentationUrl()}
		}
		if r := gh.GetResource(); r != nil && (r.GetType() != "" || r.GetId() != "") {
			e.Data.Resource = &Resource{Type: r.GetType(), Id: r.GetId()}
		}
		e.Data.MergeableState = gh.GetMergeableState()
		e.Data.ExpectedSha = gh.GetExpectedSha()
		e.Data.ActualSha = gh.GetActualSha()
		log.State = gh.GetMergeableState()
		if log.SHA == "" {
			log.SHA = gh.GetExpectedSha()
		}
	}
	if e.Data.Resource == nil && res != nil && (res.GetResourceType() != "" || res.GetResourceName() != "") {
		e.Data.Resource = &Resource{Type: res.GetResourceType(), Id: res.GetResourceName()}
	}
	if pe != nil {
		e.Data.Patch = &Patch{Code: pe.GetCode(), File: pe.GetFile(), Hunk: pe.GetHunk(), Line: pe.GetLine(), Detail: pe.GetDetail()}
	}
	if code != NotMergeable {
		e.Data.MergeableState = ""
	}
	if code != HeadSHAMismatch {
		e.Data.ExpectedSha, e.Data.ActualSha = "", ""
	}
	if code == RateLimited {
		rl := &RateLimit{}
		if r := gh.GetRateLimit(); r != nil {
			rl = &RateLimit{Limit: r.GetLimit(), Remaining: r.GetRemaining(), Reset_: r.GetReset_(), RetryAfterSeconds: r.GetRetryAfterSeconds()}
		}
		if d := rinf.GetRetryDelay(); d != nil && d.AsDuration() > 0 {
			rl.RetryAfterSeconds = int32(min(math.Ceil(d.AsDuration().Seconds()), math.MaxInt32))
		}
		if rl.RetryAfterSeconds <= 0 {
			rl.RetryAfterSeconds = DefaultRetryAfter
		}
		e.Data.RateLimit = rl
		RetryAfter(int(rl.RetryAfterSeconds))(e)
	}
	e.Log = log
	// The status's message and details are the service's (already redacted
	// there) or any gRPC peer's: they are redacted when the error is
	// encoded, as everything else.
	return e
}

// ruleKeywords maps protovalidate rule ids to the AJV keyword they express.
var ruleKeywords = map[string]string{
	"required":           "required",
	"string.pattern":     "pattern",
	"string.min_len":     "minLength",
	"string.max_len":     "maxLength",
	"string.in":          "enum",
	"int32.gte":          "minimum",
	"int32.lte":          "maximum",
	"repeated.min_items": "minItems",
	"repeated.max_items": "maxItems",
	"message.oneof":      "not",
}

// fieldPathRE splits "files[3].path" into its segments.
var fieldPathRE = regexp.MustCompile(`[^.\[\]]+`)

// badRequestViolations converts the service's BadRequest into violations
// (path "files[3].path" becomes "/files/3/path"); without one, the status
// message becomes a single root violation.
func badRequestViolations(bad *errdetails.BadRequest, msg string) []Violation {
	var vs []Violation
	for _, fv := range bad.GetFieldViolations() {
		path := "root"
		if segs := fieldPathRE.FindAllString(fv.GetField(), -1); len(segs) > 0 {
			path = "/" + strings.Join(segs, "/")
		}
		kw := ruleKeywords[fv.GetReason()]
		if kw == "" {
			kw = fv.GetReason()
		}
		if kw == "" {
			kw = "protovalidate"
		}
		vs = append(vs, Violation{Message: fv.GetDescription(), Path: path, Keyword: kw, Params: map[string]any{}})
	}
	if len(vs) == 0 {
		if msg == "" {
			msg = "invalid argument"
		}
		vs = []Violation{{Message: msg, Path: "root", Keyword: "protovalidate", Params: map[string]any{}}}
	}
	return vs
}
