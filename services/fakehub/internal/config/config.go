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
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

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
	// TokensFile names a JSON file of extra tokens, [{"Value","Login","Repos":{"owner/repo":"write"}}]
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

// setting names one setting by its flag and its environment variable.
type setting struct{ flag, env string }

// Settings of the binary, by flag and environment variable.
var (
	listenS      = setting{"listen", "FAKEHUB_LISTEN"}
	seedS        = setting{"seed", "FAKEHUB_SEED"}
	adminTokenS  = setting{"admin-token", "FAKEHUB_ADMIN_TOKEN"}
	tokensS      = setting{"tokens", "FAKEHUB_TOKENS"}
	faultsS      = setting{"faults", "FAKEHUB_FAULTS"}
	coreLimitS   = setting{"core-limit", "FAKEHUB_CORE_LIMIT"}
	searchLimitS = setting{"search-limit", "FAKEHUB_SEARCH_LIMIT"}
	appsS        = setting{"apps", "FAKEHUB_APPS"}
	appTTLS      = setting{"app-token-ttl", "FAKEHUB_APP_TOKEN_TTL"}
)

// Load fills a Config from args (without the program name), falling back to
// lookupEnv (os.LookupEnv in the binary) for each flag not given; flag errors
// and usage go to output. It reads the tokens and faults files, and its errors
// name the flag, and the variable when the value came from there. No error
// carries a token.
func Load(args []string, lookupEnv func(string) (string, bool), output io.Writer) (Config, error) {
	fs := flag.NewFlagSet("fakehub", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	str := func(s setting, def string) string {
		if v, ok := lookupEnv(s.env); ok {
			return v
		}
		return def
	}
	// envErrs holds unparsable variables; each counts only if its flag is not given.
	envErrs := map[string]error{}
	num := func(s setting) int {
		v, ok := lookupEnv(s.env)
		if !ok || v == "" {
			return 0
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			envErrs[s.flag] = fmt.Errorf("config: %s (-%s): %q is not a whole number", s.env, s.flag, v)
		}
		return n
	}
	var c Config
	fs.StringVar(&c.Listen, listenS.flag, str(listenS, DefaultListen), "address to listen on (FAKEHUB_LISTEN)")
	fs.StringVar(&c.Seed, seedS.flag, str(seedS, DefaultSeed), `dataset to seed: "demo" or "" for none (FAKEHUB_SEED)`)
	fs.StringVar(&c.AdminToken, adminTokenS.flag, str(adminTokenS, ""), "bearer token for /_fakehub/, empty disables it (FAKEHUB_ADMIN_TOKEN)")
	fs.StringVar(&c.TokensFile, tokensS.flag, str(tokensS, ""), "JSON file of extra tokens (FAKEHUB_TOKENS)")
	fs.StringVar(&c.FaultsFile, faultsS.flag, str(faultsS, ""), "JSON file of faults to inject (FAKEHUB_FAULTS)")
	fs.IntVar(&c.CoreLimit, coreLimitS.flag, num(coreLimitS), "core requests per hour per token, 0 = 5000 (FAKEHUB_CORE_LIMIT)")
	fs.IntVar(&c.SearchLimit, searchLimitS.flag, num(searchLimitS), "search requests per minute per token, 0 = 30 (FAKEHUB_SEARCH_LIMIT)")
	fs.StringVar(&c.AppsFile, appsS.flag, str(appsS, ""), "JSON file of GitHub Apps whose installations may get tokens (FAKEHUB_APPS)")
	ttl := fs.String(appTTLS.flag, str(appTTLS, ""), "life of an installation token, e.g. 1h; empty = 1h (FAKEHUB_APP_TOKEN_TTL)")
	fs.BoolVar(&c.ShowVersion, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		if fs.Arg(0) != CommandHealthcheck {
			return Config{}, fmt.Errorf("config: unexpected argument %q (the only command is %q)", fs.Arg(0), CommandHealthcheck)
		}
		c.Command = CommandHealthcheck
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return Config{}, err
		}
		if fs.NArg() > 0 {
			return Config{}, fmt.Errorf("config: unexpected argument %q", fs.Arg(0))
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	// name says where a setting's value came from, for error messages.
	name := func(s setting) string {
		if _, ok := lookupEnv(s.env); ok && !given[s.flag] {
			return s.env + " (-" + s.flag + ")"
		}
		return "-" + s.flag
	}
	var errs []error
	for _, s := range []setting{coreLimitS, searchLimitS} {
		if err := envErrs[s.flag]; err != nil && !given[s.flag] {
			errs = append(errs, err)
		}
	}
	if c.CoreLimit < 0 {
		errs = append(errs, fmt.Errorf("config: %s: must be >= 0 (0 = 5000/hour), got %d", name(coreLimitS), c.CoreLimit))
	}
	if c.SearchLimit < 0 {
		errs = append(errs, fmt.Errorf("config: %s: must be >= 0 (0 = 30/minute), got %d", name(searchLimitS), c.SearchLimit))
	}
	if c.Listen == "" {
		errs = append(errs, fmt.Errorf("config: %s: must not be empty", name(listenS)))
	}
	if c.Seed != "" && c.Seed != "demo" {
		errs = append(errs, fmt.Errorf("config: %s: unknown seed %q (want \"demo\" or \"\")", name(seedS), c.Seed))
	}
	if *ttl != "" {
		d, err := time.ParseDuration(*ttl)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("config: %s: %q is not a positive duration such as 1h", name(appTTLS), *ttl))
		}
		c.AppTokenTTL = d
	}
	if c.AppsFile != "" {
		apps, err := readApps(c.AppsFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("config: %s: %w", name(appsS), err))
		}
		c.Apps = apps
	}
	if c.TokensFile != "" {
		toks, err := readTokens(c.TokensFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("config: %s: %w", name(tokensS), err))
		}
		c.Tokens = toks
	}
	if c.FaultsFile != "" {
		fl, err := readFaults(c.FaultsFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("config: %s: %w", name(faultsS), err))
		}
		c.Faults = fl
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
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
