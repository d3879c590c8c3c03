package server_test

import (
	"context"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"ghops.dev/services/fakehub/fakehubtest"
	"ghops.dev/services/github/servicetest"
)

const repo = "octo-org/hello-world"

type env struct {
	hub *fakehub.Hub
	url string
	svc *servicetest.Service
}

func start(t *testing.T, cfg fakehub.Config, o servicetest.Options) *env {
	t.Helper()
	if cfg.Seed == "" {
		cfg.Seed = "demo"
	}
	hs := fakehubtest.Start(t, cfg)
	hub, url := hs.Hub, hs.URL
	o.GitHubURL = url
	if o.Token == "" {
		o.Token = fakehub.DemoToken
	}
	svc := servicetest.Start(t, o)
	hub.ResetStats()
	return &env{hub: hub, url: url, svc: svc}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func ptr[T any](v T) *T { return &v }

// details splits a status error into its known details.
type details struct {
	st   *status.Status
	info *errdetails.ErrorInfo
	gh   *ghopsv1.GitHubError
	res  *errdetails.ResourceInfo
	rty  *errdetails.RetryInfo
	br   *errdetails.BadRequest
}

func detailsOf(t *testing.T, err error) details {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok || err == nil {
		t.Fatalf("want a status error, got %v", err)
	}
	d := details{st: st}
	for _, x := range st.Details() {
		switch v := x.(type) {
		case *errdetails.ErrorInfo:
			d.info = v
		case *ghopsv1.GitHubError:
			d.gh = v
		case *errdetails.ResourceInfo:
			d.res = v
		case *errdetails.RetryInfo:
			d.rty = v
		case *errdetails.BadRequest:
			d.br = v
		}
	}
	return d
}

func wantStatus(t *testing.T, err error, code codes.Code, reason ghopsv1.ErrorReason) details {
	t.Helper()
	d := detailsOf(t, err)
	if d.st.Code() != code {
		t.Fatalf("code = %v (%s), want %v", d.st.Code(), d.st.Message(), code)
	}
	if d.info == nil || d.info.Reason != reason.String() || d.info.Domain != "ghops.dev" {
		t.Fatalf("ErrorInfo = %v, want reason %v", d.info, reason)
	}
	return d
}

func statusCode(err error) codes.Code { return status.Code(err) }

// callCase is one successful call of a tool against fakehub: what it answers
// (check) and the GitHub requests it makes (calls, by route).
type callCase struct {
	name  string
	call  func(ctx context.Context) (proto.Message, error)
	calls map[string]int
	check func(t *testing.T, m proto.Message)
}

// runCallCases runs each case as a subtest on e, counting fakehub's requests
// from zero for each.
func runCallCases(t *testing.T, e *env, tests []callCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.hub.ResetStats()
			m, err := tt.call(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, m)
			assertCalls(t, e.hub, tt.calls)
		})
	}
}
