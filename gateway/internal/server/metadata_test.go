package server

import (
	"context"

	"google.golang.org/grpc/metadata"
)

// metadataOf returns the incoming metadata of a fake-service call.
func metadataOf(ctx context.Context) (map[string][]string, bool) {
	md, ok := metadata.FromIncomingContext(ctx)
	return md, ok
}
