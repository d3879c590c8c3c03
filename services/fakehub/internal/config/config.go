// Package config holds the configuration of the fakehub binary and fills it
// from command-line flags with environment-variable fallbacks: a flag given on
// the command line wins over its variable, which wins over the default.
// -version and -h are actions, not settings, and have no variable. The
// command "healthcheck" may stand before, between or after the flags.
package config

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"ghops.dev/infra/flagenv"
	"ghops.dev/services/fakehub"
)

// Defaults of the configuration; every other field defaults to its zero value.
const (
	// DefaultListen is the address the emulator listens on.
	DefaultListen = "127.0.0.1:8789"
	// DefaultSeed is the dataset the emulator starts with ("demo"; "" seeds nothing).
	DefaultSeed = "demo"
)

// CommandHealthcheck is the command that probes a running fakehub (GET
// /healthz on Listen) instead of serving, for container healthchecks, which
// have no shell or curl in the image.
const CommandHealthcheck = "healthcheck"

// Config is the fakehub binary's configuration.
type Config struct {
	// Listen is the HTTP listen address (flag -listen, env FAKEHUB_LISTEN; default DefaultListen).
	Listen string
	// Seed is the dataset to seed, "demo" or "" for none (flag -seed, env FAKEHUB_SEED;
	// default DefaultSeed; an empty FAKEHUB_SEED that is set means none).
	Seed string
	// AdminToken is the bearer token of /_fakehub/; empty (the default) disables that API
	// (flag -admin-token, env FAKEHUB_ADMIN_TOKEN).
	AdminToken string
	// TokensFile names a JSON file of extra tokens, [{"Value","Login","Repos":{"owner/repo":"write"}}],
	// each with optional "Scopes" (["repo","read:project"]; absent grants every scope)
	// (flag -tokens, env FAKEHUB_TOKENS; default none).
	TokensFile string
	// FaultsFile names a JSON file of faults as accepted by PUT /_fakehub/faults
	// (flag -faults, env FAKEHUB_FAULTS; default none).
	FaultsFile string
	// CoreLimit is the core requests per hour per token; 0 (the default) means 5000
	// (flag -core-limit, env FAKEHUB_CORE_LIMIT).
	CoreLimit int
	// SearchLimit is the search requests per minute per token; 0 (the default) means 30
	// (flag -search-limit, env FAKEHUB_SEARCH_LIMIT). Code search has its own bucket of 10.
	SearchLimit int
	// AppsFile names a JSON file of GitHub Apps whose installations may get
	// tokens, [{"ID":42,"PublicKeyFile":"app.pem","Installations":[{"ID":7,"Repos":{"*":"write"}}]}]
	// (flag -apps, env FAKEHUB_APPS; default none). PublicKeyFile is a PEM
	// public key, or the App's private key (only its public half is kept).
	AppsFile string
	// AppTokenTTL is the life of an installation token; 0 (the default) means
	// fakehub.DefaultAppTokenTTL (flag -app-token-ttl, env FAKEHUB_APP_TOKEN_TTL).
	AppTokenTTL time.Duration
	// Apps are the Apps read from AppsFile.
	Apps []fakehub.App
	// Tokens are the tokens read from TokensFile.
	Tokens []fakehub.Token
	// Faults are the faults read from FaultsFile.
	Faults []fakehub.Fault
	// Command is "" (serve) or CommandHealthcheck.
	Command string
	// ShowVersion asks the binary to print its version and exit (-version).
	ShowVersion bool
}

// usage is the head of the -h text; the flags follow it.
const usage = `usage:
  fakehub [flags]              serve the GitHub REST emulator (and GET /healthz)
  fakehub [flags] healthcheck  exit 0 when the fakehub on -listen answers GET /healthz, else 1

Flags (each falls back to the environment variable in parentheses):
`

