package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/services/fakehub"
	"google.golang.org/grpc/reflection/grpc_reflection_v1"

	"ghops.dev/services/github/servicetest"
)

func TestMergeabilityPolling(t *testing.T) {
	tests := []struct {
		name          string
		nullFor       int32
		wantPRGets    int32
		wantMergeable bool
		wantPresent   bool
	}{
		{name: "computed on the third look", nullFor: 2, wantPRGets: 3, wantMergeable: true, wantPresent: true},
		{name: "still computing after the bound", nullFor: 100, wantPRGets: 5, wantPresent: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prGets atomic.Int32
			s := startStub(t, func(w http.ResponseWriter, r *http.Request) {
				switch {
				case strings.HasSuffix(r.URL.Path, "/pulls/7"):
					mergeable := "true"
					if prGets.Add(1) <= tt.nullFor {
						mergeable = "null"
					}
					answer(200, nil, `{"number":7,"state":"open","mergeable":`+mergeable+`,"mergeable_state":"clean","head":{"ref":"f","sha":"0123456789012345678901234567890123456789"},"base":{"ref":"main","repo":{"full_name":"o/r"}}}`)(w, r)
				case strings.HasSuffix(r.URL.Path, "/check-runs"):
					answer(200, nil, `{"total_count":1,"check_runs":[{"name":"ci","status":"in_progress"}]}`)(w, r)
				default:
					answer(200, nil, `{"state":"pending","total_count":0,"statuses":[]}`)(w, r)
				}
			})
			svc := servicetest.Start(t, servicetest.Options{GitHubURL: s.url, Token: "t"})
			r, err := svc.Client.GetPrMergeability(ctx(t), &ghopsv1.GetPrMergeabilityRequest{Repo: "o/r", PrNumber: 7})
			if err != nil {
				t.Fatal(err)
			}
			if prGets.Load() != tt.wantPRGets || (r.Mergeable != nil) != tt.wantPresent || r.GetMergeable() != tt.wantMergeable {
				t.Errorf("after %d looks got %v", prGets.Load(), r)
			}
			if r.Checks.GetVerdict() != "pending" || r.Checks.GetPending() != 1 {
				t.Errorf("checks = %v", r.Checks)
			}
		})
	}
}

func TestTruncationFlags(t *testing.T) {
	var entries, tree []string
	for i := range 1000 {
		entries = append(entries, fmt.Sprintf(`{"name":"f%04d","path":"d/f%04d","type":"file","size":1}`, i, i))
	}
	for i := range 5001 {
		tree = append(tree, fmt.Sprintf(`{"path":"f%d","type":"blob","size":1}`, i))
	}
	s := startStub(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.Contains(r.URL.Path, "/contents/"):
			answer(200, nil, "["+strings.Join(entries, ",")+"]")(w, r)
		case strings.HasSuffix(r.URL.Path, "/commits"):
			answer(200, nil, `[{"sha":"c1","commit":{"tree":{"sha":"t1"}}}]`)(w, r)
		default:
			answer(200, nil, `{"sha":"t1","truncated":false,"tree":[`+strings.Join(tree, ",")+`]}`)(w, r)
		}
	})
	svc := servicetest.Start(t, servicetest.Options{GitHubURL: s.url, Token: "t"})
	t.Run("list_directory at GitHub's 1000", func(t *testing.T) {
		r, err := svc.Client.ListDirectory(ctx(t), &ghopsv1.ListDirectoryRequest{Repo: "o/r", Path: "d"})
		if err != nil || !r.Truncated || len(r.Entries) != 1000 {
			t.Errorf("truncated=%v entries=%d err=%v", r.GetTruncated(), len(r.GetEntries()), err)
		}
	})
	t.Run("get_tree over the service cap", func(t *testing.T) {
		r, err := svc.Client.GetTree(ctx(t), &ghopsv1.GetTreeRequest{Repo: "o/r"})
		if err != nil || !r.Truncated || len(r.Entries) != 5000 || r.Sha != "c1" {
			t.Errorf("truncated=%v entries=%d sha=%s err=%v", r.GetTruncated(), len(r.GetEntries()), r.GetSha(), err)
		}
	})
}

func TestReadFileShapes(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{})
	big := strings.Repeat("é", 200<<10) // 400 KiB of two-byte characters
	if _, err := e.hub.Commit(repo, "main", "shapes", map[string]string{"big.txt": big, "bin.dat": "\x89PNG\x00\x01\xff"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, encoding string
		size                 int32
		truncated, binary    bool
		contentLen           int
	}{
		{name: "large text capped at 256 KiB", path: "big.txt", encoding: "utf8", size: int32(len(big)), truncated: true, contentLen: 256 << 10},
		{name: "binary as base64", path: "bin.dat", encoding: "base64", size: 7, binary: true, contentLen: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := e.svc.Client.ReadFile(ctx(t), &ghopsv1.ReadFileRequest{Repo: repo, Path: tt.path})
			if err != nil {
				t.Fatal(err)
			}
			if r.Encoding != tt.encoding || r.Size != tt.size || r.Truncated != tt.truncated || r.Binary != tt.binary || len(r.Content) != tt.contentLen {
				t.Errorf("got encoding=%s size=%d truncated=%v binary=%v len=%d", r.Encoding, r.Size, r.Truncated, r.Binary, len(r.Content))
			}
		})
	}
}

func TestReflection(t *testing.T) {
	e := start(t, fakehub.Config{}, servicetest.Options{Reflection: true})
	stream, err := grpc_reflection_v1.NewServerReflectionClient(e.svc.Conn).ServerReflectionInfo(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&grpc_reflection_v1.ServerReflectionRequest{MessageRequest: &grpc_reflection_v1.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	if !strings.Contains(strings.Join(names, ","), "ghops.v1.GitHubService") || !strings.Contains(strings.Join(names, ","), "grpc.health.v1.Health") {
		t.Errorf("services = %v", names)
	}
}
