package rpcerror

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// encodedLen is what encoding/json makes of v.
func encodedLen(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

func TestCut(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		n       int
		cut     bool
		wantLen int // exact encoded length of the result, 0: only <= n
	}{
		{"empty", "", 16, false, 2},
		{"fits exactly", strings.Repeat("a", 14), 16, false, 16},
		{"one over", strings.Repeat("a", 19), 20, true, 20},
		{"long ascii", strings.Repeat("q", 5000), 256, true, 0},
		{"escapes count", strings.Repeat("<", 100), 256, true, 0},
		{"control characters count", strings.Repeat("\x01", 100), 256, true, 0},
		{"multibyte kept whole", strings.Repeat("é", 500), 256, true, 0},
		{"invalid utf-8", strings.Repeat("\xff", 300), 256, true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := cut(tc.in, tc.n)
			if l := encodedLen(t, got); l > tc.n || (tc.wantLen > 0 && l != tc.wantLen) {
				t.Errorf("encoded length %d, bound %d (want %d)", l, tc.n, tc.wantLen)
			}
			if l := jsonLen(got); l != encodedLen(t, got) {
				t.Errorf("jsonLen %d, encoding/json %d", l, encodedLen(t, got))
			}
			if cutDone := strings.HasSuffix(got, TruncationMarker); cutDone != tc.cut {
				t.Errorf("cut = %v, want %v (%q)", cutDone, tc.cut, got)
			}
			if !strings.HasPrefix(tc.in, strings.TrimSuffix(got, TruncationMarker)) {
				t.Errorf("%q is not a prefix of the input", got)
			}
			if utf8.ValidString(tc.in) && !utf8.ValidString(got) {
				t.Errorf("a rune was split: %q", got)
			}
			if again := cut(got, tc.n); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
		})
	}
}

func TestCutValue(t *testing.T) {
	bigObject := json.RawMessage(`{"query":"` + strings.Repeat("q", 3000) + `"}`)
	cases := []struct {
		name      string
		in        any
		unchanged bool
		prefix    string
	}{
		{"number", 12.5, true, ""},
		{"null", nil, true, ""},
		{"short raw object", json.RawMessage(`{"a":1}`), true, ""},
		{"short string", "abc", true, ""},
		{"long raw string stays a string", json.RawMessage(`"` + strings.Repeat("s", 3000) + `"`), false, "sss"},
		{"long raw object becomes its text", bigObject, false, `{"query":"qqq`},
		{"long go string", strings.Repeat("g", 3000), false, "ggg"},
		{"long go map", map[string]any{"k": strings.Repeat("m", 3000)}, false, `{"k":"mmm`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := cutValue(tc.in, MaxValueBytes)
			if l := encodedLen(t, got); l > MaxValueBytes && !tc.unchanged {
				t.Errorf("encoded length %d over %d", l, MaxValueBytes)
			}
			if tc.unchanged {
				if encodedLen(t, got) != encodedLen(t, tc.in) {
					t.Errorf("changed: %v", got)
				}
				return
			}
			s, ok := got.(string)
			if !ok || !strings.HasPrefix(s, tc.prefix) || !strings.HasSuffix(s, TruncationMarker) {
				t.Errorf("got %#v, want a string starting %q ending with the marker", got, tc.prefix)
			}
		})
	}
}

// manyViolations is what a call with n unknown keys produces: n violations
// each echoing the whole arguments object.
func manyViolations(n int) []Violation {
	args := json.RawMessage(`{"query":"x","k":"` + strings.Repeat("v", 2000) + `"}`)
	vs := make([]Violation, n)
	for i := range vs {
		key := "key" + strconv.Itoa(i)
		vs[i] = Violation{Message: "must NOT have additional properties", Path: "root",
			Keyword: "additionalProperties", Params: map[string]any{"additionalProperty": key}, Value: args}
	}
	return vs
}

