// Package retryafter reads an HTTP Retry-After header (RFC 9110, section
// 10.2.3): the client reads the gateway's, the service GitHub's. Each used
// to parse it its own way (one took only seconds, one capped the wait and
// read HTTP dates too).
package retryafter

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Max caps a wait read from a header: a longer one is a broken or hostile
// answer, and no call waits a day.
const Max = 24 * time.Hour

// Parse reads a Retry-After value, delay seconds or an HTTP date, relative
// to now. ok is false when v is empty or neither form; a zero or past wait
// is ok with d 0 (retry now). d is at most Max.
func Parse(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		n = min(n, int64(Max/time.Second))
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if !t.After(now) {
		return 0, true
	}
	return min(t.Sub(now).Round(time.Second), Max), true
}
