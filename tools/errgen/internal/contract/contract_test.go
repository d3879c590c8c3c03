package contract

import (
	"os"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// small reads testdata/small.textproto, a valid two-code contract.
func small(t *testing.T) *descriptorpb.FileDescriptorProto {
	t.Helper()
	b, err := os.ReadFile("testdata/small.textproto")
	if err != nil {
		t.Fatal(err)
	}
	fdp := &descriptorpb.FileDescriptorProto{}
	if err := prototext.Unmarshal(b, fdp); err != nil {
		t.Fatal(err)
	}
	return fdp
}

func build(t *testing.T, fdp *descriptorpb.FileDescriptorProto) protoreflect.FileDescriptor {
	t.Helper()
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

func codeOpt(fdp *descriptorpb.FileDescriptorProto, i int) *ghopsv1.ErrorCodeOptions {
	return proto.GetExtension(fdp.EnumType[0].Value[i].Options, ghopsv1.E_ErrorCode).(*ghopsv1.ErrorCodeOptions)
}

func reasonOpt(fdp *descriptorpb.FileDescriptorProto, i int) *ghopsv1.ErrorReasonOptions {
	return proto.GetExtension(fdp.EnumType[1].Value[i].Options, ghopsv1.E_ErrorReason).(*ghopsv1.ErrorReasonOptions)
}

func TestLoadSmall(t *testing.T) {
	c, err := Load(build(t, small(t)))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Codes) != 2 || c.Codes[0].JSONRPC != -32006 || c.Codes[0].Suffix() != "HEAD_SHA_MISMATCH" || c.Codes[0].HTTPStatus != 409 ||
		c.Codes[0].Message != "Head SHA mismatch" || c.Codes[0].When != "The head moved." {
		t.Fatalf("codes = %+v", c.Codes)
	}
	if c.Internal().JSONRPC != -32603 {
		t.Errorf("Internal = %+v", c.Internal())
	}
	if len(c.Reasons) != 3 {
		t.Fatalf("reasons = %+v", c.Reasons)
	}
	moved := c.Reasons[1]
	if moved.Enum != "ERROR_REASON_BRANCH_MOVED" || moved.Code.JSONRPC != -32006 || moved.GRPC != codes.Aborted || moved.GRPCName != "ABORTED" || moved.GRPCDefault {
		t.Errorf("BRANCH_MOVED = %+v", moved)
	}
	var defaults []string
	for _, r := range c.Defaults() {
		defaults = append(defaults, r.Enum+"/"+r.GRPC.String())
	}
	if got := strings.Join(defaults, ","); got != "ERROR_REASON_HEAD_SHA_MISMATCH/Aborted,ERROR_REASON_CANCELED/Canceled" {
		t.Errorf("defaults = %s", got)
	}
}

// TestLoadRejects breaks one rule of the contract at a time.
func TestLoadRejects(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(fdp *descriptorpb.FileDescriptorProto)
		want   string
	}{
		{"code without option", func(f *descriptorpb.FileDescriptorProto) { f.EnumType[0].Value[1].Options = nil },
			"ERROR_CODE_HEAD_SHA_MISMATCH: missing its (error_code) option"},
		{"reason without option", func(f *descriptorpb.FileDescriptorProto) { f.EnumType[1].Value[2].Options = nil },
			"ERROR_REASON_BRANCH_MOVED: missing its (error_reason) option"},
		{"zero code with option", func(f *descriptorpb.FileDescriptorProto) {
			f.EnumType[0].Value[0].Options = f.EnumType[0].Value[1].Options
		},
			"ERROR_CODE_UNSPECIFIED: the zero value is never answered"},
		{"zero reason with option", func(f *descriptorpb.FileDescriptorProto) {
			f.EnumType[1].Value[0].Options = f.EnumType[1].Value[2].Options
		},
			"ERROR_REASON_UNSPECIFIED: the zero value is never sent"},
		{"positive code", func(f *descriptorpb.FileDescriptorProto) { codeOpt(f, 1).JsonRpcCode = 32006 },
			"json_rpc_code 32006 is not negative"},
		{"duplicate code", func(f *descriptorpb.FileDescriptorProto) { codeOpt(f, 1).JsonRpcCode = -32603 },
			"json_rpc_code -32603 is already ERROR_CODE_HEAD_SHA_MISMATCH's"},
		{"no internal error", func(f *descriptorpb.FileDescriptorProto) { codeOpt(f, 2).JsonRpcCode = -32099 },
			"no value has json_rpc_code -32603"},
		{"empty message", func(f *descriptorpb.FileDescriptorProto) { codeOpt(f, 1).Message = " " },
			"ERROR_CODE_HEAD_SHA_MISMATCH: message is empty"},
		{"not an HTTP status", func(f *descriptorpb.FileDescriptorProto) { codeOpt(f, 1).HttpStatus = 299 },
			"http_status 299 is not an HTTP status"},
		{"empty when", func(f *descriptorpb.FileDescriptorProto) { codeOpt(f, 1).When = "" },
			"ERROR_CODE_HEAD_SHA_MISMATCH: when is empty"},
		{"pipe in when", func(f *descriptorpb.FileDescriptorProto) { codeOpt(f, 1).When = "a | b" },
			"must fit one Markdown table cell"},
		{"line break in message", func(f *descriptorpb.FileDescriptorProto) { codeOpt(f, 1).Message = "a\nb" },
			"must fit one Markdown table cell"},
		{"reason names an unknown code", func(f *descriptorpb.FileDescriptorProto) { reasonOpt(f, 2).Code = 7 },
			"ERROR_REASON_BRANCH_MOVED: code 7 is not an ErrorCode value"},
		{"reason names the zero code", func(f *descriptorpb.FileDescriptorProto) { reasonOpt(f, 2).Code = 0 },
			"ERROR_REASON_BRANCH_MOVED: code 0 is not an ErrorCode value"},
		{"unknown gRPC code", func(f *descriptorpb.FileDescriptorProto) { reasonOpt(f, 2).GrpcCode = "MOVED" },
			`grpc_code "MOVED" is not a google.rpc.Code name`},
		{"gRPC code in Go spelling", func(f *descriptorpb.FileDescriptorProto) { reasonOpt(f, 2).GrpcCode = "Aborted" },
			`grpc_code "Aborted" is not a google.rpc.Code name`},
		{"gRPC code by number", func(f *descriptorpb.FileDescriptorProto) { reasonOpt(f, 2).GrpcCode = "10" },
			`grpc_code "10" is not a google.rpc.Code name`},
		{"gRPC OK", func(f *descriptorpb.FileDescriptorProto) { reasonOpt(f, 2).GrpcCode = "OK" },
			`grpc_code "OK" is not an error`},
		{"two defaults for one gRPC code", func(f *descriptorpb.FileDescriptorProto) { reasonOpt(f, 2).GrpcDefault = true },
			"ERROR_REASON_BRANCH_MOVED: ABORTED already has its default reason, ERROR_REASON_HEAD_SHA_MISMATCH"},
		{"unprefixed code", func(f *descriptorpb.FileDescriptorProto) {
			f.EnumType[0].Value[1].Name = proto.String("HEAD_SHA_MISMATCH")
		},
			"HEAD_SHA_MISMATCH: not prefixed ERROR_CODE_"},
		{"no ErrorReason enum", func(f *descriptorpb.FileDescriptorProto) { f.EnumType = f.EnumType[:1] },
			"enums ErrorCode and ErrorReason are both required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fdp := small(t)
			tc.mutate(fdp)
			c, err := Load(build(t, fdp))
			if err == nil {
				t.Fatalf("accepted: %+v", c)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// TestLoadReportsEveryProblem: one run names every broken value.
func TestLoadReportsEveryProblem(t *testing.T) {
	fdp := small(t)
	codeOpt(fdp, 1).Message = ""
	reasonOpt(fdp, 3).GrpcCode = "NOPE"
	_, err := Load(build(t, fdp))
	if err == nil || !strings.Contains(err.Error(), "ERROR_CODE_HEAD_SHA_MISMATCH: message is empty") || !strings.Contains(err.Error(), "ERROR_REASON_CANCELED: grpc_code") {
		t.Fatalf("err = %v", err)
	}
}

// TestLoadContract loads the real errors.proto: every ErrorCode and
// ErrorReason value but the zero ones is in the contract.
func TestLoadContract(t *testing.T) {
	c, err := Load(ghopsv1.File_ghops_v1_errors_proto)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Codes) != len(ghopsv1.ErrorCode_name)-1 || len(c.Reasons) != len(ghopsv1.ErrorReason_name)-1 {
		t.Errorf("%d codes and %d reasons; the enums have %d and %d values", len(c.Codes), len(c.Reasons), len(ghopsv1.ErrorCode_name), len(ghopsv1.ErrorReason_name))
	}
}
