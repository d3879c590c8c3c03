package servicedial_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ghops.dev/services/github/servicetest"

	"ghops.dev/gateway/internal/servicedial"
)

func TestOptions(t *testing.T) {
	pki := servicetest.NewPKI(t)
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := file("good", "abcdefghijklmnop-secret\n")
	tests := []struct {
		name     string
		cfg      servicedial.Config
		wantErr  string
		wantMode string
	}{
		{name: "nothing", cfg: servicedial.Config{}, wantMode: "none"},
		{name: "secret", cfg: servicedial.Config{SecretFile: good}, wantMode: "secret"},
		{name: "mTLS and secret", cfg: servicedial.Config{SecretFile: good, CA: pki.CA, Cert: pki.ClientCert, Key: pki.ClientKey}, wantMode: "tls+client-cert+secret"},
		{name: "TLS only", cfg: servicedial.Config{CA: pki.CA}, wantMode: "tls"},
		{name: "missing secret file", cfg: servicedial.Config{SecretFile: filepath.Join(dir, "none")}, wantErr: "-service-secret-file"},
		{name: "empty secret", cfg: servicedial.Config{SecretFile: file("empty", "\n\n")}, wantErr: "must hold one secret"},
		{name: "rotation file: the first line is sent", cfg: servicedial.Config{SecretFile: file("rotation", "\nabcdefghijklmnop-new\nabcdefghijklmnop-old\n")}, wantMode: "secret"},
		{name: "two words", cfg: servicedial.Config{SecretFile: file("words", "hidden-part one")}, wantErr: "printable ASCII"},
		{name: "CA not PEM", cfg: servicedial.Config{CA: file("ca", "hidden-part")}, wantErr: "no PEM certificate"},
		{name: "certificate without its key", cfg: servicedial.Config{CA: pki.CA, Cert: pki.ClientCert, Key: pki.ServerKey}, wantErr: "-service-tls-cert"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := servicedial.Options(tc.cfg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "hidden-part") {
					t.Errorf("the error quotes the file: %v", err)
				}
				return
			}
			if err != nil || len(opts) == 0 {
				t.Fatalf("Options = %v, %v", opts, err)
			}
			if m := servicedial.Mode(tc.cfg); m != tc.wantMode {
				t.Errorf("Mode = %q want %q", m, tc.wantMode)
			}
		})
	}
}
