package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"ghops.dev/gateway/internal/requestid"
	"ghops.dev/gateway/internal/rpcerror"
)

// ServeStream serves transport t over newline-delimited JSON-RPC: one
// message per line read from in, one answer per line written to out, and
// nothing else ever written to out (logs go to the logger). Messages are
// served concurrently (at most StreamConcurrency at once) so that a
// cancellation can overtake the call it cancels; answers are written whole,
// one at a time, as they complete. A line longer than MaxBody is consumed
// and answered with -32600. ServeStream returns nil at the end of in, once
// every message read has been answered; ctx's error when ctx ends first (the
// running calls are cancelled and their answers dropped); or the first read
// or write error.
func (p *Pipeline) ServeStream(ctx context.Context, t Transport, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Stream{}
	w := &lineWriter{out: out}
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(r, p.opts.MaxBody)
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
	// Messages run on up to StreamConcurrency workers that live as long as
	// the stream, not on a goroutine each: a call's path is deep, and a new
	// goroutine grew its stack through it on every message (a tenth of the
	// embedded gateway's CPU per call, docs/benchmarks.md).
	work := make(chan func())
	defer close(work)
	workers := 0
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
					return fmt.Errorf("stdio: read: %w", err)
				default:
				}
				return w.err()
			}
			x := &Body{Stream: s, RequestID: requestid.New(), Transport: t.Name(), notify: w.write}
			if line == nil {
				e := rpcerror.Newf(rpcerror.InvalidRequest, "Invalid Request: message exceeds the limit of %d bytes", p.opts.MaxBody)
				o := p.refuse(ctx, t, x, &Refusal{Err: e})
				w.write(o.body)
				continue
			}
			wg.Add(1)
			job := func() {
				defer wg.Done()
				// Its calls recover in serveCall; the framing around them
				// answers every line without panicking (fuzzed).
				o := p.serveBody(ctx, t, x, line)
				if o.body != nil && !o.gone {
					w.write(o.body)
				}
			}
			select {
			case work <- job: // an idle worker
			default:
				if workers < p.opts.StreamConcurrency {
					workers++
					go func() {
						job()
						for f := range work {
							f()
						}
					}()
				} else {
					work <- job // all busy: wait for one, as the cap says
				}
			}
		}
	}
}

// lineWriter writes whole messages, one per line, one at a time, and
// remembers the first write error (after which it writes nothing).
type lineWriter struct {
	mu   sync.Mutex
	out  io.Writer
	werr error
}

// write sends b and a newline. Encoded JSON never holds a raw newline; a
// body that somehow does is compacted first so the framing survives.
func (w *lineWriter) write(b []byte) {
	if bytes.IndexByte(b, '\n') >= 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err == nil {
			b = buf.Bytes()
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.werr != nil {
		return
	}
	if _, err := w.out.Write(append(b[:len(b):len(b)], '\n')); err != nil {
		w.werr = err
	}
}

// err returns the first write error.
func (w *lineWriter) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.werr
}

// errLineTooLong marks a line over the size limit (returned with a nil line).
var errLineTooLong = errors.New("stdio: line too long")

// readLine reads one line without its line ending, at most max bytes; a
// longer line is consumed to its end and reported as (nil, errLineTooLong),
// so one oversized message never desynchronises the stream.
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
