package joblog_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"ghops.dev/services/github/internal/joblog"
)

// numbered is a log of n lines "line 1".."line n", with the runner's
// timestamps; errAt (1-based, 0 for none) makes that line an error.
func numbered(n, errAt int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "2024-05-01T10:00:00.1234567Z line %d", i)
		if i == errAt {
			b.WriteString(" --- FAIL: TestX")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestTail(t *testing.T) {
	tests := []struct {
		name      string
		log       string
		n         int
		first     int
		lines     int
		total     int
		truncated bool
	}{
		{name: "last 3 of 10", log: numbered(10, 0), n: 3, first: 8, lines: 3, total: 10, truncated: true},
		{name: "more than the log", log: numbered(4, 0), n: 10, first: 1, lines: 4, total: 4},
		{name: "capped at MaxLines", log: numbered(600, 0), n: 1000, first: 101, lines: 500, total: 600, truncated: true},
		{name: "empty log", log: "", n: 5, first: 0, lines: 0, total: 0},
		{name: "no final newline", log: "a\nb", n: 1, first: 2, lines: 1, total: 2, truncated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := joblog.Tail(strings.NewReader(tt.log), tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if w.FirstLine != tt.first || len(w.Lines) != tt.lines || w.TotalLines != tt.total || w.Truncated != tt.truncated {
				t.Errorf("got first %d, %d lines, total %d, truncated %v", w.FirstLine, len(w.Lines), w.TotalLines, w.Truncated)
			}
			if tt.lines > 0 && strings.HasPrefix(tt.log, "2024") && w.Lines[0] != fmt.Sprintf("line %d", tt.first) {
				t.Errorf("first line %q, want the timestamp removed from line %d", w.Lines[0], tt.first)
			}
		})
	}
}

func TestRange(t *testing.T) {
	tests := []struct {
		name          string
		start, max    int
		first, lines  int
		truncated     bool
		wantFirstText string
	}{
		{name: "middle", start: 5, max: 3, first: 5, lines: 3, truncated: true, wantFirstText: "line 5"},
		{name: "to the end", start: 9, max: 10, first: 9, lines: 2, truncated: true, wantFirstText: "line 9"},
		{name: "whole", start: 1, max: 10, first: 1, lines: 10, wantFirstText: "line 1"},
		{name: "past the end", start: 20, max: 5, first: 0, lines: 0, truncated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := joblog.Range(strings.NewReader(numbered(10, 0)), tt.start, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if w.FirstLine != tt.first || len(w.Lines) != tt.lines || w.TotalLines != 10 || w.Truncated != tt.truncated {
				t.Errorf("got first %d, %d lines, total %d, truncated %v", w.FirstLine, len(w.Lines), w.TotalLines, w.Truncated)
			}
			if tt.lines > 0 && w.Lines[0] != tt.wantFirstText {
				t.Errorf("first line %q, want %q", w.Lines[0], tt.wantFirstText)
			}
		})
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		name             string
		log              string
		first, errorLine int
		lines            int
	}{
		{name: "error in the middle", log: numbered(200, 100), first: 90, errorLine: 100, lines: 50},
		{name: "error near the start", log: numbered(200, 3), first: 1, errorLine: 3, lines: 50},
		{name: "error near the end", log: numbered(105, 100), first: 90, errorLine: 100, lines: 16},
		{name: "no error: the tail", log: numbered(80, 0), first: 31, errorLine: 0, lines: 50},
		{name: "short log without error", log: numbered(5, 0), first: 1, errorLine: 0, lines: 5},
		{name: "only the first error counts", log: numbered(30, 5) + "2024-05-01T10:00:00.1234567Z ##[error]exit 1\n", first: 1, errorLine: 5, lines: 31},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := joblog.Excerpt(strings.NewReader(tt.log))
			if err != nil {
				t.Fatal(err)
			}
			if w.FirstLine != tt.first || w.ErrorLine != tt.errorLine || len(w.Lines) != tt.lines {
				t.Fatalf("got first %d, error %d, %d lines", w.FirstLine, w.ErrorLine, len(w.Lines))
			}
			if tt.errorLine > 0 && !joblog.IsError(w.Lines[tt.errorLine-tt.first]) {
				t.Errorf("line %d is %q, want the error", tt.errorLine, w.Lines[tt.errorLine-tt.first])
			}
		})
	}
}

