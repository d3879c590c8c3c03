// Package ghstatus is the one place where errors of go-github, of the
// transport and of the call's context become gRPC statuses carrying the
// contract's details: google.rpc.ErrorInfo (reason from ghopsv1.ErrorReason,
// domain "ghops.dev"), ghopsv1.GitHubError whenever GitHub answered, and
// ResourceInfo, RetryInfo or BadRequest where they apply. No status built
// here carries a token, a URL's credentials or secret query parameters
// (package redact decides), or, for Internal,
// any upstream text at all.
package ghstatus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/infra/retryafter"
	"ghops.dev/redact"

	"github.com/google/go-github/v66/github"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"ghops.dev/services/github/internal/budget"
	"ghops.dev/services/github/internal/callcap"
	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/reposcope"
)

// Domain is the ErrorInfo domain of every status the service sends.
const Domain = "ghops.dev"

// Tool names whose GitHub answers have tool-specific meanings.
const (
	ToolMerge       = ghopsv1.ToolMergePullRequest
	ToolCommitFiles = ghopsv1.ToolCommitFiles
	ToolApplyPatch  = ghopsv1.ToolApplyPatch
)

// Context is what the handler knows about the failed call; every field is
// optional and only set fields reach ErrorInfo.metadata and GitHubError.
type Context struct {
	// Tool is the MCP tool name, e.g. "read_file".
	Tool string
	// Repo is "owner/repo".
	Repo string
	// PR is the pull request number, 0 when none.
	PR int
	// SHA is the commit the call was about.
	SHA string
	// Resource names the object the call was about (for 404s).
	Resource *ghopsv1.Resource
	// MergeableState is the pull request's mergeable_state, for merge 405s.
	MergeableState string
	// ExpectedSHA and ActualSHA fill HEAD_SHA_MISMATCH and BRANCH_MOVED.
	ExpectedSHA, ActualSHA string
	// FieldResources names, per request field, the object a 422 refusing
	// that field is about: GitHub refuses an unknown milestone number of
	// create_issue and update_issue with 422 and errors[].field "milestone"
	// (not a 404), so the answer is -32003 with data.resource the milestone.
	FieldResources map[string]*ghopsv1.Resource
	// Field names the request field a 422 is about when GitHub's errors[]
	// name none: create_review's line comments, whose refusal GitHub words
	// as plain strings ("Line could not be resolved").
	Field string
}

func (c Context) metadata() map[string]string {
	m := map[string]string{}
	if c.Tool != "" {
		m["tool"] = c.Tool
	}
	if c.Repo != "" {
		m["repo"] = c.Repo
	}
	if c.PR > 0 {
		m["pr"] = strconv.Itoa(c.PR)
	}
	if c.SHA != "" {
		m["sha"] = c.SHA
	}
	if c.MergeableState != "" {
		m["mergeable_state"] = c.MergeableState
	}
	return m
}

// New builds a status with ErrorInfo for reason, the optional GitHubError
// and any further details.
func New(code codes.Code, reason ghopsv1.ErrorReason, msg string, c Context, gh *ghopsv1.GitHubError, extra ...protoadapt.MessageV1) error {
	st := status.New(code, Sanitize(msg))
	details := []protoadapt.MessageV1{&errdetails.ErrorInfo{
		Reason:   reason.String(),
		Domain:   Domain,
		Metadata: c.metadata(),
	}}
	if gh != nil {
		details = append(details, gh)
	}
	details = append(details, extra...)
	withDetails, err := st.WithDetails(details...)
	if err != nil {
		return st.Err()
	}
	return withDetails.Err()
}

