package e2e

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ghops.dev/infra/redistest"
	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"

	"ghops.dev/gateway/gatewaytest"
	"ghops.dev/gateway/internal/config"
)

const (
	keyShared5 = "ghk_shared5_0123456789abcdef01234"
	keyFree    = "ghk_free_0123456789abcdef01234567"
)

var sharedPolicy = `principals:
  - name: five-a-minute
    key_sha256: ` + sha256hex(keyShared5) + `
    rate_per_minute: 5
  - name: free
    key_sha256: ` + sha256hex(keyFree) + `
`

// TestSharedState runs two gateways, each in front of its own service, one
// fakehub and one Redis that all four share, as replicas behind a load
// balancer would: the edge's quotas, the service's cache and each token's
// GitHub budget hold across replicas, and an outage of Redis stops nothing.
func TestSharedState(t *testing.T) {
	rs := redistest.Start(t)
	// fakehub's clock runs an hour minus 4s behind, so that a rate-limit
	// window started now reports a reset 4s away (see resetWindow).
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo", Now: func() time.Time { return time.Now().Add(-time.Hour + 4*time.Second) }})
	opts := gatewaytest.StackOptions{Policy: sharedPolicy, Configure: func(c *config.Config) { c.RedisURL = rs.URL }}
	var gw [2]*gatewaytest.Gateway
	var svcLogs [2]*gatewaytest.SyncBuffer
	for i := range gw {
		svcLogs[i] = &gatewaytest.SyncBuffer{}
		svc := servicetest.Start(t, servicetest.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken, RedisURL: rs.URL, CallTimeout: 20 * time.Second,
			Logger: slog.New(slog.NewJSONHandler(svcLogs[i], nil))})
		gw[i] = gatewaytest.StartGateway(t, svc.Addr, opts)
	}
	const repo = "octo-org/hello-world"
	calls := func() int { return hub.Hub.Stats().Total }
	call := func(t *testing.T, g int, key, tool, args string) (json.RawMessage, int, map[string]json.RawMessage, string) {
		t.Helper()
		resp, out := rpcCall(t, gw[g].URL, tool, args, "Authorization", "Bearer "+key)
		code, data := errOf(t, out)
		var e struct {
			Message string `json:"message"`
		}
		if out["error"] != nil {
			_ = json.Unmarshal(out["error"], &e)
			if code == -32004 && resp.Header.Get("Retry-After") == "" {
				t.Errorf("a -32004 without Retry-After")
			}
		}
		return out["result"], code, data, e.Message
	}

	t.Run("a quota of 5 a minute holds across both gateways", func(t *testing.T) {
		for i := range 5 {
			if _, code, _, msg := call(t, i%2, keyShared5, "get_branches", `{"repo":"`+repo+`"}`); code != 0 {
				t.Fatalf("call %d via gateway %c: %d %s", i+1, 'A'+i%2, code, msg)
			}
		}
		before := calls()
		for g := range gw {
			_, code, data, _ := call(t, g, keyShared5, "get_branches", `{"repo":"`+repo+`"}`)
			if code != -32004 || !bytes.Contains(data["policy"], []byte(`"rule":"rate_per_minute"`)) {
				t.Errorf("6th call via gateway %c: code %d data %v", 'A'+g, code, data)
			}
		}
		if n := calls() - before; n != 0 {
			t.Errorf("refused calls made %d GitHub requests", n)
		}
	})

	t.Run("a SHA-addressed read through B after the same read through A makes no GitHub request", func(t *testing.T) {
		head, err := hub.Hub.BranchSHA(repo, "main")
		if err != nil {
			t.Fatal(err)
		}
		reads := []struct{ tool, args string }{
			{"read_file", `{"repo":"` + repo + `","path":"README.md","ref":"` + head + `"}`},
			{"list_directory", `{"repo":"` + repo + `","path":"/","ref":"` + head + `"}`},
			{"get_tree", `{"repo":"` + repo + `","ref":"` + head + `"}`},
			{"get_commits", `{"repo":"` + repo + `","sha":"` + head + `"}`},
		}
		for _, r := range reads {
			t.Run(r.tool, func(t *testing.T) {
				before := calls()
				viaA, code, _, msg := call(t, 0, keyFree, r.tool, r.args)
				if code != 0 || calls() == before {
					t.Fatalf("via A: code %d %s, %d GitHub requests", code, msg, calls()-before)
				}
				before = calls()
				viaB, code, _, msg := call(t, 1, keyFree, r.tool, r.args)
				if code != 0 {
					t.Fatalf("via B: %d %s", code, msg)
				}
				if n := calls() - before; n != 0 {
					t.Errorf("via B: %d GitHub requests, want 0", n)
				}
				if !bytes.Equal(viaA, viaB) {
					t.Errorf("answers differ:\nA %s\nB %s", viaA, viaB)
				}
			})
		}
		t.Run("a branch read through B resolves the head (one request) and reads the rest from the cache", func(t *testing.T) {
			before := calls()
			if _, code, _, msg := call(t, 1, keyFree, "read_file", `{"repo":"`+repo+`","path":"README.md","ref":"main"}`); code != 0 {
				t.Fatalf("%d %s", code, msg)
			}
			if n := calls() - before; n != 1 {
				t.Errorf("%d GitHub requests, want 1", n)
			}
		})
	})

	t.Run("a primary limit seen by one service is honoured by the other and lifted at the reset", func(t *testing.T) {
		hub.Hub.ResetRateLimits() // a new window: it resets in 4s
		hub.Hub.SetFaults([]fakehub.Fault{{Route: "/repos/{owner}/{repo}/branches", RateLimit: "primary", Count: 1}})
		_, code, data, _ := call(t, 0, keyFree, "get_branches", `{"repo":"`+repo+`"}`)
		if code != -32004 || !bytes.Contains(data["github"], []byte(`"status":403`)) {
			t.Fatalf("GitHub's limit via A: code %d data %v", code, data)
		}
		var rl struct {
			Reset int64 `json:"reset"`
		}
		if err := json.Unmarshal(data["rateLimit"], &rl); err != nil || rl.Reset == 0 {
			t.Fatalf("rateLimit %s: %v", data["rateLimit"], err)
		}
		reset := time.Unix(rl.Reset, 0)
		for g := range gw {
			before := calls()
			_, code, data, msg := call(t, 1-g, keyFree, "get_branches", `{"repo":"`+repo+`"}`)
			if code != -32004 || data["github"] != nil || data["retryAfter"] == nil ||
				!bytes.Contains(data["rateLimit"], []byte(`"remaining":0`)) || !bytes.Contains(data["rateLimit"], []byte(`"limit":5000`)) {
				t.Errorf("via gateway %c: code %d data %v", 'B'-g, code, data)
			}
			if !strings.Contains(msg, "not sent") || !strings.Contains(msg, reset.UTC().Format(time.RFC3339)) || strings.Contains(msg, "m=+") {
				t.Errorf("via gateway %c: message %q", 'B'-g, msg)
			}
			if n := calls() - before; n != 0 {
				t.Errorf("via gateway %c: %d GitHub requests, want 0", 'B'-g, n)
			}
		}
		time.Sleep(time.Until(reset) + 200*time.Millisecond)
		hub.Hub.ResetRateLimits() // GitHub refills the bucket at the reset
		for g := range gw {
			if _, code, _, msg := call(t, g, keyFree, "get_branches", `{"repo":"`+repo+`"}`); code != 0 {
				t.Errorf("after the reset via gateway %c: %d %s", 'A'+g, code, msg)
			}
		}
	})

	t.Run("Redis stopped in the middle of a load: reads keep working", func(t *testing.T) {
		head, err := hub.Hub.BranchSHA(repo, "main")
		if err != nil {
			t.Fatal(err)
		}
		loads := []struct{ tool, args string }{
			{"read_file", `{"repo":"` + repo + `","path":"README.md","ref":"main"}`},
			{"read_file", `{"repo":"` + repo + `","path":"README.md","ref":"` + head + `"}`},
			{"get_branches", `{"repo":"` + repo + `"}`},
			{"get_tree", `{"repo":"` + repo + `","ref":"` + head + `"}`},
		}
		var done atomic.Int32
		stopped := make(chan struct{})
		var once sync.Once
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 30 {
					l := loads[(w+i)%len(loads)]
					// every load through each gateway
					resp, out := rpcCall(t, gw[(w+i)/len(loads)%2].URL, l.tool, l.args, "Authorization", "Bearer "+keyFree)
					if out["result"] == nil {
						t.Errorf("worker %d call %d (%s, HTTP %d): %s", w, i, l.tool, resp.StatusCode, out["error"])
						return
					}
					if done.Add(1) == 40 {
						once.Do(func() { rs.Stop(); close(stopped) })
					}
				}
			}()
		}
		wg.Wait()
		select {
		case <-stopped:
		default:
			t.Fatal("Redis was never stopped")
		}
		if done.Load() != 120 {
			t.Errorf("%d of 120 calls answered", done.Load())
		}
		for i, l := range svcLogs {
			if n := strings.Count(l.String(), "redis unreachable"); n != 1 {
				t.Errorf("service %c logged the outage %d times:\n%s", 'A'+i, n, l.String())
			}
		}
	})
}
