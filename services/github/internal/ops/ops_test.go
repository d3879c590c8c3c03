package ops

import (
	"encoding/base64"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

func TestCapContent(t *testing.T) {
	tests := []struct {
		name              string
		data              string
		size, limit       int
		content, encoding string
		truncated, binary bool
	}{
		{name: "small text", data: "hello", size: 5, limit: 10, content: "hello", encoding: "utf8"},
		{name: "text cut at limit", data: "hello world", size: 11, limit: 5, content: "hello", encoding: "utf8", truncated: true},
		{name: "cut never splits a rune", data: "aé", size: 3, limit: 2, content: "a", encoding: "utf8", truncated: true},
		{name: "prefix of larger file", data: "abc", size: 100, limit: 10, content: "abc", encoding: "utf8", truncated: true},
		{name: "binary with NUL", data: "a\x00b", size: 3, limit: 10, content: base64.StdEncoding.EncodeToString([]byte("a\x00b")), encoding: "base64", binary: true},
		{name: "invalid utf8", data: "\xff\xfe", size: 2, limit: 10, content: "//4=", encoding: "base64", binary: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, enc, tr, bin := capContent([]byte(tt.data), tt.size, tt.limit)
			if c != tt.content || enc != tt.encoding || tr != tt.truncated || bin != tt.binary {
				t.Errorf("got (%q,%s,%v,%v), want (%q,%s,%v,%v)", c, enc, tr, bin, tt.content, tt.encoding, tt.truncated, tt.binary)
			}
		})
	}
}

func FuzzCapContent(f *testing.F) {
	f.Add([]byte("hello"), 3)
	f.Add([]byte("h\xc3\xa9llo"), 2)
	f.Add([]byte{0, 1, 2}, 1)
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		if limit <= 0 || limit > 1<<20 {
			return
		}
		c, enc, _, _ := capContent(data, len(data), limit)
		switch enc {
		case "utf8":
			if len(c) > limit || !strings.HasPrefix(string(data), c) {
				t.Errorf("bad text cut %q of %q", c, data)
			}
		case "base64":
			raw, err := base64.StdEncoding.DecodeString(c)
			if err != nil || len(raw) > limit || !strings.HasPrefix(string(data), string(raw)) {
				t.Errorf("bad base64 %q of %q", c, data)
			}
		default:
			t.Errorf("encoding %q", enc)
		}
	})
}

func TestSummarize(t *testing.T) {
	chk := func(results ...string) []*ghopsv1.Check {
		var cs []*ghopsv1.Check
		for _, r := range results {
			cs = append(cs, &ghopsv1.Check{Result: r})
		}
		return cs
	}
	tests := []struct {
		name    string
		checks  []*ghopsv1.Check
		verdict string
	}{
		{name: "none", verdict: "none"},
		{name: "all pass", checks: chk("success", "success"), verdict: "success"},
		{name: "one pending", checks: chk("success", "pending"), verdict: "pending"},
		{name: "failure wins", checks: chk("pending", "failure", "success"), verdict: "failure"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Summarize(tt.checks); got.Verdict != tt.verdict || got.Total != int32(len(tt.checks)) || got.Passed+got.Failed+got.Pending != got.Total {
				t.Errorf("got %v, want verdict %s", got, tt.verdict)
			}
		})
	}
}

func TestResults(t *testing.T) {
	tests := []struct{ name, status, conclusion, want string }{
		{name: "queued", status: "queued", want: "pending"},
		{name: "in progress", status: "in_progress", want: "pending"},
		{name: "skipped", status: "completed", conclusion: "skipped", want: "success"},
		{name: "timed out", status: "completed", conclusion: "timed_out", want: "failure"},
		{name: "cancelled", status: "completed", conclusion: "cancelled", want: "failure"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runResult(tt.status, tt.conclusion); got != tt.want {
				t.Errorf("runResult = %s, want %s", got, tt.want)
			}
		})
	}
	if statusResult("error") != "failure" || statusResult("pending") != "pending" || statusResult("success") != "success" {
		t.Error("statusResult mapping")
	}
}
