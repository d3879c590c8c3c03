package server

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc"
)

func TestCallWorkers(t *testing.T) {
	info := &grpc.UnaryServerInfo{FullMethod: "/ghops.v1.GitHubService/GetBranches"}
	pass := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		return h(ctx, req)
	}
	boom := errors.New("boom")
	tests := []struct {
		name      string
		handler   grpc.UnaryHandler
		wantResp  any
		wantErr   error
		wantPanic any
	}{
		{name: "answer passes through", handler: func(_ context.Context, req any) (any, error) { return req.(string) + "!", nil }, wantResp: "ping!"},
		{name: "error passes through", handler: func(context.Context, any) (any, error) { return nil, boom }, wantErr: boom},
		{name: "panic is raised on the caller", handler: func(context.Context, any) (any, error) { panic("handler broke") }, wantPanic: "handler broke"},
	}
	w := newCallWorkers(2)
	t.Cleanup(w.close)
	u := w.unary(pass)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got any
			resp, err := func() (resp any, err error) {
				defer func() { got = recover() }()
				return u(context.Background(), "ping", info, tc.handler)
			}()
			if got != tc.wantPanic {
				t.Fatalf("panic = %v, want %v", got, tc.wantPanic)
			}
			if resp != tc.wantResp || !errors.Is(err, tc.wantErr) {
				t.Errorf("got %v, %v; want %v, %v", resp, err, tc.wantResp, tc.wantErr)
			}
		})
	}
	// The workers survived the panic: a call still runs on one.
	if resp, err := u(context.Background(), "again", info, tests[0].handler); resp != "again!" || err != nil {
		t.Errorf("after the panic: %v, %v", resp, err)
	}
}

// With every worker busy, a call runs on its own goroutine rather than
// waiting; after close, calls still run.
func TestCallWorkersBusyAndClosed(t *testing.T) {
	w := newCallWorkers(1)
	release, started := make(chan struct{}), make(chan struct{})
	go w.run(func() { close(started); <-release })
	<-started
	ran := false
	w.run(func() { ran = true }) // would wait for release if it queued behind the worker
	if !ran {
		t.Fatal("the call did not run")
	}
	close(release)
	w.close()
	ran = false
	w.run(func() { ran = true })
	if !ran {
		t.Fatal("the call after close did not run")
	}
}
