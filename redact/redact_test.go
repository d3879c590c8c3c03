package redact

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

const (
	classic     = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	fineGrained = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVW"
	apiKey      = "ghk_Zm9vYmFyYmF6cXV4LWtleS1tYXRlcmlhbA"
	jwt         = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJvY3RvY2F0In0.c2lnbmF0dXJlLWJ5dGVz"
)

func TestString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"classic token", "bad " + classic + " here", "bad [REDACTED] here"},
		{"token after a word character", "x_" + classic, "x_[REDACTED]"},
		{"token glued to letters", "abc" + classic + "def", "abc[REDACTED]"},
		{"every GitHub prefix", "gho_abcdefgh1 ghu_abcdefgh1 ghs_abcdefgh1 ghr_abcdefgh1 GHP_ABCDEFGH1",
			"[REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED]"},
		{"fine-grained token", "pat=" + fineGrained, "pat=[REDACTED]"},
		{"fine-grained token alone", "github_pat_11ABCDEF0123456789", "[REDACTED]"},
		{"ghops API key", "key " + apiKey + ".", "key [REDACTED]."},
		{"JWT", "id_tok " + jwt + " end", "id_tok [REDACTED] end"},
		{"unsigned JWT", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "[REDACTED]"},
		{"AWS access key ids", "aws AKIAIOSFODNN7EXAMPLE and ASIAY34FZKBOKMUTVV7A.", "aws [REDACTED] and [REDACTED]."},
		{"AWS-like word stays", "AKIAIOSFODNN7EXAMPLEX AKIA1234", "AKIAIOSFODNN7EXAMPLEX AKIA1234"},
		{"demo token", "GHOPS-DEMO-TOKEN and ghops-demo-token", "[REDACTED] and [REDACTED]"},
		{"bearer", "Authorization: Bearer abc.def-123456", "Authorization: [REDACTED]"},
		{"bearer alone", "sent bearer abc.def-123456==, then", "sent bearer [REDACTED], then"},
		{"basic", "Basic dXNlcjpwYXNzd29yZA==", "Basic [REDACTED]"},
		{"authorization with GitHub's token scheme", `authorization: token s3cr3t-v4lue`, "authorization: [REDACTED]"},
		{"authorization as a JSON member", `{"Authorization":"whatever"}`, `{"Authorization":"[REDACTED]"}`},
		{"URL userinfo", "clone https://user:pw@example.com/p.git now", "clone https://example.com/p.git now"},
		{"URL token userinfo", "https://x-access-token:" + classic + "@github.com/o/r", "https://github.com/o/r"},
		{"URL query", "see https://api.github.com/x?access_token=s3cret&page=2#frag", "see https://api.github.com/x#frag"},
		{"token in a URL query", "https://docs.github.com/rest?token=" + classic + "]", "https://docs.github.com/rest"},
		{"token in a URL path", "https://h/" + classic + "/x?q", "https://h/[REDACTED]/x"},
		{"URL in parentheses", "(see https://h/p?token=abc), then", "(see https://h/p), then"},
		{"parenthesis inside the query", "https://h/p?a=(b)c&d", "https://h/p"},
		{"URL query without path", "https://h?a=b and http://h2?c", "https://h and http://h2"},
		{"fragment parameters", "https://app.test/cb#access_token=abc&state=1", "https://app.test/cb#access_token=[REDACTED]&state=1"},
		{"question mark in the fragment stays", "https://h/p#a?b", "https://h/p#a?b"},
		{"query parameter outside a URL", "form: access_token=abc&page=2", "form: access_token=[REDACTED]&page=2"},
		{"signed URL", "https://s3.test/o?X-Amz-Credential=AK%2F1&X-Amz-Signature=abc&X-Amz-Security-Token=zz", "https://s3.test/o"},
		{"password field", "dial db password=hunter2 host=x", "dial db password=[REDACTED] host=x"},
		{"client_secret", "client_secret = abc123", "client_secret = [REDACTED]"},
		{"JSON secret member", `{"password": "hunter2", "user": "octocat"}`, `{"password": "[REDACTED]", "user": "octocat"}`},
		{"JSON escaped value", `{"token":"a\"b"}`, `{"token":"[REDACTED]"}`},
		{"private key", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\nafter",
			"key:\n[REDACTED]\nafter"},
		{"truncated private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "[REDACTED]"},
		// What must stay.
		{"plain message", "Resource not accessible by personal access token", "Resource not accessible by personal access token"},
		{"sha", "head 0123456789abcdef0123456789abcdef01234567 moved", "head 0123456789abcdef0123456789abcdef01234567 moved"},
		{"tool names", "merge_pull_request get_file_contents", "merge_pull_request get_file_contents"},
		{"log line fields", "jsonrpc_error tool=fetch code=-32002 repo=o/r pr=2 sha=abc state=dirty", "jsonrpc_error tool=fetch code=-32002 repo=o/r pr=2 sha=abc state=dirty"},
		{"metric name", "ghops_gateway_calls_total", "ghops_gateway_calls_total"},
		{"short gh words", "ghp_x github gh_pat", "ghp_x github gh_pat"},
		{"monkey is not a key", "monkey=banana", "monkey=banana"},
		{"URL without secrets", "https://docs.github.com/rest/repos/repos#get-a-repository", "https://docs.github.com/rest/repos/repos#get-a-repository"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := String(tc.in)
			if got != tc.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if String(got) != got {
				t.Errorf("not idempotent: %q -> %q", got, String(got))
			}
			if Contains(got) {
				t.Errorf("output still matches: %q", got)
			}
			if wantContains := tc.in != tc.want; Contains(tc.in) != wantContains {
				t.Errorf("Contains(%q) = %v, want %v", tc.in, !wantContains, wantContains)
			}
		})
	}
}

