// Package cli is the ghops command: it lists the contract's tools and calls
// them through the gateway with ghops.dev/client.
//
// Usage:
//
//	ghops [flags] tools [--remote]
//	ghops [flags] call TOOL [key=value ...] [--args '{...}' | --json '{...}']
//
// Flags (anywhere on the line): --endpoint URL (env GHOPS_ENDPOINT, default
// http://127.0.0.1:8788), --token TOKEN (env GHOPS_TOKEN, sent as
// "Authorization: Bearer", never printed), --transport rpc|mcp (env
// GHOPS_TRANSPORT, default rpc), --timeout (env GHOPS_TIMEOUT, default 30s),
// --retries N (env GHOPS_RETRIES, default 0: retries of read-only/idempotent
// tools after a rate limit), --json (env GHOPS_JSON: print the raw result or
// error object as JSON), --remote (env GHOPS_REMOTE). --args, the call's own
// argument object, and the --version and -h actions have no variable. A flag
// wins over its variable.
//
// A key=value value is taken as a string when the tool's parameter is a
// string, else as JSON when it parses (numbers, booleans, arrays, objects),
// else as a string. --json followed by an argument starting with "{" is the
// same as --args: the whole argument object; key=value pairs override it.
// key=@FILE takes the value from FILE (key=@- from standard input), e.g.
// `ghops call apply_patch ... patch=@change.diff`.
//
// A diagnosis (a result with "level" and "checks", as validate_environment
// answers) prints as one line per check unless --json; its exit code is 1
// when the overall level is "error".
//
// Exit codes: 0 success; 1 other failure (transport, invalid answer,
// -32603 and other codes); 2 usage error (also -32601, -32600, -32700);
// 3 invalid params (-32602); 4 not found (-32002); 5 permission denied
// (-32001); 6 rate limited (-32004); 7 conflict: PR not mergeable (-32005),
// head SHA mismatch (-32006) or GitHub validation (-32003).
package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"ghops.dev/client"
	"ghops.dev/infra/flagenv"
	"ghops.dev/redact"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Exit codes of the ghops command.
const (
	ExitOK            = 0
	ExitFailure       = 1
	ExitUsage         = 2
	ExitInvalidParams = 3
	ExitNotFound      = 4
	ExitPermission    = 5
	ExitRateLimited   = 6
	ExitConflict      = 7
)

// Config is the command's configuration, filled from flags and env.
type Config struct {
	// Endpoint is the gateway's base URL (GHOPS_ENDPOINT; default
	// client.DefaultEndpoint).
	Endpoint string
	// Token is sent as a bearer token (GHOPS_TOKEN; default none).
	Token string
	// Transport is "rpc" or "mcp" (GHOPS_TRANSPORT; default "rpc").
	Transport string
	// Timeout bounds the whole command (default 30s).
	Timeout time.Duration
	// Retries is the number of retries after a rate limit (default 0).
	Retries int
	// JSON prints raw JSON instead of readable text.
	JSON bool
	// Args is the --args (or --json '{...}') argument object.
	Args string
	// Remote makes `tools` ask the gateway (tools/list over /mcp).
	Remote bool
	// ShowVersion prints Version and exits (--version).
	ShowVersion bool
}

// Version is the command's build, printed by --version after its name; the
// ghops binary sets it from package ghops.dev/probe/buildinfo (version,
// commit, build date, Go version).
var Version = "dev"

