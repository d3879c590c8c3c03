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

// The queries are go-github's: empty values left out, pages always named.
func TestQueries(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "ref", got: query("ref", "main").Encode(), want: "ref=main"},
		{name: "no ref", got: query("ref", "").Encode(), want: ""},
		{name: "list page", got: listQuery(2, 50).Encode(), want: "page=2&per_page=50"},
		{name: "list page with state", got: listQuery(1, 30, "state", "closed").Encode(), want: "page=1&per_page=30&state=closed"},
		{name: "list page without state", got: listQuery(1, 30, "state", "").Encode(), want: "page=1&per_page=30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("query = %q, want %q", tt.got, tt.want)
			}
		})
	}
}
