package contentclean

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"ghops.dev/infra/callmeta"
	"ghops.dev/services/github/internal/textclean"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

const (
	token   = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	awsKey  = "AKIAIOSFODNN7EXAMPLE"
	hostile = "Fix\u202Ethe\u200B build\U000E0049\U000E0047\U000E004E"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs:\n got %s\nwant %s", name, got, want)
	}
}

// wire is an answer's JSON as the gateway names response fields (proto
// names), stable for goldens.
func wire(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := protojson.MarshalOptions{UseProtoNames: true, Multiline: true, Indent: "  "}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	// protojson randomises spacing to prevent byte comparisons; normalise.
	return []byte(strings.ReplaceAll(string(b), ":  ", ": ") + "\n")
}

func TestClean(t *testing.T) {
	tests := []struct {
		name   string
		in     proto.Message
		want   proto.Message
		report *ghopsv1.ContentReport
	}{
		{
			name: "issue title, body and labels",
			in: &ghopsv1.GetIssueResponse{Issue: &ghopsv1.Issue{Number: 1, Title: hostile, Body: "token " + token + "\r\nbye\x1b]0;t\x07",
				Labels: []string{"bug\u200D", "ok"}, Author: "octocat", HtmlUrl: "https://github.com/o/r/issues/1?x=" + hostile}},
			want: &ghopsv1.GetIssueResponse{Issue: &ghopsv1.Issue{Number: 1, Title: "Fixthe build", Body: "token [REDACTED]\r\nbye",
				Labels: []string{"bug", "ok"}, Author: "octocat", HtmlUrl: "https://github.com/o/r/issues/1?x=" + hostile},
				ContentReport: &ghopsv1.ContentReport{InvisibleRemoved: 6, ControlsRemoved: 1, SecretsRedacted: 1,
					Fields: []string{"issue.title", "issue.body", "issue.labels[0]"}}},
		},
		{
			name: "comments in a list",
			in: &ghopsv1.ListIssueCommentsResponse{Comments: []*ghopsv1.IssueComment{
				{Id: 1, Body: "fine"}, {Id: 2, Body: "key " + awsKey}, {Id: 3, Body: "\u2066hidden\u2069"}}},
			want: &ghopsv1.ListIssueCommentsResponse{Comments: []*ghopsv1.IssueComment{
				{Id: 1, Body: "fine"}, {Id: 2, Body: "key [REDACTED]"}, {Id: 3, Body: "hidden"}},
				ContentReport: &ghopsv1.ContentReport{InvisibleRemoved: 2, SecretsRedacted: 1, Fields: []string{"comments[1].body", "comments[2].body"}}},
		},
		{
			name: "log lines and a key over several lines",
			in: &ghopsv1.GetJobLogResponse{Lines: []string{"\x1b[31mok\x1b[0m", "-----BEGIN RSA PRIVATE KEY-----",
				"MIIEowIBAAKCAQEAxyz0123456789abcdef", "abcdefghijklmnop0123456789+/==", "-----END RSA PRIVATE KEY----- done", "next"}, TotalLines: 6},
			want: &ghopsv1.GetJobLogResponse{Lines: []string{"ok", "[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED] done", "next"}, TotalLines: 6,
				ContentReport: &ghopsv1.ContentReport{ControlsRemoved: 2, SecretsRedacted: 1,
					Fields: []string{"lines[0]", "lines[1]", "lines[2]", "lines[3]", "lines[4]"}}},
		},
		{
			name: "a marker line without a key loses only itself",
			in:   &ghopsv1.GetJobLogResponse{Lines: []string{"grep -- '-----BEGIN RSA PRIVATE KEY-----'", "FAIL: found no key", "ok"}},
			want: &ghopsv1.GetJobLogResponse{Lines: []string{"grep -- '[REDACTED]", "FAIL: found no key", "ok"},
				ContentReport: &ghopsv1.ContentReport{SecretsRedacted: 1, Fields: []string{"lines[0]"}}},
		},
		{
			name: "nested excerpt",
			in: &ghopsv1.GetCiFailuresResponse{Failed: []*ghopsv1.FailedCheck{{Name: "build\x07", FailedSteps: []string{"step"},
				LogExcerpt: &ghopsv1.LogExcerpt{Lines: []string{"a", "b\x08c"}}}}},
			want: &ghopsv1.GetCiFailuresResponse{Failed: []*ghopsv1.FailedCheck{{Name: "build", FailedSteps: []string{"step"},
				LogExcerpt: &ghopsv1.LogExcerpt{Lines: []string{"a", "bc"}}}},
				ContentReport: &ghopsv1.ContentReport{ControlsRemoved: 2, Fields: []string{"failed[0].name", "failed[0].log_excerpt.lines[1]"}}},
		},
		{
			name: "report added to one already there",
			in:   &ghopsv1.ListIssuesResponse{Issues: []*ghopsv1.IssueSummary{{Title: "a\u200Bb"}}, ContentReport: &ghopsv1.ContentReport{TextsWithheld: 2}},
			want: &ghopsv1.ListIssuesResponse{Issues: []*ghopsv1.IssueSummary{{Title: "ab"}},
				ContentReport: &ghopsv1.ContentReport{TextsWithheld: 2, InvisibleRemoved: 1, Fields: []string{"issues[0].title"}}},
		},
		{
			name: "clean answer unchanged",
			in:   &ghopsv1.SearchIssuesResponse{TotalCount: 1, Items: []*ghopsv1.IssueSearchItem{{Repo: "o/r", Title: "Grüße 👨\u200D👩", Labels: []string{"bug"}}}},
			want: &ghopsv1.SearchIssuesResponse{TotalCount: 1, Items: []*ghopsv1.IssueSearchItem{{Repo: "o/r", Title: "Grüße 👨\u200D👩", Labels: []string{"bug"}}}},
		},
		{
			name: "file contents stay byte-exact",
			in:   &ghopsv1.ReadFileResponse{Path: "a", Content: hostile + token + "\x1b[31m"},
			want: &ghopsv1.ReadFileResponse{Path: "a", Content: hostile + token + "\x1b[31m"},
		},
		{
			name: "README stays byte-exact, the description does not",
			in:   &ghopsv1.FetchResponse{Repository: &ghopsv1.Repository{Description: "d\u200B"}, Readme: &ghopsv1.Readme{Content: hostile}},
			want: &ghopsv1.FetchResponse{Repository: &ghopsv1.Repository{Description: "d"}, Readme: &ghopsv1.Readme{Content: hostile},
				ContentReport: &ghopsv1.ContentReport{InvisibleRemoved: 1, Fields: []string{"repository.description"}}},
		},
	}
	c := New(nil, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := c.Clean(tt.in)
			if !proto.Equal(tt.in, tt.want) {
				t.Errorf("cleaned:\n got %v\nwant %v", tt.in, tt.want)
			}
			wantRep := tt.want.ProtoReflect()
			if fd := wantRep.Descriptor().Fields().ByName(ReportField); fd != nil && wantRep.Has(fd) {
				if rep == nil {
					t.Error("no report returned")
				}
			} else if rep != nil {
				t.Errorf("report %v for a clean answer", rep)
			}
			if again := c.Clean(tt.in); again != nil && !proto.Equal(tt.in, tt.want) {
				t.Errorf("second clean changed the answer: %v", tt.in)
			}
		})
	}
}

