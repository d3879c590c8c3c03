package callerauth

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// ServerTLS returns the TLS configuration of the listener: the service's
// certificate and key, and with clientCAFile ("" for none) the CA client
// certificates are verified against.
//
// Client certificates are verified if given (tls.VerifyClientCertIfGiven),
// not required by the handshake: a caller with the bearer secret and the
// health probes need none, and the interceptor (Check) refuses a call that
// has neither. An untrusted certificate still fails the handshake.
func ServerTLS(certFile, keyFile, clientCAFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("-tls-cert/-tls-key: %w", err)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	if clientCAFile != "" {
		pool, err := loadPool(clientCAFile)
		if err != nil {
			return nil, fmt.Errorf("-tls-client-ca: %w", err)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	}
	return cfg, nil
}

// ProbeTLS returns the TLS configuration of the healthcheck command, which
// dials its own service: it accepts exactly the certificate in certFile
// (the one the service serves), whatever names it holds, since the probe
// dials a listen address (0.0.0.0 becomes 127.0.0.1), not a service name.
// It sends no credential: the health service is open.
func ProbeTLS(certFile string) (*tls.Config, error) {
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("-tls-cert: %w", err)
	}
	var want []byte
	for rest := pemBytes; want == nil; {
		var blk *pem.Block
		if blk, rest = pem.Decode(rest); blk == nil {
			break
		}
		if blk.Type == "CERTIFICATE" {
			want = blk.Bytes // the leaf is the first certificate of the file
		}
	}
	if want == nil {
		return nil, errors.New("-tls-cert: no certificate in the file")
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		// Verification is not skipped: VerifyPeerCertificate pins the leaf
		// to the service's own certificate instead of checking names.
		InsecureSkipVerify: true, //nolint:gosec // pinned below
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 || !bytes.Equal(raw[0], want) {
				return errors.New("probe: the server's certificate is not the one in -tls-cert")
			}
			return nil
		},
	}, nil
}

// loadPool reads a PEM file of CA certificates.
func loadPool(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}
