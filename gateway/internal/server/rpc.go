package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"ghops.dev/redact"

	"ghops.dev/gateway/internal/jsonrpc"
	"ghops.dev/gateway/internal/normalize"
	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolcall"
)

// fallbackBody is written when nothing else can be.
var fallbackBody = jsonrpc.FallbackBody

// requestIDRE accepts a client's X-Request-Id only when it is short and plain
// (and, checked beside it, not token-shaped: it is echoed and logged).
var requestIDRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// answer is one element's outcome: a response to send (or none for a
// notification) and the error it carries, if any.
type answer struct {
	resp *jsonrpc.Response
	err  *rpcerror.Error
}

// serveRPC is POST /rpc: seed 002's rules. The body limit is checked first
// (Content-Length, then the bytes actually read) and always answers 413;
// every other failure answers 200 unless status mapping is on, where a
// batch takes the highest status of its errors; a body of notifications
// only answers 204.
func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	ctx := r.Context()
	reqID := r.Header.Get("X-Request-Id")
	if !requestIDRE.MatchString(reqID) || redact.Contains(reqID) {
		reqID = toolcall.NewRequestID()
	}
	w.Header().Set("X-Request-Id", reqID)
	limit := s.opts.Config.MaxBody
	if limit <= 0 {
		limit = 1 << 20
	}
	if r.ContentLength > limit {
		s.writeTooLarge(ctx, w, limit)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.writeTooLarge(ctx, w, limit)
			return
		}
		s.log.Info("reading /rpc body", "error", err)
		s.writeBodyError(ctx, w, rpcerror.New(rpcerror.ParseError, ""))
		return
	}

	items, batch, bodyErr := jsonrpc.ParseBody(body)
	if bodyErr != nil {
		e := rpcerror.New(bodyErr.Code, "")
		s.metrics.ObserveCall("rpc", "invalid", e.Code)
		s.writeBodyError(ctx, w, e)
		return
	}
	maxBatch := s.opts.Config.MaxBatch
	if batch && maxBatch > 0 && len(items) > maxBatch {
		e := rpcerror.New(rpcerror.InvalidRequest, "")
		e.Message = fmt.Sprintf("Invalid Request: batch of %d requests exceeds the limit of %d", len(items), maxBatch)
		s.metrics.ObserveCall("rpc", "invalid", e.Code)
		s.writeBodyError(ctx, w, e)
		return
	}

	token := bearer(r.Header.Get("Authorization"))
	answers := make([]answer, len(items))
	conc := s.opts.Config.BatchConcurrency
	if conc <= 0 {
		conc = 8
	}
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	for i, it := range items {
		id := reqID
		if batch {
			id = reqID + "-" + strconv.Itoa(i)
		}
		if len(items) == 1 {
			answers[i] = s.runItem(ctx, it, id, token)
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			answers[i] = s.runItem(ctx, it, id, token)
		}()
	}
	wg.Wait()

	status := http.StatusOK
	retryAfter := 0
	var resps []jsonrpc.Response
	for _, a := range answers {
		if a.resp == nil {
			continue
		}
		resps = append(resps, *a.resp)
		if a.err == nil {
			continue
		}
		if s.opts.Config.HTTPStatusMapping && a.err.HTTPStatus > status {
			status = a.err.HTTPStatus
		}
		if a.err.RetryAfter > retryAfter {
			retryAfter = a.err.RetryAfter
		}
	}
	if len(resps) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	var out []byte
	if batch {
		out = jsonrpc.EncodeBatch(resps)
	} else {
		out = jsonrpc.EncodeResponse(resps[0])
	}
	writeJSON(w, status, out)
}

// runItem answers one element of a body. Panics become -32603.
func (s *Server) runItem(ctx context.Context, it jsonrpc.Item, requestID, token string) (a answer) {
	defer func() {
		if p := recover(); p != nil {
			e := rpcerror.Internal("", requestID, fmt.Errorf("panic: %s", fmtPanic(p)))
			resp := s.opts.Sink.Response(ctx, it.ID, e)
			a = answer{resp: &resp, err: e}
		}
	}()
	if it.Err != nil {
		e := rpcerror.New(it.Err.Code, "")
		s.metrics.ObserveCall("rpc", "invalid", e.Code)
		resp := s.opts.Sink.Response(ctx, it.ID, e)
		return answer{resp: &resp, err: e}
	}
	req := it.Request
	args := normalize.Arguments(req.Method, req.Params)
	result, e := s.opts.Caller.Call(ctx, req.Method, args, toolcall.CallInfo{RequestID: requestID, Token: token})
	method := req.Method
	if _, ok := s.opts.Caller.Registry().Lookup(method); !ok {
		method = "unknown"
	}
	if e != nil {
		s.metrics.ObserveCall("rpc", method, e.Code)
		if req.IsNotification() {
			s.log.Info("notification failed", "tool", redact.String(method), "code", e.Code, "request_id", requestID)
			return answer{}
		}
		resp := s.opts.Sink.Response(ctx, req.ID, e)
		return answer{resp: &resp, err: e}
	}
	s.metrics.ObserveCall("rpc", method, 0)
	if req.IsNotification() {
		return answer{}
	}
	return answer{resp: &jsonrpc.Response{ID: req.ID, Result: result}}
}

// writeTooLarge answers 413, whatever the status mapping, with a -32600 body.
func (s *Server) writeTooLarge(ctx context.Context, w http.ResponseWriter, limit int64) {
	e := rpcerror.New(rpcerror.InvalidRequest, "")
	e.Message = fmt.Sprintf("Invalid Request: body exceeds the limit of %d bytes", limit)
	e.HTTPStatus = http.StatusRequestEntityTooLarge
	s.metrics.ObserveCall("rpc", "invalid", e.Code)
	w.Header().Set("Connection", "close")
	writeJSON(w, http.StatusRequestEntityTooLarge, jsonrpc.EncodeResponse(s.opts.Sink.Response(ctx, nil, e)))
}

// writeBodyError answers a whole body with one error object, id null.
func (s *Server) writeBodyError(ctx context.Context, w http.ResponseWriter, e *rpcerror.Error) {
	status := http.StatusOK
	if s.opts.Config.HTTPStatusMapping || e.HTTPStatus == http.StatusRequestEntityTooLarge {
		status = e.HTTPStatus
	}
	writeJSON(w, status, jsonrpc.EncodeResponse(s.opts.Sink.Response(ctx, nil, e)))
}

// writeJSON writes a JSON body with status.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	if !json.Valid(body) {
		body = fallbackBody
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// bearer extracts the token of an "Authorization: Bearer <token>" header.
func bearer(h string) string {
	const prefix = "bearer "
	if len(h) > len(prefix) && strings.EqualFold(h[:len(prefix)], prefix) {
		return strings.TrimSpace(h[len(prefix):])
	}
	return ""
}

// fmtPanic renders a panic value for the log.
func fmtPanic(p any) string { return fmt.Sprint(p) }
