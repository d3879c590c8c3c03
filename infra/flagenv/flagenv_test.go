package flagenv_test

import (
	"errors"
	"flag"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"ghops.dev/infra/flagenv"
)

// settings is a binary's configuration as the tests fill it: one field of
// every kind flagenv binds.
type settings struct {
	Addr     string
	Verbose  bool
	Timeout  time.Duration
	Retries  int
	Workers  int
	Origins  []string
	Version  bool
	Command  string
	ParseErr error
}

func parse(args []string, env map[string]string, commands ...string) (settings, *flagenv.Set) {
	var c settings
	s := flagenv.New("bin", "usage: bin [flags]\n", func(k string) (string, bool) { v, ok := env[k]; return v, ok }, io.Discard)
	s.String(&c.Addr, "addr", "BIN_ADDR", "127.0.0.1:1", "listen address")
	s.Bool(&c.Verbose, "verbose", "BIN_VERBOSE", false, "log more")
	s.Duration(&c.Timeout, "timeout", "BIN_TIMEOUT", 30*time.Second, "deadline of a call")
	s.Int(&c.Retries, "retries", "BIN_RETRIES", 3, "retries, -1 for none")
	s.Positive(&c.Workers, "workers", "BIN_WORKERS", 8, "workers")
	s.List(&c.Origins, "origins", "BIN_ORIGINS", nil, "comma-separated origins")
	s.Action(&c.Version, "version", "print the version and exit")
	c.Command, c.ParseErr = s.Parse(args, commands...)
	if c.ParseErr == nil && c.Retries < -1 {
		s.Fail("retries", errors.New("must be -1 or more"))
		c.ParseErr = s.Err()
	}
	return c, s
}

