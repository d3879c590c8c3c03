package jsonmemo_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"ghops.dev/services/github/internal/jsonmemo"
)

type pull struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
}

// answer is a response with body, stamped with its digest when stamp is set.
func answer(body string, stamp bool) *http.Response {
	h := http.Header{}
	if stamp {
		h.Set(jsonmemo.DigestHeader, jsonmemo.Digest([]byte(body)))
	}
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(body))}
}

// closeCounter counts Close calls, so that every path is seen to close.
type closeCounter struct {
	io.Reader
	n *int
}

func (c closeCounter) Close() error { *c.n++; return nil }

func TestDecode(t *testing.T) {
	const list = `[{"number":1,"title":"one"},{"number":2,"title":"two"}]`
	tests := []struct {
		name      string
		memo      *jsonmemo.Memo
		bodies    []string
		stamp     bool
		wantHits  uint64
		wantSame  bool // the second value is the first (one decoding)
		wantItems int
	}{
		{name: "stamped body decoded once", memo: jsonmemo.New(1 << 20), bodies: []string{list, list}, stamp: true, wantHits: 1, wantSame: true, wantItems: 1},
		{name: "unstamped body decoded each time", memo: jsonmemo.New(1 << 20), bodies: []string{list, list}, wantItems: 0},
		{name: "other body other value", memo: jsonmemo.New(1 << 20), bodies: []string{list, `[{"number":3}]`}, stamp: true, wantItems: 2},
		{name: "body over a quarter of the bound not kept", memo: jsonmemo.New(len(list) * 3), bodies: []string{list, list}, stamp: true, wantItems: 0},
		{name: "bytes bound evicts the least recent", memo: jsonmemo.New(4 * len(`[{"number":10}]`)), bodies: []string{`[{"number":10}]`, `[{"number":11}]`, `[{"number":12}]`, `[{"number":13}]`, `[{"number":14}]`}, stamp: true, wantItems: 4},
		{name: "nil memo decodes", memo: nil, bodies: []string{list, list}, stamp: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [][]*pull
			for _, b := range tt.bodies {
				closed := 0
				resp := answer(b, tt.stamp)
				resp.Body = closeCounter{resp.Body, &closed}
				v, err := jsonmemo.Decode[[]*pull](tt.memo, resp)
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if closed != 1 {
					t.Errorf("body closed %d times, want 1", closed)
				}
				if len(v) == 0 || v[0].Number == 0 {
					t.Fatalf("decoded %v from %s", v, b)
				}
				got = append(got, v)
			}
			if tt.memo == nil {
				return
			}
			if h := tt.memo.Hits(); h != tt.wantHits {
				t.Errorf("hits = %d, want %d", h, tt.wantHits)
			}
			if same := got[0][0] == got[1][0]; same != tt.wantSame {
				t.Errorf("second value shared with the first: %v, want %v", same, tt.wantSame)
			}
			if n := tt.memo.Len(); n != tt.wantItems {
				t.Errorf("memo holds %d values, want %d", n, tt.wantItems)
			}
		})
	}
}

// A value is keyed by its type too: one body decoded as two types gives
// two values, each right for its type.
func TestDecodeKeyedByType(t *testing.T) {
	m := jsonmemo.New(1 << 20)
	const body = `[{"number":7,"title":"seven"}]`
	pulls, err := jsonmemo.Decode[[]pull](m, answer(body, true))
	if err != nil {
		t.Fatal(err)
	}
	type numbered struct {
		Number int `json:"number"`
	}
	nums, err := jsonmemo.Decode[[]numbered](m, answer(body, true))
	if err != nil {
		t.Fatal(err)
	}
	if pulls[0].Title != "seven" || nums[0].Number != 7 {
		t.Errorf("decoded %+v and %+v", pulls, nums)
	}
	if m.Hits() != 0 || m.Len() != 2 {
		t.Errorf("hits %d, values %d; want 0 and 2", m.Hits(), m.Len())
	}
}

func TestDecodeFailures(t *testing.T) {
	m := jsonmemo.New(1 << 20)
	tests := []struct {
		name string
		resp *http.Response
	}{
		{name: "invalid JSON", resp: answer(`[{"number":`, true)},
		{name: "wrong shape", resp: answer(`{"number":1}`, true)},
		{name: "read error", resp: &http.Response{Header: http.Header{jsonmemo.DigestHeader: {"d"}}, Body: io.NopCloser(errReader{})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if v, err := jsonmemo.Decode[[]pull](m, tt.resp); err == nil {
				t.Errorf("Decode = %v, nil; want an error", v)
			}
		})
	}
	if m.Len() != 0 {
		t.Errorf("a failed decoding was kept: %d values", m.Len())
	}
}

func TestDecodeEmptyBody(t *testing.T) {
	v, err := jsonmemo.Decode[[]pull](jsonmemo.New(1<<20), answer("", true))
	if err != nil || v != nil {
		t.Errorf("Decode(empty) = %v, %v; want nil, nil (as go-github's Do)", v, err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

// BenchmarkDecode compares decoding a pull request list each time with
// taking it from the memo.
func BenchmarkDecode(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("[")
	for i := range 30 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"number":1,"title":"a pull request title of some length","state":"open","body":"` + strings.Repeat("text ", 100) + `"}`)
	}
	sb.WriteString("]")
	body := sb.String()
	for _, bc := range []struct {
		name  string
		stamp bool
	}{{"decoded", false}, {"memoized", true}} {
		b.Run(bc.name, func(b *testing.B) {
			m := jsonmemo.New(1 << 20)
			h := answer(body, bc.stamp).Header // hashed once, as the cache does
			for b.Loop() {
				resp := &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(body))}
				if _, err := jsonmemo.Decode[[]pull](m, resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
