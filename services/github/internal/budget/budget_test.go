package budget_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ghops.dev/infra/redisconn"
	"ghops.dev/infra/redistest"
	"ghops.dev/services/github/internal/budget"
)

// replicas returns two budgets that stand for two replicas: two Locals
// share nothing, two Redis budgets share one Redis.
type replicas func(t *testing.T, l budget.Limits) (a, b budget.Budget)

func localReplicas(t *testing.T, l budget.Limits) (budget.Budget, budget.Budget) {
	return budget.NewLocal(l, budget.Hooks{}), budget.NewLocal(l, budget.Hooks{})
}

func redisReplicas(srv *redistest.Server, o budget.RedisOptions) replicas {
	return func(t *testing.T, l budget.Limits) (budget.Budget, budget.Budget) {
		mk := func() budget.Budget {
			conn, err := redisconn.Dial(srv.URL, redisconn.Options{Timeout: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = conn.Close() })
			o.Prefix = "t:" + strings.ReplaceAll(t.Name(), "/", ":") + ":"
			return budget.NewRedis(conn, l, budget.Hooks{}, o)
		}
		return mk(), mk()
	}
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestBudgets(t *testing.T) {
	srv := redistest.Start(t)
	impls := []struct {
		name   string
		make   replicas
		shared bool
	}{
		{name: "local", make: localReplicas},
		{name: "redis", make: redisReplicas(srv, budget.RedisOptions{FailOpen: true, Lease: 300 * time.Millisecond}), shared: true},
	}
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			t.Run("a spent primary limit refuses until the reset, on the replica that saw it and on the others when shared", func(t *testing.T) {
				a, b := impl.make(t, budget.Limits{})
				reset := time.Now().Add(1500 * time.Millisecond).Truncate(time.Second).Add(time.Second)
				a.Observe(context.Background(), "tok", budget.Snapshot{Resource: "core", Limit: 5000, Remaining: 0, Reset: reset})
				for _, r := range []struct {
					name    string
					b       budget.Budget
					refused bool
				}{{"A", a, true}, {"B", b, impl.shared}} {
					_, err := r.b.Admit(ctxFor(t, time.Second), "tok", "core", false)
					var ex *budget.Exhausted
					if errors.As(err, &ex) != r.refused {
						t.Fatalf("%s: Admit = %v, want refused %v", r.name, err, r.refused)
					}
					if r.refused && (ex.Limit != 5000 || ex.Remaining != 0 || !ex.Reset.Equal(reset) ||
						!strings.Contains(ex.Error(), reset.UTC().Format(time.RFC3339)) || !strings.Contains(ex.Error(), "not sent") || strings.Contains(ex.Error(), "m=")) {
						t.Errorf("%s: refusal %+v %q", r.name, ex.Snapshot, ex.Error())
					}
				}
				if rel, err := a.Admit(ctxFor(t, time.Second), "other-token", "core", false); err != nil {
					t.Errorf("another token refused: %v", err)
				} else {
					rel()
				}
				if rel, err := a.Admit(ctxFor(t, time.Second), "tok", "search", false); err != nil {
					t.Errorf("another resource refused: %v", err)
				} else {
					rel()
				}
				time.Sleep(time.Until(reset) + 50*time.Millisecond)
				for _, r := range []budget.Budget{a, b} {
					rel, err := r.Admit(ctxFor(t, time.Second), "tok", "core", false)
					if err != nil {
						t.Fatalf("after the reset: %v", err)
					}
					rel()
				}
			})
			t.Run("a later remaining does not lift a block of the same window", func(t *testing.T) {
				a, b := impl.make(t, budget.Limits{})
				reset := time.Now().Add(time.Hour).Truncate(time.Second)
				a.Observe(context.Background(), "tok", budget.Snapshot{Resource: "core", Limit: 10, Remaining: 0, Reset: reset})
				a.Observe(context.Background(), "tok", budget.Snapshot{Resource: "core", Limit: 10, Remaining: 3, Reset: reset})
				b.Observe(context.Background(), "tok", budget.Snapshot{Resource: "core", Limit: 10, Remaining: 3, Reset: reset})
				if _, err := a.Admit(ctxFor(t, time.Second), "tok", "core", false); !errors.As(err, new(*budget.Exhausted)) {
					t.Errorf("A admitted: %v", err)
				}
			})
			t.Run("concurrency is capped per token", func(t *testing.T) {
				a, b := impl.make(t, budget.Limits{Concurrency: 2})
				var rels []func()
				for _, r := range []budget.Budget{a, a} {
					rel, err := r.Admit(ctxFor(t, time.Second), "tok", "core", false)
					if err != nil {
						t.Fatal(err)
					}
					rels = append(rels, rel)
				}
				third := a
				if impl.shared {
					third = b
				}
				if _, err := third.Admit(ctxFor(t, 100*time.Millisecond), "tok", "core", false); !errors.As(err, new(*budget.Busy)) {
					t.Fatalf("third request: %v, want Busy", err)
				}
				done := make(chan error, 1)
				go func() {
					rel, err := third.Admit(ctxFor(t, 5*time.Second), "tok", "core", false)
					if err == nil {
						rel()
					}
					done <- err
				}()
				rels[0]()
				rels[0]() // twice is once
				if err := <-done; err != nil {
					t.Fatalf("after a release: %v", err)
				}
				rels[1]()
			})
			t.Run("writes are paced", func(t *testing.T) {
				a, b := impl.make(t, budget.Limits{WritesPerMinute: 8}) // a burst of 2, then one each 10s
				for i, r := range []budget.Budget{a, b} {
					rel, err := r.Admit(ctxFor(t, time.Second), "tok", "core", true)
					if err != nil {
						t.Fatalf("write %d: %v", i, err)
					}
					rel()
				}
				next := b
				if !impl.shared {
					next = a
					rel, err := a.Admit(ctxFor(t, time.Second), "tok", "core", true)
					if err != nil {
						t.Fatal(err)
					}
					rel()
				}
				var paced *budget.Paced
				if _, err := next.Admit(ctxFor(t, 200*time.Millisecond), "tok", "core", true); !errors.As(err, &paced) || paced.Wait < 5*time.Second {
					t.Fatalf("third write: %v, want Paced about 10s", err)
				}
				if rel, err := next.Admit(ctxFor(t, 200*time.Millisecond), "tok", "core", false); err != nil {
					t.Errorf("a read waited for the write pace: %v", err)
				} else {
					rel()
				}
			})
		})
	}
}

