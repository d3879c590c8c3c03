// Package callerauth decides who may call the gRPC service. Whoever reaches
// the service acts with its GitHub credentials, so on anything but loopback
// every call must come from a known caller: one that presented a client
// certificate verified against the configured CA (mTLS, checked by the TLS
// handshake), or one that sent the shared bearer secret as
// "authorization: Bearer <secret>" metadata (compared in constant time).
//
// The rule is written once, as a unary and a stream interceptor. The
// grpc.health.v1 service stays open: container and Kubernetes probes cannot
// carry a secret, and health answers say nothing but SERVING or NOT_SERVING.
// A caller that presents a wrong secret is refused there too, so that a
// gateway with a stale secret fails its readiness check instead of looking
// ready and failing every call.
//
// The secret file may hold several secrets, one per line, so that a secret
// can be rotated without downtime: the service accepts any of them, the
// gateway sends the first. To rotate, put the new secret first and keep the
// old one below it, restart the services, then the gateways, then drop the
// old line.
// A refused call gets codes.Unauthenticated with an ErrorInfo whose reason
// is ERROR_REASON_CALLER_UNAUTHENTICATED (docs/errors.md), and the message
// never repeats what the caller sent.
package callerauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// MetadataKey is the gRPC metadata key the bearer secret travels in.
const MetadataKey = "authorization"

// OpenPrefix is the method prefix served without authentication: the
// grpc.health.v1 service, so that probes work without the secret.
const OpenPrefix = "/grpc.health.v1.Health/"

// MinSecretLen is the shortest secret accepted: 16 bytes leave no room for
// guessing over the network, and a secret file holding less is a mistake.
const MinSecretLen = 16

// maxSecretFile bounds the secret file read: a secret is a line, not a blob.
const maxSecretFile = 4096

// domain is the ErrorInfo domain of every status the service sends.
const domain = "ghops.dev"

// Authenticator checks callers. The zero value and a nil one let every
// caller through (no authentication configured).
type Authenticator struct {
	secrets   [][sha256.Size]byte
	hasSecret bool
	mtls      bool
}

// New returns an Authenticator accepting any of the bearer secrets (none
// for no secret) and, with mtls, any caller whose client certificate the
// TLS handshake verified. With neither, every caller is let through.
func New(secrets [][]byte, mtls bool) *Authenticator {
	a := &Authenticator{mtls: mtls}
	for _, s := range secrets {
		if len(s) > 0 {
			// Hashing first makes the comparison constant-time in the
			// length too: both sides are always 32 bytes.
			a.secrets = append(a.secrets, sha256.Sum256(s))
		}
	}
	a.hasSecret = len(a.secrets) > 0
	return a
}

// Enabled reports whether callers must authenticate.
func (a *Authenticator) Enabled() bool { return a != nil && (a.hasSecret || a.mtls) }

// Mode names the accepted credentials for the start-up log line.
func (a *Authenticator) Mode() string {
	switch {
	case !a.Enabled():
		return "none"
	case a.hasSecret && a.mtls:
		return "mtls+secret"
	case a.mtls:
		return "mtls"
	default:
		return "secret"
	}
}

// Errors of Check; their text is the status message (it names what was
// missing or wrong, never the value sent).
var (
	ErrMissing = errors.New("caller not authenticated: no bearer secret and no verified client certificate")
	ErrWrong   = errors.New("caller not authenticated: wrong bearer secret")
	ErrMalform = errors.New("caller not authenticated: authorization metadata is not one \"Bearer <secret>\" value")
)

// Check returns nil when the call of method in ctx may proceed, else a
// codes.Unauthenticated status with the ERROR_REASON_CALLER_UNAUTHENTICATED
// ErrorInfo.
func (a *Authenticator) Check(ctx context.Context, method string) error {
	if !a.Enabled() {
		return nil
	}
	open := strings.HasPrefix(method, OpenPrefix)
	if a.mtls && verifiedPeer(ctx) {
		return nil
	}
	err := ErrMissing
	if a.hasSecret {
		vals := metadata.ValueFromIncomingContext(ctx, MetadataKey)
		if len(vals) > 0 {
			got, ok := ParseBearer(vals)
			switch {
			case !ok:
				err = ErrMalform
			case a.matches(got):
				return nil
			default:
				err = ErrWrong
			}
		}
	}
	if open && err == ErrMissing {
		return nil
	}
	return refusal(err)
}

