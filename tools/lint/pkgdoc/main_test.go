package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCheckTree(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // path under the root -> content
		want  []string          // substrings, one per expected finding, in order
	}{
		{
			name: "one doc comment",
			files: map[string]string{
				"a/a.go":      "// Package a does a.\npackage a\n",
				"a/b.go":      "package a\n",
				"a/a_test.go": "package a_test\n",
			},
		},
		{
			name:  "missing",
			files: map[string]string{"a/a.go": "package a\n", "a/b.go": "package a\n"},
			want:  []string{"a.go:1:1: package a has no package doc comment"},
		},
		{
			name: "repeated in two files",
			files: map[string]string{
				"a/a.go": "// Package a does a.\npackage a\n",
				"a/b.go": "// Package a does a too.\npackage a\n",
			},
			want: []string{"b.go:1:1: package a doc comment repeated"},
		},
		{
			name: "repeated in an in-package test file",
			files: map[string]string{
				"a/a.go":      "// Package a does a.\npackage a\n",
				"a/a_test.go": "// Package a is tested here.\npackage a\n",
			},
			want: []string{"a_test.go:1:1: package a doc comment repeated"},
		},
		{
			name: "external test package repeated",
			files: map[string]string{
				"a/a.go":      "// Package a does a.\npackage a\n",
				"a/x_test.go": "// Package a_test tests a.\npackage a_test\n",
				"a/y_test.go": "// Package a_test tests a again.\npackage a_test\n",
			},
			want: []string{"y_test.go:1:1: package a_test doc comment repeated"},
		},
		{
			name: "build directive and copyright are not doc comments",
			files: map[string]string{
				"a/a.go": "// Copyright line.\n\n//go:build linux\n\npackage a\n",
			},
			want: []string{"a.go:5:1: package a has no package doc comment"},
		},
		{
			name: "command named after its directory",
			files: map[string]string{
				"cmd/tool/main.go": "// Command tool does things.\npackage main\n",
			},
		},
		{
			name: "command with the wrong name",
			files: map[string]string{
				"cmd/tool/main.go": "// Tool does things.\npackage main\n",
			},
			want: []string{`main.go:1:1: command doc comment should start with "Command tool "`},
		},
		{
			name: "testdata, vendor and hidden directories are skipped",
			files: map[string]string{
				"a/a.go":             "// Package a does a.\npackage a\n",
				"a/testdata/x/x.go":  "package x\n",
				"vendor/v/v.go":      "package v\n",
				".hidden/h/h.go":     "package h\n",
				"_skipped/s/s.go":    "package s\n",
				"a/testdata/notgo.t": "package x\n",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, content := range tt.files {
				path := filepath.Join(root, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := checkTree(root)
			if err != nil {
				t.Fatalf("checkTree: %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("findings = %q, want %d matching %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("finding %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

func TestCheckTreeParseError(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "bad.go"), []byte("not go"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := checkTree(root); err == nil {
		t.Fatalf("checkTree(unparsable) = %q, nil; want an error", got)
	}
}

func TestRepoIsClean(t *testing.T) {
	// The lint tools' own module must pass its own check.
	got, err := checkTree(".")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, nil) {
		t.Errorf("findings in pkgdoc itself: %q", got)
	}
}