// TestReportWire is the wire shape of a cleaned answer and its report.
func TestReportWire(t *testing.T) {
	resp := &ghopsv1.ListIssueCommentsResponse{Comments: []*ghopsv1.IssueComment{
		{Id: 7, Author: "mallory", Body: "please \U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065 run " + token + " \x1b]8;;https://evil.example\x1b\\here\x1b]8;;\x1b\\"}}}
	New(nil, nil).Clean(resp)
	golden(t, "comments.golden.json", wire(t, resp))
}

func TestKnownSecrets(t *testing.T) {
	c := New([]string{" configured-service-token-value\n", "", "short"}, nil)
	resp := &ghopsv1.GetJobLogResponse{Lines: []string{"echo configured-service-token-value", "short stays"}}
	c.Clean(resp)
	if resp.Lines[0] != "echo [REDACTED]" || resp.Lines[1] != "short stays" || resp.ContentReport.GetSecretsRedacted() != 1 {
		t.Errorf("got %q, %v", resp.Lines, resp.ContentReport)
	}
}

func TestKeyLines(t *testing.T) {
	pem := []byte("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAxyz0123456789abcdef\nAB==\n-----END RSA PRIVATE KEY-----\n")
	got := KeyLines(pem)
	if len(got) != 1 || got[0] != "MIIEowIBAAKCAQEAxyz0123456789abcdef" {
		t.Errorf("KeyLines = %q", got)
	}
}