func TestStringWith(t *testing.T) {
	got := StringWith("token plain-secret-value and "+classic, "plain-secret-value", "")
	if got != "token [REDACTED] and [REDACTED]" {
		t.Errorf("got %q", got)
	}
}

func TestSecrets(t *testing.T) {
	tests := []struct {
		name, in string
		known    []string
		want     string
		n        int
	}{
		{"none", "a comment with https://h/p?q=1 and password=x", nil, "a comment with https://h/p?q=1 and password=x", 0},
		{"every GitHub prefix", "ghp_abcdefgh1 gho_abcdefgh1 ghu_abcdefgh1 ghs_abcdefgh1 ghr_abcdefgh1 " + fineGrained, nil,
			"[REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED]", 6},
		{"aws key in a log line", "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", nil, "export AWS_ACCESS_KEY_ID=[REDACTED]", 1},
		{"jwt", "id " + jwt, nil, "id [REDACTED]", 1},
		{"private key block", "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----", nil, "[REDACTED]", 1},
		{"private key header alone", "-----BEGIN RSA PRIVATE KEY-----", nil, "[REDACTED]", 1},
		{"known secret", "the token s3rv1ce-t0ken-value twice s3rv1ce-t0ken-value", []string{"s3rv1ce-t0ken-value"}, "the token [REDACTED] twice [REDACTED]", 2},
		{"short known value ignored", "a b c", []string{"a", ""}, "a b c", 0},
		{"known and shaped counted once", "x " + classic, []string{classic}, "x [REDACTED]", 1},
		{"bearer prose stays", "Bearer authentication and Basic usage", nil, "Bearer authentication and Basic usage", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, n := Secrets(tc.in, tc.known...)
			if got != tc.want || n != tc.n {
				t.Errorf("Secrets(%q) = %q, %d; want %q, %d", tc.in, got, n, tc.want, tc.n)
			}
			if again, n2 := Secrets(got, tc.known...); again != got || n2 != 0 {
				t.Errorf("not idempotent: %q -> %q (%d)", got, again, n2)
			}
		})
	}
}

// FuzzSecrets: a planted secret of every fixed shape never survives, the
// output is a fixed point, and nothing is counted when nothing changed.
func FuzzSecrets(f *testing.F) {
	for _, s := range []string{"", classic, "AKIAIOSFODNN7EXAMPLE", jwt, "-----BEGIN PRIVATE KEY-----", "https://h/?a=b"} {
		f.Add(s, []byte("secretbody"), uint8(0))
	}
	f.Fuzz(func(t *testing.T, text string, body []byte, kind uint8) {
		out, n := Secrets(text)
		if (n == 0) != (out == text) {
			t.Fatalf("Secrets(%q) = %q, %d", text, out, n)
		}
		if again, n2 := Secrets(out); again != out || n2 != 0 {
			t.Fatalf("not idempotent: %q -> %q -> %q", text, out, again)
		}
		core := coreOf(body)
		fixed := []string{"ghp_" + core, "github_pat_" + core, "AKIA" + strings.ToUpper(core[:16]), "eyJ" + core + "." + core + "." + core,
			"-----BEGIN EC PRIVATE KEY-----\n" + core + "\n-----END EC PRIVATE KEY-----"}
		in := text + " " + fixed[int(kind)%len(fixed)] + " "
		out, n = Secrets(in)
		if n == 0 || strings.Count(out, core) > strings.Count(text, core) || strings.Count(out, strings.ToUpper(core[:16])) > strings.Count(text, strings.ToUpper(core[:16])) {
			t.Fatalf("Secrets(%q) = %q, %d: the secret survived", in, out, n)
		}
	})
}

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"token": true, "access_token": true, "X-Amz-Security-Token": true, "password": true, "passwd": true,
		"api_key": true, "apiKey": true, "key": true, "sig": true, "Authorization": true, "session_id": true, "cookie": true,
		"monkey": false, "author": false, "keyword": false, "path": false, "tool": false, "message": false, "sha": false,
		"id": false, "value": false, "missingProperty": false,
	} {
		t.Run(name, func(t *testing.T) {
			if got := IsSecretName(name); got != want {
				t.Errorf("IsSecretName(%q) = %v", name, got)
			}
		})
	}
}

