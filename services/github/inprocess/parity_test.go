package inprocess_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/inprocess"
	"ghops.dev/services/github/servicetest"
)

// TestSameAnswersAsTheNetwork: the in-process channel is only a
// transport. Each call is made to the networked service (real gRPC on
// 127.0.0.1) and to the in-process one, over one fakehub (the calls only
// read), and must come back the same: the answer, the status with its details
// (validation, GitHub's 404, the repository scope), the echoed request id,
// and the progress stream of CallService/Invoke.
func TestSameAnswersAsTheNetwork(t *testing.T) {
	hub := fakehubtest.Start(t, fakehub.Config{Seed: "demo"})
	net := servicetest.Start(t, servicetest.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken})
	in, err := inprocess.Start(inprocess.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close() })
	conns := map[string]grpc.ClientConnInterface{"network": net.Conn, "in-process": in.Conn()}

	const repo = "octo-org/hello-world"
	tests := []struct {
		name   string
		method string
		req    proto.Message
		resp   func() proto.Message
	}{
		{name: "success", method: "Fetch", req: &ghopsv1.FetchRequest{Repo: repo}, resp: func() proto.Message { return new(ghopsv1.FetchResponse) }},
		{name: "validation", method: "Fetch", req: &ghopsv1.FetchRequest{Repo: "not a repo"}, resp: func() proto.Message { return new(ghopsv1.FetchResponse) }},
		{name: "github 404", method: "Fetch", req: &ghopsv1.FetchRequest{Repo: "octo-org/nope"}, resp: func() proto.Message { return new(ghopsv1.FetchResponse) }},
		{name: "pull request", method: "GetPullRequest", req: &ghopsv1.GetPullRequestRequest{Repo: repo, PrNumber: 1}, resp: func() proto.Message { return new(ghopsv1.GetPullRequestResponse) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			type answer struct {
				resp   proto.Message
				status *status.Status
				reqID  []string
			}
			got := map[string]answer{}
			for name, conn := range conns {
				ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "x-request-id", "parity-1"), 20*time.Second)
				var hdr metadata.MD
				resp := tc.resp()
				err := conn.Invoke(ctx, "/ghops.v1.GitHubService/"+tc.method, tc.req, resp, grpc.Header(&hdr))
				cancel()
				got[name] = answer{resp: resp, status: status.Convert(err), reqID: hdr.Get("x-request-id")}
			}
			n, i := got["network"], got["in-process"]
			if !sameStatus(t, n.status, i.status) {
				t.Errorf("status differs:\n network    %v\n in-process %v", n.status.Proto(), i.status.Proto())
			}
			if n.status.Err() == nil && !proto.Equal(n.resp, i.resp) {
				t.Errorf("answer differs:\n network    %v\n in-process %v", n.resp, i.resp)
			}
			if len(n.reqID) != 1 || len(i.reqID) != 1 || n.reqID[0] != i.reqID[0] {
				t.Errorf("request id echoed %q over the network, %q in process", n.reqID, i.reqID)
			}
		})
	}

	t.Run("progress", func(t *testing.T) {
		streams := map[string][]string{}
		for name, conn := range conns {
			req, err := anypb.New(&ghopsv1.GetTreeRequest{Repo: repo})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			stream, err := ghopsv1.NewCallServiceClient(conn).Invoke(ctx, &ghopsv1.InvokeRequest{Method: "/ghops.v1.GitHubService/GetTree", Request: req})
			if err != nil {
				cancel()
				t.Fatalf("%s: %v", name, err)
			}
			for {
				m, err := stream.Recv()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					cancel()
					t.Fatalf("%s: %v", name, err)
				}
				if p := m.GetProgress(); p != nil {
					streams[name] = append(streams[name], p.String())
				} else {
					streams[name] = append(streams[name], "response "+m.GetResponse().GetTypeUrl())
				}
			}
			cancel()
		}
		n, i := streams["network"], streams["in-process"]
		if len(n) < 2 || len(n) != len(i) {
			t.Fatalf("stream over the network %q, in process %q", n, i)
		}
		for k := range n {
			if n[k] != i[k] {
				t.Errorf("message %d: %q over the network, %q in process", k, n[k], i[k])
			}
		}
	})
}

// sameStatus reports whether a and b are the same status: code, message
// and details, compared unpacked (an Any's bytes may order a map's entries
// either way), without what differs between two calls to one fakehub: the
// rate limit's remaining count, which each call lowers.
func sameStatus(t *testing.T, a, b *status.Status) bool {
	t.Helper()
	if a.Code() != b.Code() || a.Message() != b.Message() || len(a.Proto().GetDetails()) != len(b.Proto().GetDetails()) {
		return false
	}
	da, db := a.Proto().GetDetails(), b.Proto().GetDetails()
	for k := range da {
		ma, err := da[k].UnmarshalNew()
		if err != nil {
			t.Fatal(err)
		}
		mb, err := db[k].UnmarshalNew()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []proto.Message{ma, mb} {
			if gh, ok := m.(*ghopsv1.GitHubError); ok {
				gh.RateLimit = nil
			}
		}
		if !proto.Equal(ma, mb) {
			return false
		}
	}
	return true
}

// TestShutdownDrains: Shutdown waits for a call in flight, which
// completes, and refuses calls made after it began. Close begins once the
// call has reached fakehub, whose fault holds it 300 ms, so a draining
// Close returns no sooner than that; no sleep guesses when the call
// arrives, and the call's answer is awaited, not raced.
func TestShutdownDrains(t *testing.T) {
	const latency = 300 * time.Millisecond
	arrived := make(chan time.Time, 1)
	hub := fakehubtest.StartWrapped(t, fakehub.Config{Seed: "demo", Faults: []fakehub.Fault{{Latency: latency}}},
		func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case arrived <- time.Now():
				default:
				}
				h.ServeHTTP(w, r)
			})
		})
	svc, err := inprocess.Start(inprocess.Options{GitHubURL: hub.URL, Token: fakehub.DemoToken})
	if err != nil {
		t.Fatal(err)
	}
	client := ghopsv1.NewGitHubServiceClient(svc.Conn())
	done := make(chan error, 1)
	go func() {
		_, err := client.Fetch(context.Background(), &ghopsv1.FetchRequest{Repo: "octo-org/hello-world"})
		done <- err
	}()
	var at time.Time
	select {
	case at = <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never reached fakehub")
	}
	if err := svc.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if held := time.Since(at); held < latency {
		t.Fatalf("Close returned %v after the call reached fakehub, before its %v answer", held, latency)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the call in flight failed: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call in flight never ended")
	}
	if _, err := client.Fetch(context.Background(), &ghopsv1.FetchRequest{Repo: "octo-org/hello-world"}); status.Code(err).String() != "Unavailable" {
		t.Fatalf("a call after Close: %v, want Unavailable", err)
	}
}
