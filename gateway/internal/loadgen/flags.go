package loadgen

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Defaults of the ghops-load command line; every other setting defaults to its zero value
// (-warmup 0, -fakehub-admin none, -json false) or to DefaultMCPVersion (-mcp-version).
const (
	// DefaultTarget is the gateway's base URL (-target, GHOPS_LOAD_TARGET).
	DefaultTarget = "http://127.0.0.1:8788"
	// DefaultTools is the tool mix (-tools, GHOPS_LOAD_TOOLS).
	DefaultTools = "read_file"
	// DefaultConcurrency is the number of concurrent callers (-c, GHOPS_LOAD_CONCURRENCY).
	DefaultConcurrency = 8
	// DefaultDuration bounds a run's time (-duration, GHOPS_LOAD_DURATION).
	DefaultDuration = 10 * time.Second
	// DefaultRequests bounds a run's calls (-requests, GHOPS_LOAD_REQUESTS).
	DefaultRequests = 1000
	// DefaultTimeout bounds one call (-timeout).
	DefaultTimeout = 30 * time.Second
)

// Options is the ghops-load command line: the run to make and how to print its report.
type Options struct {
	// Run is the run, validated, its mix parsed and FakehubAdminToken read from the environment.
	Run Config
	// JSON prints the report as JSON instead of text (-json).
	JSON bool
	// ShowVersion asks the binary to print its version and exit (-version).
	ShowVersion bool
}