func TestValue(t *testing.T) {
	in := map[string]any{
		"tool":  "x_" + classic,
		"count": 3.0,
		"ok":    true,
		"none":  nil,
		"list":  []any{"clean", "Bearer abcdefghijkl", map[string]any{"password": "hunter2", "n": json.Number("1")}},
		classic: "key named after a token",
		"token": map[string]any{"nested": "not a string secret, kept"},
		"strs":  []string{"a", jwt},
		"smap":  map[string]string{"api_key": "abc", "b": "c"},
		"raw":   json.RawMessage(`{"id":"` + classic + `","n":1}`),
	}
	snapshot, _ := json.Marshal(in)
	got := Value(in)
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"[REDACTED]":"key named after a token","count":3,"list":["clean","Bearer [REDACTED]",{"n":1,"password":"[REDACTED]"}],"none":null,"ok":true,"raw":{"id":"[REDACTED]","n":1},"smap":{"api_key":"[REDACTED]","b":"c"},"strs":["a","[REDACTED]"],"token":{"nested":"not a string secret, kept"},"tool":"x_[REDACTED]"}`
	if string(b) != want {
		t.Errorf("Value\n got %s\nwant %s", b, want)
	}
	if after, _ := json.Marshal(in); string(after) != string(snapshot) {
		t.Errorf("Value modified its input:\n%s\n%s", snapshot, after)
	}
}

func TestValueCleanIsSame(t *testing.T) {
	m := map[string]any{"a": []any{"b", 1.0}, "c": map[string]any{"d": "e"}}
	got := Value(m).(map[string]any)
	got["new"] = 1 // the same map: nothing was copied
	if _, ok := m["new"]; !ok {
		t.Error("a clean map was copied")
	}
}

func TestValueOtherTypes(t *testing.T) {
	type violation struct {
		Message string `json:"message"`
		Value   any    `json:"value"`
	}
	clean := violation{Message: "m", Value: 1}
	if got := Value(clean); got != any(clean) {
		t.Errorf("clean struct changed: %#v", got)
	}
	got := Value([]violation{{Message: "bad " + classic, Value: map[string]any{"x": jwt}}})
	b, _ := json.Marshal(got)
	if string(b) != `[{"message":"bad [REDACTED]","value":{"x":"[REDACTED]"}}]` {
		t.Errorf("got %s", b)
	}
	ch := make(chan int) // not encodable: returned as is
	if Value(ch) != any(ch) {
		t.Error("channel changed")
	}
}

func TestJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"order and numbers kept", `{"z":1.50,"a":"` + classic + `","m":[1e3,"ok",null,true]}`, `{"z":1.50,"a":"[REDACTED]","m":[1e3,"ok",null,true]}`},
		{"escaped token", `{"v":"ghp\u005f0123456789abcdef"}`, `{"v":"[REDACTED]"}`},
		{"secret member", `{"password":"x","nested":{"Token":"y"},"token":{"a":"b"}}`, `{"password":"[REDACTED]","nested":{"Token":"[REDACTED]"},"token":{"a":"b"}}`},
		{"secret key", `{"` + classic + `":1}`, `{"[REDACTED]":1}`},
		{"clean", `{"a": "b"}`, `{"a": "b"}`},
		{"clean with escapes kept as sent", `{"a":"\u00e9\n"}`, `{"a":"\u00e9\n"}`},
		{"not JSON", `nope ` + classic, `nope [REDACTED]`},
		{"trailing garbage", `{"a":"` + classic + `"} x`, `{"a":"[REDACTED]"} x`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(JSON([]byte(tc.in))); got != tc.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestError(t *testing.T) {
	base := fmt.Errorf("open %s: %w", classic, fs.ErrNotExist)
	err := Error(base, "configured-secret")
	if err.Error() != "open [REDACTED]: file does not exist" {
		t.Errorf("Error() = %q", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Error("errors.Is lost the cause")
	}
	if Error(nil) != nil {
		t.Error("nil error not nil")
	}
	if got := Error(errors.New("x configured-secret y"), "configured-secret").Error(); got != "x [REDACTED] y" {
		t.Errorf("known secret: %q", got)
	}
}

// shapes builds a whole-shape secret around core (lower-case letters and
// digits, at least 20 long): every rule that needs no context.
var shapes = []func(core string) string{
	func(c string) string { return "ghp_" + c },
	func(c string) string { return "gho_" + c },
	func(c string) string { return "ghu_" + c },
	func(c string) string { return "ghs_" + c },
	func(c string) string { return "ghr_" + c },
	func(c string) string { return "github_pat_" + c },
	func(c string) string { return "ghk_" + c },
	func(c string) string { return "eyJ" + c + "." + c + "." + c },
	func(c string) string {
		return "-----BEGIN EC PRIVATE KEY-----\n" + c + "\n-----END EC PRIVATE KEY-----"
	},
	func(c string) string { return "AKIA" + strings.ToUpper(c[:16]) },
	func(c string) string { return "Bearer " + c },
	func(c string) string { return "https://u:" + c + "@h/" },
	func(c string) string { return "?access_token=" + c },
	func(c string) string { return `{"secret":"` + c + `"}` },
}

// coreOf maps fuzz bytes to a secret body of lower-case letters and digits.
func coreOf(b []byte) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	var s strings.Builder
	for _, c := range b {
		s.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	for s.Len() < 20 {
		s.WriteString("k3y")
	}
	return s.String()
}

// FuzzString: for any text, the output matches no rule and is a fixed
// point; a secret of any shape planted in any text does not survive (the
// context-dependent shapes are planted after a space, where they apply).
func FuzzString(f *testing.F) {
	for _, s := range []string{"", classic, "x_" + classic, "Bearer abcdefghij", "https://u:p@h/x?token=t#sig=s", jwt,
		`{"password":"a\"b"}`, "Authorization: Negotiate abcdefgh", "-----BEGIN PRIVATE KEY-----", "token=[x", "a://@@", "ghk_" + strings.Repeat("-", 20)} {
		f.Add(s, []byte("secretbody"), uint8(0), " tail")
	}
	f.Fuzz(func(t *testing.T, prefix string, body []byte, kind uint8, suffix string) {
		out := String(prefix)
		if Contains(out) {
			t.Fatalf("String(%q) = %q still matches", prefix, out)
		}
		if again := String(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", prefix, out, again)
		}

		core := coreOf(body)
		in := prefix + " " + shapes[int(kind)%len(shapes)](core) + " " + suffix
		out = String(in)
		if Contains(out) || String(out) != out {
			t.Fatalf("String(%q) = %q is not clean", in, out)
		}
		if strings.Count(out, core) > strings.Count(prefix, core)+strings.Count(suffix, core) {
			t.Fatalf("secret %q survived in %q", core, out)
		}
	})
}

// FuzzJSON: any JSON text stays valid JSON with the same shape, and none of
// its strings (keys included) matches a rule afterwards.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"` + classic + `"}`, `["Bearer abcdefghij",1,{"token":"x"}]`, `"\u0067hp_abcdefghij"`, `{"password":{"a":[1,"b"]}}`, `nul`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var before any
		if json.Unmarshal(raw, &before) != nil {
			return
		}
		out := JSON(raw)
		var after any
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("JSON(%s) = %s is not JSON: %v", raw, out, err)
		}
		walk(after, func(s string) {
			if Contains(s) {
				t.Fatalf("JSON(%s) = %s: string %q still matches", raw, out, s)
			}
		})
		if again := JSON(out); string(again) != string(out) {
			t.Fatalf("not idempotent: %s -> %s -> %s", raw, out, again)
		}
		// Value agrees with JSON on the decoded value.
		v, _ := json.Marshal(Value(before))
		var fromValue any
		_ = json.Unmarshal(v, &fromValue)
		a, _ := json.Marshal(after)
		b, _ := json.Marshal(fromValue)
		if string(a) != string(b) {
			t.Fatalf("JSON and Value disagree on %s:\n JSON  %s\n Value %s", raw, a, b)
		}
	})
}

// walk calls fn on every string of a decoded JSON value, keys included.
func walk(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case []any:
		for _, e := range x {
			walk(e, fn)
		}
	case map[string]any:
		for k, e := range x {
			fn(k)
			walk(e, fn)
		}
	}
}