// BranchMoved is commit_files' answer when the branch moved while writing.
func BranchMoved(c Context, gh *ghopsv1.GitHubError) error {
	if gh == nil {
		gh = &ghopsv1.GitHubError{}
	}
	gh.ExpectedSha, gh.ActualSha = c.ExpectedSHA, c.ActualSHA
	msg := fmt.Sprintf("branch moved while committing (expected head %s", short(c.ExpectedSHA))
	if c.ActualSHA != "" {
		msg += ", found " + short(c.ActualSHA)
	}
	msg += "); nothing was written"
	return New(codes.Aborted, ghopsv1.ErrorReason_ERROR_REASON_BRANCH_MOVED, msg, c, gh)
}

// HeadMismatch is the answer of a write guarded by the head sha the
// caller reviewed (merge_pull_request's sha, create_review's commit_sha,
// update_pull_request_branch's expected_head_sha) when the pull request's
// head is another: -32006, nothing written.
func HeadMismatch(c Context, gh *ghopsv1.GitHubError) error {
	if gh == nil {
		gh = &ghopsv1.GitHubError{}
	}
	gh.ExpectedSha, gh.ActualSha = c.ExpectedSHA, c.ActualSHA
	msg := "head branch was modified: the given sha " + short(c.ExpectedSHA) + " is not the head"
	if c.ActualSHA != "" {
		msg += " (head is " + short(c.ActualSHA) + ")"
	}
	return New(codes.Aborted, ghopsv1.ErrorReason_ERROR_REASON_HEAD_SHA_MISMATCH, msg, c, gh)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// HTTPStatus returns the HTTP status GitHub answered with, 0 when none.
func HTTPStatus(err error) int {
	if r := response(err); r != nil {
		return r.StatusCode
	}
	return 0
}

func response(err error) *http.Response {
	var er *github.ErrorResponse
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	switch {
	case errors.As(err, &rl):
		return rl.Response
	case errors.As(err, &ab):
		return ab.Response
	case errors.As(err, &er):
		return er.Response
	}
	return nil
}

// FromError translates err into a gRPC status error. A status error passes
// through unchanged; nil stays nil.
func FromError(err error, c Context) error {
	if err == nil {
		return nil
	}
	var se interface{ GRPCStatus() *status.Status }
	if errors.As(err, &se) {
		return err
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return New(codes.DeadlineExceeded, ghopsv1.ErrorReason_ERROR_REASON_DEADLINE_EXCEEDED, "the call's deadline passed before GitHub answered", c, nil)
	case errors.Is(err, context.Canceled):
		return New(codes.Canceled, ghopsv1.ErrorReason_ERROR_REASON_CANCELED, "the call was canceled", c, nil)
	}
	if st := fromRefusal(err, c); st != nil {
		return st
	}
	var pe *ghpath.Error
	if errors.As(err, &pe) {
		// A request value that would have left its place in the URL
		// (package ghpath): the caller's input, refused with its field.
		return New(codes.InvalidArgument, ghopsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT, "invalid request: "+pe.Error(), c, nil,
			&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: pe.Field, Description: pe.Reason, Reason: pe.Rule}}})
	}
	var rf *reposcope.Refused
	if errors.As(err, &rf) {
		// A request outside the call's repository that ghpath did not
		// catch is our bug: nothing was sent, nothing of it is told.
		return Internal(c)
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		gh := githubError(rl.Response, rl.Message, "")
		rate := rateFromHeaders(rl.Response)
		if rate == nil {
			rate = &ghopsv1.RateLimit{}
		}
		if rl.Rate.Limit > 0 {
			rate.Limit = int32(rl.Rate.Limit)
		}
		rate.Remaining = int32(rl.Rate.Remaining)
		if !rl.Rate.Reset.IsZero() {
			rate.Reset_ = rl.Rate.Reset.Unix()
		}
		return primaryLimited(c, gh, rate)
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		if notSent(ab.Response) {
			// go-github remembers a secondary limit's retry-after and refuses
			// by itself until then, with a made-up 403: say what happened.
			wait := time.Second
			if ab.RetryAfter != nil {
				wait = max(*ab.RetryAfter, time.Second)
			}
			secs := int32((wait + time.Second - 1) / time.Second)
			return New(codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_SECONDARY_RATE_LIMITED,
				fmt.Sprintf("GitHub's secondary rate limit asked to wait; the call was not sent to GitHub (retry after %ds)", secs), c,
				&ghopsv1.GitHubError{RateLimit: &ghopsv1.RateLimit{RetryAfterSeconds: secs}},
				&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(secs) * time.Second)})
		}
		gh := githubError(ab.Response, ab.Message, "")
		var wait time.Duration
		if ab.RetryAfter != nil {
			wait = *ab.RetryAfter
		}
		return secondaryLimited(c, gh, wait)
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return fromErrorResponse(er, c)
	}
	var ge *GraphQLErrors
	if errors.As(err, &ge) && len(ge.Errors) > 0 {
		return fromGraphQL(ge, c)
	}
	if isTransport(err) {
		return New(codes.Unavailable, ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE, "GitHub could not be reached", c, &ghopsv1.GitHubError{})
	}
	return Internal(c)
}

