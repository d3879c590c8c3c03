package toolschema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// droppable are the keywords tools/list may leave out of a published input
// schema (tools/schemagen, publish.go): rules the gateway enforces from the
// validation schema, none of which a caller needs to form a call.
var droppable = map[string]bool{
	"pattern": true, "minLength": true, "maxLength": true, "uniqueItems": true,
	"if": true, "then": true, "minimum": true, "exclusiveMinimum": true, "maximum": true,
	"additionalProperties": true,
}

// rangeExtremes are the only maximum values a published schema may leave
// out: bounds that restate an integer kind's range.
var rangeExtremes = map[string]bool{
	"-2147483648": true, "2147483647": true, "4294967295": true,
	"-9223372036854775808": true, "9223372036854775807": true, "18446744073709551615": true,
}

// publishedDrops compares a published schema with the full one it was made
// from and returns the keywords it left out, as "pointer keyword", or an
// error text when it changed or added anything.
func publishedDrops(pub, full map[string]any, at string) (dropped []string, bad []string) {
	for k, pv := range pub {
		fv, ok := full[k]
		if !ok {
			bad = append(bad, at+": adds "+k)
			continue
		}
		switch k {
		case "properties":
			pp, fp := pv.(map[string]any), fv.(map[string]any)
			if len(pp) != len(fp) {
				bad = append(bad, at+": properties differ")
			}
			for name, s := range pp {
				fs, ok := fp[name].(map[string]any)
				if !ok {
					bad = append(bad, at+": adds property "+name)
					continue
				}
				d, b := publishedDrops(s.(map[string]any), fs, at+"/properties/"+name)
				dropped, bad = append(dropped, d...), append(bad, b...)
			}
			continue
		case "items", "additionalProperties":
			if ps, ok := pv.(map[string]any); ok {
				fs, ok := fv.(map[string]any)
				if !ok {
					bad = append(bad, at+": "+k+" changed")
					continue
				}
				d, b := publishedDrops(ps, fs, at+"/"+k)
				dropped, bad = append(dropped, d...), append(bad, b...)
				continue
			}
		}
		if k == "description" && len(fmt.Sprint(full["pattern"])) > 64 {
			continue // a long pattern's words are told when it is broken
		}
		if !reflect.DeepEqual(pv, fv) {
			bad = append(bad, at+": "+k+" changed")
		}
	}
	for k, fv := range full {
		if _, ok := pub[k]; ok {
			continue
		}
		switch {
		case !droppable[k]:
			bad = append(bad, at+": drops "+k)
		case k == "maximum" && !rangeExtremes[string(fv.(json.Number))]:
			bad = append(bad, at+": drops a real upper bound")
		case k == "additionalProperties" && fv != false:
			bad = append(bad, at+": drops the schema of additional properties")
		default:
			dropped = append(dropped, at+" "+k)
		}
	}
	return dropped, bad
}

func decodeSchema(t *testing.T, b []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPublishedInputOnlyDropsRules checks, for every tool, that the input
// schema tools/list publishes is its validation schema with only the
// droppable keywords left out: nothing added or changed, so whatever the
// gateway accepts, a client that validates arguments against the published
// schema accepts too, and the validation itself (Decode) keeps every rule.
func TestPublishedInputOnlyDropsRules(t *testing.T) {
	for _, tl := range registry(t).Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			dropped, bad := publishedDrops(decodeSchema(t, tl.InputSchema), decodeSchema(t, tl.ValidationSchema), "")
			sort.Strings(bad)
			for _, b := range bad {
				t.Error(b)
			}
			t.Logf("left out: %v", dropped)
		})
	}
}

// TestDecodeKeepsUnpublishedRules shows a rule the published schema leaves
// out still enforced: commit_files' path pattern (the safe-path rule) is
// not in tools/list, and a path with ".." is still -32602 at that path.
func TestDecodeKeepsUnpublishedRules(t *testing.T) {
	tl := tool(t, "commit_files")
	if strings.Contains(string(tl.InputSchema), `"pattern"`) {
		t.Fatalf("published schema has a pattern: %s", tl.InputSchema)
	}
	tests := []struct {
		name, args, path, keyword string
	}{
		{"path pattern", `{"repo":"o/r","branch":"main","message":"m","files":[{"path":"../x","content":"a"}]}`, "/files/0/path", "pattern"},
		{"message length", `{"repo":"o/r","branch":"main","message":"","files":[{"path":"x","content":"a"}]}`, "/message", "minLength"},
		{"base64 rule", `{"repo":"o/r","branch":"main","message":"m","files":[{"path":"x","content":"!","encoding":"base64"}]}`, "/files/0/content", "pattern"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, vs := tl.Decode(json.RawMessage(tc.args))
			for _, v := range vs {
				if v.Path == tc.path && v.Keyword == tc.keyword {
					return
				}
			}
			t.Errorf("violations %s, want %s at %s", mustMarshal(t, vs), tc.keyword, tc.path)
		})
	}
}