func TestLineCleaning(t *testing.T) {
	long := strings.Repeat("é", joblog.MaxLineBytes) // 2 bytes each
	tests := []struct {
		name     string
		log      string
		want     string
		cut      bool
		controls int
	}{
		{name: "timestamp and colours removed", log: "2024-05-01T10:00:00.1234567Z \x1b[31mFAIL\x1b[0m x\r\n", want: "FAIL x", controls: 2},
		{name: "timestamp only at the start", log: "see 2024-05-01T10:00:00Z here\n", want: "see 2024-05-01T10:00:00Z here"},
		{name: "long line cut on a character boundary", log: long + "\n", want: long[:joblog.MaxLineBytes], cut: true},
		{name: "invalid UTF-8 removed", log: "a\xffb\n", want: "ab", controls: 1},
		{name: "OSC 8 hyperlink", log: "\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\\n", want: "docs", controls: 2},
		{name: "window title", log: "\x1b]0;owned\x07build\n", want: "build", controls: 1},
		{name: "DCS", log: "\x1bP+q544e\x1b\\ok\n", want: "ok", controls: 1},
		{name: "raw C1 CSI", log: "\x9b2Jcleared\n", want: "cleared", controls: 1},
		{name: "bell and backspace", log: "ding\x07 pass\x08\x08\x08\x08FAIL\n", want: "ding passFAIL", controls: 5},
		{name: "lone carriage return", log: "10%\r100%\r\n", want: "10%100%", controls: 1},
		{name: "cleaned before the cap", log: strings.Repeat("\x1b[0m", 300) + "tail\n", want: "tail", controls: 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := joblog.Tail(strings.NewReader(tt.log), 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Lines) != 1 || w.Lines[0] != tt.want || w.Truncated != tt.cut {
				t.Errorf("got %q truncated %v, want %q truncated %v", w.Lines, w.Truncated, tt.want, tt.cut)
			}
			if w.Removed.Controls != tt.controls || (tt.controls > 0) != (len(w.Cleaned) == 1) {
				t.Errorf("removed %+v, cleaned %v; want %d controls", w.Removed, w.Cleaned, tt.controls)
			}
		})
	}
}

func TestBadWindow(t *testing.T) {
	tests := []struct {
		name string
		call func() error
	}{
		{name: "tail 0", call: func() error { _, err := joblog.Tail(strings.NewReader("x"), 0); return err }},
		{name: "range start 0", call: func() error { _, err := joblog.Range(strings.NewReader("x"), 0, 1); return err }},
		{name: "range max 0", call: func() error { _, err := joblog.Range(strings.NewReader("x"), 1, 0); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err != joblog.ErrBadWindow {
				t.Errorf("err = %v, want ErrBadWindow", err)
			}
		})
	}
}

// FuzzWindows feeds arbitrary logs to every reader: no panic, windows
// within their caps, numbering consistent, every line valid UTF-8 and
// within MaxLineBytes, the excerpt's error line an error.
func FuzzWindows(f *testing.F) {
	f.Add(numbered(60, 30), 7, 3)
	f.Add("\n\n\r\n", 1, 1)
	f.Add("2024-05-01T10:00:00.1234567Z \x1b[1m##[error]x\xff\n", 2, 500)
	f.Add(strings.Repeat("x", 5000), 1, 1)
	f.Add("\x1b]8;;http://x\x1b\\l\n\x9b31m\x07\x08\n\x1bPq\n", 1, 2)
	f.Fuzz(func(t *testing.T, log string, start, n int) {
		start, n = 1+abs(start)%1000, 1+abs(n)%1000
		check := func(what string, w joblog.Window, err error, limit int) {
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if len(w.Lines) > limit || (len(w.Lines) > 0 && (w.FirstLine < 1 || w.FirstLine+len(w.Lines)-1 > w.TotalLines)) {
				t.Fatalf("%s: first %d, %d lines of %d", what, w.FirstLine, len(w.Lines), w.TotalLines)
			}
			for _, l := range w.Lines {
				if len(l) > joblog.MaxLineBytes || !utf8.ValidString(l) || strings.ContainsAny(l, "\x1b\x07\x08\r\u009b") {
					t.Fatalf("%s: bad line %q", what, l)
				}
			}
			for _, i := range w.Cleaned {
				if i < 0 || i >= len(w.Lines) {
					t.Fatalf("%s: cleaned index %d of %d lines", what, i, len(w.Lines))
				}
			}
		}
		w, err := joblog.Tail(strings.NewReader(log), n)
		check("tail", w, err, joblog.MaxLines)
		w, err = joblog.Range(strings.NewReader(log), start, n)
		check("range", w, err, joblog.MaxLines)
		w, err = joblog.Excerpt(strings.NewReader(log))
		check("excerpt", w, err, joblog.ExcerptLines)
		if w.ErrorLine != 0 && (w.ErrorLine < w.FirstLine || !joblog.IsError(w.Lines[w.ErrorLine-w.FirstLine])) {
			t.Fatalf("excerpt error line %d outside or not an error", w.ErrorLine)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}