// fromRefusal translates a request the budget did not send (package
// budget): GitHub said nothing, so there is no GitHub status, and the
// message says so and until when; nil when err is no refusal.
func fromRefusal(err error, c Context) error {
	var ex *budget.Exhausted
	var busy *budget.Busy
	var paced *budget.Paced
	var capped *callcap.Exceeded
	var spent *budget.Spent
	switch {
	case errors.As(err, &spent):
		wait := max(time.Until(spent.Reset), time.Second)
		secs := int32((wait + time.Second - 1) / time.Second)
		rate := &ghopsv1.RateLimit{Limit: int32(spent.Share), Remaining: 0, Reset_: spent.Reset.Unix(), Resource: Sanitize(spent.Resource), RetryAfterSeconds: secs}
		return New(codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, Sanitize(spent.Error())+fmt.Sprintf(" (retry after %ds)", secs), c,
			&ghopsv1.GitHubError{RateLimit: rate}, &errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(secs) * time.Second)})
	case errors.As(err, &capped):
		// -32602, not -32004: the call itself is too large for the
		// per-call cap, so the same call fails the same way after any
		// wait; the caller must narrow it (docs/security.md).
		msg := capped.Error() + "; nothing was written: narrow the call"
		return InvalidField(Context{Tool: c.Tool}, msg, "", "maxRequestsPerCall")
	case errors.As(err, &ex):
		rate := &ghopsv1.RateLimit{Limit: int32(ex.Limit), Remaining: int32(ex.Remaining), Reset_: ex.Reset.Unix(), Resource: Sanitize(ex.Resource)}
		wait := max(time.Until(ex.Reset), time.Second)
		rate.RetryAfterSeconds = int32((wait + time.Second - 1) / time.Second)
		msg := fmt.Sprintf("GitHub rate limit (%s) is spent until %s; the call was not sent to GitHub (retry after %ds)",
			ex.Resource, ex.Reset.UTC().Format(time.RFC3339), rate.RetryAfterSeconds)
		return New(codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, msg, c, &ghopsv1.GitHubError{RateLimit: rate},
			&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(rate.RetryAfterSeconds) * time.Second)})
	case errors.As(err, &busy), errors.As(err, &paced):
		wait := time.Second
		if paced != nil {
			wait = max(paced.Wait, time.Second)
		}
		secs := int32((wait + time.Second - 1) / time.Second)
		msg := busyText(busy, paced) + fmt.Sprintf(" (retry after %ds)", secs)
		return New(codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_SECONDARY_RATE_LIMITED, msg, c,
			&ghopsv1.GitHubError{RateLimit: &ghopsv1.RateLimit{RetryAfterSeconds: secs}},
			&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(secs) * time.Second)})
	case errors.Is(err, budget.ErrUnavailable):
		return New(codes.Unavailable, ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE, budget.ErrUnavailable.Error(), c, nil)
	}
	return nil
}

