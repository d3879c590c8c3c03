package pipeline

import (
	"net/http"
	"testing"

	"ghops.dev/gateway/internal/rpcerror"
)

// TestStatus: the one status decision, over the rules of /rpc (with and
// without -http-status-mapping) and /mcp.
func TestStatus(t *testing.T) {
	rpc := StatusRules{Empty: http.StatusNoContent}
	rpcMapped := StatusRules{MapErrors: true, Empty: http.StatusNoContent}
	mcp := StatusRules{Refused: http.StatusBadRequest, Empty: http.StatusAccepted, AnswerStatus: true}
	fail := func(code int) Answer { return Answer{Err: rpcerror.New(code, "", rpcerror.Tool("t"))} }
	ok := Answer{Result: []byte(`{}`)}
	note := Answer{NoReply: true}
	tests := []struct {
		name    string
		rules   StatusRules
		answers []Answer
		batch   bool
		refused bool
		want    int
	}{
		{"rpc result", rpc, []Answer{ok}, false, false, http.StatusOK},
		{"rpc error unmapped", rpc, []Answer{fail(rpcerror.NotFound)}, false, false, http.StatusOK},
		{"rpc error mapped", rpcMapped, []Answer{fail(rpcerror.NotFound)}, false, false, rpcerror.HTTPStatus(rpcerror.NotFound)},
		{"rpc batch takes the highest", rpcMapped, []Answer{ok, fail(rpcerror.NotFound), fail(rpcerror.RateLimited)}, true, false,
			max(rpcerror.HTTPStatus(rpcerror.NotFound), rpcerror.HTTPStatus(rpcerror.RateLimited))},
		{"rpc notifications only", rpc, []Answer{note, note}, true, false, http.StatusNoContent},
		{"rpc refused body mapped", rpcMapped, []Answer{fail(rpcerror.ParseError)}, false, true, rpcerror.HTTPStatus(rpcerror.ParseError)},
		{"rpc refused body", rpc, []Answer{fail(rpcerror.ParseError)}, false, true, http.StatusOK},
		{"mcp result", mcp, []Answer{ok}, false, false, http.StatusOK},
		{"mcp tool error stays 200", mcp, []Answer{fail(rpcerror.NotFound)}, false, false, http.StatusOK},
		{"mcp refused body", mcp, []Answer{fail(rpcerror.ParseError)}, false, true, http.StatusBadRequest},
		{"mcp notification", mcp, []Answer{note}, false, false, http.StatusAccepted},
		{"mcp refused notification keeps its status", mcp, []Answer{{NoReply: true, Status: http.StatusBadRequest}}, false, false, http.StatusBadRequest},
		{"mcp protocol error's own status", mcp, []Answer{{Err: rpcerror.New(rpcerror.InvalidRequest, ""), Status: http.StatusBadRequest}}, false, false, http.StatusBadRequest},
		{"mcp batch ignores answer status", mcp, []Answer{{Err: rpcerror.New(rpcerror.InvalidRequest, ""), Status: http.StatusBadRequest}, ok}, true, false, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Status(tc.rules, tc.answers, tc.batch, tc.refused); got != tc.want {
				t.Fatalf("Status = %d, want %d", got, tc.want)
			}
		})
	}
}