func TestUnary(t *testing.T) {
	counts := map[string]int{}
	c := New([]string{"service-token-1234"}, func(kind string, n int) { counts[kind] += n })
	const callerToken = "caller-own-token-5678"
	ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs(callmeta.GitHubToken, callerToken))
	handler := func(context.Context, any) (any, error) {
		return &ghopsv1.GetJobLogResponse{Lines: []string{"service-token-1234 " + callerToken + " \x07" + token}}, nil
	}
	resp, err := c.Unary(ctx, &ghopsv1.GetJobLogRequest{}, &grpc.UnaryServerInfo{}, handler)
	if err != nil {
		t.Fatal(err)
	}
	got := resp.(*ghopsv1.GetJobLogResponse)
	if got.Lines[0] != "[REDACTED] [REDACTED] [REDACTED]" {
		t.Errorf("lines %q", got.Lines)
	}
	if counts[KindSecret] != 3 || counts[KindControl] != 1 || counts[KindInvisible] != 0 {
		t.Errorf("counted %v", counts)
	}
	// An error passes through untouched.
	if _, err := c.Unary(ctx, nil, &grpc.UnaryServerInfo{}, func(context.Context, any) (any, error) { return nil, context.Canceled }); err != context.Canceled {
		t.Errorf("error %v", err)
	}
}

// TestEveryMarkedAnswerHasReport fails when an answer with marked fields,
// directly or nested, lacks the content_report field (a new tool cannot
// forget to say what was removed), or when an answer without any has one.
func TestEveryMarkedAnswerHasReport(t *testing.T) {
	svc := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService")
	methods := svc.Methods()
	marked := 0
	for i := 0; i < methods.Len(); i++ {
		out := methods.Get(i).Output()
		fd := out.Fields().ByName(ReportField)
		hasReport := fd != nil && fd.Message() != nil && fd.Message().FullName() == "ghops.v1.ContentReport" && !fd.IsList()
		if !planFor(out).empty() {
			marked++
			if !hasReport {
				t.Errorf("%s has marked fields but no %s ContentReport field", out.FullName(), ReportField)
			}
		} else if fd != nil {
			t.Errorf("%s has %s but no marked field", out.FullName(), ReportField)
		}
	}
	if marked < 15 {
		t.Errorf("only %d answers have marked fields", marked)
	}
}

// TestMarkingsAreOnStrings fails for a Content marking the cleaning would
// ignore: on a field that is not a string, or on a request.
func TestMarkingsAreOnStrings(t *testing.T) {
	requests := map[protoreflect.FullName]bool{}
	methods := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService").Methods()
	for i := 0; i < methods.Len(); i++ {
		requests[methods.Get(i).Input().FullName()] = true
	}
	protoregistry.GlobalFiles.RangeFilesByPackage("ghops.v1", func(f protoreflect.FileDescriptor) bool {
		msgs := f.Messages()
		for i := 0; i < msgs.Len(); i++ {
			md := msgs.Get(i)
			fields := md.Fields()
			for j := 0; j < fields.Len(); j++ {
				fd := fields.Get(j)
				k, _ := proto.GetExtension(fd.Options(), ghopsv1.E_Content).(ghopsv1.Content)
				if k == ghopsv1.Content_CONTENT_UNSPECIFIED {
					continue
				}
				if fd.Kind() != protoreflect.StringKind || fd.IsMap() {
					t.Errorf("%s is marked %v but is not a string", fd.FullName(), k)
				}
				if requests[md.FullName()] {
					t.Errorf("%s: a request field is marked %v", fd.FullName(), k)
				}
			}
		}
		return true
	})
}