// Hub returns the emulator's configuration, logging to log.
func (c Config) Hub(log *slog.Logger) fakehub.Config {
	return fakehub.Config{
		Tokens: c.Tokens, AdminToken: c.AdminToken, Seed: c.Seed,
		CoreLimit: c.CoreLimit, SearchLimit: c.SearchLimit, Faults: c.Faults, Logger: log,
		Apps: c.Apps, AppTokenTTL: c.AppTokenTTL,
	}
}

// Load fills a Config from args (without the program name), falling back to
// lookupEnv (os.LookupEnv in the binary) for each flag not given (package
// flagenv); flag errors and usage go to output. It reads the tokens and
// faults files, and its errors name the flag, and the variable when the
// value came from there. No error carries a token.
func Load(args []string, lookupEnv func(string) (string, bool), output io.Writer) (Config, error) {
	// An empty variable that is set counts only for the seed ("" seeds
	// nothing); an empty limit or address means its default.
	lookup := func(k string) (string, bool) {
		v, ok := lookupEnv(k)
		return v, ok && (v != "" || k == "FAKEHUB_SEED")
	}
	s := flagenv.New("fakehub", usage, lookup, output)
	var c Config
	var ttl string
	s.String(&c.Listen, "listen", "FAKEHUB_LISTEN", DefaultListen, "address to listen on")
	s.String(&c.Seed, "seed", "FAKEHUB_SEED", DefaultSeed, `dataset to seed: "demo" or "" for none`)
	s.String(&c.AdminToken, "admin-token", "FAKEHUB_ADMIN_TOKEN", "", "bearer token for /_fakehub/, empty disables it")
	s.String(&c.TokensFile, "tokens", "FAKEHUB_TOKENS", "", "JSON file of extra tokens")
	s.String(&c.FaultsFile, "faults", "FAKEHUB_FAULTS", "", "JSON file of faults to inject")
	s.Int(&c.CoreLimit, "core-limit", "FAKEHUB_CORE_LIMIT", 0, "core requests per hour per token, 0 = 5000")
	s.Int(&c.SearchLimit, "search-limit", "FAKEHUB_SEARCH_LIMIT", 0, "search requests per minute per token, 0 = 30")
	s.String(&c.AppsFile, "apps", "FAKEHUB_APPS", "", "JSON file of GitHub Apps whose installations may get tokens")
	s.String(&ttl, "app-token-ttl", "FAKEHUB_APP_TOKEN_TTL", "", "life of an installation token, e.g. 1h; empty = 1h")
	s.Action(&c.ShowVersion, "version", "print the version and exit")
	cmd, err := s.Parse(args, CommandHealthcheck)
	if err != nil && s.Err() == nil {
		return Config{}, fmt.Errorf("config: %w", err) // -h, a bad flag or command
	}
	c.Command = cmd
	if c.CoreLimit < 0 {
		s.Fail("core-limit", fmt.Errorf("must be >= 0 (0 = 5000/hour), got %d", c.CoreLimit))
	}
	if c.SearchLimit < 0 {
		s.Fail("search-limit", fmt.Errorf("must be >= 0 (0 = 30/minute), got %d", c.SearchLimit))
	}
	if c.Listen == "" {
		s.Fail("listen", errors.New("must not be empty"))
	}
	if c.Seed != "" && c.Seed != "demo" {
		s.Fail("seed", fmt.Errorf("unknown seed %q (want \"demo\" or \"\")", c.Seed))
	}
	if ttl != "" {
		d, err := time.ParseDuration(ttl)
		if err != nil || d <= 0 {
			s.Fail("app-token-ttl", fmt.Errorf("%q is not a positive duration such as 1h", ttl))
		}
		c.AppTokenTTL = d
	}
	if c.AppsFile != "" {
		apps, err := readApps(c.AppsFile)
		if err != nil {
			s.Fail("apps", err)
		}
		c.Apps = apps
	}
	if c.TokensFile != "" {
		toks, err := readTokens(c.TokensFile)
		if err != nil {
			s.Fail("tokens", err)
		}
		c.Tokens = toks
	}
	if c.FaultsFile != "" {
		fl, err := readFaults(c.FaultsFile)
		if err != nil {
			s.Fail("faults", err)
		}
		c.Faults = fl
	}
	if err := s.Err(); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

// readTokens reads a JSON list of tokens; every token must have a value.
// Errors never quote the file's content, which holds secrets.
func readTokens(path string) ([]fakehub.Token, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var toks []fakehub.Token
	if err := json.Unmarshal(data, &toks); err != nil {
		return nil, fmt.Errorf("%s: not a JSON list of tokens: %w", path, jsonErr(err))
	}
	for i, t := range toks {
		if t.Value == "" {
			return nil, fmt.Errorf("%s: token %d has no Value", path, i)
		}
	}
	return toks, nil
}

// appFile is one App of the -apps file.
type appFile struct {
	ID            int64
	PublicKeyFile string
	Installations []fakehub.Installation
}

// readApps reads a JSON list of Apps and their public keys (relative key
// paths are relative to the file). Errors never quote a key.
func readApps(path string) ([]fakehub.App, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []appFile
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s: not a JSON list of apps: %w", path, jsonErr(err))
	}
	apps := make([]fakehub.App, 0, len(list))
	for i, a := range list {
		if a.ID <= 0 || a.PublicKeyFile == "" {
			return nil, fmt.Errorf("%s: app %d needs an ID and a PublicKeyFile", path, i)
		}
		kp := a.PublicKeyFile
		if !filepath.IsAbs(kp) {
			kp = filepath.Join(filepath.Dir(path), kp)
		}
		pub, err := readPublicKey(kp)
		if err != nil {
			return nil, fmt.Errorf("%s: app %d: %w", path, a.ID, err)
		}
		apps = append(apps, fakehub.App{ID: a.ID, PublicKey: pub, Installations: a.Installations})
	}
	return apps, nil
}

