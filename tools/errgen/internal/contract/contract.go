// Package contract reads the error contract out of the compiled descriptors
// of proto/ghops/v1/errors.proto: the ErrorCode values with their
// (error_code) options and the ErrorReason values with their (error_reason)
// options. It checks everything the generated tables rely on, so a value
// added without its option, a code used twice or a gRPC code no gRPC
// library knows fails `make generate` instead of producing a table with a
// hole.
package contract

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Code is one ErrorCode value.
type Code struct {
	// Enum is the value's name, e.g. "ERROR_CODE_NOT_FOUND".
	Enum string
	// Number is the value's enum number.
	Number int32
	// JSONRPC is the JSON-RPC code, e.g. -32002.
	JSONRPC int
	// Message is the default message.
	Message string
	// HTTPStatus is the mapped /rpc status.
	HTTPStatus int
	// When is the Markdown sentence saying when the code is answered.
	When string
}

// Suffix is Enum without its "ERROR_CODE_" prefix, e.g. "NOT_FOUND".
func (c Code) Suffix() string { return strings.TrimPrefix(c.Enum, codePrefix) }

// Reason is one ErrorReason value.
type Reason struct {
	// Enum is the value's name, e.g. "ERROR_REASON_NOT_FOUND".
	Enum string
	// Number is the value's enum number.
	Number int32
	// Code is the contract code the gateway answers for the reason.
	Code Code
	// GRPC is the gRPC code the service sends with the reason.
	GRPC codes.Code
	// GRPCName is GRPC's google.rpc.Code name, e.g. "NOT_FOUND".
	GRPCName string
	// GRPCDefault reports whether a status of GRPC without a reason stands
	// for this reason.
	GRPCDefault bool
}

// Contract is the whole error contract, in declaration order.
type Contract struct {
	// Codes are the ErrorCode values but the zero one, in declaration
	// (documentation) order.
	Codes []Code
	// Reasons are the ErrorReason values but the zero one, in declaration
	// order.
	Reasons []Reason
}

// Internal returns the code every unknown code falls back to (-32603).
func (c *Contract) Internal() Code {
	for _, k := range c.Codes {
		if k.JSONRPC == InternalJSONRPC {
			return k
		}
	}
	return Code{} // unreachable: Load requires it
}

// Defaults returns the reasons marked grpc_default, in declaration order.
func (c *Contract) Defaults() []Reason {
	var out []Reason
	for _, r := range c.Reasons {
		if r.GRPCDefault {
			out = append(out, r)
		}
	}
	return out
}

const (
	codePrefix   = "ERROR_CODE_"
	reasonPrefix = "ERROR_REASON_"
	// InternalJSONRPC is JSON-RPC's internal error, the code every unknown
	// code and every unclaimed gRPC code falls back to; the contract must
	// define it.
	InternalJSONRPC = -32603
)

