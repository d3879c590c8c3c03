package toolschema

import (
	_ "embed" // the source descriptors below
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// sourceDescriptors is proto/ built by `make generate` (buf build) with its
// comments, which protoc-gen-go strips from the descriptors it embeds. The
// leading comment of a request field is that parameter's description, so the
// proto stays the one place where parameters are documented.
//
//go:embed descriptors.binpb
var sourceDescriptors []byte

// descriptions finds the leading comments of fields by full name.
type descriptions struct {
	files *protoregistry.Files
}

// loadDescriptions reads a serialised FileDescriptorSet with source info.
// Imports may be absent from the set: only comments are read from it.
func loadDescriptions(b []byte) (*descriptions, error) {
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("source descriptors: %w", err)
	}
	files, err := protodesc.FileOptions{AllowUnresolvable: true}.NewFiles(&set)
	if err != nil {
		return nil, fmt.Errorf("source descriptors: %w", err)
	}
	return &descriptions{files: files}, nil
}

// of returns the field's leading comment as one line, or "" when the field
// is not in the set (another service's descriptors) or has no comment.
func (d *descriptions) of(fd protoreflect.FieldDescriptor) string {
	if d == nil {
		return ""
	}
	desc, err := d.files.FindDescriptorByName(fd.FullName())
	if err != nil {
		return ""
	}
	loc := desc.ParentFile().SourceLocations().ByDescriptor(desc)
	return strings.Join(strings.Fields(loc.LeadingComments), " ")
}
