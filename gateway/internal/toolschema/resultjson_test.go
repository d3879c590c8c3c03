package toolschema

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/gateway/internal/toolschema/internal/kindsv1"
)

// strs are strings that exercise protojson's escaping: quotes, backslashes,
// every kind of control character, HTML characters (not escaped), U+2028,
// U+FFFD written out, multi-byte runes, and invalid UTF-8 (protojson's
// error, which EncodeResult must answer too).
var strs = []string{
	"", "a", "octo-org/hello-world", `say "hi"`, `back\slash`, "tab\there", "nl\ncr\r", "\b\f\x00\x01\x1f\x7f",
	"<b>&amp;</b>", "line\u2028sep\u2029", "\ufffd", "héllo wörld ✓ 𝄞", "\xff", "ok\xc3", "日本語",
}

// floats are the doubles whose formatting differs: zero, negative zero,
// small and large magnitudes around the switch to exponent notation, NaN
// and the infinities.
var floats = []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 1.5e300, 5e-324, math.NaN(), math.Inf(1), math.Inf(-1), 123456.789}

// fill sets the fields of m from r: each field unset or set (zero values
// included, so that presence is exercised), lists of 0 to 3 items, nested
// messages to depth 4, enum numbers known and unknown, timestamps in and
// out of protojson's range, maps of 0 to 3 entries.
func fill(r *rand.Rand, m protoreflect.Message, depth int) {
	fds := m.Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if r.IntN(4) == 0 {
			continue // unset
		}
		switch {
		case fd.IsMap():
			// Up to 3 entries, string keys from strs (so unsorted and
			// escaped keys occur), other keys as any value of their kind,
			// values as any field of their kind.
			mp := m.Mutable(fd).Map()
			for range r.IntN(4) {
				k := protoreflect.ValueOfString(strs[r.IntN(len(strs))]).MapKey()
				if fd.MapKey().Kind() != protoreflect.StringKind {
					k = scalar(r, fd.MapKey()).MapKey()
				}
				if fd.MapValue().Kind() == protoreflect.MessageKind {
					if depth == 0 {
						break
					}
					v := mp.NewValue()
					fill(r, v.Message(), depth-1)
					mp.Set(k, v)
					continue
				}
				mp.Set(k, scalar(r, fd.MapValue()))
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range r.IntN(4) {
				if fd.Kind() == protoreflect.MessageKind {
					if depth == 0 {
						break
					}
					v := l.NewElement()
					fill(r, v.Message(), depth-1)
					l.Append(v)
					continue
				}
				l.Append(scalar(r, fd))
			}
		case fd.Kind() == protoreflect.MessageKind:
			if depth == 0 {
				continue
			}
			if fd.Message().FullName() == timestampName {
				ts := m.Mutable(fd).Message()
				tf := ts.Descriptor().Fields()
				secs := []int64{0, 1, -1, 1795000000, minStampSeconds, maxStampSeconds, maxStampSeconds + 1, minStampSeconds - 1}[r.IntN(8)]
				nanos := []int64{0, 1, 1000, 100000000, 123456789, 999999999, 1e9, -1}[r.IntN(8)]
				ts.Set(tf.ByNumber(1), protoreflect.ValueOfInt64(secs))
				ts.Set(tf.ByNumber(2), protoreflect.ValueOfInt32(int32(nanos)))
				continue
			}
			fill(r, m.Mutable(fd).Message(), depth-1)
		default:
			m.Set(fd, scalar(r, fd))
		}
	}
}

// scalar is a value of fd's scalar kind.
func scalar(r *rand.Rand, fd protoreflect.FieldDescriptor) protoreflect.Value {
	ints := []int64{0, 1, -1, 42, math.MaxInt32, math.MinInt32}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(r.IntN(2) == 1)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(strs[r.IntN(len(strs))])
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte(strs[r.IntN(len(strs))]))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(ints[r.IntN(len(ints))]))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32([]uint32{0, 1, math.MaxUint32}[r.IntN(3)])
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if r.IntN(20) == 0 { // beyond MaxExactInt: the answer fails
			return protoreflect.ValueOfInt64([]int64{math.MaxInt64, math.MinInt64, MaxExactInt + 1, -MaxExactInt - 1}[r.IntN(4)])
		}
		return protoreflect.ValueOfInt64([]int64{0, -1, 1, 4242424242, MaxExactInt, -MaxExactInt}[r.IntN(6)])
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if r.IntN(20) == 0 {
			return protoreflect.ValueOfUint64([]uint64{MaxExactInt + 1, math.MaxUint64}[r.IntN(2)])
		}
		return protoreflect.ValueOfUint64([]uint64{0, 1, MaxExactInt}[r.IntN(3)])
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(floats[r.IntN(len(floats))]))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(floats[r.IntN(len(floats))])
	case protoreflect.EnumKind:
		vs := fd.Enum().Values()
		if r.IntN(5) == 0 {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(vs.Len() + 100)) // unknown number
		}
		return protoreflect.ValueOfEnum(vs.Get(r.IntN(vs.Len())).Number())
	}
	panic(fmt.Sprintf("no scalar of kind %v", fd.Kind()))
}