func TestInvalidParamsBounded(t *testing.T) {
	fixedNow(t)
	longKey := strings.Repeat("k", 5000)
	worst := make([]Violation, MaxViolations)
	for i := range worst {
		// Every string at its bound, made of characters JSON escapes six-fold.
		worst[i] = Violation{Message: strings.Repeat("<", 5000), Path: "/" + strings.Repeat("\x01", 5000),
			Keyword: strings.Repeat("&", 5000), Params: map[string]any{"additionalProperty": strings.Repeat(">", 5000)},
			Value: strings.Repeat("\x02", 5000)}
	}
	cases := []struct {
		name        string
		vs          []Violation
		wantListed  int
		wantOmitted int
	}{
		{"small list untouched", manyViolations(3), 3, 0},
		{"exactly the cap", manyViolations(MaxViolations), MaxViolations, 0},
		{"25,000 unknown keys", manyViolations(25000), MaxViolations, 25000 - MaxViolations},
		{"a long unknown key", []Violation{{Message: "must NOT have additional properties", Path: "root",
			Keyword: "additionalProperties", Params: map[string]any{"additionalProperty": longKey}, Value: json.RawMessage(`{}`)}}, 1, 0},
		{"worst-case strings hit the data bound", worst, -1, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := InvalidParams("search", tc.vs)
			w := e.JSONRPC()
			body, err := json.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			if len(body) > MaxErrorBytes {
				t.Fatalf("error object of %d bytes", len(body))
			}
			data, _ := json.Marshal(w.Data)
			if len(data) > MaxDataBytes {
				t.Errorf("data of %d bytes, bound %d", len(data), MaxDataBytes)
			}
			enc := e.Encoded()
			d := enc.Data
			listed, omitted := len(d.ValidationErrors), int(d.ValidationErrorsOmitted)
			if tc.wantListed >= 0 && (listed != tc.wantListed || omitted != tc.wantOmitted) {
				t.Errorf("listed %d omitted %d, want %d and %d", listed, omitted, tc.wantListed, tc.wantOmitted)
			}
			if listed+omitted != len(tc.vs) {
				t.Errorf("listed %d + omitted %d != %d found", listed, omitted, len(tc.vs))
			}
			if omitted > 0 && !strings.HasSuffix(enc.Message, ", and "+strconv.Itoa(omitted)+" more") {
				t.Errorf("message %q does not count the rest", enc.Message)
			}
			if len(enc.Violations) != listed {
				t.Errorf("%d violations to render, %d listed", len(enc.Violations), listed)
			}
			for _, v := range enc.Violations {
				if l := encodedLen(t, v.Value); l > MaxValueBytes {
					t.Errorf("value of %d bytes", l)
				}
				if l := encodedLen(t, v.Params); l > 2*MaxValueBytes {
					t.Errorf("params of %d bytes", l)
				}
			}
			if again, _ := json.Marshal(e.JSONRPC()); !bytes.Equal(again, body) {
				t.Errorf("encoding twice changed the answer:\n%s\n%s", body, again)
			}
		})
	}
}

// TestBoundRedactsBeforeCutting: a token that straddles the cut is
// redacted whole first, so no start of it survives the cut.
func TestBoundRedactsBeforeCutting(t *testing.T) {
	for _, at := range []int{MaxValueBytes - 30, MaxValueBytes - 10, MaxValueBytes - 2} {
		t.Run("token at "+strconv.Itoa(at), func(t *testing.T) {
			s := strings.Repeat("a", at) + secret
			e := InvalidParams("search", []Violation{{Message: "m " + s, Path: "/q", Keyword: "maxLength",
				Params: map[string]any{}, Value: json.RawMessage(strconv.Quote(s))}})
			b, _ := json.Marshal(e.JSONRPC())
			if strings.Contains(string(b), "ghp_") {
				t.Fatalf("a token start survived: %s", b)
			}
		})
	}
}

// TestStatusErrorsBounded: what the service or GitHub sends (a message, a
// patch detail quoting a line of a file) is cut too.
func TestStatusErrorsBounded(t *testing.T) {
	long := strings.Repeat("line ", 100000)
	st := status.New(codes.FailedPrecondition, long)
	st, err := st.WithDetails(
		protoadapt.MessageV1Of(&errdetails.ErrorInfo{Reason: ghopsv1.ErrorReason_ERROR_REASON_PATCH_REJECTED.String(), Domain: "ghops.dev"}),
		protoadapt.MessageV1Of(&ghopsv1.PatchError{Code: "PATCH_DOES_NOT_APPLY", File: long, Detail: long}),
		protoadapt.MessageV1Of(&ghopsv1.GitHubError{Status: 422, Message: long, DocumentationUrl: long}))
	if err != nil {
		t.Fatal(err)
	}
	e := FromStatus("apply_patch", st.Err(), "rid")
	b, _ := json.Marshal(e.JSONRPC())
	if len(b) > MaxErrorBytes {
		t.Fatalf("error object of %d bytes", len(b))
	}
	enc := e.Encoded()
	for name, s := range map[string]string{"message": enc.Message, "patch.detail": enc.Data.Patch.Detail, "patch.file": enc.Data.Patch.File, "github.message": enc.Data.Github.Message} {
		if !strings.HasSuffix(s, TruncationMarker) || jsonLen(s) > MaxStringBytes {
			t.Errorf("%s not cut: %d bytes", name, len(s))
		}
	}
	if l := len(e.LogLine()); l > 2*MaxStringBytes {
		t.Errorf("log line of %d bytes", l)
	}
}

// FuzzCut: whatever the string and bound, the result is a prefix of the
// input (plus the marker), encodes within the bound and is stable.
func FuzzCut(f *testing.F) {
	f.Add("hello", 16)
	f.Add(strings.Repeat("<&>\x00\"\\é\u2028", 50), 64)
	f.Add("\xff\xfe", 20)
	f.Fuzz(func(t *testing.T, s string, n int) {
		// Bounds below the marker's own size are never used: fold every n
		// into the range the package does use, so no input is wasted.
		n = jsonLen(TruncationMarker) + int(uint(n)%(1<<16))
		got := cut(s, n)
		if jsonLen(got) > n || encodedLen(t, got) != jsonLen(got) {
			t.Fatalf("cut(%q, %d) = %q: %d bytes", s, n, got, encodedLen(t, got))
		}
		if got != s && !strings.HasPrefix(s, strings.TrimSuffix(got, TruncationMarker)) {
			t.Fatalf("%q is not a prefix of %q", got, s)
		}
		if cut(got, n) != got {
			t.Fatal("not idempotent")
		}
	})
}