// notSent tells a response go-github made up for a request it refused to
// send (no header at all) from one GitHub sent (always with headers).
func notSent(r *http.Response) bool { return r != nil && len(r.Header) == 0 }

func busyText(busy *budget.Busy, paced *budget.Paced) string {
	if busy != nil {
		return busy.Error()
	}
	return paced.Error()
}

// InvalidField is the -32602 of a call the service's own checks refuse
// for one field: msg is the message and the violation's description, field
// the field ("" for the call as a whole, e.g. its GitHub request count),
// rule the violation's reason. Every such refusal is built here, so that
// their data reads alike (docs/errors.md).
func InvalidField(c Context, msg, field, rule string) error {
	return New(codes.InvalidArgument, ghopsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT, msg, c, nil,
		&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: field, Description: msg, Reason: rule}}})
}

// InvalidName is InvalidField for a name or value the call gave that
// c.Resource, the thing it names (a project's field, sprint or view), does
// not accept: the -32602 also carries that resource, which the gateway
// answers as data.resource (docs/errors.md, "GitHub Projects").
func InvalidName(c Context, msg, field, rule string) error {
	ri := &errdetails.ResourceInfo{ResourceType: c.Resource.GetType(), ResourceName: c.Resource.GetId(), Description: msg}
	return New(codes.InvalidArgument, ghopsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT, msg, c, nil,
		&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: field, Description: msg, Reason: rule}}}, ri)
}

// Internal is the answer for anything unexpected: no upstream text at all.
func Internal(c Context) error {
	return New(codes.Internal, ghopsv1.ErrorReason_ERROR_REASON_INTERNAL, "internal error", c, nil)
}

func isTransport(err error) bool {
	var ue *url.Error
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.As(err, &oe)
}

func fromErrorResponse(er *github.ErrorResponse, c Context) error {
	r := er.Response
	gh := githubError(r, er.Message, er.DocumentationURL)
	code := r.StatusCode
	msgLower := strings.ToLower(er.Message)
	switch {
	case code == http.StatusTooManyRequests || (code == http.StatusForbidden && strings.Contains(msgLower, "rate limit")):
		if r.Header.Get("X-Ratelimit-Remaining") == "0" && !strings.Contains(msgLower, "secondary") {
			return primaryLimited(c, gh, gh.RateLimit)
		}
		return secondaryLimited(c, gh, retryAfter(r))
	case code == http.StatusUnauthorized:
		return New(codes.Unauthenticated, ghopsv1.ErrorReason_ERROR_REASON_UNAUTHENTICATED, "GitHub rejected the credentials: "+gh.Message, c, gh)
	case code == http.StatusForbidden:
		return New(codes.PermissionDenied, ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, "GitHub refused access: "+gh.Message, c, gh)
	case code == http.StatusNotFound:
		return notFound(c, gh, "GitHub answered 404")
	case code == http.StatusMethodNotAllowed && c.Tool == ToolMerge:
		gh.MergeableState = c.MergeableState
		msg := "pull request is not mergeable"
		if c.MergeableState != "" {
			msg += " (mergeable_state " + c.MergeableState + ")"
		}
		return New(codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_PR_NOT_MERGEABLE, msg, c, gh)
	case code == http.StatusConflict && c.Tool == ToolMerge:
		return HeadMismatch(c, gh)
	case code == http.StatusConflict && strings.Contains(msgLower, "repository is empty"):
		return New(codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_EMPTY_REPOSITORY, "the repository is empty", c, gh)
	case code == http.StatusConflict:
		// A change the object's state refuses (cancel_workflow_run of a
		// finished run): GitHub's refusal of the value, as a 422 is, of
		// the call's resource.
		gh.Resource = c.Resource
		return New(codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, "GitHub refused the change: "+gh.Message, c, gh)
	case code == http.StatusUnprocessableEntity && (c.Tool == ToolCommitFiles || c.Tool == ToolApplyPatch) && strings.Contains(msgLower, "not a fast forward"):
		return BranchMoved(c, gh)
	case code == http.StatusUnprocessableEntity:
		br := &errdetails.BadRequest{}
		for _, fe := range er.Errors {
			if fe.Field == "" {
				fe.Field = c.Field
			}
			if res, ok := c.FieldResources[fe.Field]; ok && gh.Resource == nil {
				gh.Resource = res
			}
			gh.FieldErrors = append(gh.FieldErrors, &ghopsv1.GitHubFieldError{
				Resource: Sanitize(fe.Resource), Field: Sanitize(fe.Field), Code: Sanitize(fe.Code), Message: Sanitize(fe.Message),
			})
			desc := Sanitize(fe.Message)
			if desc == "" {
				desc = Sanitize(fe.Code)
			}
			br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{
				Field: Sanitize(fe.Field), Description: desc, Reason: Sanitize(fe.Code),
			})
		}
		// GitHub's top message is nearly always the generic "Validation
		// Failed"; what went wrong is in errors[], so say that instead.
		var why []string
		for _, fe := range gh.FieldErrors {
			switch {
			case fe.Message != "":
				why = append(why, fe.Message)
			case fe.Field != "":
				why = append(why, fe.Field+" "+fe.Code)
			}
		}
		msg := "GitHub validation failed"
		switch {
		case len(why) > 0:
			msg += ": " + strings.Join(why, "; ")
		case gh.Message != "":
			msg += ": " + gh.Message
		}
		if len(br.FieldViolations) == 0 {
			return New(codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, msg, c, gh)
		}
		return New(codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, msg, c, gh, br)
	case code >= 500:
		return New(codes.Unavailable, ghopsv1.ErrorReason_ERROR_REASON_UPSTREAM_UNAVAILABLE, fmt.Sprintf("GitHub is unavailable (HTTP %d)", code), c, gh)
	}
	return Internal(c)
}

