package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"ghops.dev/services/fakehub"

	"ghops.dev/gateway/gatewaytest"
)

// TestPrincipalShare runs the whole stack (fakehub whose token may send
// 20 requests an hour, the service with its default -principal-share of
// 50% behind a caller secret, the gateway with API-key principals): the
// gateway names each caller's principal to the service, which serves the
// writer ten calls, then answers -32004 naming it, without reaching
// GitHub; ci-bot still gets the other half (issue 19, point 4).
func TestPrincipalShare(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{Policy: teamPolicy, ServiceSecret: "e2e-service-secret-0123456789",
		Hub: &fakehub.Config{Seed: "demo", CoreLimit: 20}})
	call := func(key string) (int, []byte) {
		_, out := rpcCall(t, st.URL, "get_branches", `{"repo":"octo-org/hello-world"}`, "Authorization", "Bearer "+key)
		code, _ := errOf(t, out)
		return code, out["error"]
	}
	served := 0
	var code int
	var e []byte
	for range 20 {
		if code, e = call(keyWriter); code != 0 {
			break
		}
		served++
	}
	if served != 10 || code != -32004 || !bytes.Contains(e, []byte("principal apikey:writer")) || !bytes.Contains(e, []byte("-principal-share 50%")) {
		t.Fatalf("writer served %d calls, then %d %s; want 10, then -32004 naming apikey:writer", served, code, e)
	}
	before := githubCalls(st)
	if code, e := call(keyWriter); code != -32004 || githubCalls(st) != before {
		t.Errorf("a refused call: %d %s, %d GitHub requests", code, e, githubCalls(st)-before)
	}
	if code, e := call(keyBot); code != 0 {
		t.Errorf("ci-bot refused: %d %s", code, e)
	}
}

// TestOversizedPatch replays the reproduction: one apply_patch
// over 6,000 files (about 900 KB) is refused with -32602 naming the
// service's -max-patch-files before any GitHub request (it cost 4,994).
func TestOversizedPatch(t *testing.T) {
	st := gatewaytest.StartStack(t, gatewaytest.StackOptions{})
	var b strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&b, "diff --git a/f/%d.txt b/f/%d.txt\n--- a/f/%d.txt\n+++ b/f/%d.txt\n@@ -1 +1 @@\n-a\n+b\n", i, i, i, i)
	}
	params, err := json.Marshal(map[string]string{"repo": "octo-org/hello-world", "branch": "main", "message": "big", "patch": b.String()})
	if err != nil {
		t.Fatal(err)
	}
	before := githubCalls(st)
	_, out := rpcCall(t, st.URL, "apply_patch", string(params))
	code, data := errOf(t, out)
	if code != -32602 || !bytes.Contains(data["validation_errors"], []byte("-max-patch-files")) || !bytes.Contains(data["validation_errors"], []byte("6000 files")) {
		t.Fatalf("answer %d %s", code, out["error"])
	}
	if n := githubCalls(st) - before; n != 0 {
		t.Errorf("the refused patch sent %d GitHub requests", n)
	}
}
