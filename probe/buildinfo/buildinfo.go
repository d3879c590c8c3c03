// Package buildinfo says which build a ghops binary is, for -version and the
// start-up log line: the version, the commit, the build date and the Go
// toolchain. Every binary prints the same shape from here, so an operator
// can compare any two.
//
// The version, commit and date are stamped at link time (make build and the
// Dockerfile pass them):
//
//	-X ghops.dev/probe/buildinfo.version=v1.2.3
//	-X ghops.dev/probe/buildinfo.commit=<full sha>
//	-X ghops.dev/probe/buildinfo.date=2026-11-24T18:00:00Z
//
// A plain `go build` stamps nothing; where the Go toolchain recorded the
// commit and its time in the binary (vcs.revision, vcs.time: a build inside
// a plain git checkout), Read falls back to them, else it says "unknown".
// The image is built without .git (-buildvcs=false), hence the stamps. It lives in the probe module
// because that is the one module every binary already depends on.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Stamped at link time with -X (see the package comment); empty when not.
var (
	version string
	commit  string
	date    string
)

// Unknown stands for what neither the stamps nor the toolchain recorded.
const Unknown = "unknown"

// Info is one binary's build.
type Info struct {
	// Version is the release (git describe), "dev" when not stamped.
	Version string
	// Commit is the source commit (full sha), with "-dirty" when the tree
	// had uncommitted changes.
	Commit string
	// Date is when the binary was built (RFC 3339, UTC), or the commit's
	// time when only the toolchain's record is there.
	Date string
	// GoVersion is the toolchain that built it (go1.26.7).
	GoVersion string
	// Platform is GOOS/GOARCH.
	Platform string
}

// Read returns this binary's build.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(version, commit, date, bi)
}

// Version returns this binary's version ("dev" when not stamped): the value
// of serverInfo.version and of validate_environment's version checks.
func Version() string { return Read().Version }

// resolve prefers the link-time stamps and falls back to the toolchain's
// vcs settings of bi (nil when the binary has none).
func resolve(version, commit, date string, bi *debug.BuildInfo) Info {
	i := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		if bi.GoVersion != "" {
			i.GoVersion = bi.GoVersion
		}
		var rev, at string
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if i.Commit == "" && rev != "" {
			i.Commit = rev
			if modified {
				i.Commit += "-dirty"
			}
		}
		if i.Date == "" {
			i.Date = at
		}
	}
	if i.Version == "" {
		i.Version = "dev"
	}
	if i.Commit == "" {
		i.Commit = Unknown
	}
	if i.Date == "" {
		i.Date = Unknown
	}
	return i
}

// String renders i on one line, after the binary's name:
//
//	v1.2.3 (commit 0123abcd..., built 2026-11-24T18:00:00Z, go1.26.7 linux/amd64)
func (i Info) String() string {
	return fmt.Sprintf("%s (commit %s, built %s, %s %s)", i.Version, i.Commit, i.Date, i.GoVersion, i.Platform)
}

// Line is what -version prints: the binary's name and its build.
func Line(binary string) string { return binary + " " + Read().String() }
