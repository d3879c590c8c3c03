package pipeline

import (
	"ghops.dev/redact"

	"context"
	"log/slog"
	"strconv"
	"sync"

	"ghops.dev/gateway/internal/jsonrpc"
	"ghops.dev/gateway/internal/rpcerror"
)

// outcome is what one body is answered with.
type outcome struct {
	body       []byte // nil: no content
	status     int
	retryAfter int
	gone       bool // the caller went away: write nothing
}

// serveBody parses, checks and runs one body and encodes its answer.
func (p *Pipeline) serveBody(ctx context.Context, t Transport, x *Body, b []byte) outcome {
	items, batch, perr := jsonrpc.ParseBody(b)
	if perr != nil {
		return p.refuse(ctx, t, x, &Refusal{Err: rpcerror.New(perr.Code, perr.Message)})
	}
	if batch && len(items) > p.opts.MaxBatch {
		e := rpcerror.Newf(rpcerror.InvalidRequest, "Invalid Request: batch of %d requests exceeds the limit of %d", len(items), p.opts.MaxBatch)
		return p.refuse(ctx, t, x, &Refusal{Err: e})
	}
	calls := make([]*Call, len(items))
	for i, it := range items {
		c := &Call{Request: it.Request, Invalid: it.Err, Raw: it.Raw, ID: it.ID, RequestID: x.RequestID, Index: i}
		if batch {
			c.RequestID = x.RequestID + "-" + strconv.Itoa(i)
			c.Batch = true
		}
		calls[i] = c
	}
	if r := t.Begin(ctx, x, calls, batch); r != nil {
		return p.refuse(ctx, t, x, r)
	}
	answers := p.run(ctx, t, x, calls)
	return p.encode(ctx, t, x, calls, answers, batch)
}

// refuse answers a whole body with one error, id null.
func (p *Pipeline) refuse(ctx context.Context, t Transport, x *Body, r *Refusal) outcome {
	p.opts.Sink.Report(ctx, r.Err)
	p.observe(t, "invalid", r.Err.Code)
	status := r.Status
	if status == 0 {
		status = Status(t.StatusRules(), []Answer{{Err: r.Err}}, false, true)
	}
	return outcome{body: jsonrpc.EncodeResponse(jsonrpc.Response{Error: r.Err.JSONRPC()}), status: status, retryAfter: r.Err.RetryAfter}
}

// skipped marks a call that was never run because its caller went away.
var skipped = Answer{NoReply: true}

// run serves the calls of one body: a single call inline, a batch with at
// most BatchConcurrency at once. When ctx ends (the caller went away, or the
// stream closed) the calls not yet started are not run at all.
func (p *Pipeline) run(ctx context.Context, t Transport, x *Body, calls []*Call) []Answer {
	answers := make([]Answer, len(calls))
	if len(calls) == 1 {
		answers[0] = p.serveCall(ctx, t, x, calls[0])
		return answers
	}
	sem := make(chan struct{}, p.opts.BatchConcurrency)
	var wg sync.WaitGroup
launch:
	for i, c := range calls {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			for j := i; j < len(calls); j++ {
				answers[j] = skipped
			}
			break launch
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			answers[i] = p.serveCall(ctx, t, x, c)
		}()
	}
	wg.Wait()
	return answers
}

// observe counts one answered call.
func (p *Pipeline) observe(t Transport, tool string, code int) {
	if p.opts.Observe != nil && tool != "" {
		p.opts.Observe(t.Name(), tool, code)
	}
}

// encode reports every error answer once and encodes the body's answer.
func (p *Pipeline) encode(ctx context.Context, t Transport, x *Body, calls []*Call, answers []Answer, batch bool) outcome {
	if ctx.Err() != nil {
		// The caller went away (or the stream ended): nothing will be
		// read, so nothing is reported per call; one record says so.
		ran := 0
		for i := range answers {
			if answers[i].Err != nil || answers[i].Result != nil {
				ran++
			}
		}
		p.log.LogAttrs(ctx, slog.LevelInfo, "caller went away",
			slog.String("transport", t.Name()), slog.String("request_id", x.RequestID),
			slog.Int("calls", len(calls)), slog.Int("answered", ran))
		return outcome{gone: true}
	}
	var (
		resps      []jsonrpc.Response
		retryAfter int
	)
	for i, a := range answers {
		c := calls[i]
		code := 0
		if a.Err != nil {
			code = a.Err.Code
			retryAfter = max(retryAfter, a.Err.RetryAfter)
		}
		p.observe(t, a.Tool, code)
		if a.NoReply {
			if a.Err != nil && c.Request != nil {
				// A notification gets no answer, so no jsonrpc_error line
				// (that line counts error answers); the refusal is still
				// on record.
				attrs := []slog.Attr{slog.String("transport", t.Name()), slog.String("method", redact.String(clip(c.Request.Method, 100))),
					slog.Int("code", a.Err.Code), slog.String("message", redact.String(a.Err.Message))}
				level := slog.LevelInfo
				if a.Err.Code == rpcerror.InternalError && a.Err.Cause != nil {
					// No line, so this record is the failure's one log.
					level = slog.LevelError
					attrs = append(attrs, slog.String("cause", redact.String(a.Err.Cause.Error())))
				}
				p.log.LogAttrs(ctx, level, "notification refused", attrs...)
			}
			continue
		}
		if a.Err != nil {
			p.opts.Sink.Report(ctx, a.Err)
			if a.Result == nil {
				resps = append(resps, jsonrpc.Response{ID: c.ID, Error: a.Err.JSONRPC()})
				continue
			}
		}
		resps = append(resps, jsonrpc.Response{ID: c.ID, Result: a.Result})
	}
	status := Status(t.StatusRules(), answers, batch, false)
	if len(resps) == 0 {
		return outcome{status: status}
	}
	var body []byte
	switch {
	case batch:
		body = jsonrpc.EncodeBatch(resps)
	case resps[0].Error == nil:
		// Results come from our own encoders (protojson, package mcp), so
		// re-validating up to a megabyte of JSON per call would only cost.
		body = jsonrpc.EncodeResult(resps[0].ID, resps[0].Result)
	default:
		body = jsonrpc.EncodeResponse(resps[0])
	}
	return outcome{body: body, status: status, retryAfter: retryAfter}
}

// clip shortens s to n bytes for a log record.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
