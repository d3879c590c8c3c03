// Package flagenv is how every ghops binary reads its configuration: each
// setting is a command-line flag with an environment variable behind it
// (a flag given on the command line wins over its variable, which wins
// over the default), the -h text names the variable of every flag, and an
// error names where the bad value came from: the flag, or the variable.
// Each binary keeps its own config struct and rules (CONTRIBUTING.md);
// what they share is this mechanism.
//
// It is written over the standard flag package rather than taken from a
// library: the variables are named per flag, not by one prefix rule
// (-github-url reads GITHUB_API_URL in the gateway and the service alike,
// the service's -caller-secret-file reads the gateway's
// GHOPS_SERVICE_SECRET_FILE), which ff's prefix rule cannot express, and
// kong (which can) parses only GNU-style --flags and writes its own help,
// so adopting it would change every documented command line and -h text;
// envconfig reads only the environment.
package flagenv

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Set is a flag set whose every flag but the actions (-version) is bound
// to an environment variable.
type Set struct {
	fs     *flag.FlagSet
	lookup func(string) (string, bool)
	// vars maps each flag to its variable, in registration order in names.
	vars  map[string]string
	names []string
	// fromEnv marks the flags whose value came from their variable.
	fromEnv map[string]bool
	// envErr says what is wrong with a variable its flag's Set refused.
	envErr map[string]string
	// checks are the range rules of the typed flags, run after parsing.
	checks []func()
	errs   []error
}

// New returns a Set for the binary name. lookupEnv is os.LookupEnv in the
// binary (Getenv adapts a getenv function); usage is the head of the -h
// text, printed with every flag's default after it; output receives the
// usage and flag errors.
func New(name, usage string, lookupEnv func(string) (string, bool), output io.Writer) *Set {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return &Set{fs: fs, lookup: lookupEnv, vars: map[string]string{}, fromEnv: map[string]bool{}, envErr: map[string]string{}}
}

// Getenv adapts a getenv function to the lookup New takes: an empty
// variable counts as unset, as the gateway and the service have always
// read them.
func Getenv(getenv func(string) string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	}
}

// Var binds v to the flag name and the variable env; the help text gets
// "(env)" appended, so that -h names the variable. The variable is read
// only when the flag is not on the command line.
func (s *Set) Var(v flag.Value, name, env, help string) {
	s.bind(name, env)
	s.fs.Var(v, name, help+" ("+env+")")
}

func (s *Set) bind(name, env string) string {
	if env == "" {
		panic("flagenv: flag -" + name + " has no environment variable")
	}
	s.vars[name] = env
	s.names = append(s.names, name)
	return " (" + env + ")"
}

// Action registers a flag that asks the binary to do something and exit
// (-version), not a setting: it has no variable.
func (s *Set) Action(p *bool, name, help string) {
	s.fs.BoolVar(p, name, false, help)
}

// Input registers a flag that carries the command's input rather than a
// setting (the ghops command's --args): it has no variable.
func (s *Set) Input(p *string, name, help string) {
	s.fs.StringVar(p, name, "", help)
}

// String binds a string setting.
func (s *Set) String(p *string, name, env, def, help string) {
	s.fs.StringVar(p, name, def, help+s.bind(name, env))
}

// Bool binds a true/false setting (-name alone means true).
func (s *Set) Bool(p *bool, name, env string, def bool, help string) {
	s.fs.BoolVar(p, name, def, help+s.bind(name, env))
	s.envErr[name] = "is not true or false"
}

// Duration binds a duration that must be positive ("30s", "50ms").
func (s *Set) Duration(p *time.Duration, name, env string, def time.Duration, help string) {
	s.fs.DurationVar(p, name, def, help+s.bind(name, env))
	s.envErr[name] = "is not a positive duration such as 30s"
	s.checks = append(s.checks, func() {
		if *p <= 0 {
			s.Fail(name, fmt.Errorf("%q is not a positive duration such as 30s", p.String()))
		}
	})
}

