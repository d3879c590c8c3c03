package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/services/github/internal/config"
	"ghops.dev/telemetry"
)

// hopRecorder is a loopback HTTP server that keeps the requests it received.
type hopRecorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newHopRecorder(t *testing.T, h http.HandlerFunc) *hopRecorder {
	t.Helper()
	r := &hopRecorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Clone(context.Background()))
		r.mu.Unlock()
		h(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *hopRecorder) received() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.reqs...)
}

// hostOf is a hopRecorder's host:port.
func (r *hopRecorder) hostOf() string { return r.srv.Listener.Addr().String() }

// TestJobLogRedirects runs get_job_log through the real service against a
// loopback GitHub whose log URL redirects to loopback log hosts: a log
// served by an allowed host after one more redirect is read, and neither
// hop carries the service's token; a chain of three redirects and a
// redirect to a host outside -log-download-hosts are refused with
// Internal (-32603), nothing is fetched from the outside host, and the log
// line names the host but never the signed URL's query.
func TestJobLogRedirects(t *testing.T) {
	const token = "ghp_SERVICETOKEN0123456789abcdefABCDEF"
	const logText = "2024-05-01T10:00:00.0000000Z line one\nline two\n"
	serveLog := func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(logText)) }
	outside := newHopRecorder(t, serveLog)
	var logs *hopRecorder
	logs = newHopRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hop": // one redirect more, within the allowed host
			http.Redirect(w, r, logs.srv.URL+"/final?sig=SIGNATURE2", http.StatusFound)
		case "/hop1":
			http.Redirect(w, r, logs.srv.URL+"/hop?sig=SIGNATURE2", http.StatusFound)
		case "/away":
			http.Redirect(w, r, outside.srv.URL+"/final?sig=SIGNATURE3", http.StatusFound)
		default:
			serveLog(w, r)
		}
	})
	// GitHub answers the log request of job N with a 302 to the log host.
	targets := map[string]string{
		"/repos/o/r/actions/jobs/1/logs": logs.srv.URL + "/final?sig=SIGNATURE1",
		"/repos/o/r/actions/jobs/2/logs": logs.srv.URL + "/hop?sig=SIGNATURE1",
		"/repos/o/r/actions/jobs/3/logs": logs.srv.URL + "/hop1?sig=SIGNATURE1",
		"/repos/o/r/actions/jobs/4/logs": logs.srv.URL + "/away?sig=SIGNATURE1",
		"/repos/o/r/actions/jobs/5/logs": outside.srv.URL + "/final?sig=SIGNATURE1",
	}
	var gh *hopRecorder
	gh = newHopRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if to, ok := targets[r.URL.Path]; ok {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		// The job itself, which the service reads first to check it
		// belongs to the call's repository.
		if id, ok := strings.CutPrefix(r.URL.Path, "/repos/o/r/actions/jobs/"); ok && !strings.Contains(id, "/") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"id":%s,"run_id":1,"url":%q,"run_url":%q}`, id, gh.srv.URL+r.URL.Path, gh.srv.URL+"/repos/o/r/actions/runs/1")
			return
		}
		http.NotFound(w, r)
	})
	var out syncBuf
	s, err := New(config.Config{GitHubURL: gh.srv.URL + "/", Token: token, LogDownloadHosts: []string{"http://" + logs.hostOf()}},
		WithLogger(slog.New(slog.NewJSONHandler(&out, nil))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	conn, _ := serve(t, s)
	client := ghopsv1.NewGitHubServiceClient(conn)
	tail := int32(5)
	tests := []struct {
		name    string
		job     int64
		refused string // the host the log line names; "" for a log read
	}{
		{name: "served at GitHub's URL", job: 1},
		{name: "one redirect more within the allowed host", job: 2},
		{name: "a chain of three redirects", job: 3, refused: logs.hostOf()},
		{name: "a redirect outside the allowed hosts", job: 4, refused: outside.hostOf()},
		{name: "GitHub's URL outside the allowed hosts", job: 5, refused: outside.hostOf()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := out.String()
			r, err := client.GetJobLog(context.Background(), &ghopsv1.GetJobLogRequest{Repo: "o/r", JobId: tt.job, TailLines: &tail})
			if tt.refused == "" {
				if err != nil || strings.Join(r.GetLines(), "|") != "line one|line two" {
					t.Fatalf("got %v, %v", r, err)
				}
				return
			}
			if status.Code(err) != codes.Internal {
				t.Fatalf("err = %v, want Internal (-32603)", err)
			}
			logged := strings.TrimPrefix(out.String(), before)
			if !strings.Contains(logged, `"msg":"job log download refused"`) || !strings.Contains(logged, `"host":"`+tt.refused+`"`) {
				t.Errorf("no log line names the refused host %s: %s", tt.refused, logged)
			}
			if strings.Contains(logged, "SIGNATURE") || strings.Contains(err.Error(), "SIGNATURE") {
				t.Errorf("a signed URL's query reached the log or the error: %s %v", logged, err)
			}
		})
	}
	if n := len(outside.received()); n != 0 {
		t.Errorf("the host outside the list received %d requests", n)
	}
	for _, r := range logs.received() {
		if r.Header.Get("Authorization") != "" || strings.Contains(strings.Join(r.Header.Values("Cookie"), ""), token) {
			t.Errorf("a credential reached the log host: %v", r.Header)
		}
	}
	if strings.Contains(out.String(), token) {
		t.Error("the token reached the log")
	}
}

// TestGitHubTraceContext calls the real service, traced, over gRPC with
// the metadata a traced gateway sends on behalf of a caller (the caller's
// traceparent and baggage), against a loopback GitHub recording each
// request: the service's span continues the caller's trace, and GitHub
// receives no baggage and never the caller's trace id; by default no
// trace context at all, with -github-trace-context=service the
// traceparent of a trace of the service's own.
func TestGitHubTraceContext(t *testing.T) {
	const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	tests := []struct {
		name, mode string
		wantOwn    bool
	}{
		{name: "default", mode: ""},
		{name: "off", mode: config.TraceContextOff},
		{name: "service", mode: config.TraceContextService, wantOwn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := newHopRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`[]`))
			})
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			s, err := New(config.Config{GitHubURL: gh.srv.URL + "/", GitHubTraceContext: tt.mode}, WithTelemetry(telemetry.New(tp)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				s.Shutdown(ctx)
			})
			conn, _ := serve(t, s)
			ctx := metadata.AppendToOutgoingContext(context.Background(),
				"traceparent", "00-"+callerTrace+"-00f067aa0ba902b7-01", "baggage", "user=alice%40example.com,tenant=acme")
			if _, err := ghopsv1.NewGitHubServiceClient(conn).GetBranches(ctx, &ghopsv1.GetBranchesRequest{Repo: "o/r"}); err != nil {
				t.Fatal(err)
			}
			reqs := gh.received()
			if len(reqs) != 1 {
				t.Fatalf("GitHub received %d requests", len(reqs))
			}
			h := reqs[0].Header
			if h.Get("Baggage") != "" {
				t.Errorf("GitHub received baggage %q", h.Get("Baggage"))
			}
			for _, v := range h {
				if strings.Contains(strings.Join(v, ","), callerTrace) || strings.Contains(strings.Join(v, ","), "alice") {
					t.Errorf("GitHub received the caller's context: %v", h)
				}
			}
			// The server span ends once the answer is sent, after the
			// GitHub request's spans: wait for every span the mode makes
			// (with "service" a span of the service's own trace too), not
			// merely for two, or the count races the server span's end.
			want := 2
			if tt.wantOwn {
				want = 3
			}
			for deadline := time.Now().Add(5 * time.Second); len(rec.Ended()) < want && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			var inCallerTrace, own int
			ownTrace := ""
			for _, sp := range rec.Ended() {
				if sp.SpanContext().TraceID().String() == callerTrace {
					inCallerTrace++
				} else {
					own++
					ownTrace = sp.SpanContext().TraceID().String()
				}
			}
			if inCallerTrace < 2 { // the gRPC server span and the GitHub request's
				t.Errorf("%d spans continue the caller's trace, want the service's and the GitHub request's", inCallerTrace)
			}
			tp1 := h.Get("Traceparent")
			switch {
			case !tt.wantOwn && (tp1 != "" || own != 0):
				t.Errorf("GitHub received traceparent %q (%d spans outside the caller's trace)", tp1, own)
			case tt.wantOwn && (own != 1 || !strings.HasPrefix(tp1, "00-"+ownTrace+"-")):
				t.Errorf("GitHub received traceparent %q, want the service's own trace %s (%d own spans)", tp1, ownTrace, own)
			}
		})
	}
}
