package servicetest_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"

	"ghops.dev/services/github/servicetest"
)

func TestStart(t *testing.T) {
	hub, err := fakehub.New(fakehub.Config{Seed: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(hub)
	t.Cleanup(ts.Close)
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: ts.URL + "/", Token: fakehub.DemoToken, CallTimeout: 10 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tests := []struct{ name, repo, want string }{
		{name: "public demo repository", repo: "octo-org/hello-world", want: "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := svc.Client.Fetch(ctx, &ghopsv1.FetchRequest{Repo: tt.repo})
			if err != nil || r.Repository.DefaultBranch != tt.want {
				t.Errorf("Fetch = %v, %v", r, err)
			}
		})
	}
	if svc.Addr == "" || svc.Conn == nil {
		t.Errorf("service = %+v", svc)
	}
}