// agree fails unless EncodeResult and protojson (64-bit integers as
// numbers) give the same bytes, or the same failure, for resp.
func agree(t testing.TB, tl *Tool, resp proto.Message) {
	t.Helper()
	got, err := tl.EncodeResult(resp)
	want, werr := tl.encodeProtojson(resp)
	if (err != nil) != (werr != nil) {
		t.Fatalf("%s: error %v, protojson's %v", tl.Name, err, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: result plan and protojson differ\n plan %s\nproto %s", tl.Name, got, want)
	}
}

// TestResultPlanAgreesWithProtojson checks the result encoder against
// protojson (UseProtoNames, EmitDefaultValues, compacted, 64-bit integers
// as numbers) on every tool's response type: the empty response and 300
// generated ones each.
func TestResultPlanAgreesWithProtojson(t *testing.T) {
	for _, tl := range registry(t).Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			if tl.result == nil {
				t.Fatalf("%s has no result plan: its response uses a type the plan does not cover", tl.Name)
			}
			agree(t, tl, tl.NewResponse())
			r := rand.New(rand.NewPCG(1, uint64(len(tl.Name))))
			for range 300 {
				resp := tl.NewResponse()
				fill(r, resp.ProtoReflect(), 4)
				agree(t, tl, resp)
			}
		})
	}
}

// TestResultPlanNeedsProtojson names the types the plan leaves to
// protojson: maps with other than string keys, extensions and well-known
// types other than Timestamp.
func TestResultPlanNeedsProtojson(t *testing.T) {
	tests := []struct {
		name string
		md   protoreflect.MessageDescriptor
		want bool
	}{
		{"a response", registry(t).tools[0].respType.Descriptor(), true},
		{"a well-known type", (&structpb.Value{}).ProtoReflect().Descriptor(), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := planFor(tc.md) != nil; got != tc.want {
				t.Errorf("planFor(%s) != nil is %v, want %v", tc.md.FullName(), got, tc.want)
			}
		})
	}
}

// FuzzResultPlan fills every tool's response from the fuzzer's seed and
// checks the encoder against protojson.
func FuzzResultPlan(f *testing.F) {
	for _, s := range []uint64{0, 1, 7, 1 << 40} {
		f.Add(s, uint8(0))
	}
	tools := registry(f).Tools()
	f.Fuzz(func(t *testing.T, seed uint64, which uint8) {
		tl := tools[int(which)%len(tools)]
		resp := tl.NewResponse()
		fill(rand.New(rand.NewPCG(seed, uint64(which))), resp.ProtoReflect(), 4)
		agree(t, tl, resp)
	})
}