// Load reads the ErrorCode and ErrorReason enums of fd (normally
// ghopsv1.File_ghops_v1_errors_proto) and checks them: every value but the
// zero one carries its option; JSON-RPC codes are negative and unique, and
// -32603 is among them; messages are set; HTTP statuses are real ones; the
// "when" text fits one Markdown table cell; every reason names a defined code
// and a gRPC code other than OK; at most one reason per gRPC code is its
// default. All problems are reported together.
func Load(fd protoreflect.FileDescriptor) (*Contract, error) {
	codeEnum := fd.Enums().ByName("ErrorCode")
	reasonEnum := fd.Enums().ByName("ErrorReason")
	if codeEnum == nil || reasonEnum == nil {
		return nil, fmt.Errorf("%s: enums ErrorCode and ErrorReason are both required", fd.Path())
	}
	var problems []error
	bad := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }

	c := &Contract{}
	byNumber := map[int32]Code{}
	seenJSON := map[int]string{}
	values := codeEnum.Values()
	for i := range values.Len() {
		v := values.Get(i)
		name := string(v.Name())
		if !strings.HasPrefix(name, codePrefix) {
			bad("%s: not prefixed %s", name, codePrefix)
			continue
		}
		opt, has := extension[*ghopsv1.ErrorCodeOptions](v, ghopsv1.E_ErrorCode)
		if v.Number() == 0 {
			if has {
				bad("%s: the zero value is never answered and takes no (error_code) option", name)
			}
			continue
		}
		if !has {
			bad("%s: missing its (error_code) option", name)
			continue
		}
		k := Code{Enum: name, Number: int32(v.Number()), JSONRPC: int(opt.GetJsonRpcCode()), Message: opt.GetMessage(),
			HTTPStatus: int(opt.GetHttpStatus()), When: opt.GetWhen()}
		if k.JSONRPC >= 0 {
			bad("%s: json_rpc_code %d is not negative", name, k.JSONRPC)
		}
		if other, dup := seenJSON[k.JSONRPC]; dup {
			bad("%s: json_rpc_code %d is already %s's", name, k.JSONRPC, other)
		}
		seenJSON[k.JSONRPC] = name
		if strings.TrimSpace(k.Message) == "" {
			bad("%s: message is empty", name)
		}
		if k.HTTPStatus < 100 || k.HTTPStatus > 599 || http.StatusText(k.HTTPStatus) == "" {
			bad("%s: http_status %d is not an HTTP status", name, k.HTTPStatus)
		}
		if strings.TrimSpace(k.When) == "" {
			bad("%s: when is empty", name)
		}
		if strings.ContainsAny(k.When+k.Message, "|\n\r") {
			bad("%s: message and when must fit one Markdown table cell (no '|' or line break)", name)
		}
		c.Codes = append(c.Codes, k)
		byNumber[k.Number] = k
	}
	if _, ok := seenJSON[InternalJSONRPC]; !ok {
		bad("ErrorCode: no value has json_rpc_code %d, the fallback of every unknown code", InternalJSONRPC)
	}

	defaults := map[codes.Code]string{}
	values = reasonEnum.Values()
	for i := range values.Len() {
		v := values.Get(i)
		name := string(v.Name())
		if !strings.HasPrefix(name, reasonPrefix) {
			bad("%s: not prefixed %s", name, reasonPrefix)
			continue
		}
		opt, has := extension[*ghopsv1.ErrorReasonOptions](v, ghopsv1.E_ErrorReason)
		if v.Number() == 0 {
			if has {
				bad("%s: the zero value is never sent and takes no (error_reason) option", name)
			}
			continue
		}
		if !has {
			bad("%s: missing its (error_reason) option", name)
			continue
		}
		k, ok := byNumber[int32(opt.GetCode())]
		if !ok {
			bad("%s: code %d is not an ErrorCode value with an (error_code) option", name, opt.GetCode())
			continue
		}
		g, err := grpcCode(opt.GetGrpcCode())
		if err != nil {
			bad("%s: %v", name, err)
			continue
		}
		r := Reason{Enum: name, Number: int32(v.Number()), Code: k, GRPC: g, GRPCName: opt.GetGrpcCode(), GRPCDefault: opt.GetGrpcDefault()}
		if r.GRPCDefault {
			if other, dup := defaults[g]; dup {
				bad("%s: %s already has its default reason, %s", name, opt.GetGrpcCode(), other)
			}
			defaults[g] = name
		}
		c.Reasons = append(c.Reasons, r)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s: %w", fd.Path(), errors.Join(problems...))
	}
	return c, nil
}

// extension returns the option ext of v, and whether v carries it.
func extension[T proto.Message](v protoreflect.EnumValueDescriptor, ext protoreflect.ExtensionType) (T, bool) {
	var zero T
	opts := v.Options()
	if opts == nil || !proto.HasExtension(opts, ext) {
		return zero, false
	}
	t, ok := proto.GetExtension(opts, ext).(T)
	return t, ok
}

// grpcCode parses a google.rpc.Code name ("NOT_FOUND"); gRPC's own parser
// is used so that only names gRPC defines pass. OK is refused: an error
// reason never travels with it.
func grpcCode(name string) (codes.Code, error) {
	var c codes.Code
	if name == "" || strings.ToUpper(name) != name {
		return 0, fmt.Errorf("grpc_code %q is not a google.rpc.Code name such as \"NOT_FOUND\"", name)
	}
	if err := c.UnmarshalJSON([]byte(strconv.Quote(name))); err != nil {
		return 0, fmt.Errorf("grpc_code %q is not a google.rpc.Code name such as \"NOT_FOUND\"", name)
	}
	if c == codes.OK {
		return 0, errors.New(`grpc_code "OK" is not an error`)
	}
	return c, nil
}
