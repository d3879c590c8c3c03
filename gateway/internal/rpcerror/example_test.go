package rpcerror_test

import (
	"fmt"

	"ghops.dev/gateway/internal/rpcerror"
)

func ExampleError_LogLine() {
	e := rpcerror.New(rpcerror.NotMergeable, "Pull Request is not mergeable", rpcerror.Tool("merge_pull_request"))
	e.Log = rpcerror.LogFields{Repo: "octo-org/hello-world", PR: "2", State: "dirty"}
	fmt.Println(e.LogLine())
	// Output: jsonrpc_error tool=merge_pull_request code=-32005 repo=octo-org/hello-world pr=2 sha=- state=dirty msg="Pull Request is not mergeable"
}
