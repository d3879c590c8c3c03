package budget

import (
	"context"
	"sync"
	"time"

	"ghops.dev/infra/ctxsleep"
)

// Local is the in-process Budget: what one replica learned and spends.
type Local struct {
	limits Limits
	hooks  Hooks

	mu       sync.Mutex
	blocks   map[string]Snapshot // token + resource -> a spent limit
	inFlight map[string]int      // token -> requests in flight
	tat      map[string]time.Time
	spent    map[string]shareCount // token + principal + resource -> this window's requests
}

// NewLocal returns an empty in-process budget.
func NewLocal(l Limits, h Hooks) *Local {
	return &Local{limits: l, hooks: h, blocks: map[string]Snapshot{}, inFlight: map[string]int{}, tat: map[string]time.Time{}, spent: map[string]shareCount{}}
}

// Blocked returns the snapshot that forbids token's requests to resource
// now, if any.
func (b *Local) Blocked(token, resource string) (Snapshot, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := token + "\x00" + resource
	s, ok := b.blocks[k]
	if !ok {
		return Snapshot{}, false
	}
	if !s.Blocked(time.Now()) {
		if !s.Reset.IsZero() && !time.Now().Before(s.Reset) {
			delete(b.blocks, k) // the window is over: forget it
		}
		return Snapshot{}, false
	}
	return s, true
}

// Observe implements Budget. Only spent limits are kept (a block until the
// reset): within one window a later answer with requests left does not lift
// it (answers may arrive out of order), a later window does.
func (b *Local) Observe(_ context.Context, token string, s Snapshot) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := token + "\x00" + s.Resource
	cur, ok := b.blocks[k]
	if s.Remaining > 0 {
		if ok && s.Reset.After(cur.Reset) {
			delete(b.blocks, k)
		}
		return
	}
	if ok && s.Reset.Before(cur.Reset) {
		return
	}
	if len(b.blocks) >= sweepAt {
		now := time.Now()
		for k, v := range b.blocks {
			if !v.Blocked(now) {
				delete(b.blocks, k)
			}
		}
	}
	b.blocks[k] = s
}

// sweepAt is the map size at which finished entries are dropped, so that
// many callers' tokens do not grow the maps without end.
const sweepAt = 1024

// Admit implements Budget.
func (b *Local) Admit(ctx context.Context, token, resource string, write bool) (func(), error) {
	if s, ok := b.Blocked(token, resource); ok {
		b.hooks.refuse("exhausted")
		return nil, &Exhausted{s}
	}
	if write && b.limits.WritesPerMinute > 0 {
		if err := b.pace(ctx, token); err != nil {
			return nil, err
		}
	}
	return b.slot(ctx, token)
}

func (b *Local) pace(ctx context.Context, token string) error {
	interval, tol := pace(b.limits.WritesPerMinute)
	b.mu.Lock()
	now := time.Now()
	tat := b.tat[token]
	if tat.Before(now) {
		tat = now
	}
	wait := max(tat.Sub(now)-tol, 0)
	if wait > remaining(ctx) {
		b.mu.Unlock()
		b.hooks.refuse("paced")
		return &Paced{Wait: wait}
	}
	if len(b.tat) >= sweepAt {
		for k, v := range b.tat {
			if v.Before(now) {
				delete(b.tat, k)
			}
		}
	}
	b.tat[token] = tat.Add(interval)
	b.mu.Unlock()
	b.hooks.wait("pace", wait)
	if wait > 0 {
		return ctxsleep.Sleep(ctx, wait)
	}
	return nil
}

func (b *Local) slot(ctx context.Context, token string) (func(), error) {
	if b.limits.Concurrency <= 0 {
		return func() {}, nil
	}
	start, waited := time.Now(), false
	for d := time.Millisecond; ; d = nextDelay(d) {
		b.mu.Lock()
		if b.inFlight[token] < b.limits.Concurrency {
			b.inFlight[token]++
			b.mu.Unlock()
			if waited {
				b.hooks.wait("slot", time.Since(start))
			}
			var once sync.Once
			return func() {
				once.Do(func() {
					b.mu.Lock()
					if b.inFlight[token]--; b.inFlight[token] <= 0 {
						delete(b.inFlight, token)
					}
					b.mu.Unlock()
				})
			}, nil
		}
		b.mu.Unlock()
		waited = true
		if d > remaining(ctx) || ctxsleep.Sleep(ctx, d) != nil {
			b.hooks.refuse("busy")
			return nil, &Busy{Limit: b.limits.Concurrency}
		}
	}
}
