package toolschema_test

import (
	"encoding/json"
	"fmt"

	"ghops.dev/gateway/internal/rpcerror"
	"ghops.dev/gateway/internal/toolschema"
	ghopsv1 "ghops.dev/gen/ghops/v1"
)

func ExampleTool_Decode() {
	reg, err := toolschema.NewRegistry(ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService"))
	if err != nil {
		panic(err)
	}
	search, _ := reg.Lookup("search")
	_, violations := search.Decode(json.RawMessage(`{}`))
	b, _ := json.Marshal(violations[0])
	fmt.Println(string(b))
	fmt.Println(rpcerror.ValidationMessage(violations))
	// Output:
	// {"message":"must have required property 'query'","path":"root","keyword":"required","params":{"missingProperty":"query"},"value":{}}
	// Validation errors: must have required property 'query'
}
