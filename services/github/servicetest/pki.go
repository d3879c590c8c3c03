package servicetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// PKI is a throwaway set of PEM files for TLS and mTLS tests, made fresh
// by NewPKI in a test's temporary directory: a CA, the service's
// certificate for 127.0.0.1 and localhost, a client certificate the CA
// signed, and one signed by another CA (untrusted).
type PKI struct {
	// CA is the CA certificate (server and client certificates chain to it).
	CA string
	// ServerCert and ServerKey are the service's certificate and key.
	ServerCert, ServerKey string
	// ClientCert and ClientKey are a client certificate the CA signed.
	ClientCert, ClientKey string
	// UntrustedCert and UntrustedKey are a client certificate of another CA.
	UntrustedCert, UntrustedKey string
}

// NewPKI writes a fresh PKI into t.TempDir().
func NewPKI(t testing.TB) PKI {
	t.Helper()
	dir := t.TempDir()
	ca, caKey := issue(t, nil, nil, &x509.Certificate{Subject: pkix.Name{CommonName: "ghops test CA"}, IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true})
	other, otherKey := issue(t, nil, nil, &x509.Certificate{Subject: pkix.Name{CommonName: "someone else's CA"}, IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true})
	srv, srvKey := issue(t, ca, caKey, &x509.Certificate{Subject: pkix.Name{CommonName: "ghops-github"},
		DNSNames: []string{"localhost", "ghops-github"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature})
	cli, cliKey := issue(t, ca, caKey, &x509.Certificate{Subject: pkix.Name{CommonName: "ghops-gateway"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature})
	bad, badKey := issue(t, other, otherKey, &x509.Certificate{Subject: pkix.Name{CommonName: "intruder"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature})
	p := PKI{
		CA:         write(t, dir, "ca.pem", "CERTIFICATE", ca.Raw),
		ServerCert: write(t, dir, "server.pem", "CERTIFICATE", srv.Raw), ServerKey: writeKey(t, dir, "server-key.pem", srvKey),
		ClientCert: write(t, dir, "client.pem", "CERTIFICATE", cli.Raw), ClientKey: writeKey(t, dir, "client-key.pem", cliKey),
		UntrustedCert: write(t, dir, "untrusted.pem", "CERTIFICATE", bad.Raw), UntrustedKey: writeKey(t, dir, "untrusted-key.pem", badKey),
	}
	return p
}

// issue makes a certificate from tmpl signed by parent (self-signed when
// parent is nil) with a new P-256 key.
func issue(t testing.TB, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, tmpl *x509.Certificate) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

func writeKey(t testing.TB, dir, name string, key *ecdsa.PrivateKey) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return write(t, dir, name, "PRIVATE KEY", der)
}

func write(t testing.TB, dir, name, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
