package config

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ghops.dev/services/fakehub"
)

// writeFile writes content to a new file in t's temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	goodTokens := writeFile(t, "tokens.json", `[{"Value":"secret-tok","Login":"bob","Repos":{"o/r":"write"}}]`)
	goodFaults := writeFile(t, "faults.json", `[{"route":"/repos/{owner}/{repo}","error_status":502,"error_rate":1}]`)
	badJSON := writeFile(t, "bad.json", `[{"Value":"secret-tok",`)
	noValue := writeFile(t, "novalue.json", `[{"Login":"bob"}]`)
	wrongType := writeFile(t, "wrongtype.json", `[{"Value":12345}]`)
	badFault := writeFile(t, "badfault.json", `[{"rate_limit":"tertiary"}]`)
	missing := filepath.Join(t.TempDir(), "missing.json")
	appKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pkix, _ := x509.MarshalPKIXPublicKey(&appKey.PublicKey)
	pub := writeFile(t, "pub.pem", string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix})))
	pkcs1 := writeFile(t, "rsapub.pem", string(pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&appKey.PublicKey)})))
	priv := writeFile(t, "priv.pem", string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(appKey)})))
	appsFile := writeFile(t, "apps.json", `[{"ID":1,"PublicKeyFile":"`+pub+`","Installations":[{"ID":7,"Repos":{"*":"write"}}]},`+
		`{"ID":2,"PublicKeyFile":"`+pkcs1+`"},{"ID":3,"PublicKeyFile":"`+priv+`"}]`)
	badKey := writeFile(t, "bad.pem", "-----BEGIN PUBLIC KEY-----\nc2VjcmV0\n-----END PUBLIC KEY-----\n")
	badKeyApps := writeFile(t, "badkey.json", `[{"ID":1,"PublicKeyFile":"`+badKey+`"}]`)
	noIDApps := writeFile(t, "noid.json", `[{"PublicKeyFile":"`+pub+`"}]`)

	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr []string // substrings of the error; nil means no error
		check   func(t *testing.T, c Config)
	}{
		{name: "defaults", check: func(t *testing.T, c Config) {
			want := Config{Listen: DefaultListen, Seed: DefaultSeed}
			if c.Listen != want.Listen || c.Seed != want.Seed || c.AdminToken != "" || c.TokensFile != "" ||
				c.FaultsFile != "" || c.CoreLimit != 0 || c.SearchLimit != 0 || c.Tokens != nil || c.Faults != nil {
				t.Errorf("got %+v want %+v", c, want)
			}
		}},
		{name: "env fallbacks", env: map[string]string{
			"FAKEHUB_LISTEN": "127.0.0.1:1", "FAKEHUB_SEED": "", "FAKEHUB_ADMIN_TOKEN": "adm",
			"FAKEHUB_TOKENS": goodTokens, "FAKEHUB_FAULTS": goodFaults,
			"FAKEHUB_CORE_LIMIT": "100", "FAKEHUB_SEARCH_LIMIT": "7",
		}, check: func(t *testing.T, c Config) {
			if c.Listen != "127.0.0.1:1" || c.Seed != "" || c.AdminToken != "adm" || c.CoreLimit != 100 || c.SearchLimit != 7 {
				t.Errorf("got %+v", c)
			}
			if len(c.Tokens) != 1 || c.Tokens[0].Login != "bob" || c.Tokens[0].Repos["o/r"] != fakehub.PermWrite {
				t.Errorf("tokens = %+v", c.Tokens)
			}
			if len(c.Faults) != 1 || c.Faults[0].ErrorStatus != 502 {
				t.Errorf("faults = %+v", c.Faults)
			}
		}},
		{name: "empty limit env means default", env: map[string]string{"FAKEHUB_CORE_LIMIT": "", "FAKEHUB_SEARCH_LIMIT": ""},
			check: func(t *testing.T, c Config) {
				if c.CoreLimit != 0 || c.SearchLimit != 0 {
					t.Errorf("got %+v", c)
				}
			}},
		{name: "flags win", args: []string{"-listen", "127.0.0.1:3", "-seed", "demo", "-admin-token", "flagadm", "-core-limit", "5", "-search-limit", "6"},
			env: map[string]string{"FAKEHUB_LISTEN": "127.0.0.1:1", "FAKEHUB_SEED": "", "FAKEHUB_ADMIN_TOKEN": "adm", "FAKEHUB_CORE_LIMIT": "100", "FAKEHUB_SEARCH_LIMIT": "7"},
			check: func(t *testing.T, c Config) {
				if c.Listen != "127.0.0.1:3" || c.Seed != "demo" || c.AdminToken != "flagadm" || c.CoreLimit != 5 || c.SearchLimit != 6 {
					t.Errorf("got %+v", c)
				}
			}},
		{name: "flag wins over bad env", args: []string{"-core-limit", "5"}, env: map[string]string{"FAKEHUB_CORE_LIMIT": "abc"},
			check: func(t *testing.T, c Config) {
				if c.CoreLimit != 5 {
					t.Errorf("CoreLimit = %d", c.CoreLimit)
				}
			}},
		{name: "apps with keys in every PEM form", env: map[string]string{"FAKEHUB_APPS": appsFile, "FAKEHUB_APP_TOKEN_TTL": "90s"},
			check: func(t *testing.T, c Config) {
				if len(c.Apps) != 3 || c.AppTokenTTL != 90*time.Second {
					t.Fatalf("apps %+v ttl %v", c.Apps, c.AppTokenTTL)
				}
				for _, a := range c.Apps {
					if a.PublicKey == nil || a.PublicKey.N.Cmp(appKey.N) != 0 {
						t.Errorf("app %d: wrong key", a.ID)
					}
				}
				if in := c.Apps[0].Installations; len(in) != 1 || in[0].ID != 7 || in[0].Repos["*"] != fakehub.PermWrite {
					t.Errorf("installations %+v", in)
				}
				if h := c.Hub(nil); len(h.Apps) != 3 || h.AppTokenTTL != 90*time.Second {
					t.Errorf("hub config %+v", h)
				}
			}},
		{name: "app key not a key", args: []string{"-apps", badKeyApps}, wantErr: []string{"-apps", "not a valid key"}},
		{name: "app without id", args: []string{"-apps", noIDApps}, wantErr: []string{"needs an ID"}},
		{name: "bad app token ttl", args: []string{"-app-token-ttl", "soon"}, wantErr: []string{"-app-token-ttl"}},
		{name: "bad core limit env", env: map[string]string{"FAKEHUB_CORE_LIMIT": "abc"}, wantErr: []string{"FAKEHUB_CORE_LIMIT", `"abc"`}},
		{name: "bad search limit env", env: map[string]string{"FAKEHUB_SEARCH_LIMIT": "1.5"}, wantErr: []string{"FAKEHUB_SEARCH_LIMIT"}},
		{name: "bad core limit flag", args: []string{"-core-limit", "abc"}, wantErr: []string{"-core-limit"}},
		{name: "negative core limit flag", args: []string{"-core-limit", "-1"}, wantErr: []string{"-core-limit", ">= 0"}},
		{name: "negative search limit env", env: map[string]string{"FAKEHUB_SEARCH_LIMIT": "-3"}, wantErr: []string{"FAKEHUB_SEARCH_LIMIT", "-search-limit", ">= 0"}},
		{name: "unknown seed", args: []string{"-seed", "big"}, wantErr: []string{"-seed", `"big"`}},
		{name: "unknown seed env", env: map[string]string{"FAKEHUB_SEED": "big"}, wantErr: []string{"FAKEHUB_SEED"}},
		{name: "empty listen", args: []string{"-listen", ""}, wantErr: []string{"-listen"}},
		{name: "missing tokens file", args: []string{"-tokens", missing}, wantErr: []string{"-tokens", "missing.json"}},
		{name: "malformed tokens file", env: map[string]string{"FAKEHUB_TOKENS": badJSON}, wantErr: []string{"FAKEHUB_TOKENS", "-tokens", "bad.json"}},
		{name: "token without value", args: []string{"-tokens", noValue}, wantErr: []string{"-tokens", "token 0 has no Value"}},
		{name: "token of wrong type", args: []string{"-tokens", wrongType}, wantErr: []string{"-tokens", "wrong JSON type"}},
		{name: "missing faults file", env: map[string]string{"FAKEHUB_FAULTS": missing}, wantErr: []string{"FAKEHUB_FAULTS", "missing.json"}},
		{name: "malformed faults file", args: []string{"-faults", badJSON}, wantErr: []string{"-faults", "bad.json"}},
		{name: "invalid fault", args: []string{"-faults", badFault}, wantErr: []string{"-faults", "badfault.json"}},
		{name: "unknown flag", args: []string{"-nope"}, wantErr: []string{"-nope"}},
		{name: "positional argument", args: []string{"demo"}, wantErr: []string{`"demo"`}},
		{name: "two bad values", args: []string{"-core-limit", "-1", "-search-limit", "-2"}, wantErr: []string{"-core-limit", "-search-limit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			c, err := Load(tt.args, lookup, io.Discard)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				tt.check(t, c)
				return
			}
			if err == nil {
				t.Fatalf("no error; config %+v", c)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "secret-tok") {
				t.Errorf("error leaks a token: %q", err)
			}
		})
	}
}

func TestHub(t *testing.T) {
	c := Config{Seed: "demo", AdminToken: "adm", CoreLimit: 3, SearchLimit: 4, Tokens: []fakehub.Token{{Value: "v"}}, Faults: []fakehub.Fault{{ErrorStatus: 500}}}
	h := c.Hub(nil)
	if h.Seed != "demo" || h.AdminToken != "adm" || h.CoreLimit != 3 || h.SearchLimit != 4 || len(h.Tokens) != 1 || len(h.Faults) != 1 {
		t.Errorf("Hub() = %+v", h)
	}
	if _, err := fakehub.New(h); err != nil {
		t.Errorf("fakehub.New: %v", err)
	}
}
