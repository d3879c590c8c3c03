// Package httpcache is the service's one cache of GitHub reads, an
// http.RoundTripper under go-github:
//
//   - Reads addressed by a full commit (or tree, or blob) SHA never change,
//     so once cached they are answered with no GitHub request at all
//     (Immutable names them).
//   - A read of a branch (or the default branch) whose head was resolved
//     before resolves it again with one conditional request (a 304 when
//     the branch has not moved, which costs no rate limit) and then reads
//     by SHA, so that branch and SHA reads share the cache and content
//     known at the head costs no request. A cold branch read, its head
//     unknown, goes to GitHub as it is: one request, not two (resolving a
//     head no read has used saves nothing), cached under its own URL and
//     made conditional when asked again.
//   - Every other GET is made conditional: its ETag is sent back as
//     If-None-Match and an unchanged answer comes back as a 304, which costs
//     no rate limit.
//   - Identical concurrent reads of one token become one GitHub request
//     (singleflight).
//
// Answers are kept in a cachestore.Store: an in-process LRU, and Redis
// shared by the replicas when configured. Keys hold the token identity
// (package tokenid: a hash, never the token), the Accept header and the
// URL, so an answer never crosses from one token to another.
package httpcache

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/sync/singleflight"

	"ghops.dev/services/github/internal/cachestore"
	"ghops.dev/services/github/internal/jsonmemo"
	"ghops.dev/services/github/internal/tokenid"

	"ghops.dev/infra/roundtrip"
)

// FromCacheHeader is set on answers rebuilt from the cache; go-github then
// leaves its rate-limit state untouched.
const FromCacheHeader = "X-From-Cache"

// Outcomes of a lookup, for metrics (OnLookup).
const (
	// OutcomeHit: answered from the cache, GitHub not asked.
	OutcomeHit = "hit"
	// OutcomeRevalidated: GitHub answered 304, the cached body was used.
	OutcomeRevalidated = "revalidated"
	// OutcomeStale: a cached answer was found but GitHub sent a new one.
	OutcomeStale = "stale"
	// OutcomeMiss: nothing cached.
	OutcomeMiss = "miss"
)

// TierNone is the tier of a miss.
const TierNone = "none"

// Transport is the caching round tripper; create it with New.
type Transport struct {
	base     http.RoundTripper
	lru      *cachestore.LRU
	store    cachestore.Store
	maxBody  int
	onLookup func(tier, outcome string)
	memo     *jsonmemo.Memo
	flights  singleflight.Group
}

// Option adjusts a Transport.
type Option func(*Transport)

// WithShared adds the shared tier behind the LRU.
func WithShared(r *cachestore.Redis) Option {
	return func(t *Transport) {
		if r != nil {
			t.store = &cachestore.Tiered{LRU: t.lru, Redis: r}
		}
	}
}

// WithLookupHook calls fn once per cacheable read with the tier that had an
// answer (lru, redis, none) and the outcome.
func WithLookupHook(fn func(tier, outcome string)) Option {
	return func(t *Transport) { t.onLookup = fn }
}

// WithMemo decodes the branch heads it resolves through m, which the
// handlers share: a head unchanged since the last read costs no decoding.
func WithMemo(m *jsonmemo.Memo) Option {
	return func(t *Transport) { t.memo = m }
}

