package rpcerror

import (
	"context"
	"errors"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ghops.dev/infra/outcome"
)

// The wording of a write whose answer was lost (docs/errors.md, "Outcome
// unknown") lives in ghops.dev/infra/outcome, shared with the Go client;
// these names keep the error contract's vocabulary in this package.
const (
	// OutcomeUnknown is data.outcome, and the audit record's outcome, of a
	// write whose answer was lost after it was sent.
	OutcomeUnknown = outcome.Unknown
	// OutcomeUnknownMessage is the message of such an error.
	OutcomeUnknownMessage = outcome.Message
	// OutcomeUnknownCheck is data.check: how to find out before retrying.
	OutcomeUnknownCheck = outcome.Check
)

// LostAnswer reports whether err, the failure of a service call, leaves
// the call's outcome unknown: the request may have been sent (and acted on)
// but no answer came back from the service, because the connection failed
// (UNAVAILABLE, a reset stream), the deadline passed or the call was
// cancelled. A status that carries the service's ErrorInfo is the
// service's own answer, a known failure: the service attaches one to every
// status it sends, so whether its own GitHub request landed is for it to
// say.
func LostAnswer(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	st, ok := status.FromError(err)
	if !ok {
		return true // not even a status: nothing says the service refused it
	}
	for _, d := range st.Details() {
		if _, ok := d.(*errdetails.ErrorInfo); ok {
			return false
		}
	}
	switch st.Code() {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.Unknown, codes.Internal, codes.DataLoss:
		return true
	}
	return false
}

// MarkOutcomeUnknown turns e, the -32603 of a write whose answer was lost,
// into the contract's "outcome unknown" error: the message says the write
// may have landed, data.outcome is "unknown" and data.check says how to
// find out. The code stays -32603.
func (e *Error) MarkOutcomeUnknown() {
	e.Message = OutcomeUnknownMessage
	e.Data.Outcome = OutcomeUnknown
	e.Data.Check = OutcomeUnknownCheck
}
