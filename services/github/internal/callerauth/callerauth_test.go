package callerauth_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"ghops.dev/services/github/internal/callerauth"
)

const secret = "0123456789abcdef-secret"

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		auth   *callerauth.Authenticator
		method string
		md     metadata.MD
		ok     bool
		why    error
	}{
		{name: "no auth configured", auth: callerauth.New(nil, false), method: "/ghops.v1.GitHubService/Search", ok: true},
		{name: "nil authenticator", auth: nil, method: "/ghops.v1.GitHubService/Search", ok: true},
		{name: "health is open", auth: callerauth.New([][]byte{[]byte(secret)}, false), method: "/grpc.health.v1.Health/Check", ok: true},
		{name: "health watch is open", auth: callerauth.New([][]byte{[]byte(secret)}, false), method: "/grpc.health.v1.Health/Watch", ok: true},
		{name: "missing", auth: callerauth.New([][]byte{[]byte(secret)}, false), method: "/ghops.v1.GitHubService/Search", why: callerauth.ErrMissing},
		{name: "right", auth: callerauth.New([][]byte{[]byte(secret)}, false), method: "/ghops.v1.GitHubService/Search",
			md: metadata.Pairs("authorization", "Bearer "+secret), ok: true},
		{name: "scheme in lower case", auth: callerauth.New([][]byte{[]byte(secret)}, false), method: "/x/y",
			md: metadata.Pairs("authorization", "bearer "+secret), ok: true},
		{name: "wrong", auth: callerauth.New([][]byte{[]byte(secret)}, false), method: "/x/y",
			md: metadata.Pairs("authorization", "Bearer nope"), why: callerauth.ErrWrong},
		{name: "basic scheme", auth: callerauth.New([][]byte{[]byte(secret)}, false), method: "/x/y",
			md: metadata.Pairs("authorization", "Basic "+secret), why: callerauth.ErrMalform},
		{name: "two values", auth: callerauth.New([][]byte{[]byte(secret)}, false), method: "/x/y",
			md: metadata.Pairs("authorization", "Bearer "+secret, "authorization", "Bearer "+secret), why: callerauth.ErrMalform},
		{name: "mtls only, no peer", auth: callerauth.New(nil, true), method: "/x/y",
			md: metadata.Pairs("authorization", "Bearer "+secret), why: callerauth.ErrMissing},
		{name: "health refuses a wrong secret", auth: callerauth.New([][]byte{[]byte(secret)}, false), method: "/grpc.health.v1.Health/Check",
			md: metadata.Pairs("authorization", "Bearer stale"), why: callerauth.ErrWrong},
		{name: "health accepts the right secret", auth: callerauth.New([][]byte{[]byte(secret)}, false), method: "/grpc.health.v1.Health/Check",
			md: metadata.Pairs("authorization", "Bearer "+secret), ok: true},
		{name: "either of two secrets: the new one", auth: callerauth.New([][]byte{[]byte("new-0123456789abcdef"), []byte(secret)}, false), method: "/x/y",
			md: metadata.Pairs("authorization", "Bearer new-0123456789abcdef"), ok: true},
		{name: "either of two secrets: the old one", auth: callerauth.New([][]byte{[]byte("new-0123456789abcdef"), []byte(secret)}, false), method: "/x/y",
			md: metadata.Pairs("authorization", "Bearer "+secret), ok: true},
		{name: "neither of two secrets", auth: callerauth.New([][]byte{[]byte("new-0123456789abcdef"), []byte(secret)}, false), method: "/x/y",
			md: metadata.Pairs("authorization", "Bearer third-0123456789abcdef"), why: callerauth.ErrWrong},
		{name: "health prefix is exact", auth: callerauth.New([][]byte{[]byte(secret)}, false), method: "/grpc.health.v1.HealthX/Check", why: callerauth.ErrMissing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.md != nil {
				ctx = metadata.NewIncomingContext(ctx, tc.md)
			}
			err := tc.auth.Check(ctx, tc.method)
			if tc.ok {
				if err != nil {
					t.Fatalf("Check = %v", err)
				}
				return
			}
			st := status.Convert(err)
			if st.Code() != codes.Unauthenticated || st.Message() != tc.why.Error() {
				t.Fatalf("Check = %v, want Unauthenticated %q", err, tc.why)
			}
			if strings.Contains(st.Message(), secret) || strings.Contains(st.Message(), "nope") {
				t.Errorf("message echoes the credential: %q", st.Message())
			}
		})
	}
}

func TestMode(t *testing.T) {
	tests := []struct {
		name string
		a    *callerauth.Authenticator
		want string
	}{
		{"none", callerauth.New(nil, false), "none"},
		{"secret", callerauth.New([][]byte{[]byte(secret)}, false), "secret"},
		{"mtls", callerauth.New(nil, true), "mtls"},
		{"both", callerauth.New([][]byte{[]byte(secret)}, true), "mtls+secret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Mode(); got != tc.want {
				t.Errorf("Mode = %q want %q", got, tc.want)
			}
		})
	}
}

func TestLoadSecret(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content, wantErr string
		want                   []string
	}{
		{name: "trailing newline trimmed", content: secret + "\n", want: []string{secret}},
		{name: "crlf trimmed", content: "  " + secret + "\r\n", want: []string{secret}},
		{name: "two lines for a rotation", content: "\nnew-0123456789abcdef\n\n" + secret + "\n", want: []string{"new-0123456789abcdef", secret}},
		{name: "empty", content: "\n \n", wantErr: "no secret"},
		{name: "too short", content: "short\n", wantErr: "at least 16 bytes"},
		{name: "a short line among good ones", content: secret + "\nshort\n", wantErr: "line 2"},
		{name: "two words", content: secret + " " + secret, wantErr: "one word"},
		{name: "not ascii", content: secret + "é", wantErr: "printable ASCII"},
		{name: "too many", content: strings.Repeat(secret+"\n", 5), wantErr: "more than 4"},
		{name: "too large", content: strings.Repeat("x", 5000), wantErr: "larger than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := callerauth.LoadSecrets(p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "short\n") || strings.Contains(err.Error(), secret) {
					t.Errorf("error quotes the file: %v", err)
				}
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("LoadSecrets = %q, %v", got, err)
			}
			for i := range got {
				if string(got[i]) != tc.want[i] {
					t.Errorf("secret %d = %q want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
	if _, err := callerauth.LoadSecrets(filepath.Join(dir, "absent")); err == nil {
		t.Error("a missing file must fail")
	}
}

// FuzzParseBearer: whatever a caller sends, the parser neither panics nor
// accepts a credential with white space or an empty one.
func FuzzParseBearer(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer  abc ", "Basic abc", "Bearer", "Bearer a b", "", " Bearer\tx", "BEARER x\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		cred, ok := callerauth.ParseBearer([]string{v})
		if !ok {
			if cred != "" {
				t.Fatalf("refused but returned %q", cred)
			}
			return
		}
		if cred == "" || strings.ContainsAny(cred, " \t") || !strings.Contains(v, cred) {
			t.Fatalf("ParseBearer(%q) = %q", v, cred)
		}
	})
}