// Mismatch is NOT_FOUND for the call's resource when GitHub's answer shows
// that the number or id the call gave names something else: a pull
// request's number given to an issue tool, an issue's number given to a
// pull request tool, or an object GitHub answered from another repository
// than the call's. For the tool, what it names does not exist (GitHub's own
// pulls endpoints answer 404 for an issue's number), so the code is -32002
// (docs/errors.md): not -32001, since no policy refused it and a principal
// allowed everything gets the same answer; not -32003, since GitHub
// validated nothing; not -32602, since the value is well formed and only
// GitHub's answer tells its kind. msg says what the value names instead and
// which tools act on it; status is GitHub's HTTP status when it answered
// 404 itself, 0 when it answered the other thing.
func Mismatch(c Context, status int, msg string) error {
	res := c.Resource
	if res == nil && c.Repo != "" {
		res = &ghopsv1.Resource{Type: "repository", Id: c.Repo}
	}
	ri := &errdetails.ResourceInfo{ResourceType: res.GetType(), ResourceName: res.GetId(), Description: msg}
	return New(codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, msg, c, &ghopsv1.GitHubError{Status: int32(status), Resource: res}, ri)
}

// NotFound is NOT_FOUND for the call's resource when GitHub's answer
// means that it does not exist though its status says otherwise (get_commit:
// GitHub answers an unknown ref with 422 "No commit found for SHA"). The
// answer is the one a 404 of GitHub's would give, with data.resource from c.
func NotFound(c Context, why string) error {
	return notFound(c, &ghopsv1.GitHubError{}, why)
}

// notFound is NOT_FOUND for the call's resource (its repository when the
// handler named none), with ResourceInfo; why says which answer it was.
func notFound(c Context, gh *ghopsv1.GitHubError, why string) error {
	res := c.Resource
	if res == nil && c.Repo != "" {
		res = &ghopsv1.Resource{Type: "repository", Id: c.Repo}
	}
	gh.Resource = res
	ri := &errdetails.ResourceInfo{Description: why}
	msg := "not found"
	if res != nil {
		ri.ResourceType, ri.ResourceName = res.GetType(), res.GetId()
		msg = fmt.Sprintf("%s %s not found (or not visible to this token)", res.GetType(), res.GetId())
	}
	return New(codes.NotFound, ghopsv1.ErrorReason_ERROR_REASON_NOT_FOUND, msg, c, gh, ri)
}

