// Package redistest starts a throw-away redis-server for a test: on
// 127.0.0.1 at a free port, without persistence, stopped when the test
// ends. It lives outside internal/ so that the gateway's end-to-end tests
// share it with the service's own tests.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ghops.dev/infra/redisbin"
)

// Server is a running redis-server.
type Server struct {
	// Addr is 127.0.0.1:port.
	Addr string
	// URL is redis://Addr/0, the form -redis-url takes.
	URL string

	mu   sync.Mutex
	cmd  *exec.Cmd
	port int
	bin  string
}

// Start runs redis-server for t (see package redisbin for a machine without one).
func Start(t testing.TB) *Server {
	t.Helper()
	bin := redisbin.Path(t)
	port, err := freePort()
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), port: port, bin: bin}
	s.URL = "redis://" + s.Addr + "/0"
	if err := s.start(); err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd = cmd
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer c.Close()
	for range 200 {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return fmt.Errorf("redis-server on %s did not answer", s.Addr)
}

// Stop ends the server (a Redis outage, in tests that call it midway); it
// is idempotent.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a frozen server would not die
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Freeze stops the server's process without ending it (SIGSTOP): Redis
// then accepts connections but never answers, as a Redis that is slow.
func (s *Server) Freeze(t testing.TB) {
	t.Helper()
	s.signal(t, syscall.SIGSTOP)
}

// Thaw lets a frozen server go on (SIGCONT).
func (s *Server) Thaw(t testing.TB) {
	t.Helper()
	s.signal(t, syscall.SIGCONT)
}

func (s *Server) signal(t testing.TB, sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		t.Fatal("redistest: the server is not running")
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("redistest: %v", err)
	}
}

// Restart starts the server again on the same port, empty.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		t.Fatalf("redistest: %v", err)
	}
}

// Client returns a client of the server, closed when the test ends.
func (s *Server) Client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	return c
}
