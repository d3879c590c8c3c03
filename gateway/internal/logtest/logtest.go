// Package logtest provides Buffer, the goroutine-safe writer tests give a
// gateway as its log output so that they can read what it logged while
// requests are still being served.
package logtest

import (
	"bytes"
	"strings"
	"sync"
)

// errorLinePrefix starts every line rpcerror.Sink writes for an error answer.
const errorLinePrefix = "jsonrpc_error "

// Buffer is a bytes.Buffer safe for concurrent writers and readers. The zero
// value is ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// ErrorLines returns the jsonrpc_error lines written so far, in order.
func (b *Buffer) ErrorLines() []string {
	var out []string
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, errorLinePrefix) {
			out = append(out, line)
		}
	}
	return out
}