// Int binds a whole number; the binary checks its range (Fail).
func (s *Set) Int(p *int, name, env string, def int, help string) {
	s.fs.IntVar(p, name, def, help+s.bind(name, env))
	s.envErr[name] = "is not a whole number"
}

// Positive binds a whole number that must be above zero.
func (s *Set) Positive(p *int, name, env string, def int, help string) {
	s.fs.IntVar(p, name, def, help+s.bind(name, env))
	s.envErr[name] = "is not a positive whole number"
	s.checks = append(s.checks, func() {
		if *p <= 0 {
			s.Fail(name, fmt.Errorf("%q is not a positive whole number", strconv.Itoa(*p)))
		}
	})
}

// List binds a comma-separated list; empty items are dropped.
func (s *Set) List(p *[]string, name, env string, def []string, help string) {
	*p = def
	s.Var((*listValue)(p), name, env, help)
}

// Parse parses args (without the program name) and then the variables of
// the flags not given. One of commands may stand before, between or after
// the flags; it is returned ("" for none). Every bad value is reported at
// once, each naming its flag or variable; -h returns flag.ErrHelp.
func (s *Set) Parse(args []string, commands ...string) (command string, err error) {
	if err := s.fs.Parse(args); err != nil {
		return "", err
	}
	if rest := s.fs.Args(); len(rest) > 0 {
		if !contains(commands, rest[0]) {
			return "", fmt.Errorf("unexpected argument %q (%s)", rest[0], commandList(commands))
		}
		command = rest[0]
		if err := s.fs.Parse(rest[1:]); err != nil {
			return "", err
		}
		if s.fs.NArg() > 0 {
			return "", fmt.Errorf("unexpected argument %q after the command %q", s.fs.Arg(0), command)
		}
	}
	return command, s.settle()
}

// ParseInterleaved is Parse for a command line whose flags may stand
// anywhere among its arguments (the ghops command: "ghops call TOOL
// --json {...}"); it returns the arguments that are not flags, in order.
func (s *Set) ParseInterleaved(args []string) (positional []string, err error) {
	for {
		if err := s.fs.Parse(args); err != nil {
			return nil, err
		}
		args = s.fs.Args()
		if len(args) == 0 {
			return positional, s.settle()
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// settle reads the variables of the flags not given and checks the typed
// flags' ranges, returning every error.
func (s *Set) settle() error {
	given := map[string]bool{}
	s.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range s.names {
		env := s.vars[name]
		v, ok := s.lookup(env)
		if given[name] || !ok {
			continue
		}
		s.fromEnv[name] = true
		if err := s.fs.Lookup(name).Value.Set(v); err != nil {
			if what, ok := s.envErr[name]; ok {
				err = fmt.Errorf("%q %s", v, what)
			}
			s.Fail(name, err)
			continue
		}
	}
	for _, check := range s.checks {
		check()
	}
	return s.Err()
}

// Fail records a bad value of the flag name (a binary's own rule), naming
// the variable when the value came from it.
func (s *Set) Fail(name string, err error) {
	s.errs = append(s.errs, fmt.Errorf("%s: %w", s.Source(name), err))
}

// Source names where the value of flag name came from: "-name", or
// "VARIABLE (-name)" when the variable set it.
func (s *Set) Source(name string) string {
	if s.fromEnv[name] {
		return s.vars[name] + " (-" + name + ")"
	}
	return "-" + name
}

// Err joins the errors recorded so far (nil for none).
func (s *Set) Err() error { return errors.Join(s.errs...) }

// Variables returns every flag's variable, by flag name.
func (s *Set) Variables() map[string]string {
	out := make(map[string]string, len(s.vars))
	for k, v := range s.vars {
		out[k] = v
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func commandList(commands []string) string {
	if len(commands) == 0 {
		return "this binary takes no command"
	}
	q := make([]string, len(commands))
	for i, c := range commands {
		q[i] = strconv.Quote(c)
	}
	sort.Strings(q)
	return "commands: " + strings.Join(q, ", ")
}

type listValue []string

func (v *listValue) Set(s string) error {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	*v = out
	return nil
}
func (v *listValue) String() string { return strings.Join(*v, ",") }