// BenchmarkEncodeResult compares the result plan with protojson on a
// branch list of 30.
func BenchmarkEncodeResult(b *testing.B) {
	tl := tool(b, "get_branches")
	resp := tl.NewResponse()
	fill(rand.New(rand.NewPCG(3, 3)), resp.ProtoReflect(), 4)
	b.Run("plan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tl.EncodeResult(resp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protojson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tl.encodeProtojson(resp); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestResult64BitIntegersAreNumbers pins the answer's rule for 64-bit
// integers, on the result plan (get_ci_failures, get_job_log's job_id) and
// on the protojson path (the test tool of every kind, whose map with
// number keys the plan leaves to protojson): JSON numbers, up to 2^53-1 in
// magnitude; beyond, the answer fails rather than reach a client rounded.
func TestResult64BitIntegersAreNumbers(t *testing.T) {
	tests := []struct {
		name    string
		tl      *Tool
		resp    proto.Message
		want    string // a part of the answer
		wantErr bool
	}{
		{"plan: job and run ids", tool(t, "get_ci_failures"), &ghopsv1.GetCiFailuresResponse{Failed: []*ghopsv1.FailedCheck{{RunId: 31, JobId: 4242424242}}},
			`"run_id":31,"job_id":4242424242,`, false},
		{"plan: 2^53-1 exact", tool(t, "get_ci_failures"), &ghopsv1.GetCiFailuresResponse{Failed: []*ghopsv1.FailedCheck{{JobId: MaxExactInt}}},
			`"job_id":9007199254740991,`, false},
		{"plan: -(2^53-1) exact", tool(t, "get_ci_failures"), &ghopsv1.GetCiFailuresResponse{Failed: []*ghopsv1.FailedCheck{{JobId: -MaxExactInt}}},
			`"job_id":-9007199254740991,`, false},
		{"plan: 2^53 fails", tool(t, "get_ci_failures"), &ghopsv1.GetCiFailuresResponse{Failed: []*ghopsv1.FailedCheck{{JobId: MaxExactInt + 1}}}, "", true},
		{"plan: -2^53 fails", tool(t, "get_ci_failures"), &ghopsv1.GetCiFailuresResponse{Failed: []*ghopsv1.FailedCheck{{JobId: -MaxExactInt - 1}}}, "", true},
		{"protojson: every 64-bit kind", kindsTool(t), &kindsv1.KindsResponse{
			Id: 5, Big: MaxExactInt, Ids: []int64{1, -2}, Counts: map[int32]int64{3: -MaxExactInt},
			Tallies: []*kindsv1.Tally{{N: 6, Delta: -7}},
		}, `{"id":5,"state":"STATE_UNSPECIFIED","env":{},"ratio":0,"labels":[],"big":9007199254740991,"ids":[1,-2],"counts":{"3":-9007199254740991},"tallies":[{"n":6,"delta":-7}]}`, false},
		{"protojson: uint64 2^53 fails", kindsTool(t), &kindsv1.KindsResponse{Big: MaxExactInt + 1}, "", true},
		{"protojson: map value 2^53 fails", kindsTool(t), &kindsv1.KindsResponse{Counts: map[int32]int64{1: MaxExactInt + 1}}, "", true},
		{"protojson: nested fixed64 beyond fails", kindsTool(t), &kindsv1.KindsResponse{Tallies: []*kindsv1.Tally{{N: math.MaxUint64}}}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.tl.EncodeResult(tc.resp)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "2^53-1") {
					t.Fatalf("EncodeResult = %s, %v; want the 2^53-1 error", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), tc.want) {
				t.Errorf("EncodeResult\n got %s\nwant it to hold %s", got, tc.want)
			}
			assertMatchesOutputSchema(t, tc.tl, got)
		})
	}
}

// TestResultDecodesBack: every tool's answer (and the test tool's, through
// the protojson path), generated, reads back into the same response with
// protojson, as the Go client reads it, and every tool's satisfies its
// output schema, which types 64-bit integers as integers.
func TestResultDecodesBack(t *testing.T) {
	tools := append(registry(t).Tools(), kindsTool(t))
	for _, tl := range tools {
		t.Run(tl.Name, func(t *testing.T) {
			sch := outputSchema(t, tl)
			r := rand.New(rand.NewPCG(2, uint64(len(tl.Name))))
			ok := 0
			for range 100 {
				resp := tl.NewResponse()
				fill(r, resp.ProtoReflect(), 3)
				out, err := tl.EncodeResult(resp)
				if err != nil {
					continue // invalid UTF-8, a timestamp out of range, a value beyond 2^53-1
				}
				ok++
				back := tl.NewResponse()
				if err := protojson.Unmarshal(out, back); err != nil {
					t.Fatalf("answer does not decode: %v\n%s", err, out)
				}
				if !proto.Equal(back, resp) {
					t.Fatalf("answer decodes to another response\n answer %s\n    got %v\n   want %v", out, back, resp)
				}
				if tl.Name != "kinds" {
					// The test tool's enum and double are generated
					// beyond what its schema states (unknown numbers,
					// NaN), to exercise protojson's forms.
					assertMatches(t, sch, out)
				}
			}
			if ok == 0 {
				t.Fatal("no generated answer encoded")
			}
		})
	}
}
