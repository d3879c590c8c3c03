package client

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// reply is a canned HTTP answer; "ID" in body is replaced by the request's
// id (the first one for a batch) and "ID2" by the second.
type reply struct {
	status      int
	contentType string
	header      map[string]string
	body        string
}

// recorder is a loopback gateway stand-in answering canned replies in turn
// (the last one repeats) and recording the requests.
type recorder struct {
	mu      sync.Mutex
	replies []reply
	bodies  [][]byte
	headers []http.Header
}

func (r *recorder) requests() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.bodies...)
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.bodies)
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	n := len(r.bodies)
	r.bodies = append(r.bodies, body)
	r.headers = append(r.headers, req.Header.Clone())
	rep := r.replies[min(n, len(r.replies)-1)]
	r.mu.Unlock()
	ids := requestIDs(body)
	out := rep.body
	if len(ids) > 1 {
		out = strings.ReplaceAll(out, "ID2", ids[1])
	}
	if len(ids) > 0 {
		out = strings.ReplaceAll(out, "ID", ids[0])
	}
	ct := rep.contentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, out)
}

// requestIDs returns the ids of a request or batch body.
func requestIDs(body []byte) []string {
	var one struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &one) == nil && one.ID != nil {
		return []string{string(one.ID)}
	}
	var many []struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &many)
	var ids []string
	for _, m := range many {
		ids = append(ids, string(m.ID))
	}
	return ids
}

// serve starts a loopback server for h, closed by t.Cleanup.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func newTestClient(t *testing.T, url string, opts ...Option) *Client {
	t.Helper()
	c, err := New(url, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func errorReply(code int, message, data string) reply {
	if data == "" {
		return reply{body: `{"jsonrpc":"2.0","id":ID,"error":{"code":` + strconv.Itoa(code) + `,"message":` + strconv.Quote(message) + `}}`}
	}
	return reply{body: `{"jsonrpc":"2.0","id":ID,"error":{"code":` + strconv.Itoa(code) + `,"message":` + strconv.Quote(message) + `,"data":` + data + `}}`}
}