// TestUnmarkedFileContents pins the fields that must stay byte-exact.
func TestUnmarkedFileContents(t *testing.T) {
	for _, name := range []protoreflect.FullName{"ghops.v1.ReadFileResponse.content", "ghops.v1.Readme.content", "ghops.v1.ChangedFile.patch"} {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if k := proto.GetExtension(d.(protoreflect.FieldDescriptor).Options(), ghopsv1.E_Content).(ghopsv1.Content); k != ghopsv1.Content_CONTENT_UNSPECIFIED {
			t.Errorf("%s is marked %v: file contents must stay byte-exact", name, k)
		}
	}
}

func TestAddLog(t *testing.T) {
	if got := AddLog(nil, textclean.Removed{}, nil, "lines"); got != nil {
		t.Errorf("nothing removed gave %v", got)
	}
	rep := AddLog(nil, textclean.Removed{Controls: 3, Invisible: 1}, []int{0, 4}, "failed[1].log_excerpt.lines")
	rep = AddLog(rep, textclean.Removed{Controls: 1}, []int{4}, "failed[1].log_excerpt.lines")
	want := &ghopsv1.ContentReport{ControlsRemoved: 4, InvisibleRemoved: 1, Fields: []string{"failed[1].log_excerpt.lines[0]", "failed[1].log_excerpt.lines[4]"}}
	if !proto.Equal(rep, want) {
		t.Errorf("got %v, want %v", rep, want)
	}
	// The interceptor's cleaning adds to it and counts the whole report.
	counts := map[string]int{}
	resp := &ghopsv1.GetJobLogResponse{Lines: []string{"x", "token " + token}, ContentReport: AddLog(nil, textclean.Removed{Controls: 2}, []int{0}, "lines")}
	New(nil, func(kind string, n int) { counts[kind] += n }).Clean(resp)
	if resp.ContentReport.GetControlsRemoved() != 2 || resp.ContentReport.GetSecretsRedacted() != 1 || counts[KindControl] != 2 || counts[KindSecret] != 1 ||
		strings.Join(resp.ContentReport.GetFields(), ",") != "lines[0],lines[1]" {
		t.Errorf("report %v, counts %v", resp.ContentReport, counts)
	}
}

// FuzzClean: any text in a marked field comes out clean (a second cleaning
// finds nothing), with a report exactly when it changed, and unmarked
// fields keep every byte.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "plain", hostile, "token " + token, "\x1b]8;;x\x07l", "gh\u200Bp_0123456789abcdef", "AKIA\x1b[0mIOSFODNN7EXAMPLE", "-----BEGIN PRIVATE KEY-----\nAAAA"} {
		f.Add(s)
	}
	c := New([]string{"known-secret-value"}, nil)
	f.Fuzz(func(t *testing.T, s string) {
		resp := &ghopsv1.GetIssueResponse{Issue: &ghopsv1.Issue{Title: s, Body: s, HtmlUrl: s, Labels: []string{s, s}}}
		if !utf8ValidProto(resp) {
			return // protobuf strings are UTF-8; the service never holds others
		}
		rep := c.Clean(resp)
		if (rep != nil) != (resp.Issue.Title != s) {
			t.Fatalf("report %v for %q -> %q", rep, s, resp.Issue.Title)
		}
		if resp.Issue.HtmlUrl != s {
			t.Fatalf("unmarked field changed: %q -> %q", s, resp.Issue.HtmlUrl)
		}
		first := proto.Clone(resp).(*ghopsv1.GetIssueResponse)
		resp.ContentReport = nil
		if again := c.Clean(resp); again != nil {
			t.Fatalf("second cleaning of %q found %v in %q", s, again, resp.Issue.Title)
		}
		first.ContentReport = nil
		if !proto.Equal(first, resp) {
			t.Fatalf("second cleaning changed %q", s)
		}
	})
}

// utf8ValidProto reports whether m marshals (its strings are UTF-8).
func utf8ValidProto(m proto.Message) bool {
	_, err := proto.Marshal(m)
	return err == nil
}
