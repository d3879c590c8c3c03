package server_test

import (
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"ghops.dev/services/github/servicetest"
)

// TestPrincipalShare runs the service with -principal-share 50 against a
// fakehub whose token may send 10 requests an hour: the principal the
// gateway names in x-ghops-principal gets five, then -32004 naming it and
// the setting, with nothing sent; another principal is still served
// (issue 19, point 4).
func TestPrincipalShare(t *testing.T) {
	e := start(t, fakehub.Config{CoreLimit: 10}, servicetest.Options{PrincipalShare: 50})
	read := func(principal string) error {
		x := metadata.AppendToOutgoingContext(ctx(t), "x-ghops-principal", principal)
		_, err := e.svc.Client.GetBranches(x, &ghopsv1.GetBranchesRequest{Repo: repo})
		return err
	}
	served := 0
	var err error
	for ; served < 10; served++ {
		if err = read("apikey:greedy"); err != nil {
			break
		}
	}
	if served != 5 {
		t.Fatalf("apikey:greedy was served %d calls (err %v), want 5: half of the token's 10", served, err)
	}
	d := wantStatus(t, err, codes.ResourceExhausted, ghopsv1.ErrorReason_ERROR_REASON_RATE_LIMITED)
	if msg := d.st.Message(); !strings.Contains(msg, "principal apikey:greedy") || !strings.Contains(msg, "-principal-share 50%") || d.rty == nil {
		t.Errorf("refusal %q, retry %v", msg, d.rty)
	}
	if got := e.hub.Stats().Total; got != 5 {
		t.Errorf("GitHub saw %d requests, want the 5 served", got)
	}
	if err := read("github:octocat"); err != nil {
		t.Errorf("another principal refused: %v", err)
	}
}
