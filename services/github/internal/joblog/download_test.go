package joblog_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"ghops.dev/services/github/internal/joblog"
)

func TestHostsAllowed(t *testing.T) {
	hosts, err := joblog.ParseHosts([]string{"*.actions.githubusercontent.com", "productionresultssa*.blob.core.windows.net",
		"GHE.example.com", "http://127.0.0.1:8080", " ", "https://api.github.com"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, url string
		want      bool
	}{
		{"subdomain of a wildcard", "https://pipelines.actions.githubusercontent.com/x/logs?sig=1", true},
		{"deeper subdomain", "https://a.b.actions.githubusercontent.com/x", true},
		{"the wildcard's own domain", "https://actions.githubusercontent.com/x", false},
		{"a look-alike suffix", "https://evilactions.githubusercontent.com/x", false},
		{"a look-alike domain", "https://x.actions.githubusercontent.com.evil.example/x", false},
		{"first-label glob", "https://productionresultssa12.blob.core.windows.net/actions-results/x?sv=1&sig=2", true},
		{"another storage account", "https://attacker.blob.core.windows.net/x", false},
		{"exact host, any case", "https://ghe.EXAMPLE.com/_logs/x", true},
		{"exact host with a port", "https://ghe.example.com:8443/x", true},
		{"plain http where allowed", "http://127.0.0.1:8080/x", true},
		{"another port", "http://127.0.0.1:8081/x", false},
		{"plain http elsewhere", "http://pipelines.actions.githubusercontent.com/x", false},
		{"https to an http pattern", "https://127.0.0.1:8080/x", true},
		{"user information", "https://u:p@ghe.example.com/x", false},
		{"another scheme", "ftp://ghe.example.com/x", false},
		{"api.github.com", "https://api.github.com/repos/o/r", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if got := hosts.Allowed(u); got != tt.want {
				t.Errorf("Allowed(%s) = %v, want %v", tt.url, got, tt.want)
			}
		})
	}
}

func TestParseHostsRefuses(t *testing.T) {
	for _, p := range []string{"*", "a.*.example.com", "example.*", "host/path", "u@host", "[.example.com", "a b.example.com"} {
		t.Run(p, func(t *testing.T) {
			if _, err := joblog.ParseHosts([]string{p}); err == nil {
				t.Errorf("ParseHosts(%q) accepted it", p)
			}
		})
	}
	if h, err := joblog.ParseHosts(nil); err != nil || h.Allowed(&url.URL{Scheme: "https", Host: "x.example"}) {
		t.Errorf("an empty list allows something (%v)", err)
	}
}

// logHost is a loopback server that records what reached it.
type logHost struct {
	srv   *httptest.Server
	mu    sync.Mutex
	hits  int
	auths []string
}

func newLogHost(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) *logHost {
	t.Helper()
	l := &logHost{}
	l.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.hits++
		l.auths = append(l.auths, r.Header.Get("Authorization")+r.Header.Get("Cookie"))
		l.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(l.srv.Close)
	return l
}

func (l *logHost) stats() (int, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hits, append([]string(nil), l.auths...)
}

func redirectTo(target func() string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target()+"/next?sig=SECRETSIG", http.StatusFound)
	}
}

func serveLog(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "line 1\nline 2\n") }