func TestRedisLeaseAndOutage(t *testing.T) {
	srv := redistest.Start(t)
	var errs atomic.Int32
	mk := func(failOpen bool, lease time.Duration) *budget.Redis {
		conn, err := redisconn.Dial(srv.URL, redisconn.Options{Timeout: 50 * time.Millisecond, Pause: 200 * time.Millisecond,
			OnError: func(string) { errs.Add(1) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		return budget.NewRedis(conn, budget.Limits{Concurrency: 1}, budget.Hooks{}, budget.RedisOptions{FailOpen: failOpen, Lease: lease})
	}
	t.Run("a crashed replica's slot is freed when its lease ends", func(t *testing.T) {
		crashed := mk(true, 300*time.Millisecond)
		if _, err := crashed.Admit(ctxFor(t, time.Second), "lease-tok", "core", false); err != nil {
			t.Fatal(err)
		}
		// never released
		other := mk(true, time.Minute)
		rel, err := other.Admit(ctxFor(t, 3*time.Second), "lease-tok", "core", false)
		if err != nil {
			t.Fatalf("slot not freed by its lease: %v", err)
		}
		rel()
	})
	open, closed := mk(true, time.Minute), mk(false, time.Minute)
	srv.Stop()
	tests := []struct {
		name    string
		b       *budget.Redis
		wantErr error
	}{
		{name: "fail open: the replica's own budget admits", b: open},
		{name: "fail closed: refused, not sent", b: closed, wantErr: budget.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run("Redis down, "+tt.name, func(t *testing.T) {
			start := time.Now()
			rel, err := tt.b.Admit(ctxFor(t, 5*time.Second), "tok", "core", true)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Admit = %v, want %v", err, tt.wantErr)
			}
			if err == nil {
				rel()
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("waited %v on a dead Redis", d)
			}
		})
	}
	if errs.Load() == 0 {
		t.Error("Redis failures not counted")
	}
}

func TestTransport(t *testing.T) {
	var hits atomic.Int32
	reset := time.Now().Add(time.Hour).Unix()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("X-Ratelimit-Limit", "60")
		w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(reset, 10))
		w.Header().Set("X-Ratelimit-Resource", "core")
		if r.URL.Path == "/spend" {
			w.Header().Set("X-Ratelimit-Remaining", "0")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"message":"API rate limit exceeded"}`)
			return
		}
		w.Header().Set("X-Ratelimit-Remaining", "59")
		_, _ = io.WriteString(w, "{}")
	}))
	t.Cleanup(ts.Close)
	c := &http.Client{Transport: &budget.Transport{Budget: budget.NewLocal(budget.Limits{Concurrency: 5}, budget.Hooks{})}}
	get := func(path, auth string) (*http.Response, error) {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Authorization", auth)
		resp, err := c.Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		return resp, err
	}
	steps := []struct {
		name, path, auth string
		wantRefused      bool
		wantHits         int32
	}{
		{name: "answered", path: "/ok", auth: "token a", wantHits: 1},
		{name: "GitHub says the limit is spent", path: "/spend", auth: "token a", wantHits: 2},
		{name: "then the token's next request is not sent", path: "/ok", auth: "token a", wantRefused: true, wantHits: 2},
		{name: "another token's is", path: "/ok", auth: "token b", wantHits: 3},
		{name: "a search is another resource", path: "/search/repositories", auth: "token a", wantHits: 4},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			_, err := get(s.path, s.auth)
			var ex *budget.Exhausted
			if errors.As(err, &ex) != s.wantRefused || hits.Load() != s.wantHits {
				t.Errorf("err %v, GitHub hits %d (want refused %v, %d)", err, hits.Load(), s.wantRefused, s.wantHits)
			}
		})
	}
}

func TestResourceOf(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/repos/o/r", "core"}, {"/api/v3/search/code", "code_search"}, {"/search/repositories", "search"}, {"/api/graphql", "graphql"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := budget.ResourceOf(tt.path); got != tt.want {
				t.Errorf("got %q", got)
			}
		})
	}
}

func FuzzSnapshotOf(f *testing.F) {
	f.Add("5000", "0", "1700000000", "core")
	f.Add("", "", "", "")
	f.Add("-1", "-5", "99999999999999999999", "search")
	f.Fuzz(func(t *testing.T, limit, rem, reset, res string) {
		h := http.Header{"X-Ratelimit-Limit": {limit}, "X-Ratelimit-Remaining": {rem}, "X-Ratelimit-Reset": {reset}, "X-Ratelimit-Resource": {res}}
		s, ok := budget.SnapshotOf(h)
		if ok && (s.Limit <= 0 || s.Remaining < 0 || s.Reset.Unix() <= 0 || s.Resource == "") {
			t.Fatalf("accepted %+v", s)
		}
	})
}
