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

// TestShares charges principals against their share of a token's budget,
// in the process and through a real redis-server: a principal's requests
// past its share are refused with *Spent until the window ends, on every
// replica when shared; other principals, tokens and resources are not.
func TestShares(t *testing.T) {
	srv := redistest.Start(t)
	impls := []struct {
		name   string
		make   replicas
		shared bool
	}{
		{name: "local", make: localReplicas},
		{name: "redis", make: redisReplicas(srv, budget.RedisOptions{FailOpen: true}), shared: true},
	}
	const share = 3
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			a, b := impl.make(t, budget.Limits{})
			charge := func(r budget.Budget, token, principal, resource string) error {
				return r.Charge(ctxFor(t, time.Second), token, principal, resource, share)
			}
			for i := range share {
				if err := charge(a, "tok", "apikey:greedy", "core"); err != nil {
					t.Fatalf("request %d within the share: %v", i+1, err)
				}
			}
			steps := []struct {
				name                       string
				r                          budget.Budget
				token, principal, resource string
				refused                    bool
			}{
				{name: "past the share", r: a, token: "tok", principal: "apikey:greedy", resource: "core", refused: true},
				{name: "past the share on the other replica", r: b, token: "tok", principal: "apikey:greedy", resource: "core", refused: impl.shared},
				{name: "another principal", r: a, token: "tok", principal: "github:octocat", resource: "core"},
				{name: "another principal of the same name, another kind", r: a, token: "tok", principal: "github:greedy", resource: "core"},
				{name: "another token", r: a, token: "tok2", principal: "apikey:greedy", resource: "core"},
				{name: "another resource", r: a, token: "tok", principal: "apikey:greedy", resource: "search"},
			}
			for _, s := range steps {
				t.Run(s.name, func(t *testing.T) {
					err := charge(s.r, s.token, s.principal, s.resource)
					var spent *budget.Spent
					if errors.As(err, &spent) != s.refused || (!s.refused && err != nil) {
						t.Fatalf("Charge = %v, want refused %v", err, s.refused)
					}
					if s.refused {
						end := time.Now().Truncate(time.Hour).Add(time.Hour)
						if spent.Principal != s.principal || spent.Share != share || !spent.Reset.Equal(end) || !strings.Contains(spent.Error(), "not sent") {
							t.Errorf("refusal %+v: %s", spent, spent.Error())
						}
					}
				})
			}
		})
	}
	t.Run("redis down", func(t *testing.T) {
		mk := func(failOpen bool) *budget.Redis {
			conn, err := redisconn.Dial(srv.URL, redisconn.Options{Timeout: 50 * time.Millisecond, Pause: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = conn.Close() })
			return budget.NewRedis(conn, budget.Limits{}, budget.Hooks{}, budget.RedisOptions{Prefix: "t:down:", FailOpen: failOpen})
		}
		open, closed := mk(true), mk(false)
		srv.Stop()
		if err := open.Charge(ctxFor(t, time.Second), "tok", "apikey:a", "core", 1); err != nil {
			t.Errorf("fail open: %v", err)
		}
		if err := open.Charge(ctxFor(t, time.Second), "tok", "apikey:a", "core", 1); !errors.As(err, new(*budget.Spent)) {
			t.Errorf("fail open keeps the replica's own count: %v", err)
		}
		if err := closed.Charge(ctxFor(t, time.Second), "tok", "apikey:a", "core", 1); !errors.Is(err, budget.ErrUnavailable) {
			t.Errorf("fail closed: %v, want ErrUnavailable", err)
		}
	})
}

// TestTransportShares sends requests of principals through Transport to a
// loopback GitHub reporting a limit of 10: at 50%, a principal's sixth
// request in the window is not sent, with the share, the setting and the
// token's limit named; requests with no principal are not charged.
func TestTransportShares(t *testing.T) {
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("X-Ratelimit-Limit", "10")
		w.Header().Set("X-Ratelimit-Remaining", "9")
		w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		w.Header().Set("X-Ratelimit-Resource", "core")
		_, _ = io.WriteString(w, "{}")
	}))
	t.Cleanup(ts.Close)
	c := &http.Client{Transport: &budget.Transport{Budget: budget.NewLocal(budget.Limits{}, budget.Hooks{}), SharePercent: 50}}
	get := func(principal string) error {
		ctx := context.Background()
		if principal != "" {
			ctx = budget.WithPrincipal(ctx, principal)
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/repos/o/r", nil)
		req.Header.Set("Authorization", "token a")
		resp, err := c.Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		return err
	}
	steps := []struct {
		name, principal string
		times           int
		wantRefused     bool
		wantHits        int32
	}{
		{name: "five requests: half the reported limit", principal: "apikey:a", times: 5, wantHits: 5},
		{name: "the sixth is not sent", principal: "apikey:a", times: 1, wantRefused: true, wantHits: 5},
		{name: "another principal is served", principal: "apikey:b", times: 1, wantHits: 6},
		{name: "no principal, not charged", principal: "", times: 7, wantHits: 13},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			var err error
			for range s.times {
				if err = get(s.principal); err != nil {
					break
				}
			}
			var spent *budget.Spent
			if errors.As(err, &spent) != s.wantRefused || (!s.wantRefused && err != nil) || hits.Load() != s.wantHits {
				t.Fatalf("err %v, GitHub hits %d; want refused %v, %d hits", err, hits.Load(), s.wantRefused, s.wantHits)
			}
			if s.wantRefused && (spent.Share != 5 || spent.Percent != 50 || spent.Limit != 10 ||
				!strings.Contains(spent.Error(), "principal apikey:a") || !strings.Contains(spent.Error(), "-principal-share 50%")) {
				t.Errorf("refusal %+v: %s", spent, spent.Error())
			}
		})
	}
}
