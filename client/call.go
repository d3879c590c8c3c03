package client

import (
	"context"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Call calls tool with req encoded by the contract's wire rules (protojson
// with JSON names, e.g. prNumber, and 64-bit integers as JSON numbers) and decodes the result into a new T
// (protojson, proto names, unknown fields ignored so that a newer gateway
// does not break an older client). A result that does not decode is a
// *ProtocolError of kind ErrBadShape.
//
//	resp, err := client.Call[ghopsv1.FetchResponse](ctx, c, "fetch", &ghopsv1.FetchRequest{Repo: "octo-org/hello-world"})
func Call[T any, PT interface {
	*T
	proto.Message
}](ctx context.Context, c *Client, tool string, req proto.Message) (PT, error) {
	var args []byte
	if req != nil {
		var err error
		if args, err = marshalArgs(req); err != nil {
			return nil, err
		}
	}
	raw, err := c.CallRaw(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	resp := PT(new(T))
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(raw, resp); err != nil {
		return nil, &ProtocolError{Kind: ErrBadShape, Detail: "result of " + tool + " does not decode", Err: err}
	}
	return resp, nil
}
