// Package servicedial builds the gateway's credentials for dialing the
// GitHub service: TLS (verified against a CA, optionally with a client
// certificate for mTLS) and the shared bearer secret, sent on every call as
// "authorization: Bearer <secret>" metadata. The service accepts either a
// verified client certificate or the secret (docs/errors.md: a refusal is
// answered -32603 "Service unavailable", the cause logged).
//
// The secret may travel over plaintext gRPC: inside one compose network or
// one Kubernetes namespace that is the usual deployment, and the secret
// still keeps anyone else who can reach the port from acting with the
// service's GitHub credentials. Across a network you do not control, use
// TLS as well.
package servicedial

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// Config names the credential files; "" leaves each out.
type Config struct {
	// SecretFile holds the shared secret.
	SecretFile string
	// CA verifies the service's certificate; with CA, Cert or Key set the
	// connection is TLS (system roots when CA is empty).
	CA string
	// Cert and Key are the client certificate and key (mTLS).
	Cert, Key string
}

// The flow-control windows of the connection to the service: a stream may
// have 4 MiB in flight, the connection 16 MiB (gRPC's estimator stops at
// 16 MiB too).
const (
	streamWindow = 4 << 20
	connWindow   = 16 << 20
)

// maxSecretFile bounds the secret file read: a secret is a line.
const maxSecretFile = 4096

// Options returns the dial options of c: transport credentials (TLS or
// plaintext) and, with a secret, per-call credentials. Errors name the
// file, never its content.
func Options(c Config) ([]grpc.DialOption, error) {
	creds := insecure.NewCredentials()
	tlsOn := c.CA != "" || c.Cert != "" || c.Key != ""
	if tlsOn {
		tc, err := clientTLS(c)
		if err != nil {
			return nil, err
		}
		creds = credentials.NewTLS(tc)
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds),
		// Fixed flow-control windows turn off gRPC's bandwidth estimator,
		// which answered data with a PING, a frame each way on most calls
		// (docs/benchmarks.md); the windows are those the estimator grows
		// to on a fast link, so a large answer is not held back.
		grpc.WithInitialWindowSize(streamWindow),
		grpc.WithInitialConnWindowSize(connWindow),
	}
	if c.SecretFile != "" {
		secret, err := loadSecret(c.SecretFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, grpc.WithPerRPCCredentials(bearer{secret: secret, tls: tlsOn}))
	}
	return opts, nil
}

// Mode names the credentials for the start-up log line.
func Mode(c Config) string {
	var parts []string
	if c.CA != "" || c.Cert != "" || c.Key != "" {
		parts = append(parts, "tls")
	}
	if c.Cert != "" {
		parts = append(parts, "client-cert")
	}
	if c.SecretFile != "" {
		parts = append(parts, "secret")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

func clientTLS(c Config) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.CA != "" {
		b, err := os.ReadFile(c.CA)
		if err != nil {
			return nil, fmt.Errorf("-service-tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("-service-tls-ca: %s holds no PEM certificate", c.CA)
		}
		tc.RootCAs = pool
	}
	if c.Cert != "" || c.Key != "" {
		pair, err := tls.LoadX509KeyPair(c.Cert, c.Key)
		if err != nil {
			return nil, fmt.Errorf("-service-tls-cert/-service-tls-key: %w", err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

// loadSecret reads the secret: the file's first non-blank line without
// surrounding white space, one word of printable ASCII (it travels in gRPC
// metadata). Later lines are for the service: during a rotation its file
// holds the new secret first and the old one below it.
func loadSecret(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("-service-secret-file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", fmt.Errorf("-service-secret-file %s: %w", path, err)
	}
	s := ""
	for _, line := range strings.Split(string(b), "\n") {
		if s = strings.TrimSpace(line); s != "" {
			break
		}
	}
	if len(b) > maxSecretFile || s == "" {
		return "", fmt.Errorf("-service-secret-file %s: must hold one secret of at most %d bytes", path, maxSecretFile)
	}
	for _, ch := range []byte(s) {
		if ch < 0x21 || ch > 0x7e {
			return "", errors.New("-service-secret-file " + path + ": the secret must be one word of printable ASCII")
		}
	}
	return s, nil
}

// bearer is the per-call credential of the shared secret.
type bearer struct {
	secret string
	tls    bool
}

// GetRequestMetadata implements credentials.PerRPCCredentials.
func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.secret}, nil
}

// RequireTransportSecurity implements credentials.PerRPCCredentials: true
// when the connection is TLS, so that gRPC never sends the secret on a
// connection that fell back to plaintext; false for deliberate plaintext
// (see the package comment).
func (b bearer) RequireTransportSecurity() bool { return b.tls }

// String keeps the secret out of any %v of the credential.
func (b bearer) String() string { return "bearer([REDACTED])" }
