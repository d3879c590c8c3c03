package server

import (
	"context"
	"runtime"
	"sync"

	"google.golang.org/grpc"
)

// callWorkers runs the unary calls of the in-process channel on
// long-lived goroutines, as grpc.NumStreamWorkers does for the network
// server: the channel (grpchan's inprocgrpc) starts a goroutine per call,
// and growing that fresh goroutine's stack through the handler chain was a
// tenth of the embedded gateway's CPU over stdio (docs/benchmarks.md). The
// channel's goroutine now only waits; a worker, whose stack grew once, runs
// the chain. A call that finds every worker busy runs on the channel's
// goroutine, as before.
type callWorkers struct {
	jobs  chan func()   // an idle worker receives here
	slots chan struct{} // one per started worker, up to its capacity
	stop  chan struct{}
	once  sync.Once
}

// newCallWorkers returns workers of which at most n run at once; they start
// as calls need them.
func newCallWorkers(n int) *callWorkers {
	return &callWorkers{jobs: make(chan func()), slots: make(chan struct{}, n), stop: make(chan struct{})}
}

// run runs f on an idle worker, on a new one while fewer than the capacity
// exist, else on the calling goroutine; it returns when f has returned.
func (w *callWorkers) run(f func()) {
	done := make(chan struct{})
	job := func() {
		defer close(done)
		f()
	}
	select {
	case w.jobs <- job:
	case w.slots <- struct{}{}:
		go w.work(job)
	default:
		job()
	}
	<-done
}

// work runs jobs until close.
func (w *callWorkers) work(job func()) {
	defer func() { <-w.slots }()
	for {
		job()
		select {
		case job = <-w.jobs:
		case <-w.stop:
			return
		}
	}
}

// close ends the idle workers; a call running on one finishes first.
func (w *callWorkers) close() { w.once.Do(func() { close(w.stop) }) }

// unary runs chain on a worker. A panic that escapes chain (unaryRecover,
// inside it, turns a handler's panic into an error first) is raised again
// on the caller's goroutine, where it would have been raised without
// workers, and the worker survives it.
func (w *callWorkers) unary(chain grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
		var p any
		panicked := true
		w.run(func() {
			defer func() {
				if panicked {
					p = recover()
				}
			}()
			resp, err = chain(ctx, req, info, handler)
			panicked = false
		})
		if panicked {
			if p == nil {
				// chain called runtime.Goexit (recover gives nil only
				// then: panic(nil) recovers as *runtime.PanicNilError).
				runtime.Goexit()
			}
			panic(p)
		}
		return resp, err
	}
}
