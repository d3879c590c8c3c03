package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	vcs := &debug.BuildInfo{GoVersion: "go1.99.1", Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-11-01T10:00:00Z"},
		{Key: "vcs.modified", Value: "false"},
	}}
	dirty := &debug.BuildInfo{GoVersion: "go1.99.1", Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"},
	}}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  Info
	}{
		{"nothing recorded", "", "", "", nil,
			Info{Version: "dev", Commit: Unknown, Date: Unknown, GoVersion: runtime.Version(), Platform: platform}},
		{"toolchain's vcs record", "", "", "", vcs,
			Info{Version: "dev", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-11-01T10:00:00Z", GoVersion: "go1.99.1", Platform: platform}},
		{"a modified tree", "", "", "", dirty,
			Info{Version: "dev", Commit: "abc-dirty", Date: Unknown, GoVersion: "go1.99.1", Platform: platform}},
		{"stamps win over the vcs record", "v1.2.3", "fedcba", "2026-11-24T18:00:00Z", vcs,
			Info{Version: "v1.2.3", Commit: "fedcba", Date: "2026-11-24T18:00:00Z", GoVersion: "go1.99.1", Platform: platform}},
		{"only the version stamped (go build -ldflags -X ...version)", "v2", "", "", vcs,
			Info{Version: "v2", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-11-01T10:00:00Z", GoVersion: "go1.99.1", Platform: platform}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolve(tc.version, tc.commit, tc.date, tc.bi); got != tc.want {
				t.Fatalf("resolve = %+v\nwant      %+v", got, tc.want)
			}
		})
	}
}

func TestString(t *testing.T) {
	i := Info{Version: "v1.2.3", Commit: "fedcba", Date: "2026-11-24T18:00:00Z", GoVersion: "go1.26.7", Platform: "linux/amd64"}
	if got, want := i.String(), "v1.2.3 (commit fedcba, built 2026-11-24T18:00:00Z, go1.26.7 linux/amd64)"; got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	if got := Line("ghops-gateway"); !strings.HasPrefix(got, "ghops-gateway dev (commit ") || !strings.Contains(got, runtime.Version()) {
		t.Fatalf("Line = %q", got)
	}
}
