// Package joblog reads GitHub Actions job logs, which can be tens of
// megabytes, into the small windows the CI tools answer with (issue 22:
// logs are cut, never dumped): the last lines, a range of lines, or the
// lines around the first error. It reads the log once as a stream and keeps
// only the window, so memory stays bounded whatever the log's size. Lines
// lose the runner's timestamp, which costs an agent's context and says
// nothing, and are cleaned by package textclean (the one sanitizer of
// text the service did not write: the answers' fields are marked
// CONTENT_LOG) before they are searched for errors and cut at MaxLineBytes,
// so that the caps count what the model will read. That removes every
// terminal control sequence (colours, cursor moves, OSC 8 hyperlinks,
// window titles, DCS and the other control strings), control characters
// (bells, backspaces, a carriage return, C1 controls and a raw 0x9B),
// invisible characters and bytes that are not UTF-8; the window counts what
// it removed from its lines (Removed, Cleaned) for the answer's report.
// Secrets are redacted later, with the rest of the answer (package
// contentclean). The download itself (Downloader) goes only to allowed
// log hosts, follows at most MaxRedirects redirects, and never carries a
// credential.
package joblog

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"ghops.dev/services/github/internal/textclean"
)

// The caps, as documented on the answers (ghopsv1.GetJobLogResponse,
// ghopsv1.LogExcerpt).
const (
	// MaxLines caps a window of get_job_log.
	MaxLines = 500
	// ExcerptLines caps the excerpt around the first error.
	ExcerptLines = 50
	// ExcerptBefore is how many lines before the first error the excerpt
	// shows, for the context of the failure (the test's name, the command).
	ExcerptBefore = 10
	// MaxLineBytes caps each line.
	MaxLineBytes = 1024
	// MaxLogBytes caps what is read of one log; past it the log counts as
	// ending there and the window says truncated.
	MaxLogBytes = 64 << 20
)

// Window is a run of consecutive lines of a log.
type Window struct {
	// Lines are the lines, numbered from FirstLine.
	Lines []string
	// FirstLine is the 1-based number of Lines[0]; 0 when Lines is empty.
	FirstLine int
	// TotalLines counts the log's lines (those read, when the log exceeded
	// MaxLogBytes).
	TotalLines int
	// ErrorLine is the number of the first error line (Excerpt only; 0 when
	// the log reports none).
	ErrorLine int
	// Truncated is true when Lines is not the whole log or a line was cut.
	Truncated bool
	// Removed counts what cleaning removed from Lines.
	Removed textclean.Removed
	// Cleaned are the indexes in Lines of the lines cleaning changed.
	Cleaned []int
}

// line is one cleaned line and what cleaning removed from it.
type line struct {
	text string
	rem  textclean.Removed
}

// setLines fills w's Lines, Removed and Cleaned from lines.
func (w *Window) setLines(lines []line) {
	w.Lines = make([]string, len(lines))
	for i, l := range lines {
		w.Lines[i] = l.text
		if l.rem.Any() {
			w.Removed.Add(l.rem)
			w.Cleaned = append(w.Cleaned, i)
		}
	}
}

