package goldentest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// Fatal and Fatalf record and stop the goroutine, as testing's do.
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	panic(r)
}

func (r *recorder) Fatal(args ...any) {
	r.fatals = append(r.fatals, fmt.Sprint(args...))
	panic(r)
}

// run calls f with a recorder and returns it once f returned or failed fatally.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil && v != r {
				panic(v)
			}
		}()
		f(r)
	}()
	return r
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name                string
		file                string
		got                 string
		wantErrs, wantFatal int
	}{
		{name: "equal", file: "hello.golden", got: "hello golden\n"},
		{name: "differs", file: "hello.golden", got: "hello world\n", wantErrs: 1},
		{name: "missing file", file: "nope.golden", got: "x", wantFatal: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, func(tb testing.TB) { Compare(tb, tc.file, []byte(tc.got)) })
			if len(r.errors) != tc.wantErrs || len(r.fatals) != tc.wantFatal {
				t.Errorf("errors %q fatals %q", r.errors, r.fatals)
			}
		})
	}
}

func TestRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "new.golden")
	r := run(t, func(tb testing.TB) { compare(tb, path, []byte("fresh\n"), true) })
	if len(r.errors)+len(r.fatals) != 0 {
		t.Fatalf("errors %q fatals %q", r.errors, r.fatals)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "fresh\n" {
		t.Fatalf("rewrote %q, %v", b, err)
	}
	r = run(t, func(tb testing.TB) { compare(tb, path, []byte("fresh\n"), false) })
	if len(r.errors)+len(r.fatals) != 0 {
		t.Errorf("after rewrite: errors %q fatals %q", r.errors, r.fatals)
	}
}
