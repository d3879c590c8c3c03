package joblog

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// MaxRedirects is how many redirects a log download follows in all,
// GitHub's own answer to the log request (a 302 to the signed URL)
// included: GitHub's log storage takes one further hop at most
// (pipelines → blob storage), and a longer chain is refused.
const MaxRedirects = 2

// ErrRefused is a download URL the allowlist refuses: a host not in it, a
// scheme other than https (http only towards a host allowed with
// "http://", a test's or a lab's loopback server), or one redirect too
// many. The error is a *RefusedError.
var ErrRefused = errors.New("joblog: download refused")

// RefusedError says which host a download was refused at and why; it
// names the host, never the URL, whose query is a signature.
type RefusedError struct {
	// Host is the refused URL's host (and port).
	Host string
	// Why is "not an allowed log host" or "too many redirects".
	Why string
}

func (e *RefusedError) Error() string {
	return "joblog: download from " + e.Host + " refused: " + e.Why
}

// Is makes errors.Is(err, ErrRefused) hold.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Hosts is the allowlist of download hosts. Each pattern is a host name
// ("results-receiver.actions.githubusercontent.com"), a wildcard
// for any subdomain ("*.actions.githubusercontent.com"), or a glob in
// the first label ("productionresultssa*.blob.core.windows.net"); with a
// port ("127.0.0.1:8080") it matches that port only, otherwise any. A
// pattern prefixed "http://" allows plain http to that host; every other
// download must be https. Matching ignores case.
type Hosts struct {
	patterns []hostPattern
}

type hostPattern struct {
	host, port string // port "" matches any
	plainHTTP  bool
}

// ParseHosts reads a list of patterns (see Hosts); blanks are ignored.
func ParseHosts(list []string) (Hosts, error) {
	var h Hosts
	for _, p := range list {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == "" {
			continue
		}
		var hp hostPattern
		if rest, ok := strings.CutPrefix(p, "http://"); ok {
			hp.plainHTTP, p = true, rest
		} else {
			p = strings.TrimPrefix(p, "https://")
		}
		hp.host = p
		if host, port, err := net.SplitHostPort(p); err == nil {
			hp.host, hp.port = host, port
		}
		label, rest, _ := strings.Cut(hp.host, ".")
		if label == "" || strings.ContainsAny(hp.host, "/?#@ \\") || strings.ContainsAny(rest, "*?[") ||
			(rest == "" && strings.ContainsAny(label, "*?[")) {
			// A wildcard stands in the first label only, before a fixed domain.
			return Hosts{}, fmt.Errorf("joblog: %q is not a host pattern", p)
		}
		if _, err := path.Match(label, ""); err != nil {
			return Hosts{}, fmt.Errorf("joblog: %q is not a host pattern: %w", p, err)
		}
		h.patterns = append(h.patterns, hp)
	}
	return h, nil
}

// Allowed reports whether u may be downloaded from.
func (h Hosts) Allowed(u *url.URL) bool {
	if u == nil || u.User != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	for _, p := range h.patterns {
		if p.port != "" && p.port != port || u.Scheme == "http" && !p.plainHTTP {
			continue
		}
		if p.matches(host) {
			return true
		}
	}
	return false
}

// matches reports whether host (lower case, no port) matches p.
func (p hostPattern) matches(host string) bool {
	if rest, ok := strings.CutPrefix(p.host, "*."); ok {
		return strings.HasSuffix(host, "."+rest) && len(host) > len(rest)+1
	}
	plabel, prest, _ := strings.Cut(p.host, ".")
	hlabel, hrest, _ := strings.Cut(host, ".")
	ok, err := path.Match(plabel, hlabel)
	return err == nil && ok && prest == hrest
}

// Downloader fetches logs from the URLs GitHub gives, with none of the
// API's credentials (a plain client: no Authorization header is ever set,
// and none is carried across a redirect), following at most
// MaxRedirects-1 redirects of its own and only to allowed hosts.
type Downloader struct {
	client *http.Client
	hosts  Hosts
}

// NewDownloader returns a Downloader over hosts whose downloads each take
// at most timeout.
func NewDownloader(hosts Hosts, timeout time.Duration) *Downloader {
	d := &Downloader{hosts: hosts}
	d.client = &http.Client{Timeout: timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		// via holds the requests sent so far; GitHub's own redirect led
		// to the first of them.
		if len(via)+1 > MaxRedirects {
			return &RefusedError{Host: req.URL.Host, Why: fmt.Sprintf("more than %d redirects", MaxRedirects)}
		}
		if !hosts.Allowed(req.URL) {
			return &RefusedError{Host: req.URL.Host, Why: "not an allowed log host"}
		}
		req.Header.Del("Authorization")
		req.Header.Del("Cookie")
		return nil
	}}
	return d
}

// Get sends req for the URL of GitHub's redirect (which counts as the
// first of MaxRedirects), refused with a *RefusedError before any request
// when its host is not allowed. Errors never hold the URL. The caller
// closes the body.
func (d *Downloader) Get(req *http.Request) (*http.Response, error) {
	if !d.hosts.Allowed(req.URL) {
		return nil, &RefusedError{Host: req.URL.Host, Why: "not an allowed log host"}
	}
	req.Header.Del("Authorization")
	req.Header.Del("Cookie")
	resp, err := d.client.Do(req)
	var ue *url.Error
	if errors.As(err, &ue) {
		// Its text holds the URL, whose query is a signature: keep the cause only.
		err = ue.Err
	}
	return resp, err
}