// New returns a Transport over base (http.DefaultTransport when nil) whose
// in-process tier holds at most maxEntries answers and maxBytes bytes; an
// answer over a quarter of maxBytes is passed on without being cached.
func New(base http.RoundTripper, maxEntries, maxBytes int, opts ...Option) *Transport {
	base = roundtrip.OrDefault(base)
	t := &Transport{base: base, lru: cachestore.NewLRU(maxEntries, maxBytes), maxBody: maxBytes / 4}
	t.store = &cachestore.Tiered{LRU: t.lru}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Key is the cache key of req: the token identity, the Accept header and
// the URL.
func Key(req *http.Request) string {
	return tokenid.Of(req) + " " + req.Header.Get("Accept") + " " + req.URL.String()
}

// Len reports the number of answers in the in-process tier.
func (t *Transport) Len() int { return t.lru.Len() }

func (t *Transport) lookup(tier, outcome string) {
	if t.onLookup != nil {
		t.onLookup(tier, outcome)
	}
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || req.Header.Get("Range") != "" || req.Header.Get("If-None-Match") != "" {
		return t.ask(req)
	}
	return t.roundTrip(req, classify(req.URL))
}

// roundTrip answers the GET req whose URL is of kind k.
func (t *Transport) roundTrip(req *http.Request, k kind) (*http.Response, error) {
	if k.branchParam != "" && t.headKnown(req, k) {
		byHead, answer := t.resolve(req, k)
		if answer != nil {
			answer.Request = req
			return answer, nil
		}
		if byHead != nil {
			resp, err := t.roundTrip(byHead, kind{immutable: true})
			if resp != nil {
				resp.Request = req
			}
			return resp, err
		}
	}
	key := Key(req)
	if k.immutable {
		if e, tier, ok := t.store.Get(req.Context(), key); ok && e.Immutable {
			t.lookup(tier, OutcomeHit)
			return response(req, e), nil
		}
	}
	var own *http.Response // the leader's answer when too big to share
	v, err, shared := t.flights.Do(key, func() (any, error) {
		e, resp, err := t.fetch(req, key, k.immutable)
		if resp != nil {
			own = resp
		}
		return e, err
	})
	if own != nil {
		return own, nil
	}
	if err != nil {
		if shared && req.Context().Err() == nil && isContextErr(err) {
			// The leader's caller went away; this one has not: go alone.
			e, resp, err := t.fetch(req, key, k.immutable)
			if resp != nil || err != nil {
				return resp, err
			}
			return response(req, e), nil
		}
		return nil, err
	}
	e, _ := v.(*cachestore.Entry)
	if e == nil {
		// The leader's answer was too big to share: ask alone.
		e, resp, err := t.fetch(req, key, k.immutable)
		if resp != nil || err != nil {
			return resp, err
		}
		return response(req, e), nil
	}
	return response(req, e), nil
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// fetch asks GitHub (conditionally when an answer is cached) and returns
// the answer as an entry, or as a response when it is too big to buffer.
func (t *Transport) fetch(req *http.Request, key string, immutable bool) (*cachestore.Entry, *http.Response, error) {
	ctx := req.Context()
	cached, tier, _ := t.store.Get(ctx, key)
	if tier == "" {
		tier = TierNone
	}
	out := req
	if cached != nil && cached.ETag != "" {
		out = req.Clone(ctx)
		out.Header.Set("If-None-Match", cached.ETag)
	}
	resp, err := t.ask(out)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode == http.StatusNotModified && cached != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		_ = resp.Body.Close()
		t.lookup(tier, OutcomeRevalidated)
		e := *cached
		e.Header = cached.Header.Clone()
		for k, v := range resp.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-ratelimit-") || k == "Date" {
				e.Header[k] = v
			}
		}
		e.Immutable = e.Immutable || immutable
		seal(&e)
		if e.Immutable && !cached.Immutable {
			t.store.Put(ctx, key, &e)
		}
		return &e, nil, nil
	}
	if cached != nil {
		t.lookup(tier, OutcomeStale)
	} else {
		t.lookup(TierNone, OutcomeMiss)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(t.maxBody)+1))
	if err != nil {
		_ = resp.Body.Close()
		return nil, nil, err
	}
	if len(body) > t.maxBody {
		// Too big to cache or share: hand the answer on whole.
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		return nil, resp, nil
	}
	_ = resp.Body.Close()
	ok := resp.StatusCode == http.StatusOK
	e := &cachestore.Entry{Status: resp.StatusCode, ETag: resp.Header.Get("ETag"), Header: resp.Header.Clone(), Body: body, Immutable: immutable && ok}
	if ok {
		// Hashed once here, so that a body read again is never decoded again.
		e.Header.Set(jsonmemo.DigestHeader, jsonmemo.Digest(body))
	}
	seal(e)
	if ok && (e.ETag != "" || immutable) {
		t.store.Put(ctx, key, e)
	}
	return e, nil, nil
}

