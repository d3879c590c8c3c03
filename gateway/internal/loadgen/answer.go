package loadgen

import "encoding/json"

// This file reads the answers: what counts as a JSON-RPC answer, a negotiated MCP version, an error
// and its code. Both transports (driver.go's HTTP, stdio.go's pipes) hand their answers' bytes here.

// envelope is the part of a JSON-RPC response the load generator reads.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// negotiated returns the protocol version of a successful initialize answer, "" for anything else.
func negotiated(data []byte) string {
	var env envelope
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(data, &env) != nil || env.Error != nil || json.Unmarshal(env.Result, &res) != nil {
		return ""
	}
	return res.ProtocolVersion
}

// classify reads one answer: a JSON-RPC error (by code), an MCP result with isError (by the code of
// the contract error in its _meta["dev.ghops/error"], else in its structuredContent as older gateways
// sent it, 0 when it has neither), success, or something that is not a JSON-RPC answer.
func classify(status int, data []byte, wantID string, mcp bool) (kind, int) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil || env.JSONRPC != "2.0" {
		if status/100 != 2 {
			return kindHTTP, status
		}
		return kindMalformed, 0
	}
	if env.Error != nil {
		if env.Error.Code == nil {
			return kindMalformed, 0
		}
		return kindRPCError, *env.Error.Code
	}
	if string(env.ID) != wantID || len(env.Result) == 0 {
		return kindMalformed, 0
	}
	if mcp {
		type coded struct {
			Code int `json:"code"`
		}
		var r struct {
			IsError           bool             `json:"isError"`
			Meta              map[string]coded `json:"_meta"`
			StructuredContent coded            `json:"structuredContent"`
		}
		if json.Unmarshal(env.Result, &r) == nil && r.IsError {
			if c := r.Meta["dev.ghops/error"].Code; c != 0 {
				return kindRPCError, c
			}
			return kindRPCError, r.StructuredContent.Code
		}
	}
	return kindOK, 0
}
