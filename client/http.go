package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"ghops.dev/infra/retryafter"
	"ghops.dev/redact"
)

// httpAnswer is one HTTP answer, read in full.
type httpAnswer struct {
	status      int
	header      http.Header
	contentType string
	body        []byte
	retryAfter  time.Duration
}

// post sends body to u and reads the answer. Failures to get an answer are
// *TransportError (kind ErrConnection, ErrTruncated or ErrResponseTooLarge).
func (c *Client) post(ctx context.Context, u string, body []byte, header http.Header) (*httpAnswer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, &TransportError{Kind: ErrConnection, URL: redact.String(u), Err: errors.New("cannot build the request")}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		// Unless the connection was never made, the request may have
		// reached the gateway: CallRaw tells a write's caller so.
		var op *net.OpError
		sent := !errors.As(err, &op) || op.Op != "dial"
		return nil, &TransportError{Kind: ErrConnection, URL: redact.String(u), Err: c.cause(ctx, err), sent: sent}
	}
	defer func() { _ = resp.Body.Close() }()
	wait, _ := retryafter.Parse(resp.Header.Get("Retry-After"), time.Now())
	ans := &httpAnswer{status: resp.StatusCode, header: resp.Header, retryAfter: wait}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil {
		ans.contentType = mt
	}
	ans.body, err = io.ReadAll(io.LimitReader(resp.Body, c.maxResponse+1))
	if err != nil {
		return nil, &TransportError{Kind: ErrTruncated, URL: redact.String(u), StatusCode: ans.status, ContentType: ans.contentType,
			Snippet: c.snippet(ans.body), RetryAfter: ans.retryAfter, Err: c.cause(ctx, err), sent: true}
	}
	if int64(len(ans.body)) > c.maxResponse {
		return nil, &TransportError{Kind: ErrResponseTooLarge, URL: redact.String(u), StatusCode: ans.status, ContentType: ans.contentType,
			Err: fmt.Errorf("over %d bytes", c.maxResponse)}
	}
	return ans, nil
}

// cause returns the error to report for a failed request: the context's
// error when it ended, else err without url.Error's URL (which could carry
// credentials).
func (c *Client) cause(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return redact.Error(err, c.token)
}

// classify turns an answer without a usable JSON-RPC body into a
// *TransportError, and returns nil when the body is JSON to be validated.
// decodeErr is the validation error of a JSON body, if any: on an HTTP error
// status it means a proxy's JSON page rather than a gateway answer.
func (c *Client) classify(u string, ans *httpAnswer, decodeErr error) error {
	te := &TransportError{URL: redact.String(u), StatusCode: ans.status, ContentType: ans.contentType, RetryAfter: ans.retryAfter}
	if ans.status == http.StatusRequestEntityTooLarge {
		te.Kind = ErrPayloadTooLarge
		te.Snippet = c.snippet(ans.body)
		return te
	}
	kind := classifyNonJSON(ans.body)
	errStatus := ans.status < 200 || ans.status > 299
	switch {
	case kind != nil && errStatus:
		te.Kind = ErrHTTPStatus
		te.Snippet = c.snippet(ans.body)
		return te
	case kind != nil && len(bytes.TrimSpace(ans.body)) == 0:
		return nil // an empty body: the decoder reports the missing response
	case kind != nil:
		te.Kind = kind
		te.Snippet = c.snippet(ans.body)
		return te
	case decodeErr != nil && errStatus:
		te.Kind = ErrHTTPStatus
		te.Snippet = c.snippet(ans.body)
		te.Err = decodeErr
		return te
	}
	return nil
}

// snippet is the start of a body for messages: whitespace collapsed, at
// most 120 bytes, the token removed.
func (c *Client) snippet(body []byte) string {
	var b strings.Builder
	space := false
	for _, r := range string(bytes.TrimSpace(body)) {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if !unicode.IsPrint(r) {
			r = '?'
		}
		b.WriteRune(r)
		if b.Len() >= 4*120 {
			break
		}
	}
	return truncateText(redact.StringWith(b.String(), c.token), 120)
}