// matches compares got with every secret in constant time (all are
// compared, so the time says nothing about which one matched).
func (a *Authenticator) matches(got string) bool {
	sum := sha256.Sum256([]byte(got))
	ok := 0
	for _, s := range a.secrets {
		ok |= subtle.ConstantTimeCompare(sum[:], s[:])
	}
	return ok == 1
}

// ParseBearer returns the credential of the single "Bearer <credential>"
// value of vals (scheme case-insensitive, as RFC 9110 says); ok is false
// for none, several values, another scheme or an empty credential.
func ParseBearer(vals []string) (cred string, ok bool) {
	if len(vals) != 1 {
		return "", false
	}
	scheme, rest, found := strings.Cut(strings.TrimSpace(vals[0]), " ")
	if !found || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if rest == "" || strings.ContainsAny(rest, " \t") {
		return "", false
	}
	return rest, true
}

// verifiedPeer reports whether the call came over TLS with a client
// certificate the handshake verified against the client CA.
func verifiedPeer(ctx context.Context) bool {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return false
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	return ok && len(info.State.VerifiedChains) > 0
}

// refusal is the status of a refused caller.
func refusal(err error) error {
	st := status.New(codes.Unauthenticated, err.Error())
	if d, derr := st.WithDetails(&errdetails.ErrorInfo{
		Reason: ghopsv1.ErrorReason_ERROR_REASON_CALLER_UNAUTHENTICATED.String(),
		Domain: domain,
	}); derr == nil {
		st = d
	}
	return st.Err()
}

// Unary is the unary server interceptor.
func (a *Authenticator) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := a.Check(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

// Stream is the stream server interceptor (reflection and health watches
// are streams).
func (a *Authenticator) Stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := a.Check(ss.Context(), info.FullMethod); err != nil {
		return err
	}
	return handler(srv, ss)
}

// MaxSecrets bounds the secrets of one file (rotation needs two).
const MaxSecrets = 4

// LoadSecrets reads the shared secrets from path: one per line, without
// surrounding white space (a trailing newline is what editors and
// `kubectl create secret --from-file` leave); blank lines are skipped. The
// error never quotes the content.
func LoadSecrets(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("secret file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return nil, fmt.Errorf("secret file %s: %w", path, err)
	}
	if len(b) > maxSecretFile {
		return nil, fmt.Errorf("secret file %s: larger than %d bytes", path, maxSecretFile)
	}
	var out [][]byte
	for i, line := range strings.Split(string(b), "\n") {
		s := strings.TrimSpace(line)
		if s == "" {
			continue
		}
		if err := checkSecret(s); err != nil {
			return nil, fmt.Errorf("secret file %s, line %d: %w", path, i+1, err)
		}
		out = append(out, []byte(s))
	}
	switch {
	case len(out) == 0:
		return nil, fmt.Errorf("secret file %s: no secret (the secret must be at least %d bytes)", path, MinSecretLen)
	case len(out) > MaxSecrets:
		return nil, fmt.Errorf("secret file %s: more than %d secrets", path, MaxSecrets)
	}
	return out, nil
}

// checkSecret says why s cannot be a secret; nil when it can.
func checkSecret(s string) error {
	if len(s) < MinSecretLen {
		return fmt.Errorf("the secret must be at least %d bytes", MinSecretLen)
	}
	for _, c := range []byte(s) {
		if c < 0x21 || c > 0x7e {
			return errors.New("the secret must be one word of printable ASCII (it travels in gRPC metadata)")
		}
	}
	return nil
}