const usageText = `usage:
  ghops [flags] tools [--remote]             list the tools built in (--remote: those the gateway serves)
  ghops [flags] call TOOL [key=value ...]    call a tool (key=@FILE reads the value from FILE, @- from stdin)
  ghops [flags] call TOOL --json '{...}'     call a tool with a JSON argument object

  ghops help                                 print this text
  ghops --version                            print the version

flags (anywhere on the line; a flag wins over its variable):
  --endpoint URL     gateway base URL (env GHOPS_ENDPOINT, default http://127.0.0.1:8788)
  --token TOKEN      bearer token (env GHOPS_TOKEN)
  --transport T      rpc or mcp (env GHOPS_TRANSPORT, default rpc)
  --timeout D        overall timeout (env GHOPS_TIMEOUT, default 30s)
  --retries N        retries of read-only tools after a rate limit (env GHOPS_RETRIES, default 0)
  --json             print raw JSON: result, error object or tool list (env GHOPS_JSON)
  --args JSON        the argument object (same as --json '{...}')
  --remote           tools: ask the gateway instead of the built-in contract (env GHOPS_REMOTE)

exit codes: 0 ok, 1 failure, 2 usage, 3 invalid params, 4 not found,
  5 permission denied, 6 rate limited, 7 conflict (not mergeable, sha mismatch, GitHub 422)
`

// flags binds cfg to the command line and the environment (package
// flagenv); the help text is usageText, which names the same variables
// (TestUsageNamesTheVariables), as the flag set's own is never shown.
func flags(cfg *Config, getenv func(string) string) *flagenv.Set {
	fs := flagenv.New("ghops", "", flagenv.Getenv(getenv), io.Discard)
	fs.String(&cfg.Endpoint, "endpoint", "GHOPS_ENDPOINT", client.DefaultEndpoint, "gateway base URL")
	fs.String(&cfg.Token, "token", "GHOPS_TOKEN", "", "bearer token")
	fs.String(&cfg.Transport, "transport", "GHOPS_TRANSPORT", "rpc", "rpc or mcp")
	fs.Duration(&cfg.Timeout, "timeout", "GHOPS_TIMEOUT", 30*time.Second, "overall timeout")
	fs.Int(&cfg.Retries, "retries", "GHOPS_RETRIES", 0, "retries of read-only tools after a rate limit")
	fs.Bool(&cfg.JSON, "json", "GHOPS_JSON", false, "print raw JSON")
	fs.Input(&cfg.Args, "args", "the argument object")
	fs.Bool(&cfg.Remote, "remote", "GHOPS_REMOTE", false, "tools: ask the gateway instead of the built-in contract")
	fs.Action(&cfg.ShowVersion, "version", "print the version")
	return fs
}

// Run runs the command with args (without the program name), reading
// key=@- values from stdin (nil: none), writing results to stdout and
// diagnostics to stderr, reading env through getenv, and returns the exit
// code. It never panics on bad input.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	var cfg Config
	fs := flags(&cfg, getenv)
	positional, err := fs.ParseInterleaved(rewriteJSONArgs(args))
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usageText)
		return ExitOK
	}
	if err != nil {
		return usageError(stderr, err.Error())
	}
	if cfg.ShowVersion {
		fmt.Fprintln(stdout, "ghops", Version)
		return ExitOK
	}
	if len(positional) == 0 {
		return usageError(stderr, "missing command")
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	switch positional[0] {
	case "help":
		fmt.Fprint(stdout, usageText)
		return ExitOK
	case "tools":
		if len(positional) > 1 {
			return usageError(stderr, "tools takes no arguments")
		}
		if cfg.Remote {
			c, code := newClient(cfg, stderr)
			if c == nil {
				return code
			}
			return remoteTools(ctx, c, cfg, stdout, stderr)
		}
		return listTools(cfg, stdout)
	case "call":
		if len(positional) < 2 {
			return usageError(stderr, "call needs a tool name")
		}
		info, ok := client.LookupTool(positional[1])
		if !ok {
			return usageError(stderr, fmt.Sprintf("unknown tool %q (see ghops tools)", positional[1]))
		}
		argObj, err := buildArgs(info, cfg.Args, positional[2:], stdin)
		if err != nil {
			return usageError(stderr, err.Error())
		}
		c, code := newClient(cfg, stderr)
		if c == nil {
			return code
		}
		res, err := c.CallRaw(ctx, info.Name, argObj)
		if err != nil {
			return reportError(err, cfg, stdout, stderr)
		}
		if !cfg.JSON {
			if code, ok := printDiagnosis(stdout, res); ok {
				return code
			}
		}
		return printJSON(stdout, res, cfg.JSON)
	}
	return usageError(stderr, fmt.Sprintf("unknown command %q", positional[0]))
}

func usageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "ghops: %s\nrun 'ghops help' for usage\n", msg)
	return ExitUsage
}

// rewriteJSONArgs turns `--json {...}` and `--json={...}` into --args, so
// that --json alone stays the output switch.
func rewriteJSONArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "--json" || a == "-json") && i+1 < len(args) && strings.HasPrefix(strings.TrimSpace(args[i+1]), "{"):
			out = append(out, "--args", args[i+1])
			i++
		case strings.HasPrefix(a, "--json=") || strings.HasPrefix(a, "-json="):
			v := a[strings.IndexByte(a, '=')+1:]
			if strings.HasPrefix(strings.TrimSpace(v), "{") {
				out = append(out, "--args="+v)
			} else {
				out = append(out, a)
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// buildArgs merges the --args object and key=value pairs (which win).
// A value "@FILE" is the content of FILE ("@-": standard input), as a
// string, for patches and other long text; "@@..." is a literal "@...".
func buildArgs(info client.ToolInfo, base string, pairs []string, stdin io.Reader) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if strings.TrimSpace(base) != "" {
		if err := json.Unmarshal([]byte(base), &obj); err != nil || obj == nil {
			return nil, errors.New("--args / --json must be a JSON object")
		}
	}
	seen := map[string]bool{}
	for _, p := range pairs {
		key, val, ok := strings.Cut(p, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("argument %q is not key=value", p)
		}
		if seen[key] {
			return nil, fmt.Errorf("key %q given twice", key)
		}
		seen[key] = true
		switch {
		case strings.HasPrefix(val, "@@"):
			obj[key] = argValue(info, key, val[1:])
		case strings.HasPrefix(val, "@"):
			text, err := readArgFile(val[1:], stdin)
			if err != nil {
				return nil, fmt.Errorf("%s=%s: %w", key, val, err)
			}
			obj[key], _ = json.Marshal(text)
		default:
			obj[key] = argValue(info, key, val)
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// maxArgFile bounds a value read from a file: the largest argument the
// contract accepts (apply_patch's 1 MiB patch) with room to spare, so that
// a wrong path (a device, a huge log) fails fast instead of being sent.
const maxArgFile = 4 << 20

// readArgFile reads a key=@FILE value: the file, or stdin for "-".
func readArgFile(name string, stdin io.Reader) (string, error) {
	var r io.Reader
	switch {
	case name == "-" && stdin == nil:
		return "", errors.New("no standard input")
	case name == "-":
		r = stdin
	case name == "":
		return "", errors.New("@ needs a file name (or - for standard input)")
	default:
		f, err := os.Open(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxArgFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxArgFile {
		return "", fmt.Errorf("larger than %d bytes", maxArgFile)
	}
	if !utf8.Valid(b) {
		return "", errors.New("not UTF-8 text")
	}
	return string(b), nil
}

// argValue types one value: a string parameter keeps the text (unless it is
// a quoted JSON string); anything else is JSON when it parses, else a string.
func argValue(info client.ToolInfo, key, val string) json.RawMessage {
	quoted, _ := json.Marshal(val)
	var f protoreflect.FieldDescriptor
	if info.Request != nil {
		f = info.Request.Fields().ByJSONName(key)
	}
	isString := f != nil && f.Kind() == protoreflect.StringKind && f.Cardinality() != protoreflect.Repeated
	if isString && !(strings.HasPrefix(val, `"`) && json.Valid([]byte(val))) {
		return quoted
	}
	if json.Valid([]byte(val)) {
		var b bytes.Buffer
		if json.Compact(&b, []byte(val)) == nil {
			return b.Bytes()
		}
	}
	return quoted
}

func newClient(cfg Config, stderr io.Writer) (*client.Client, int) {
	c, err := client.New(cfg.Endpoint,
		client.WithToken(cfg.Token),
		client.WithTransport(client.Transport(cfg.Transport)),
		client.WithRetries(cfg.Retries),
		client.WithUserAgent("ghops-cli/1"))
	if err != nil {
		return nil, usageError(stderr, err.Error())
	}
	return c, ExitOK
}

// printJSON writes a result: compact with --json, else indented.
func printJSON(stdout io.Writer, raw json.RawMessage, compact bool) int {
	var b bytes.Buffer
	var err error
	if compact {
		err = json.Compact(&b, raw)
	} else {
		err = json.Indent(&b, raw, "", "  ")
	}
	if err != nil {
		b.Reset()
		b.Write(raw)
	}
	b.WriteByte('\n')
	_, _ = stdout.Write(b.Bytes())
	return ExitOK
}

// toolJSON is one tool in `ghops tools --json`.
type toolJSON struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	ReadOnly    bool   `json:"readOnly"`
	Destructive bool   `json:"destructive"`
	Idempotent  bool   `json:"idempotent"`
}

func listTools(cfg Config, stdout io.Writer) int {
	var list []toolJSON
	for _, t := range client.Tools() {
		list = append(list, toolJSON{Name: t.Name, Title: t.Title, Description: t.Description, ReadOnly: t.ReadOnly, Destructive: t.Destructive, Idempotent: t.Idempotent})
	}
	return printTools(list, "# the tools built into this ghops (its contract); --remote lists those the gateway serves this token", cfg, stdout)
}

func remoteTools(ctx context.Context, c *client.Client, cfg Config, stdout, stderr io.Writer) int {
	remote, err := c.ListRemoteTools(ctx)
	if err != nil {
		return reportError(err, cfg, stdout, stderr)
	}
	var list []toolJSON
	for _, t := range remote {
		list = append(list, toolJSON{Name: t.Name, Title: t.Title, Description: t.Description,
			ReadOnly: t.ReadOnly(), Destructive: t.Destructive(), Idempotent: t.Idempotent()})
	}
	return printTools(list, "# the tools the gateway serves this token", cfg, stdout)
}

// printTools prints list as JSON, or as a table under heading, which says
// where the list comes from: the built-in one and the gateway's can differ
// (another build, toolsets, a policy that narrows the list).
func printTools(list []toolJSON, heading string, cfg Config, stdout io.Writer) int {
	if cfg.JSON {
		b, _ := json.Marshal(list)
		_, _ = stdout.Write(append(b, '\n'))
		return ExitOK
	}
	fmt.Fprintln(stdout, heading)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tACCESS\tTITLE")
	for _, t := range list {
		access := "write"
		switch {
		case t.ReadOnly:
			access = "read-only"
		case t.Destructive:
			access = "write, destructive"
		case t.Idempotent:
			access = "write, idempotent"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, access, t.Title)
	}
	_ = tw.Flush()
	return ExitOK
}

// ExitCode maps an error of the client to the command's exit code.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, client.ErrInvalidParams):
		return ExitInvalidParams
	case errors.Is(err, client.ErrNotFound):
		return ExitNotFound
	case errors.Is(err, client.ErrPermissionDenied):
		return ExitPermission
	case errors.Is(err, client.ErrRateLimited):
		return ExitRateLimited
	case errors.Is(err, client.ErrNotMergeable), errors.Is(err, client.ErrHeadSHAMismatch), errors.Is(err, client.ErrValidation):
		return ExitConflict
	case errors.Is(err, client.ErrMethodNotFound), errors.Is(err, client.ErrInvalidRequest), errors.Is(err, client.ErrParse):
		return ExitUsage
	}
	return ExitFailure
}

// reportError prints err: with --json a JSON-RPC error object goes to stdout
// as sent (redacted); everything else is readable text on stderr, redacted
// of token shapes and of the configured token.
func reportError(err error, cfg Config, stdout, stderr io.Writer) int {
	code := ExitCode(err)
	var e *client.Error
	if !errors.As(err, &e) {
		fmt.Fprintf(stderr, "error: %s\n", redact.StringWith(err.Error(), cfg.Token))
		return code
	}
	if cfg.JSON {
		b, _ := json.Marshal(e)
		_, _ = stdout.Write(append(redact.JSON(b), '\n'))
		return code
	}
	var b strings.Builder
	kind := "error"
	if s := sentinelName(err); s != "" {
		kind = s
	}
	fmt.Fprintf(&b, "error %d %s: %s\n", e.Code, kind, e.Message)
	d := e.Data
	for _, v := range d.ValidationErrors {
		fmt.Fprintf(&b, "  - %s: %s\n", v.Path, v.Message)
	}
	var rl *client.RateLimitError
	if errors.As(err, &rl) && rl.RetryAfter > 0 {
		fmt.Fprintf(&b, "  retry after: %s\n", rl.RetryAfter)
	}
	if d.MergeableState != "" {
		fmt.Fprintf(&b, "  mergeable_state: %s\n", d.MergeableState)
	}
	if d.ExpectedSha != "" || d.ActualSha != "" {
		fmt.Fprintf(&b, "  expected sha: %s\n  actual sha: %s\n", orDash(d.ExpectedSha), orDash(d.ActualSha))
	}
	if d.Resource != nil {
		fmt.Fprintf(&b, "  resource: %s %s\n", d.Resource.Type, d.Resource.Id)
	}
	if p := d.Patch; p != nil {
		fmt.Fprintf(&b, "  patch: %s %s hunk %d line %d\n", p.Code, orDash(p.File), p.Hunk, p.Line)
		if p.Detail != "" {
			fmt.Fprintf(&b, "  detail: %s\n", p.Detail)
		}
	}
	if g := d.Github; g != nil {
		line := "  github:"
		if g.Status != 0 {
			line += " " + strconv.Itoa(int(g.Status))
		}
		if g.Message != "" {
			line += " " + g.Message
		}
		if g.DocumentationUrl != "" {
			line += " (" + g.DocumentationUrl + ")"
		}
		b.WriteString(line + "\n")
	}
	if d.RequestId != "" {
		fmt.Fprintf(&b, "  request id: %s\n", d.RequestId)
	}
	fmt.Fprint(stderr, redact.StringWith(b.String(), cfg.Token))
	return code
}

func sentinelName(err error) string {
	for _, s := range []error{client.ErrParse, client.ErrInvalidRequest, client.ErrMethodNotFound, client.ErrInvalidParams,
		client.ErrInternal, client.ErrPermissionDenied, client.ErrNotFound, client.ErrValidation, client.ErrRateLimited,
		client.ErrNotMergeable, client.ErrHeadSHAMismatch} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printDiagnosis prints a result shaped as a diagnosis ({level, checks:
// [{name, level, message}]}) one check per line, worst level first in the
// header; false when res has another shape.
func printDiagnosis(stdout io.Writer, res json.RawMessage) (int, bool) {
	var d struct {
		Level  string `json:"level"`
		Checks []struct {
			Name    string `json:"name"`
			Level   string `json:"level"`
			Message string `json:"message"`
		} `json:"checks"`
	}
	if json.Unmarshal(res, &d) != nil || d.Level == "" || len(d.Checks) == 0 {
		return 0, false
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "overall: %s\n", d.Level)
	for _, c := range d.Checks {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Level, c.Name, redact.String(c.Message))
	}
	_ = tw.Flush()
	if d.Level == "error" {
		return ExitFailure, true
	}
	return ExitOK, true
}
