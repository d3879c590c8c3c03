package config

import (
	"flag"
	"fmt"
	"strconv"
)

// limitFlags are the flags that bound one call's cost (issue 19,
// docs/security.md), parsed as text and applied after flag.Parse.
type limitFlags struct {
	requests, patchFiles, patchBytes, share string
}

func (f *limitFlags) register(fs *flag.FlagSet, env func(k, def string) string) {
	fs.StringVar(&f.requests, "max-requests-per-call", env("GHOPS_MAX_REQUESTS_PER_CALL", strconv.Itoa(DefaultMaxRequestsPerCall)),
		"GitHub requests one call may send; the one past it is not sent and the call fails with -32602 naming the limit; -1 for no cap (env GHOPS_MAX_REQUESTS_PER_CALL)")
	fs.StringVar(&f.patchFiles, "max-patch-files", env("GHOPS_MAX_PATCH_FILES", strconv.Itoa(DefaultMaxPatchFiles)),
		"files one apply_patch may change; a larger patch is refused with -32602 before any GitHub request (env GHOPS_MAX_PATCH_FILES)")
	fs.StringVar(&f.patchBytes, "max-patch-bytes", env("GHOPS_MAX_PATCH_BYTES", strconv.Itoa(DefaultMaxPatchBytes)),
		"bytes of one apply_patch patch; a larger patch is refused with -32602 before any GitHub request (env GHOPS_MAX_PATCH_BYTES)")
	fs.StringVar(&f.share, "principal-share", env("GHOPS_PRINCIPAL_SHARE", strconv.Itoa(DefaultPrincipalShare)),
		"percent of the token's GitHub budget (per resource and window) one principal may spend; 100 for no cap (env GHOPS_PRINCIPAL_SHARE)")
}

// apply parses the values into c, returning every error.
func (f *limitFlags) apply(c *Config) []error {
	var errs []error
	num := func(name, v string, lo, hi int, allowOff bool) int {
		n, err := strconv.Atoi(v)
		if err == nil && allowOff && n == -1 {
			return n
		}
		if err != nil || n < lo || n > hi {
			want := fmt.Sprintf("a whole number from %d to %d", lo, hi)
			if allowOff {
				want += " or -1"
			}
			errs = append(errs, fmt.Errorf("config: -%s: %q is not %s", name, v, want))
		}
		return n
	}
	c.MaxRequestsPerCall = num("max-requests-per-call", f.requests, 1, 1<<20, true)
	c.MaxPatchFiles = num("max-patch-files", f.patchFiles, 1, 1<<20, false)
	c.MaxPatchBytes = num("max-patch-bytes", f.patchBytes, 1, 1<<30, false)
	c.PrincipalShare = num("principal-share", f.share, 1, 100, false)
	return errs
}
