// Package goldentest compares what a test produced with a golden file under the
// test package's testdata directory, and rewrites the file instead when the
// test binary runs with -update (go test ./... -update). Import it from tests
// only: importing it registers the -update flag.
package goldentest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is the -update flag.
var update = flag.Bool("update", false, "rewrite golden files")

// Compare reports a test error when got differs from testdata/name, and fails
// the test when that file cannot be read. Under -update it writes got to
// testdata/name (creating directories) and compares nothing.
func Compare(t testing.TB, name string, got []byte) {
	t.Helper()
	compare(t, filepath.Join("testdata", name), got, *update)
}

// compare is Compare on path, with rewrite in place of the flag.
func compare(t testing.TB, path string, got []byte, rewrite bool) {
	t.Helper()
	if rewrite {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test -update)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("golden %s differs\n got: %s\nwant: %s", path, got, want)
	}
}
