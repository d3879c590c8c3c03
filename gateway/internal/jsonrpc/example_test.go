package jsonrpc_test

import (
	"fmt"

	"ghops.dev/gateway/internal/jsonrpc"
)

func ExampleParseBody() {
	items, batch, _ := jsonrpc.ParseBody([]byte(`[{"jsonrpc":"2.0","method":"search","params":{"query":"go"},"id":1e3},1]`))
	fmt.Println("batch:", batch)
	for _, it := range items {
		if it.Err != nil {
			fmt.Println(string(jsonrpc.EncodeResponse(jsonrpc.Response{ID: it.ID, Error: it.Err})))
			continue
		}
		fmt.Println(it.Request.Method, string(it.Request.ID), string(it.Request.Params))
	}
	// Output:
	// batch: true
	// search 1e3 {"query":"go"}
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}
}