// TestDownloadRedirects runs the download against loopback servers: one
// further redirect to an allowed host is followed without credentials;
// a third redirect in all, a redirect to a host outside the list, and a
// first URL outside it are refused with ErrRefused, with nothing fetched
// from the refused host, and the error names its host, not the URL.
func TestDownloadRedirects(t *testing.T) {
	final := newLogHost(t, serveLog)
	outside := newLogHost(t, serveLog)
	var third *logHost
	second := newLogHost(t, redirectTo(func() string { return third.srv.URL }))
	third = newLogHost(t, redirectTo(func() string { return final.srv.URL }))
	toFinal := newLogHost(t, redirectTo(func() string { return final.srv.URL }))
	toOutside := newLogHost(t, redirectTo(func() string { return outside.srv.URL }))
	allowed := []string{}
	for _, l := range []*logHost{final, second, third, toFinal, toOutside} {
		allowed = append(allowed, "http://"+l.srv.Listener.Addr().String())
	}
	hosts, err := joblog.ParseHosts(allowed)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		first      *logHost
		wantErr    bool
		wantFinal  int // requests that reached final
		notReached *logHost
	}{
		{name: "served at the first URL", first: final, wantFinal: 1},
		{name: "one redirect more, to an allowed host", first: toFinal, wantFinal: 1},
		{name: "a chain of three redirects", first: second, wantErr: true, wantFinal: 0},
		{name: "a redirect outside the list", first: toOutside, wantErr: true, notReached: outside},
		{name: "a first URL outside the list", first: outside, wantErr: true, notReached: outside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := final.stats()
			d := joblog.NewDownloader(hosts, 5*time.Second)
			req, err := http.NewRequest(http.MethodGet, tt.first.srv.URL+"/log?sig=SECRETSIG", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "token ghp_mustnotleave")
			resp, err := d.Get(req)
			if resp != nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !tt.wantErr && string(b) != "line 1\nline 2\n" {
					t.Errorf("body %q", b)
				}
			}
			if tt.wantErr != (err != nil) || (err != nil && !errors.Is(err, joblog.ErrRefused)) {
				t.Fatalf("err = %v, want refused: %v", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "SECRETSIG") {
				t.Errorf("the error holds the URL's query: %v", err)
			}
			var re *joblog.RefusedError
			if tt.wantErr && (!errors.As(err, &re) || strings.ContainsAny(re.Host, "/?") || !strings.HasPrefix(re.Host, "127.0.0.1:")) {
				t.Errorf("refusal %#v does not name the host alone", re)
			}
			after, _ := final.stats()
			if after-before != tt.wantFinal {
				t.Errorf("%d requests reached the final host, want %d", after-before, tt.wantFinal)
			}
			if tt.notReached != nil {
				if n, _ := tt.notReached.stats(); n != 0 {
					t.Errorf("the refused host got %d requests", n)
				}
			}
			for _, l := range []*logHost{final, second, third, toFinal, toOutside, outside} {
				if _, a := l.stats(); strings.Join(a, "") != "" {
					t.Errorf("credentials reached %s: %q", l.srv.URL, a)
				}
			}
		})
	}
}

// FuzzHostsAllowed feeds the matcher URLs as a redirect's Location might
// hold them: it never panics, and what it allows under the default list
// is https to a host under one of the list's domains.
func FuzzHostsAllowed(f *testing.F) {
	for _, s := range []string{
		"https://pipelines.actions.githubusercontent.com/x?sig=1",
		"https://productionresultssa7.blob.core.windows.net/a",
		"https://attacker.blob.core.windows.net/a",
		"http://pipelines.actions.githubusercontent.com/x",
		"https://actions.githubusercontent.com.evil.example/",
		"https://u:p@x.actions.githubusercontent.com/",
		"https://X.ACTIONS.GITHUBUSERCONTENT.COM:443/",
		"https://[::1]:443/", "//x.actions.githubusercontent.com", "https://%2e.actions.githubusercontent.com/",
	} {
		f.Add(s)
	}
	hosts, err := joblog.ParseHosts([]string{"*.actions.githubusercontent.com", "productionresultssa*.blob.core.windows.net"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil || !hosts.Allowed(u) {
			return
		}
		h := strings.ToLower(u.Hostname())
		if u.Scheme != "https" || u.User != nil ||
			!(strings.HasSuffix(h, ".actions.githubusercontent.com") || strings.HasPrefix(h, "productionresultssa") && strings.HasSuffix(h, ".blob.core.windows.net")) {
			t.Errorf("allowed %q (host %q)", raw, h)
		}
		if strings.HasPrefix(h, "productionresultssa") && strings.Count(h, ".") != 4 {
			t.Errorf("a first-label glob matched across labels: %q", h)
		}
	})
}