// timestamp is the runner's prefix of every line, e.g.
// "2024-05-01T10:00:00.1234567Z ".
var timestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z `)

// errorMarkers are what starts the report of a failure in the logs of
// GitHub's runner and of common tools: the runner's error annotation, Go's
// test and build failures, panics, and compilers' and linters' "error:".
var errorMarkers = []string{"##[error]", "--- FAIL", "FAIL\t", "panic:", "error:", "Error:", "ERROR", "fatal:", "npm ERR!", "Traceback (most recent call last)"}

// IsError reports whether a cleaned line reports an error.
func IsError(line string) bool {
	for _, m := range errorMarkers {
		if strings.Contains(line, m) {
			return true
		}
	}
	return false
}

// ErrBadWindow is returned for a window that asks for no line.
var ErrBadWindow = errors.New("joblog: the window must hold at least one line")

// Tail returns the last n lines (at most MaxLines).
func Tail(r io.Reader, n int) (Window, error) {
	if n < 1 {
		return Window{}, ErrBadWindow
	}
	n = min(n, MaxLines)
	ring := make([]line, 0, n)
	w, err := scan(r, func(num int, l line) {
		if len(ring) < n {
			ring = append(ring, l)
		} else {
			copy(ring, ring[1:])
			ring[n-1] = l
		}
	})
	if err != nil {
		return Window{}, err
	}
	w.setLines(ring)
	if len(ring) > 0 {
		w.FirstLine = w.TotalLines - len(ring) + 1
	}
	w.Truncated = w.Truncated || len(ring) < w.TotalLines
	return w, nil
}

// Range returns at most max lines (at most MaxLines) from line start
// (1-based). A start past the end gives no lines and the total.
func Range(r io.Reader, start, max int) (Window, error) {
	if start < 1 || max < 1 {
		return Window{}, ErrBadWindow
	}
	max = min(max, MaxLines)
	var lines []line
	w, err := scan(r, func(num int, l line) {
		if num >= start && len(lines) < max {
			lines = append(lines, l)
		}
	})
	if err != nil {
		return Window{}, err
	}
	w.setLines(lines)
	if len(lines) > 0 {
		w.FirstLine = start
	}
	w.Truncated = w.Truncated || len(lines) < w.TotalLines
	return w, nil
}

// Excerpt returns the lines around the first error: ExcerptBefore lines
// before it and the lines after, ExcerptLines in all. Without an error it
// returns the last ExcerptLines lines, where a failure usually shows.
func Excerpt(r io.Reader) (Window, error) {
	var recent []line // the last ExcerptLines lines before the error
	var lines []line  // from the first error on
	errLine := 0
	w, err := scan(r, func(num int, l line) {
		switch {
		case errLine == 0 && IsError(l.text):
			errLine = num
			lines = append(lines, l)
		case errLine == 0:
			if len(recent) == ExcerptLines {
				copy(recent, recent[1:])
				recent[len(recent)-1] = l
			} else {
				recent = append(recent, l)
			}
		case len(lines) < ExcerptLines-min(len(recent), ExcerptBefore):
			lines = append(lines, l)
		}
	})
	if err != nil {
		return Window{}, err
	}
	if errLine == 0 {
		w.setLines(recent)
		if len(recent) > 0 {
			w.FirstLine = w.TotalLines - len(recent) + 1
		}
	} else {
		before := recent[len(recent)-min(len(recent), ExcerptBefore):]
		w.setLines(append(append([]line(nil), before...), lines...))
		w.FirstLine = errLine - len(before)
		w.ErrorLine = errLine
	}
	w.Truncated = w.Truncated || len(w.Lines) < w.TotalLines
	return w, nil
}

// scan reads the whole log line by line (the total is part of every
// answer), cleaning each, and calls keep with its number; it sets TotalLines and Truncated (a line cut or the log cut at
// MaxLogBytes).
func scan(r io.Reader, keep func(num int, l line)) (Window, error) {
	var w Window
	br := bufio.NewReaderSize(io.LimitReader(r, MaxLogBytes+1), 64<<10)
	read := 0
	for {
		l, cut, n, err := readLine(br)
		read += n
		if n > 0 {
			if read > MaxLogBytes {
				w.Truncated = true
				return w, nil
			}
			w.TotalLines++
			w.Truncated = w.Truncated || cut
			keep(w.TotalLines, l)
		}
		if err == io.EOF {
			return w, nil
		}
		if err != nil {
			return Window{}, err
		}
	}
}

// readLine reads one line of any length, keeping at most MaxLineBytes of
// it after cleaning; n is the bytes consumed (0 at the end).
func readLine(br *bufio.Reader) (l line, cut bool, n int, err error) {
	var b []byte
	for {
		chunk, isPrefix, rerr := br.ReadLine()
		n += len(chunk)
		if len(b) < 4*MaxLineBytes { // room for the timestamp and control sequences cleaned away
			b = append(b, chunk[:min(len(chunk), 4*MaxLineBytes-len(b))]...)
		}
		if len(chunk) > 0 && len(b) == 4*MaxLineBytes && isPrefix {
			cut = true
		}
		if rerr != nil {
			return clean(b, &cut), cut, n, rerr
		}
		if !isPrefix {
			n++ // the newline
			return clean(b, &cut), cut, n, nil
		}
	}
}

// clean removes the line's timestamp and what textclean removes (its
// output is valid UTF-8), then cuts it at MaxLineBytes.
func clean(b []byte, cut *bool) line {
	s := strings.TrimSuffix(string(b), "\r")
	s = timestamp.ReplaceAllLiteralString(s, "")
	s, rem := textclean.Clean(s)
	if len(s) > MaxLineBytes {
		end := MaxLineBytes
		for end > 0 && !utf8.RuneStart(s[end]) {
			end-- // never split a character
		}
		s = s[:end]
		*cut = true
	}
	return line{text: s, rem: rem}
}