func primaryLimited(c Context, gh *ghopsv1.GitHubError, rate *ghopsv1.RateLimit) error {
	if rate == nil {
		rate = &ghopsv1.RateLimit{}
	}
	wait := time.Duration(0)
	if rate.Reset_ > 0 {
		wait = time.Until(time.Unix(rate.Reset_, 0))
	}
	if wait < time.Second {
		wait = time.Second
	}
	rate.RetryAfterSeconds = int32((wait + time.Second - 1) / time.Second)
	gh.RateLimit = rate
	msg := fmt.Sprintf("GitHub rate limit exhausted; retry after %ds", rate.RetryAfterSeconds)
	return New(codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED, msg, c, gh,
		&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(rate.RetryAfterSeconds) * time.Second)})
}

func secondaryLimited(c Context, gh *ghopsv1.GitHubError, wait time.Duration) error {
	if wait <= 0 {
		wait = 60 * time.Second // GitHub's advice when it gives no retry-after
	}
	if gh.RateLimit == nil {
		gh.RateLimit = &ghopsv1.RateLimit{}
	}
	gh.RateLimit.RetryAfterSeconds = int32((wait + time.Second - 1) / time.Second)
	msg := fmt.Sprintf("GitHub secondary rate limit hit; retry after %ds", gh.RateLimit.RetryAfterSeconds)
	return New(codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_SECONDARY_RATE_LIMITED, msg, c, gh,
		&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(gh.RateLimit.RetryAfterSeconds) * time.Second)})
}

