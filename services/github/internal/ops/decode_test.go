package ops

import (
	"encoding/json"
	"testing"
)

// contents tells a file from a directory as go-github's GetContents does.
func TestContentsUnmarshal(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantFile string // path of the file, "" for none
		wantDir  int    // entries of the directory
		wantErr  bool
	}{
		{name: "file", body: `{"type":"file","path":"README.md"}`, wantFile: "README.md"},
		{name: "directory", body: `[{"path":"a"},{"path":"b"}]`, wantDir: 2},
		{name: "directory after white space", body: " \n\t[{\"path\":\"a\"}]", wantDir: 1},
		{name: "empty directory", body: `[]`},
		{name: "null", body: `null`},
		{name: "neither", body: `"text"`, wantErr: true},
		{name: "broken", body: `[{"path":`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c contents
			err := json.Unmarshal([]byte(tt.body), &c)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if got := c.file.GetPath(); got != tt.wantFile {
				t.Errorf("file path = %q, want %q", got, tt.wantFile)
			}
			if len(c.dir) != tt.wantDir {
				t.Errorf("directory entries = %d, want %d", len(c.dir), tt.wantDir)
			}
		})
	}
}
