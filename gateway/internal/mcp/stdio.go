package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"ghops.dev/redact"
)

// stdioConn is the state of one stdio connection: the version initialize
// negotiated (the process is the session) and the serialised writer.
type stdioConn struct {
	scope   string
	mu      sync.Mutex
	version string
	wmu     sync.Mutex
	out     io.Writer
	werr    error
}

// stdioSeq distinguishes the cancellation scopes of concurrent connections.
var stdioSeq atomic.Int64

// negotiated returns the connection's handshake version (2025-11-25 before
// any initialize: a client that skips it is served by the latest rules).
func (c *stdioConn) negotiated() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == "" {
		return latestLegacy
	}
	return c.version
}

// setNegotiated records the version initialize agreed on.
func (c *stdioConn) setNegotiated(v string) {
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
}

// write sends one message as one line. JSON from the encoders never holds a
// raw newline; a result that somehow does is compacted first.
func (c *stdioConn) write(b []byte) {
	if bytes.IndexByte(b, '\n') >= 0 {
		var buf bytes.Buffer
		if err := compactInto(&buf, b); err == nil {
			b = buf.Bytes()
		}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return
	}
	if _, err := c.out.Write(append(b[:len(b):len(b)], '\n')); err != nil {
		c.werr = err
	}
}

// maxStdioConcurrency bounds the requests of one connection served at once.
const maxStdioConcurrency = 16

// ServeStdio speaks MCP over newline-delimited JSON-RPC: one message per line
// read from in, one answer per line written to out (nothing else is ever
// written to out: logs go to the logger). Requests are served concurrently,
// so notifications/cancelled can stop a running tool call. It returns nil at
// the end of in (after the running requests are answered), ctx's error when
// ctx ends first, or the first read or write error.
func (h *Handler) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	conn := &stdioConn{scope: "stdio:" + strconv.FormatInt(stdioSeq.Add(1), 10), out: out}
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(r, h.maxBody)
			if len(bytes.TrimSpace(line)) > 0 || errors.Is(err, errLineTooLong) {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil && !errors.Is(err, errLineTooLong) {
				if !errors.Is(err, io.EOF) {
					readErr <- err
				}
				return
			}
		}
	}()

	var wg sync.WaitGroup
	sem := make(chan struct{}, maxStdioConcurrency)
	env := &envelope{stdio: conn}
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return ctx.Err()
		case line, ok := <-lines:
			if !ok {
				wg.Wait()
				select {
				case err := <-readErr:
					return fmt.Errorf("mcp stdio: read: %w", err)
				default:
				}
				return conn.werr
			}
			if line == nil {
				e := newTooLarge(h.maxBody)
				conn.write(h.errorBody(ctx, nil, e))
				continue
			}
			wg.Add(1)
			sem <- struct{}{}
			go func(line []byte) {
				defer func() { <-sem; wg.Done() }()
				defer func() {
					if p := recover(); p != nil {
						h.logger.Error("mcp: panic in stdio handler", "panic", redact.String(toString(p)))
					}
				}()
				o := h.process(ctx, env, line, nil)
				if o.body != nil {
					conn.write(o.body)
				}
			}(line)
		}
	}
}

// errLineTooLong marks a line over the size limit (returned with a nil line).
var errLineTooLong = errors.New("mcp stdio: line too long")

// readLine reads one line without its newline, at most max bytes; a longer
// line is consumed to its end and reported as (nil, errLineTooLong).
func readLine(r *bufio.Reader, max int64) ([]byte, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if int64(len(buf)+len(chunk)) > max+1 {
				tooLong = true
				buf = nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			if err != nil {
				return nil, err
			}
			return nil, errLineTooLong
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}
