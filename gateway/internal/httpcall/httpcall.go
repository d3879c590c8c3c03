// Package httpcall sends one HTTP request from a test to a loopback server
// and hands back the whole answer, so that gateway tests do not each repeat
// the request, header and body-reading steps.
package httpcall

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Do sends body to url with method, adding the header pairs (name, value,
// name, value, ...; a trailing unpaired name is ignored) in order, and returns
// the response with its body read and closed. A failure to send or read fails
// the test.
func Do(t testing.TB, method, url, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}