// ParseFlags reads the ghops-load command line args (without the program name). A flag not given
// falls back to its environment variable, read with getenv (empty means unset), then to its
// default: -target GHOPS_LOAD_TARGET, -endpoint GHOPS_LOAD_ENDPOINT (default rpc), -tools
// GHOPS_LOAD_TOOLS, -c GHOPS_LOAD_CONCURRENCY, -duration GHOPS_LOAD_DURATION, -requests
// GHOPS_LOAD_REQUESTS, -warmup GHOPS_LOAD_WARMUP, -timeout GHOPS_LOAD_TIMEOUT, -mcp-version
// GHOPS_LOAD_MCP_VERSION, -json GHOPS_LOAD_JSON, -fakehub-admin GHOPS_LOAD_FAKEHUB_ADMIN, -command
// GHOPS_LOAD_COMMAND (the server -endpoint stdio starts), and -args
// GHOPS_LOAD_ARGS (a JSON object of tool name to argument object; -args flags add to it and win).
// -version is an action and has no variable. The fakehub admin token comes from
// FAKEHUB_ADMIN_TOKEN only, never a flag, and is required with -fakehub-admin; likewise the
// Authorization header sent to the target (e.g. "Bearer <token>" for another MCP server) comes from
// GHOPS_LOAD_AUTHORIZATION only, so that no secret appears in a command line. Flag errors and usage
// go to output; an unparsable variable is an error naming it unless its flag is given. The
// returned run has passed the checks Run makes (loopback targets, bounds).
func ParseFlags(args []string, getenv func(string) string, output io.Writer) (Options, error) {
	fs := flag.NewFlagSet("ghops-load", flag.ContinueOnError)
	fs.SetOutput(output)
	env := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	// envErrs holds unparsable variables by flag; each counts only if its flag is not given.
	envErrs := map[string]error{}
	envInt := func(name, key string, def int) int {
		v := getenv(key)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			envErrs[name] = fmt.Errorf("loadgen: %s (-%s): %q is not a whole number", key, name, v)
			return def
		}
		return n
	}
	envDuration := func(name, key string, def time.Duration) time.Duration {
		v := getenv(key)
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			envErrs[name] = fmt.Errorf("loadgen: %s (-%s): %q is not a duration such as 10s", key, name, v)
			return def
		}
		return d
	}
	var (
		o     Options
		c     = &o.Run
		tools string
		extra = map[string]json.RawMessage{}
	)
	fs.StringVar(&c.Target, "target", env("GHOPS_LOAD_TARGET", DefaultTarget), "gateway base URL, loopback only (GHOPS_LOAD_TARGET)")
	fs.StringVar(&c.Endpoint, "endpoint", env("GHOPS_LOAD_ENDPOINT", EndpointRPC), "rpc, mcp or stdio (GHOPS_LOAD_ENDPOINT)")
	command := ""
	fs.StringVar(&command, "command", env("GHOPS_LOAD_COMMAND", ""), "with -endpoint stdio: the MCP server to start, program and arguments split at spaces; it inherits the environment (GHOPS_LOAD_COMMAND)")
	fs.StringVar(&tools, "tools", env("GHOPS_LOAD_TOOLS", DefaultTools), "tool mix, tool[:weight],... (GHOPS_LOAD_TOOLS)")
	fs.IntVar(&c.Concurrency, "c", envInt("c", "GHOPS_LOAD_CONCURRENCY", DefaultConcurrency), "concurrent callers (GHOPS_LOAD_CONCURRENCY)")
	fs.DurationVar(&c.Duration, "duration", envDuration("duration", "GHOPS_LOAD_DURATION", DefaultDuration), "stop after this long (GHOPS_LOAD_DURATION)")
	fs.IntVar(&c.Requests, "requests", envInt("requests", "GHOPS_LOAD_REQUESTS", DefaultRequests), "stop after this many calls (GHOPS_LOAD_REQUESTS)")
	fs.IntVar(&c.Warmup, "warmup", envInt("warmup", "GHOPS_LOAD_WARMUP", 0), "unmeasured sequential calls made first (GHOPS_LOAD_WARMUP)")
	fs.DurationVar(&c.Timeout, "timeout", envDuration("timeout", "GHOPS_LOAD_TIMEOUT", DefaultTimeout), "deadline of one call (GHOPS_LOAD_TIMEOUT)")
	fs.StringVar(&c.MCPVersion, "mcp-version", env("GHOPS_LOAD_MCP_VERSION", DefaultMCPVersion), "MCP protocol version offered in initialize (GHOPS_LOAD_MCP_VERSION)")
	fs.StringVar(&c.FakehubAdminURL, "fakehub-admin", env("GHOPS_LOAD_FAKEHUB_ADMIN", ""), "fakehub base URL for GitHub request counts; token from FAKEHUB_ADMIN_TOKEN (GHOPS_LOAD_FAKEHUB_ADMIN)")
	jsonOut := false
	if v := getenv("GHOPS_LOAD_JSON"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			envErrs["json"] = fmt.Errorf("loadgen: GHOPS_LOAD_JSON (-json): %q is not true or false", v)
		}
		jsonOut = b
	}
	fs.BoolVar(&o.JSON, "json", jsonOut, "print the report as JSON (GHOPS_LOAD_JSON)")
	fs.BoolVar(&o.ShowVersion, "version", false, "print the version and exit")
	if v := getenv("GHOPS_LOAD_ARGS"); v != "" {
		if err := json.Unmarshal([]byte(v), &extra); err != nil {
			envErrs["args"] = fmt.Errorf(`loadgen: GHOPS_LOAD_ARGS (-args): want a JSON object {"tool":{...},...}`)
		}
	}
	fs.Func("args", `arguments of a tool, tool='{"repo":"o/r",...}' (repeatable; default: the demo data's) (GHOPS_LOAD_ARGS: {"tool":{...},...})`, func(s string) error {
		name, js, ok := strings.Cut(s, "=")
		if !ok || name == "" || !json.Valid([]byte(js)) {
			return errors.New("want tool=JSON")
		}
		extra[name] = json.RawMessage(js)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("loadgen: unexpected argument %q (ghops-load takes flags only)", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	if o.ShowVersion {
		return o, nil
	}
	for _, name := range []string{"c", "duration", "requests", "warmup", "timeout", "json", "args"} {
		if err := envErrs[name]; err != nil && !given[name] {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Options{}, err
	}
	mix, err := ParseMix(tools, extra)
	if err != nil {
		return Options{}, fmt.Errorf("-tools: %w", err)
	}
	c.Mix = mix
	c.Command = strings.Fields(command)
	if len(c.Command) > 0 && c.Endpoint != EndpointStdio {
		return Options{}, errors.New("loadgen: -command is for -endpoint stdio")
	}
	c.FakehubAdminToken = getenv("FAKEHUB_ADMIN_TOKEN")
	c.Authorization = getenv("GHOPS_LOAD_AUTHORIZATION")
	if strings.ContainsAny(c.Authorization, "\r\n") {
		return Options{}, errors.New("loadgen: GHOPS_LOAD_AUTHORIZATION must be one line")
	}
	if c.FakehubAdminURL != "" && c.FakehubAdminToken == "" {
		return Options{}, errors.New("loadgen: -fakehub-admin needs FAKEHUB_ADMIN_TOKEN in the environment")
	}
	if err := c.validate(); err != nil {
		return Options{}, err
	}
	return o, nil
}
