package pipeline

import (
	"net/http"

	"ghops.dev/gateway/internal/rpcerror"
)

// StatusRules are a transport's HTTP status rules, as data: Status is the
// one place that turns them and a body's answers into the status, so that
// no transport decides a status in code of its own.
type StatusRules struct {
	// MapErrors takes the status of each error answer from the generated
	// table (rpcerror.HTTPStatus), the highest of a batch: /rpc's optional
	// -http-status-mapping. Without it an answer is 200.
	MapErrors bool
	// Refused is the status of a body the pipeline refused whole (size,
	// parse, batch limit) when the refusal names none (0: as any answer).
	Refused int
	// Empty is the status of a body with nothing to answer (only
	// notifications): 204 on /rpc, 202 on /mcp (Streamable HTTP).
	Empty int
	// AnswerStatus honours the status an answer asks for (Answer.Status:
	// MCP's 400 for header and protocol errors) on a single call.
	AnswerStatus bool
}

// Status is the HTTP status of a body's answers (answers without a reply
// included) under r; refused is true when the pipeline itself refused the
// body.
func Status(r StatusRules, answers []Answer, batch, refused bool) int {
	if refused && r.Refused != 0 {
		return r.Refused
	}
	status, replies := http.StatusOK, 0
	for _, a := range answers {
		if a.NoReply {
			continue
		}
		replies++
		if r.MapErrors && a.Err != nil && rpcerror.HTTPStatus(a.Err.Code) > status {
			status = rpcerror.HTTPStatus(a.Err.Code) // the generated table
		}
	}
	switch {
	case replies == 0 && !refused:
		if r.AnswerStatus && len(answers) == 1 && answers[0].Status != 0 {
			return answers[0].Status
		}
		return r.Empty
	case r.AnswerStatus && !batch && answers[0].Status != 0:
		return answers[0].Status
	}
	return status
}
