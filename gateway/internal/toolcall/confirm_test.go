package toolcall

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/gateway/internal/policy"
	"ghops.dev/gateway/internal/rpcerror"
)

// stubConfirmer answers every question with a and remembers them.
type stubConfirmer struct {
	a     Answer
	asked []Question
}

func (s *stubConfirmer) Confirm(_ context.Context, q Question) Answer {
	s.asked = append(s.asked, q)
	return s.a
}

// TestConfirmLink: a tool the principal's confirm (or the gateway's
// -confirm) names reaches the service only when the Confirmer confirms;
// every other verdict, and a context without a Confirmer, is -32001 with
// rule "confirm" and the service is not called. Tools not named are never
// put to the person.
func TestConfirmLink(t *testing.T) {
	const args = `{"repo":"octo-org/hello-world","prNumber":2,"merge_method":"squash"}`
	careful := &policy.Caller{Principal: &policy.Principal{Name: "careful", Rules: policy.Rules{Confirm: []string{"merge_*"}}}}
	bold := &policy.Caller{Principal: &policy.Principal{Name: "bold"}}
	tests := []struct {
		name      string
		caller    *policy.Caller
		gateway   []string // -confirm
		tool      string
		answer    *Answer // nil: no Confirmer in the context
		asked     bool
		invoked   bool
		wantInMsg string
	}{
		{"confirmed", careful, nil, "merge_pull_request", &Answer{Verdict: Confirmed}, true, true, ""},
		{"declined", careful, nil, "merge_pull_request", &Answer{Verdict: Declined}, true, false, "the user declined merge_pull_request on octo-org/hello-world"},
		{"cancelled", careful, nil, "merge_pull_request", &Answer{Verdict: Cancelled}, true, false, "cancelled or not answered"},
		{"cannot ask", careful, nil, "merge_pull_request", &Answer{Verdict: CannotAsk, Reason: "no elicitation"}, true, false, "this client cannot ask"},
		{"invalid state", careful, nil, "merge_pull_request", &Answer{Verdict: Invalid, Reason: "tampered"}, true, false, "not valid for merge_pull_request"},
		{"asked: the transport answers", careful, nil, "merge_pull_request", &Answer{Verdict: Asked}, true, false, "was asked for"},
		{"no confirmer (plain JSON-RPC)", careful, nil, "merge_pull_request", nil, false, false, "this client cannot ask"},
		{"tool not named", careful, nil, "get_pr_mergeability", &Answer{Verdict: Declined}, false, true, ""},
		{"principal without confirm", bold, nil, "merge_pull_request", &Answer{Verdict: Declined}, false, true, ""},
		{"gateway-wide -confirm", bold, []string{"merge_pull_request"}, "merge_pull_request", &Answer{Verdict: Declined}, true, false, "the user declined"},
		{"gateway-wide, no principal", nil, []string{"merge_pull_request"}, "merge_pull_request", nil, false, false, "this client cannot ask"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			invoked := false
			c := New(registry(t), fakeConn{func(context.Context, string, any, any) error { invoked = true; return nil }}, WithConfirm(tc.gateway))
			ctx := context.Background()
			if tc.caller != nil {
				ctx = policy.WithCaller(ctx, tc.caller)
			}
			st := &stubConfirmer{}
			if tc.answer != nil {
				st.a = *tc.answer
				ctx = WithConfirmer(ctx, st)
			}
			callArgs := args
			if tc.tool == "get_pr_mergeability" {
				callArgs = `{"repo":"octo-org/hello-world","prNumber":2}`
			}
			_, _, e := c.Call(ctx, Request{Name: tc.tool, Args: json.RawMessage(callArgs)})
			if invoked != tc.invoked {
				t.Fatalf("service invoked = %v, want %v (error %+v)", invoked, tc.invoked, e)
			}
			if (len(st.asked) > 0) != tc.asked {
				t.Fatalf("asked %d times, want asked = %v", len(st.asked), tc.asked)
			}
			if tc.invoked {
				if e != nil {
					t.Fatalf("error %+v", e)
				}
				return
			}
			if e == nil || e.Code != rpcerror.PermissionDenied || e.Data.Policy == nil || e.Data.Policy.Rule != "confirm" {
				t.Fatalf("error %+v, want -32001 rule confirm", e)
			}
			if !strings.Contains(e.Message, tc.wantInMsg) {
				t.Fatalf("message %q, want %q in it", e.Message, tc.wantInMsg)
			}
		})
	}
}

// TestNewQuestion: the message names the tool, the repository and the key
// arguments, bounded and without control or invisible characters; the
// digest tells apart calls that differ in any argument and is the same
// for the same call.
func TestNewQuestion(t *testing.T) {
	method := "squash"
	base := &ghopsv1.MergePullRequestRequest{Repo: "octo-org/hello-world", PrNumber: 2, MergeMethod: &method}
	q := NewQuestion("merge_pull_request", base)
	want := "Allow merge_pull_request on octo-org/hello-world?\nprNumber: 2\nmerge_method: \"squash\""
	if q.Message != want || q.Repo != "octo-org/hello-world" {
		t.Fatalf("message %q (repo %q), want %q", q.Message, q.Repo, want)
	}
	other := &ghopsv1.MergePullRequestRequest{Repo: "octo-org/hello-world", PrNumber: 3, MergeMethod: &method}
	if NewQuestion("merge_pull_request", other).Digest == q.Digest {
		t.Fatal("two calls with different arguments share a digest")
	}
	if NewQuestion("merge_pull_request", base).Digest != q.Digest {
		t.Fatal("the same call has two digests")
	}
	title := "ok\u202eevil\u200b\U000E0041\x1b[31m\x9b\nnext line " + strings.Repeat("x", 500)
	issue := &ghopsv1.UpdateIssueRequest{Repo: "octo-org/hello-world", IssueNumber: 1, Title: &title}
	msg := NewQuestion("update_issue", issue).Message
	for _, bad := range []string{"\u202e", "\u200b", "\U000E0041", "\x1b", "\x9b", "\nnext"} {
		if strings.Contains(msg, bad) {
			t.Errorf("message keeps %q: %q", bad, msg)
		}
	}
	if !strings.Contains(msg, `title: "okevil[31m next line xxx`) || !strings.Contains(msg, "…") || len(msg) > 400 {
		t.Errorf("message not cleaned and bounded: %q", msg)
	}
}