// TestParse is the one test of what every binary's configuration does
// (the gateway, the service, fakehub, ghops-load and the ghops command all
// load theirs through a Set): rows are the mechanism's rules.
func TestParse(t *testing.T) {
	defaults := settings{Addr: "127.0.0.1:1", Timeout: 30 * time.Second, Retries: 3, Workers: 8}
	with := func(f func(*settings)) settings { c := defaults; f(&c); return c }
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		commands []string
		want     settings
		wantErr  []string // substrings of the error, every one
	}{
		{name: "defaults", want: defaults},
		{name: "variables", env: map[string]string{"BIN_ADDR": "0.0.0.0:2", "BIN_VERBOSE": "true", "BIN_TIMEOUT": "5s", "BIN_RETRIES": "-1", "BIN_WORKERS": "2", "BIN_ORIGINS": " a, ,b "},
			want: settings{Addr: "0.0.0.0:2", Verbose: true, Timeout: 5 * time.Second, Retries: -1, Workers: 2, Origins: []string{"a", "b"}}},
		{name: "flags win over variables", args: []string{"-addr", "x:1", "-verbose=false", "-timeout", "1m", "-workers", "4"},
			env:  map[string]string{"BIN_ADDR": "y:2", "BIN_VERBOSE": "1", "BIN_TIMEOUT": "5s", "BIN_WORKERS": "2"},
			want: with(func(c *settings) { c.Addr, c.Timeout, c.Workers = "x:1", time.Minute, 4 })},
		{name: "a bad variable under a given flag does not count", args: []string{"-timeout", "2s"}, env: map[string]string{"BIN_TIMEOUT": "soon"},
			want: with(func(c *settings) { c.Timeout = 2 * time.Second })},
		{name: "an empty variable that is set counts", env: map[string]string{"BIN_ADDR": ""}, want: with(func(c *settings) { c.Addr = "" })},
		{name: "bad variables are all reported, each by name", env: map[string]string{"BIN_VERBOSE": "yes", "BIN_TIMEOUT": "-1s", "BIN_WORKERS": "0"},
			wantErr: []string{`BIN_VERBOSE (-verbose): "yes" is not true or false`, `BIN_TIMEOUT (-timeout): "-1s" is not a positive duration`, `BIN_WORKERS (-workers): "0" is not a positive whole number`}},
		{name: "bad flag", args: []string{"-workers", "x"}, wantErr: []string{`invalid value "x" for flag -workers`}},
		{name: "out-of-range flag", args: []string{"-workers", "-2"}, wantErr: []string{`-workers: "-2" is not a positive whole number`}},
		{name: "a binary's own rule names the variable", env: map[string]string{"BIN_RETRIES": "-5"}, wantErr: []string{"BIN_RETRIES (-retries): must be -1 or more"}},
		{name: "a binary's own rule names the flag", args: []string{"-retries=-5"}, wantErr: []string{"-retries: must be -1 or more"}},
		{name: "unknown flag", args: []string{"-nope"}, wantErr: []string{"-nope"}},
		{name: "action", args: []string{"-version"}, env: map[string]string{"BIN_VERSION": "true"}, want: with(func(c *settings) { c.Version = true })},
		{name: "actions have no variable", env: map[string]string{"VERSION": "true", "BIN_VERSION": "true"}, want: defaults},
		{name: "command first", args: []string{"stdio", "-verbose"}, commands: []string{"stdio", "healthcheck"},
			want: with(func(c *settings) { c.Command, c.Verbose = "stdio", true })},
		{name: "command between flags", args: []string{"-addr", "x:1", "healthcheck", "-verbose"}, commands: []string{"stdio", "healthcheck"},
			want: with(func(c *settings) { c.Command, c.Addr, c.Verbose = "healthcheck", "x:1", true })},
		{name: "command last", args: []string{"-verbose", "stdio"}, commands: []string{"stdio"},
			want: with(func(c *settings) { c.Command, c.Verbose = "stdio", true })},
		{name: "unknown command", args: []string{"serve"}, commands: []string{"stdio", "healthcheck"}, wantErr: []string{`unexpected argument "serve" (commands: "healthcheck", "stdio")`}},
		{name: "no commands at all", args: []string{"serve"}, wantErr: []string{`unexpected argument "serve" (this binary takes no command)`}},
		{name: "two commands", args: []string{"stdio", "healthcheck"}, commands: []string{"stdio", "healthcheck"}, wantErr: []string{`unexpected argument "healthcheck" after the command "stdio"`}},
		{name: "bad flag after the command", args: []string{"stdio", "-nope"}, commands: []string{"stdio"}, wantErr: []string{"-nope"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := parse(tc.args, tc.env, tc.commands...)
			if len(tc.wantErr) > 0 {
				if got.ParseErr == nil {
					t.Fatalf("no error, want %q", tc.wantErr)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(got.ParseErr.Error(), w) {
						t.Errorf("error %q lacks %q", got.ParseErr, w)
					}
				}
				return
			}
			if got.ParseErr != nil {
				t.Fatal(got.ParseErr)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestHelpNamesEveryVariable reads the -h text: every flag but the actions
// names its variable, and Parse consults exactly the variables it names.
func TestHelpNamesEveryVariable(t *testing.T) {
	var out strings.Builder
	asked := map[string]bool{}
	var c settings
	s := flagenv.New("bin", "usage: bin [flags]\n", func(k string) (string, bool) { asked[k] = true; return "", false }, &out)
	s.String(&c.Addr, "addr", "BIN_ADDR", "127.0.0.1:1", "listen address")
	s.Duration(&c.Timeout, "timeout", "BIN_TIMEOUT", time.Second, "deadline")
	s.Action(&c.Version, "version", "print the version and exit")
	if _, err := s.Parse([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	if _, err := s.Parse(nil); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.HasPrefix(text, "usage: bin [flags]\n") {
		t.Errorf("-h does not start with the usage:\n%s", text)
	}
	for flagName, env := range s.Variables() {
		t.Run(flagName, func(t *testing.T) {
			if !regexp.MustCompile(`(?m)^  -` + flagName + `\b[^\n]*\n[^\n]*\(` + env + `\)`).MatchString(text) {
				t.Errorf("-h does not name %s under -%s:\n%s", env, flagName, text)
			}
			if !asked[env] {
				t.Errorf("Parse never reads %s", env)
			}
		})
	}
	if len(s.Variables()) != 2 {
		t.Errorf("variables %v, want the two settings (the action has none)", s.Variables())
	}
	t.Run("a flag without a variable is refused", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("Var with no variable did not panic")
			}
		}()
		s.Var(new(flagValue), "orphan", "", "no variable")
	})
}

type flagValue struct{}

func (flagValue) Set(string) error { return nil }
func (flagValue) String() string   { return "" }

func TestParseInterleaved(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantPos  []string
		wantArgs string
		wantAddr string
		wantErr  string
	}{
		{name: "flags among arguments", args: []string{"call", "-addr", "x:1", "read_file", "--args", "{}", "path=a"},
			wantPos: []string{"call", "read_file", "path=a"}, wantArgs: "{}", wantAddr: "x:1"},
		{name: "variable behind a flag not given", args: []string{"tools"}, env: map[string]string{"BIN_ADDR": "y:2"},
			wantPos: []string{"tools"}, wantAddr: "y:2"},
		{name: "an input has no variable", args: []string{"tools"}, env: map[string]string{"BIN_ARGS": "{}", "ARGS": "{}"},
			wantPos: []string{"tools"}, wantAddr: "127.0.0.1:1"},
		{name: "bad variable", args: []string{"tools"}, env: map[string]string{"BIN_TIMEOUT": "soon"}, wantErr: `BIN_TIMEOUT (-timeout): "soon" is not a positive duration`},
		{name: "unknown flag anywhere", args: []string{"tools", "--nope"}, wantErr: "-nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var addr, args string
			var timeout time.Duration
			s := flagenv.New("bin", "", func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }, io.Discard)
			s.String(&addr, "addr", "BIN_ADDR", "127.0.0.1:1", "address")
			s.Duration(&timeout, "timeout", "BIN_TIMEOUT", time.Second, "deadline")
			s.Input(&args, "args", "the argument object")
			pos, err := s.ParseInterleaved(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(pos, tc.wantPos) || args != tc.wantArgs || addr != tc.wantAddr {
				t.Errorf("got %q args %q addr %q, want %q %q %q", pos, args, addr, tc.wantPos, tc.wantArgs, tc.wantAddr)
			}
			if _, ok := s.Variables()["args"]; ok {
				t.Error("the input -args has a variable")
			}
		})
	}
}
