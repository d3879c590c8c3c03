package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// errServerGone is a call's failure once the stdio server has closed its output (it exited).
var errServerGone = errors.New("loadgen: the stdio server closed its output")

// stdioServer is an MCP server process the load generator starts and speaks to over its standard
// input and output, one JSON-RPC message per line (MCP's stdio transport). The workers share it, as
// an MCP host's concurrent tool calls share one server: their messages are written one at a time,
// and one reader hands each answer to the worker waiting for its id, in whatever order they come.
// Hand-written like the HTTP side: the package measures raw JSON-RPC round trips with the standard
// library alone (its doc says why), and line framing plus routing by id is all the client it needs.
type stdioServer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	wmu   sync.Mutex // one message at a time on stdin

	mu      sync.Mutex
	waiting map[string]chan []byte // by the id's JSON text
	gone    chan struct{}          // closed when stdout ends
}

// startStdio starts argv with the load generator's environment (so secrets reach the server
// through variables, never the command line) and its standard error discarded: server logs are not
// part of the measure.
func startStdio(argv []string) (*stdioServer, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("loadgen: stdio server: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("loadgen: stdio server: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("loadgen: starting the stdio server: %w", err)
	}
	s := &stdioServer{cmd: cmd, stdin: in, waiting: map[string]chan []byte{}, gone: make(chan struct{})}
	go s.read(out)
	return s, nil
}

// read hands each answer to its waiter until stdout ends. Lines that are not answers (notifications
// and requests from the server, which have a method) and answers nobody waits for (a call that
// timed out) are dropped.
func (s *stdioServer) read(out io.Reader) {
	defer close(s.gone)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), maxAnswer)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Method != "" || len(m.ID) == 0 {
			continue
		}
		s.mu.Lock()
		ch := s.waiting[string(m.ID)]
		delete(s.waiting, string(m.ID))
		s.mu.Unlock()
		if ch != nil {
			ch <- bytes.Clone(sc.Bytes()) // buffered: never blocks the reader
		}
	}
	// A scan error (a line over maxAnswer) ends the reading like an exit does: the calls waiting
	// fail instead of hanging.
}

// send writes msg (one JSON value without a newline) and, when id is not empty, waits for the
// answer with that id, the end of the server's output or ctx.
func (s *stdioServer) send(ctx context.Context, id string, msg []byte) ([]byte, error) {
	var ch chan []byte
	if id != "" {
		ch = make(chan []byte, 1)
		s.mu.Lock()
		s.waiting[id] = ch
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.waiting, id)
			s.mu.Unlock()
		}()
	}
	s.wmu.Lock()
	_, err := s.stdin.Write(append(msg, '\n'))
	s.wmu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("loadgen: writing to the stdio server: %w", err)
	}
	if ch == nil {
		return nil, nil
	}
	select {
	case data := <-ch:
		return data, nil
	case <-s.gone:
		select { // the answer may have come just before the end
		case data := <-ch:
			return data, nil
		default:
			return nil, errServerGone
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// stop closes the server's input, which is how MCP's stdio transport asks a server to exit, and
// kills it when it has not closed its output 5 seconds later.
func (s *stdioServer) stop() {
	_ = s.stdin.Close()
	select {
	case <-s.gone:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.gone
	}
	_ = s.cmd.Wait()
}