func retryAfter(r *http.Response) time.Duration {
	if r == nil {
		return 0
	}
	if d, ok := retryafter.Parse(r.Header.Get("Retry-After"), time.Now()); ok {
		return d
	}
	if reset, err := strconv.ParseInt(r.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil && r.Header.Get("X-Ratelimit-Remaining") == "0" {
		return time.Until(time.Unix(reset, 0))
	}
	return 0
}

func githubError(r *http.Response, message, docURL string) *ghopsv1.GitHubError {
	gh := &ghopsv1.GitHubError{Message: Sanitize(message), DocumentationUrl: Sanitize(docURL)}
	if r != nil {
		gh.Status = int32(r.StatusCode)
		gh.RateLimit = rateFromHeaders(r)
	}
	return gh
}

func rateFromHeaders(r *http.Response) *ghopsv1.RateLimit {
	if r == nil || r.Header.Get("X-Ratelimit-Limit") == "" {
		return nil
	}
	atoi := func(k string) int64 {
		n, _ := strconv.ParseInt(r.Header.Get(k), 10, 64)
		return n
	}
	return &ghopsv1.RateLimit{
		Limit:     int32(atoi("X-Ratelimit-Limit")),
		Remaining: int32(atoi("X-Ratelimit-Remaining")),
		Reset_:    atoi("X-Ratelimit-Reset"),
		Resource:  Sanitize(r.Header.Get("X-Ratelimit-Resource")),
	}
}

// Sanitize removes every secret from upstream text (tokens, credentials in
// URLs, secret query parameters: package redact, the one redactor of the
// project) so that it can be shown to callers.
func Sanitize(s string) string { return redact.String(s) }

// Text is err's text for logs: sanitized, and safe even for go-github
// errors built without a request (whose Error method would panic).
func Text(err error) (text string) {
	defer func() {
		if recover() != nil {
			text = fmt.Sprintf("%T", err)
		}
	}()
	return Sanitize(err.Error())
}

// GraphQLError is one entry of the errors list of a GitHub GraphQL answer.
type GraphQLError struct {
	// Type is GitHub's error type, e.g. "NOT_FOUND" or "FORBIDDEN".
	Type string `json:"type"`
	// Message is GitHub's text (untrusted; sanitised before it is shown).
	Message string `json:"message"`
}

// GraphQLErrors is a GraphQL answer that carried errors. GitHub sends these
// with HTTP 200, so go-github does not see them as failures.
type GraphQLErrors struct {
	// Errors is the answer's errors list, in GitHub's order.
	Errors []GraphQLError
	// Response is the HTTP answer that carried them, when kept: its
	// x-ratelimit-* headers fill data.rateLimit of a RATE_LIMITED answer.
	Response *http.Response
}

// Error implements error with the first entry, sanitised.
func (e *GraphQLErrors) Error() string {
	if len(e.Errors) == 0 {
		return "github graphql: error without details"
	}
	return Sanitize("github graphql: " + e.Errors[0].Type + ": " + e.Errors[0].Message)
}

// GraphQLStaleData is the type of GitHub's GraphQL refusal of a write
// whose expected head is no longer the branch's (createCommitOnBranch:
// "Expected branch to point to ... but it did not").
const GraphQLStaleData = "STALE_DATA"

// GraphQLType returns the type of err's first GraphQL error, "" when err
// carries none. A refusal of createCommitOnBranch for a moved head is
// GraphQLStaleData whatever type GitHub gives it, recognised by its
// documented wording too, since the caller must answer it as a lost race
// (-32006), not as a validation failure.
func GraphQLType(err error) string {
	var ge *GraphQLErrors
	if !errors.As(err, &ge) || len(ge.Errors) == 0 {
		return ""
	}
	first := ge.Errors[0]
	if strings.HasPrefix(first.Message, "Expected branch to point to") {
		return GraphQLStaleData
	}
	return first.Type
}

// fromGraphQL translates by the first error's type: NOT_FOUND and FORBIDDEN
// as the REST 404 and 403 are, RATE_LIMITED as a spent primary limit;
// anything else is a GitHub validation failure.
func fromGraphQL(ge *GraphQLErrors, c Context) error {
	first := ge.Errors[0]
	gh := &ghopsv1.GitHubError{Status: http.StatusOK, Message: Sanitize(first.Message)}
	switch first.Type {
	case "NOT_FOUND":
		return notFound(c, gh, "GitHub GraphQL answered NOT_FOUND")
	case "FORBIDDEN":
		return New(codes.PermissionDenied, ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, "GitHub refused access: "+gh.Message, c, gh)
	case "INSUFFICIENT_SCOPES":
		// GitHub names the scopes the token lacks (Projects need read:project
		// to read, project to write): the token's, not the caller's, fault.
		return New(codes.PermissionDenied, ghopsv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED, "GitHub refused the token's scopes: "+gh.Message, c, gh)
	case "RATE_LIMITED":
		// GraphQL has its own hourly points bucket and answers 200 with
		// x-ratelimit-resource: graphql; without those headers the reset is
		// unknown, so advise a minute as for a secondary limit without
		// retry-after.
		if rate := rateFromHeaders(ge.Response); rate != nil {
			rate.Resource = "graphql"
			gh.RateLimit = rate
			return primaryLimited(c, gh, rate)
		}
		const wait = 60 * time.Second
		gh.RateLimit = &ghopsv1.RateLimit{RetryAfterSeconds: int32(wait / time.Second), Resource: "graphql"}
		return New(codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED,
			fmt.Sprintf("GitHub GraphQL rate limit exhausted; retry after %ds", gh.RateLimit.RetryAfterSeconds), c, gh,
			&errdetails.RetryInfo{RetryDelay: durationpb.New(wait)})
	}
	msg := "GitHub validation failed"
	if first.Type != "" {
		msg += " (" + Sanitize(first.Type) + ")"
	}
	if gh.Message != "" {
		msg += ": " + gh.Message
	}
	return New(codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION, msg, c, gh)
}
