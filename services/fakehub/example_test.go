package fakehub_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"ghops.dev/services/fakehub"
)

// Example starts the hub in-process with the demo dataset and reads a repository.
func Example() {
	hub, err := fakehub.New(fakehub.Config{Seed: "demo"})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(hub)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/repos/octo-org/hello-world", nil)
	req.Header.Set("Authorization", "Bearer "+fakehub.DemoToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	sha, _ := hub.BranchSHA("octo-org/hello-world", "main")
	fmt.Println(resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"), len(sha))
	fmt.Println(hub.Stats().ByRoute["GET /repos/{owner}/{repo}"])
	// Output:
	// 200 4999 40
	// 1
}