// seal makes e's header the one every answer rebuilt from e carries, so
// that answers share it instead of copying it: marked as from the cache
// (go-github then records no limit, as budget.Sole would mark it anyway),
// and without rate-limit figures when e is immutable (an old answer's
// figures would mislead: reading it again costs nothing).
func seal(e *cachestore.Entry) {
	e.Header.Set(FromCacheHeader, "1")
	if e.Immutable {
		for k := range e.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-ratelimit-") {
				delete(e.Header, k)
			}
		}
	}
}

// ask sends req to GitHub. Only the cache stamps digests: one in GitHub's
// answer is dropped, so that no answer can name another's decoded value.
func (t *Transport) ask(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		resp.Header.Del(jsonmemo.DigestHeader)
	}
	return resp, err
}

// response rebuilds an answer for req from e. Answers share e's sealed
// header and body: no round tripper changes an answer's header, and
// readers only read.
func response(req *http.Request, e *cachestore.Entry) *http.Response {
	if e.Header.Get(FromCacheHeader) == "" {
		// Stored unsealed (in Redis by an older version): seal a copy.
		c := *e
		c.Header = e.Header.Clone()
		seal(&c)
		e = &c
	}
	return &http.Response{
		Status: strconv.Itoa(e.Status) + " " + http.StatusText(e.Status), StatusCode: e.Status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: e.Header, Body: io.NopCloser(bytes.NewReader(e.Body)), ContentLength: int64(len(e.Body)), Request: req,
	}
}

type readCloser struct {
	io.Reader
	io.Closer
}

// headKnown tells whether the branch read req (of kind k) should resolve
// its head: only when its head was resolved before (the resolution is
// cached, so asking again is a 304) and the read itself is not cached
// under its own URL (a cold read earlier went as it was: asking it again
// conditionally is one request too, and a 304 when nothing changed).
func (t *Transport) headKnown(req *http.Request, k kind) bool {
	ctx := req.Context()
	if e, _, ok := t.store.Get(ctx, Key(req)); ok && e.ETag != "" {
		return false
	}
	_, _, ok := t.store.Get(ctx, Key(t.headRequest(req, k)))
	return ok
}

// headRequest is the one-commit list that resolves the head of the branch
// read req (of kind k): a shallow copy of req that shares its header,
// which nothing below changes (a round tripper must not), and differs only
// in the URL.
func (t *Transport) headRequest(req *http.Request, k kind) *http.Request {
	q := url.Values{"per_page": {"1"}}
	if ref := k.query.Get(k.branchParam); ref != "" {
		q.Set("sha", ref)
	}
	head := req.WithContext(req.Context())
	head.URL = &url.URL{Scheme: req.URL.Scheme, Host: req.URL.Host, Path: k.root + "repos/" + k.owner + "/" + k.name + "/commits", RawQuery: q.Encode()}
	return head
}

// resolve returns req (a branch read of kind k) addressed by the SHA its
// branch points at, or nil when the head cannot be resolved (req then goes
// as it is, and its own answer, an error included, is GitHub's). When
// GitHub refused the resolution for the token's sake (401, 403, 429) or
// failed (5xx), that answer is returned instead: it is GitHub's answer to
// this token now, and asking again would spend more.
func (t *Transport) resolve(req *http.Request, k kind) (*http.Request, *http.Response) {
	resp, err := t.roundTrip(t.headRequest(req, k), kind{}) // a one-commit list from a branch: neither kind
	if err != nil {
		return nil, nil
	}
	switch s := resp.StatusCode; {
	case s == http.StatusUnauthorized || s == http.StatusForbidden || s == http.StatusTooManyRequests || s >= 500:
		return nil, resp
	case s != http.StatusOK:
		_ = resp.Body.Close()
		return nil, nil
	}
	list, err := jsonmemo.Decode[[]headCommit](t.memo, resp)
	if err != nil || len(list) == 0 || !IsSHA(list[0].SHA) {
		return nil, nil
	}
	// A shallow copy, as headRequest's.
	byHead := req.WithContext(req.Context())
	u := *req.URL
	k.query.Set(k.branchParam, list[0].SHA)
	u.RawQuery = k.query.Encode()
	byHead.URL = &u
	return byHead, nil
}

// headCommit is what resolve reads of a commit list entry.
type headCommit struct {
	SHA string `json:"sha"`
}