// readPublicKey reads an RSA public key from a PEM file: PUBLIC KEY, RSA
// PUBLIC KEY, or a private key (RSA PRIVATE KEY, PRIVATE KEY) whose public
// half is kept.
func readPublicKey(path string) (*rsa.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(data)
	if blk == nil {
		return nil, fmt.Errorf("%s: no PEM block", path)
	}
	var key any
	switch blk.Type {
	case "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(blk.Bytes)
	case "RSA PUBLIC KEY":
		key, err = x509.ParsePKCS1PublicKey(blk.Bytes)
	case "RSA PRIVATE KEY":
		var k *rsa.PrivateKey
		if k, err = x509.ParsePKCS1PrivateKey(blk.Bytes); err == nil {
			key = &k.PublicKey
		}
	case "PRIVATE KEY":
		var k any
		if k, err = x509.ParsePKCS8PrivateKey(blk.Bytes); err == nil {
			if rk, ok := k.(*rsa.PrivateKey); ok {
				key = &rk.PublicKey
			}
		}
	default:
		return nil, fmt.Errorf("%s: a %q PEM block is not an RSA key", path, blk.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid key", path)
	}
	pub, ok := key.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%s: not an RSA key (GitHub Apps sign with RS256)", path)
	}
	return pub, nil
}

// readFaults reads a JSON list of faults as PUT /_fakehub/faults accepts it.
func readFaults(path string) ([]fakehub.Fault, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fl, err := fakehub.ParseFaults(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid JSON list of faults: %w", path, jsonErr(err))
	}
	return fl, nil
}

// jsonErr strips a decoding error down to where it happened, so that no part
// of the input (a token, say) is echoed; other errors pass unchanged.
func jsonErr(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("syntax error at byte %d", syn.Offset)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Errorf("wrong JSON type at byte %d (field %q wants %s)", typ.Offset, typ.Field, typ.Type)
	}
	return err
}
