// Package fakeservicetest lets gateway tests stand in for the GitHub gRPC
// service: Status crafts the failures the real service sends (a code, an
// ErrorInfo with the contract's reason, and further details), and Serve runs
// any ghopsv1.GitHubServiceServer on a loopback listener for one test.
package fakeservicetest

import (
	"net"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// Domain is the ErrorInfo domain the service puts on every error.
const Domain = "ghops.dev"

// Status returns the status error code c with message msg whose details are
// an ErrorInfo (reason, Domain, metadata md) followed by details in order, the
// shape services/github answers with. It panics when the details cannot be
// attached (c is OK or a detail does not marshal): fakes build their
// statuses from literals, so that is a bug in the test.
func Status(c codes.Code, msg string, reason ghopsv1.ErrorReason, md map[string]string, details ...protoadapt.MessageV1) error {
	all := append([]protoadapt.MessageV1{&errdetails.ErrorInfo{Reason: reason.String(), Domain: Domain, Metadata: md}}, details...)
	st, err := status.New(c, msg).WithDetails(all...)
	if err != nil {
		panic("fakeservicetest: " + err.Error())
	}
	return st.Err()
}

// Serve serves svc on 127.0.0.1 with a new gRPC server, after letting each
// register function add more services to it (a health server, say), and
// returns an insecure client connection to it. The connection is closed and
// the server stopped when the test ends.
func Serve(t testing.TB, svc ghopsv1.GitHubServiceServer, register ...func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	ghopsv1.RegisterGitHubServiceServer(srv, svc)
	for _, r := range register {
		r(srv)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}
