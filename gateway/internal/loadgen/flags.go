package loadgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"ghops.dev/infra/flagenv"
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
// default (package flagenv): -target GHOPS_LOAD_TARGET, -endpoint GHOPS_LOAD_ENDPOINT (default rpc), -tools
// GHOPS_LOAD_TOOLS, -c GHOPS_LOAD_CONCURRENCY, -duration GHOPS_LOAD_DURATION, -requests
// GHOPS_LOAD_REQUESTS, -warmup GHOPS_LOAD_WARMUP, -timeout GHOPS_LOAD_TIMEOUT, -mcp-version
// GHOPS_LOAD_MCP_VERSION, -json GHOPS_LOAD_JSON, -fakehub-admin GHOPS_LOAD_FAKEHUB_ADMIN, -command
// GHOPS_LOAD_COMMAND (the server -endpoint stdio starts), and -args GHOPS_LOAD_ARGS (a JSON object
// of tool name to argument object; -args flags, tool=JSON, replace it).
// -version is an action and has no variable. The fakehub admin token comes from
// FAKEHUB_ADMIN_TOKEN only, never a flag, and is required with -fakehub-admin; likewise the
// Authorization header sent to the target (e.g. "Bearer <token>" for another MCP server) comes from
// GHOPS_LOAD_AUTHORIZATION only, so that no secret appears in a command line. Flag errors and usage
// go to output; an unparsable variable is an error naming it unless its flag is given. The
// returned run has passed the checks Run makes (loopback targets, bounds).
func ParseFlags(args []string, getenv func(string) string, output io.Writer) (Options, error) {
	s := flagenv.New("ghops-load", "", flagenv.Getenv(getenv), output)
	var (
		o     Options
		c     = &o.Run
		tools string
		extra = toolArgs{}
	)
	s.String(&c.Target, "target", "GHOPS_LOAD_TARGET", DefaultTarget, "gateway base URL, loopback only")
	s.String(&c.Endpoint, "endpoint", "GHOPS_LOAD_ENDPOINT", EndpointRPC, "rpc, mcp or stdio")
	command := ""
	s.String(&command, "command", "GHOPS_LOAD_COMMAND", "", "with -endpoint stdio: the MCP server to start, program and arguments split at spaces; it inherits the environment")
	s.String(&tools, "tools", "GHOPS_LOAD_TOOLS", DefaultTools, "tool mix, tool[:weight],...")
	s.Int(&c.Concurrency, "c", "GHOPS_LOAD_CONCURRENCY", DefaultConcurrency, "concurrent callers")
	s.Duration(&c.Duration, "duration", "GHOPS_LOAD_DURATION", DefaultDuration, "stop after this long")
	s.Int(&c.Requests, "requests", "GHOPS_LOAD_REQUESTS", DefaultRequests, "stop after this many calls")
	s.Int(&c.Warmup, "warmup", "GHOPS_LOAD_WARMUP", 0, "unmeasured sequential calls made first")
	s.Duration(&c.Timeout, "timeout", "GHOPS_LOAD_TIMEOUT", DefaultTimeout, "deadline of one call")
	s.String(&c.MCPVersion, "mcp-version", "GHOPS_LOAD_MCP_VERSION", DefaultMCPVersion, "MCP protocol version offered in initialize")
	s.String(&c.FakehubAdminURL, "fakehub-admin", "GHOPS_LOAD_FAKEHUB_ADMIN", "", "fakehub base URL for GitHub request counts; token from FAKEHUB_ADMIN_TOKEN")
	s.Bool(&o.JSON, "json", "GHOPS_LOAD_JSON", false, "print the report as JSON")
	s.Action(&o.ShowVersion, "version", "print the version and exit")
	s.Var(extra, "args", "GHOPS_LOAD_ARGS", `arguments of a tool, tool='{"repo":"o/r",...}' (repeatable; default: the demo data's; the variable: {"tool":{...},...})`)
	if _, err := s.Parse(args); err != nil {
		if s.Err() == nil {
			return Options{}, fmt.Errorf("loadgen: %w", err)
		}
		if !o.ShowVersion {
			return Options{}, fmt.Errorf("loadgen: %w", err)
		}
	}
	if o.ShowVersion {
		return o, nil
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

// toolArgs are the -args of a run by tool: each flag adds one tool's
// arguments (tool=JSON); the variable GHOPS_LOAD_ARGS gives them all at
// once as a JSON object.
type toolArgs map[string]json.RawMessage

func (a toolArgs) Set(v string) error {
	if strings.HasPrefix(strings.TrimSpace(v), "{") {
		if err := json.Unmarshal([]byte(v), (*map[string]json.RawMessage)(&a)); err != nil {
			return errors.New(`want a JSON object {"tool":{...},...}`)
		}
		return nil
	}
	name, js, ok := strings.Cut(v, "=")
	if !ok || name == "" || !json.Valid([]byte(js)) {
		return errors.New("want tool=JSON")
	}
	a[name] = json.RawMessage(js)
	return nil
}

func (a toolArgs) String() string {
	names := make([]string, 0, len(a))
	for n := range a {
		names = append(names, n)
	}
	return strings.Join(names, ",")
}
