// Package rpcerror is the gateway's error contract: THE one table from gRPC
// statuses (code plus the google.rpc.ErrorInfo reason, a ghopsv1.ErrorReason
// value name) to the contract's JSON-RPC codes, the data payload every error
// carries, the optional HTTP status of each code, and the one-line
// jsonrpc_error log record. The codes, the table and the reason map are
// generated from proto/ghops/v1/errors.proto into table_gen.go by
// `make generate` (tools/errgen).
//
// The API:
//
//	Table() []Row                                  // every code: name, default message, mapped HTTP status
//	ReasonCode(ghopsv1.ErrorReason) (int, bool)    // errors.proto's reason table
//	GRPCCode(codes.Code) int                       // the table for statuses without a reason
//	FromStatus(tool, err, requestID) *Error        // gRPC / context / any error -> contract error
//	New(code, tool) *Error; Internal(tool, requestID, cause) *Error; InvalidParams(tool, vs) *Error
//	(*Error).JSONRPC() *jsonrpc.Error; (*Error).Redacted() *Error; (*Error).LogLine() string
//	NewSink(w, logger) *Sink; (*Sink).Response(id, e) jsonrpc.Response  // the one place an error answer is born
//
// -32603 answers say "Internal error" and carry only tool, timestamp and
// requestId: the cause goes to the log, redacted of anything token-shaped.
// Every string of an error is redacted (package redact) before it can
// reach a client or a log: see redaction.go.
package rpcerror

