package loadgen

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// cpu returns the server's CPU time so far (user and system, every thread), read from Linux's
// /proc; ok is false where there is none.
func (s *stdioServer) cpu() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return parseProcStatCPU(string(b))
}

// userHZ is the unit of /proc's CPU times: fixed at 100 by the kernel's ABI on the architectures
// this runs on (and not readable without cgo's sysconf).
const userHZ = 100

// parseProcStatCPU reads utime and stime (fields 14 and 15) of a /proc/<pid>/stat line. The command
// name (field 2) is in parentheses and may itself hold spaces and parentheses, so the fields are
// counted from the last ')'.
func parseProcStatCPU(stat string) (time.Duration, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	k, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+k) * time.Second / userHZ, true
}
