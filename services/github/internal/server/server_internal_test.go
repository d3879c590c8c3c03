package server

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"ghops.dev/services/github/internal/config"
)

func TestRecover(t *testing.T) {
	s, err := New(config.Config{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		value any
	}{
		{name: "string panic", value: "boom"},
		{name: "error panic", value: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.unaryRecover(context.Background(), nil, &grpc.UnaryServerInfo{FullMethod: "/ghops.v1.GitHubService/Fetch"},
				func(context.Context, any) (any, error) { panic(tt.value) })
			if status.Code(err) != codes.Internal || status.Convert(err).Message() != "internal error" {
				t.Errorf("got %v", err)
			}
		})
	}
}

// TestGracefulShutdown starts a call, shuts down while it is in flight, and
// checks that the call still completes.
func TestGracefulShutdown(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		_, _ = w.Write([]byte(`[]`))
	}))
	t.Cleanup(gh.Close)
	s, err := New(config.Config{GitHubURL: gh.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	conn, served := serve(t, s)
	callErr := make(chan error, 1)
	go func() {
		_, err := ghopsv1.NewGitHubServiceClient(conn).GetBranches(context.Background(), &ghopsv1.GetBranchesRequest{Repo: "o/r"})
		callErr <- err
	}()
	<-entered
	shut := make(chan struct{})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		close(shut)
	}()
	// Release GitHub only once shutdown has begun (health flips first).
	for {
		r, err := s.health.Check(context.Background(), &healthpb.HealthCheckRequest{})
		if err == nil && r.Status == healthpb.HealthCheckResponse_NOT_SERVING {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-callErr; err != nil {
		t.Errorf("in-flight call failed during shutdown: %v", err)
	}
	<-shut
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// serve runs s on a 127.0.0.1 listener and returns a client connection to it,
// closed when the test ends, and the channel Serve's result arrives on.
func serve(t testing.TB, s *Server) (*grpc.ClientConn, <-chan error) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(lis) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn, served
}