import (
	"context"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/redact"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ghops.dev/gateway/internal/jsonrpc"
	"ghops.dev/gateway/internal/toolschema"
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
// the log need.
type Error struct {
	// Code is the JSON-RPC code.
	Code int
	// Message is the JSON-RPC message.
	Message string
	// Data is the payload sent as error.data.
	Data Data
	// HTTPStatus is the mapped status of Code (used when mapping is on).
	HTTPStatus int
	// RetryAfter is the Retry-After header value in seconds (0: none).
	RetryAfter int
	// Log holds the log line's fields not in Data.
	Log LogFields
	// RequestID identifies the call in the structured log (sent in data only
	// for -32603).
	RequestID string
	// Cause is the underlying error; logged (redacted), never sent.
	Cause error
}

// Error implements error without data or cause.
func (e *Error) Error() string { return "jsonrpc error " + strconv.Itoa(e.Code) + ": " + e.Message }

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

// Data is error.data. tool and timestamp are always present; the rest only
// for the codes that carry them (see docs/errors.md).
type Data struct {
	// Tool is the tool (method) name; "" when the request named none.
	Tool string `json:"tool"`
	// ValidationErrors are -32602's AJV-style violations.
	ValidationErrors []toolschema.Violation `json:"validation_errors,omitempty"`
	// ValidationErrorsOmitted is how many violations were found beyond
	// those listed (see MaxViolations).
	ValidationErrorsOmitted int `json:"validation_errors_omitted,omitempty"`
	// GitHub is what GitHub answered, for upstream errors.
	GitHub *GitHub `json:"github,omitempty"`
	// Resource names what was not found or refused.
	Resource *Resource `json:"resource,omitempty"`
	// RetryAfter is -32004's wait in seconds.
	RetryAfter *int `json:"retryAfter,omitempty"`
	// RateLimit is -32004's rate-limit figures.
	RateLimit *RateLimit `json:"rateLimit,omitempty"`
	// MergeableState is -32005's GitHub mergeable_state.
	MergeableState string `json:"mergeable_state,omitempty"`
	// ExpectedSHA is -32006's expected head.
	ExpectedSHA string `json:"expected_sha,omitempty"`
	// ActualSHA is -32006's actual head, where known.
	ActualSHA string `json:"actual_sha,omitempty"`
	// Protocol is a protocol-version mismatch (MCP).
	Protocol *Protocol `json:"protocol,omitempty"`
	// Supported and Requested repeat Protocol's members at the top of
	// data for MCP's -32022, where MCP 2026-07-28's
	// UnsupportedProtocolVersionError puts them and SDKs look for them.
	Supported []string `json:"supported,omitempty"`
	// Requested: see Supported.
	Requested string `json:"requested,omitempty"`
	// Patch says why apply_patch refused a patch (-32003, -32002).
	Patch *Patch `json:"patch,omitempty"`
	// Policy is the gateway policy rule that refused the call (-32001,
	// -32004 from the gateway's own limits; GitHub was not called).
	Policy *Policy `json:"policy,omitempty"`
	// RequestID identifies the call in the logs (-32603 always has it).
	RequestID string `json:"requestId,omitempty"`
	// Outcome is "unknown" for a write whose answer was lost: it may have
	// landed (-32603 only; see outcome.go).
	Outcome string `json:"outcome,omitempty"`
	// Check says how to find out whether such a write landed.
	Check string `json:"check,omitempty"`
	// Timestamp is when the error happened, RFC 3339 UTC with milliseconds.
	Timestamp string `json:"timestamp"`
}

// GitHub is GitHub's own answer.
type GitHub struct {
	// Status is GitHub's HTTP status.
	Status int `json:"status,omitempty"`
	// Message is GitHub's message.
	Message string `json:"message,omitempty"`
	// DocumentationURL is GitHub's documentation link.
	DocumentationURL string `json:"documentation_url,omitempty"`
}

// Resource names a GitHub object.
type Resource struct {
	// Type is the kind of object, e.g. "repository".
	Type string `json:"type"`
	// ID identifies it, e.g. "octo-org/hello-world".
	ID string `json:"id,omitempty"`
}

// RateLimit is GitHub's rate-limit state.
type RateLimit struct {
	// Limit is x-ratelimit-limit.
	Limit int `json:"limit"`
	// Remaining is x-ratelimit-remaining.
	Remaining int `json:"remaining"`
	// Reset is x-ratelimit-reset (Unix seconds).
	Reset int64 `json:"reset"`
	// RetryAfter is the wait in seconds.
	RetryAfter int `json:"retryAfter"`
}

// Patch is apply_patch's refusal: the category, and where.
type Patch struct {
	// Code is PATCH_EMPTY, PATCH_MALFORMED, PATCH_DOES_NOT_APPLY or FILE_NOT_FOUND.
	Code string `json:"code"`
	// File is the file concerned.
	File string `json:"file,omitempty"`
	// Hunk is the 1-based hunk of File.
	Hunk int `json:"hunk,omitempty"`
	// Line is the file's line (PATCH_DOES_NOT_APPLY) or the patch's (PATCH_MALFORMED).
	Line int `json:"line,omitempty"`
	// Detail says what was wrong, e.g. the expected and the found line.
	Detail string `json:"detail,omitempty"`
}

// Policy names the gateway rule that refused a call.
type Policy struct {
	// Principal is the caller's principal ("" when none is configured).
	Principal string `json:"principal,omitempty"`
	// Rule is the rule: read_only, tools, toolsets, repos, rate_per_minute,
	// concurrency or max_in_flight.
	Rule string `json:"rule"`
	// Detail says what the rule allows.
	Detail string `json:"detail,omitempty"`
}

// Protocol describes a protocol-version mismatch (seed 004).
type Protocol struct {
	// Requested is the version the client asked for.
	Requested string `json:"requested"`
	// Supported lists the versions the gateway speaks.
	Supported []string `json:"supported"`
}

// now is the clock; tests replace it.
var now = time.Now

// Timestamp formats t as the contract's timestamp (2025-10-12T15:49:21.049Z).
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// New returns an error with code's default message and the always-present
// data (tool, timestamp).
func New(code int, tool string) *Error {
	r := row(code)
	return &Error{
		Code:       code,
		Message:    r.Message,
		HTTPStatus: r.HTTPStatus,
		Data:       Data{Tool: redact.String(tool), Timestamp: Timestamp(now())},
	}
}

// Internal returns a -32603 that carries only tool, timestamp and requestId;
// cause is kept for the log.
func Internal(tool, requestID string, cause error) *Error {
	e := New(InternalError, tool)
	requestID = redact.String(requestID)
	e.Data.RequestID = requestID
	e.RequestID = requestID
	e.Cause = cause
	return e
}

// Unavailable returns the -32603 of a service the gateway cannot reach:
// the message says so (the caller may retry later), the cause is kept for
// the log only.
func Unavailable(tool, requestID string, cause error) *Error {
	e := Internal(tool, requestID, cause)
	e.Message = "Service unavailable"
	return e
}

// InvalidParams returns the -32602 of our own validation: the message is
// "Validation errors: " followed by the violations' messages.
func InvalidParams(tool string, vs []toolschema.Violation) *Error {
	e := New(InvalidParamsCode, tool)
	e.Data.ValidationErrors = vs
	e.Data = e.Data.redacted()
	e.Message = cut(toolschema.Message(e.Data.ValidationErrors), MaxStringBytes-64)
	if e.Data.ValidationErrorsOmitted > 0 {
		e.Message += omittedMessage(e.Data.ValidationErrorsOmitted)
	}
	return e
}

// JSONRPC returns the wire error object, redacted (see Redacted): whatever a
// transport set after construction is checked once more on the way out.
func (e *Error) JSONRPC() *jsonrpc.Error {
	d := e.Data.redacted()
	return &jsonrpc.Error{Code: e.Code, Message: cut(redact.String(e.Message), MaxStringBytes), Data: &d}
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

	var (
		info *errdetails.ErrorInfo
		gh   *ghopsv1.GitHubError
		rinf *errdetails.RetryInfo
		res  *errdetails.ResourceInfo
		bad  *errdetails.BadRequest
		pe   *ghopsv1.PatchError
	)
	for _, d := range st.Details() {
		switch v := d.(type) {
		case *errdetails.ErrorInfo:
			info = v
		case *ghopsv1.GitHubError:
			gh = v
		case *errdetails.RetryInfo:
			rinf = v
		case *errdetails.ResourceInfo:
			res = v
		case *errdetails.BadRequest:
			bad = v
		case *ghopsv1.PatchError:
			pe = v
		}
	}

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
		e.Log = log
		e.Cause = err
		e.RequestID = requestID
		return e.Redacted()
	}

	e := New(code, tool)
	e.Cause = err
	e.RequestID = requestID
	if m := strings.TrimSpace(st.Message()); m != "" {
		e.Message = m
	}
	if gh != nil {
		if gh.GetStatus() != 0 || gh.GetMessage() != "" || gh.GetDocumentationUrl() != "" {
			e.Data.GitHub = &GitHub{Status: int(gh.GetStatus()), Message: gh.GetMessage(), DocumentationURL: gh.GetDocumentationUrl()}
		}
		if r := gh.GetResource(); r != nil && (r.GetType() != "" || r.GetId() != "") {
			e.Data.Resource = &Resource{Type: r.GetType(), ID: r.GetId()}
		}
		e.Data.MergeableState = gh.GetMergeableState()
		e.Data.ExpectedSHA = gh.GetExpectedSha()
		e.Data.ActualSHA = gh.GetActualSha()
		log.State = gh.GetMergeableState()
		if log.SHA == "" {
			log.SHA = gh.GetExpectedSha()
		}
	}
	if e.Data.Resource == nil && res != nil && (res.GetResourceType() != "" || res.GetResourceName() != "") {
		e.Data.Resource = &Resource{Type: res.GetResourceType(), ID: res.GetResourceName()}
	}
	if pe != nil {
		e.Data.Patch = &Patch{Code: pe.GetCode(), File: pe.GetFile(), Hunk: int(pe.GetHunk()), Line: int(pe.GetLine()), Detail: pe.GetDetail()}
	}
	if code != NotMergeable {
		e.Data.MergeableState = ""
	}
	if code != HeadSHAMismatch {
		e.Data.ExpectedSHA, e.Data.ActualSHA = "", ""
	}
	if code == RateLimited {
		rl := &RateLimit{}
		if r := gh.GetRateLimit(); r != nil {
			rl = &RateLimit{Limit: int(r.GetLimit()), Remaining: int(r.GetRemaining()), Reset: r.GetReset_(), RetryAfter: int(r.GetRetryAfterSeconds())}
		}
		if d := rinf.GetRetryDelay(); d != nil && d.AsDuration() > 0 {
			rl.RetryAfter = int(math.Ceil(d.AsDuration().Seconds()))
		}
		if rl.RetryAfter <= 0 {
			rl.RetryAfter = DefaultRetryAfter
		}
		ra := rl.RetryAfter
		e.Data.RateLimit = rl
		e.Data.RetryAfter = &ra
		e.RetryAfter = ra
	}
	e.Log = log
	// The status's message and details are the service's (already redacted
	// there) or any gRPC peer's: redact them here too.
	return e.Redacted()
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
func badRequestViolations(bad *errdetails.BadRequest, msg string) []toolschema.Violation {
	var vs []toolschema.Violation
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
		vs = append(vs, toolschema.Violation{Message: fv.GetDescription(), Path: path, Keyword: kw, Params: map[string]any{}})
	}
	if len(vs) == 0 {
		if msg == "" {
			msg = "invalid argument"
		}
		vs = []toolschema.Violation{{Message: msg, Path: "root", Keyword: "protovalidate", Params: map[string]any{}}}
	}
	return vs
}
