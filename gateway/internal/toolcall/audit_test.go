package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	ghopsv1 "ghops.dev/gen/ghops/v1"

	"ghops.dev/gateway/internal/policy"
)

// filledNumber is every integer of the answers the filling service sends:
// a resource the audit takes from an answer (the issue a write created)
// shows as this number.
const filledNumber = 42

// fill sets every singular field of m (strings "x", integers
// filledNumber, booleans true, the first non-zero enum value, messages
// filled in turn, a few levels deep): an answer naming everything its
// type can name.
func fill(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsList() || fd.IsMap() || (fd.ContainingOneof() != nil && !fd.HasPresence()) {
			continue
		}
		switch fd.Kind() {
		case protoreflect.MessageKind:
			if depth < 3 {
				fill(m.Mutable(fd).Message(), depth+1)
			}
		case protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString("x"))
		case protoreflect.BoolKind:
			m.Set(fd, protoreflect.ValueOfBool(true))
		case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
			m.Set(fd, protoreflect.ValueOfInt32(filledNumber))
		case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
			m.Set(fd, protoreflect.ValueOfInt64(filledNumber))
		case protoreflect.EnumKind:
			if vals := fd.Enum().Values(); vals.Len() > 1 {
				m.Set(fd, protoreflect.ValueOfEnum(vals.Get(1).Number()))
			}
		}
	}
}

// serveFilled runs, on 127.0.0.1, a gRPC server that answers every method
// of GitHubService with a filled answer (fill), and returns a connection
// to it.
func serveFilled(t *testing.T) *grpc.ClientConn {
	t.Helper()
	sd := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService")
	gs := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		full, _ := grpc.MethodFromServerStream(stream)
		md := sd.Methods().ByName(protoreflect.Name(full[strings.LastIndex(full, "/")+1:]))
		if md == nil {
			return status.Error(codes.Unimplemented, full)
		}
		req := dynamicpb.NewMessage(md.Input())
		if err := stream.RecvMsg(req); err != nil {
			return err
		}
		resp := dynamicpb.NewMessage(md.Output())
		fill(resp, 0)
		return stream.SendMsg(resp)
	}))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// writeTools are the tools that are not read-only, from the descriptors.
func writeTools(t *testing.T) map[string]protoreflect.MethodDescriptor {
	t.Helper()
	out := map[string]protoreflect.MethodDescriptor{}
	methods := ghopsv1.File_ghops_v1_github_service_proto.Services().ByName("GitHubService").Methods()
	for i := range methods.Len() {
		md := methods.Get(i)
		opts, _ := proto.GetExtension(md.Options(), ghopsv1.E_Tool).(*ghopsv1.ToolOptions)
		if opts == nil {
			t.Fatalf("%s is not a tool", md.FullName())
		}
		if !opts.GetReadOnly() {
			out[opts.GetName()] = md
		}
	}
	return out
}

// TestAuditNamesResources calls every write tool through the whole chain
// against a real gRPC server on 127.0.0.1 that answers with every field
// set, and requires each audit record to name exactly the resources the
// tool acts on, from the (ghops.v1.resource) markings: the repository and
// the issue, pull request, branch, run or comment. A write tool missing
// from the table, or one whose request and answer mark nothing beyond the
// repository, fails.
func TestAuditNamesResources(t *testing.T) {
	tests := []struct {
		tool, args string
		want       map[string]any // the record's "resource" object
	}{
		{"create_pull_request", `{"repo":"o/r","title":"t","head":"feature","base":"main"}`,
			map[string]any{"repository": "o/r", "ref": "feature", "pull_request": float64(filledNumber)}},
		{"update_pull_request", `{"repo":"o/r","prNumber":3,"title":"t"}`,
			map[string]any{"repository": "o/r", "pull_request": float64(3)}},
		{"merge_pull_request", `{"repo":"o/r","prNumber":3}`,
			map[string]any{"repository": "o/r", "pull_request": float64(3)}},
		{"commit_files", `{"repo":"o/r","branch":"main","message":"m","files":[{"path":"a","content":"b"}]}`,
			map[string]any{"repository": "o/r", "ref": "main"}},
		{"apply_patch", `{"repo":"o/r","branch":"main","message":"m","patch":"--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n"}`,
			map[string]any{"repository": "o/r", "ref": "main"}},
		{"create_branch", `{"repo":"o/r","branch":"feature"}`,
			map[string]any{"repository": "o/r", "ref": "feature"}},
		{"create_issue", `{"repo":"o/r","title":"t"}`,
			map[string]any{"repository": "o/r", "issue": float64(filledNumber)}},
		{"update_issue", `{"repo":"o/r","issueNumber":7,"title":"t"}`,
			map[string]any{"repository": "o/r", "issue": float64(7)}},
		{"add_issue_comment", `{"repo":"o/r","issueNumber":7,"body":"b"}`,
			map[string]any{"repository": "o/r", "issue": float64(7), "comment": float64(filledNumber)}},
		{"add_pull_request_comment", `{"repo":"o/r","prNumber":7,"body":"b"}`,
			map[string]any{"repository": "o/r", "pull_request": float64(7), "comment": float64(filledNumber)}},
		{"rerun_failed_jobs", `{"repo":"o/r","run_id":9}`,
			map[string]any{"repository": "o/r", "run": float64(9)}},
		{"create_review", `{"repo":"o/r","prNumber":3,"commit_sha":"abcdef1","event":"comment","body":"b"}`,
			map[string]any{"repository": "o/r", "pull_request": float64(3), "review": float64(filledNumber)}},
		{"submit_review", `{"repo":"o/r","prNumber":3,"review_id":80,"event":"approve"}`,
			map[string]any{"repository": "o/r", "pull_request": float64(3), "review": float64(80)}},
		{"delete_pending_review", `{"repo":"o/r","prNumber":3,"review_id":80}`,
			map[string]any{"repository": "o/r", "pull_request": float64(3), "review": float64(80)}},
		{"reply_to_review_thread", `{"repo":"o/r","prNumber":3,"thread_id":"PRRT_kwDO1","body":"b"}`,
			map[string]any{"repository": "o/r", "pull_request": float64(3), "thread": "PRRT_kwDO1", "comment": float64(filledNumber)}},
		{"resolve_review_thread", `{"repo":"o/r","prNumber":3,"thread_id":"PRRT_kwDO1","resolved":true}`,
			map[string]any{"repository": "o/r", "pull_request": float64(3), "thread": "PRRT_kwDO1"}},
		{"request_reviewers", `{"repo":"o/r","prNumber":3,"reviewers":["octocat"]}`,
			map[string]any{"repository": "o/r", "pull_request": float64(3)}},
		{"update_pull_request_branch", `{"repo":"o/r","prNumber":3,"expected_head_sha":"0123456789abcdef0123456789abcdef01234567"}`,
			map[string]any{"repository": "o/r", "pull_request": float64(3)}},
		{"add_project_item", `{"project":"o/1","repo":"o/r","number":4}`,
			map[string]any{"project": "o/1", "repository": "o/r", "project_item": "x"}},
		{"update_project_items", `{"project":"o/1","item_ids":["PVTI_1"],"fields":{"Status":"Done"}}`,
			map[string]any{"project": "o/1"}},
		{"archive_project_item", `{"project":"o/1","item_id":"PVTI_1","archived":true}`,
			map[string]any{"project": "o/1", "project_item": "PVTI_1"}},
		{"delete_project_item", `{"project":"o/1","item_id":"PVTI_1"}`,
			map[string]any{"project": "o/1", "project_item": "PVTI_1"}},
		{"create_project", `{"owner":"o","title":"t","repo":"o/r"}`,
			map[string]any{"repository": "o/r", "project": "x"}},
		{"create_project_field", `{"project":"o/1","name":"Estimate","type":"number"}`,
			map[string]any{"project": "o/1"}},
		{"create_project_status_update", `{"project":"o/1","status":"at_risk","body":"b"}`,
			map[string]any{"project": "o/1"}},
		{"create_milestone", `{"repo":"o/r","title":"v1"}`,
			map[string]any{"repository": "o/r", "milestone": float64(filledNumber)}},
		{"update_milestone", `{"repo":"o/r","number":2,"state":"closed"}`,
			map[string]any{"repository": "o/r", "milestone": float64(2)}},
		{"create_release", `{"repo":"o/r","tag":"v1.0.0","target":"main"}`,
			map[string]any{"repository": "o/r", "ref": "v1.0.0", "release": float64(filledNumber)}},
		{"update_release", `{"repo":"o/r","release_id":9,"name":"n"}`,
			map[string]any{"repository": "o/r", "release": float64(9)}},
		{"create_repository", `{"owner":"octo-org","name":"lab","private":true}`,
			map[string]any{"owner": "octo-org", "repository": "x"}},
		{"fork_repository", `{"repo":"o/r","owner":"octo-org"}`,
			map[string]any{"repository": "o/r", "owner": "octo-org"}},
		{"run_workflow", `{"repo":"o/r","workflow":"ci.yml","ref":"main","inputs":{"level":"debug"}}`,
			map[string]any{"repository": "o/r", "workflow": "ci.yml", "ref": "main", "run": float64(filledNumber)}},
		{"cancel_workflow_run", `{"repo":"o/r","run_id":9}`,
			map[string]any{"repository": "o/r", "run": float64(9)}},
		{"rerun_workflow_run", `{"repo":"o/r","run_id":9}`,
			map[string]any{"repository": "o/r", "run": float64(9)}},
		{"create_label", `{"repo":"o/r","name":"stale","color":"c0ffee"}`,
			map[string]any{"repository": "o/r", "label": "stale"}},
		{"update_label", `{"repo":"o/r","name":"stale","new_name":"inactive"}`,
			map[string]any{"repository": "o/r", "label": "stale"}},
		{"label_issue", `{"repo":"o/r","issueNumber":4,"add":["stale"],"remove":["bug"]}`,
			map[string]any{"repository": "o/r", "issue": float64(4)}},
		{"add_sub_issue", `{"repo":"o/r","issueNumber":4,"sub_issue":5,"sub_issue_repo":"o/s"}`,
			map[string]any{"repository": "o/r", "issue": float64(4)}},
		{"remove_sub_issue", `{"repo":"o/r","issueNumber":4,"sub_issue":5}`,
			map[string]any{"repository": "o/r", "issue": float64(4)}},
	}
	writes := writeTools(t)
	covered := map[string]bool{}
	for _, tc := range tests {
		covered[tc.tool] = true
	}
	for name, md := range writes {
		if !covered[name] {
			t.Errorf("write tool %s has no row: add one naming the resources its audit record must name", name)
		}
		if !marksBeyondRepository(md.Input(), 0) && !marksBeyondRepository(md.Output(), 0) {
			t.Errorf("write tool %s marks no resource beyond its repository (ghops.v1.resource)", name)
		}
	}
	conn := serveFilled(t)
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			if writes[tc.tool] == nil {
				t.Fatalf("%s is not a write tool", tc.tool)
			}
			var audit bytes.Buffer
			c := New(registry(t), conn, WithAudit(slog.New(slog.NewJSONHandler(&audit, nil))))
			if _, _, e := c.Call(context.Background(), Request{Name: tc.tool, Args: json.RawMessage(tc.args), RequestID: "rid"}); e != nil {
				t.Fatalf("call: %+v (%v)", e, e.Cause)
			}
			var rec struct {
				Msg      string         `json:"msg"`
				Tool     string         `json:"tool"`
				Outcome  string         `json:"outcome"`
				Repo     string         `json:"repo"`
				Resource map[string]any `json:"resource"`
			}
			if err := json.Unmarshal(audit.Bytes(), &rec); err != nil || rec.Msg != "audit" || rec.Outcome != "ok" || rec.Tool != tc.tool {
				t.Fatalf("audit record %q: %v", audit.String(), err)
			}
			if len(rec.Resource) != len(tc.want) {
				t.Errorf("resource %v, want %v", rec.Resource, tc.want)
			}
			for k, v := range tc.want {
				if rec.Resource[k] != v {
					t.Errorf("resource.%s = %v, want %v (%v)", k, rec.Resource[k], v, rec.Resource)
				}
			}
			// A tool about a project alone names no repository; a new
			// repository is named from the answer.
			if want, named := tc.want["repository"]; named && rec.Repo != want || !named && rec.Repo != "" {
				t.Errorf("repo %q", rec.Repo)
			}
		})
	}
}

// marksBeyondRepository reports whether md (or a singular message it
// holds, a level down) marks a resource other than the repository.
func marksBeyondRepository(md protoreflect.MessageDescriptor, depth int) bool {
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch k := policy.ResourceKind(fd); {
		case k != ghopsv1.ResourceKind_RESOURCE_KIND_UNSPECIFIED && k != ghopsv1.ResourceKind_RESOURCE_KIND_REPOSITORY && !fd.IsList():
			return true
		case fd.Kind() == protoreflect.MessageKind && !fd.IsList() && depth+1 < resourceDepth && marksBeyondRepository(fd.Message(), depth+1):
			return true
		}
	}
	return false
}

// TestAuditOfAFailedWrite: a refused write names what its request named,
// nothing its (absent) answer would have, and no sha.
func TestAuditOfAFailedWrite(t *testing.T) {
	req := &ghopsv1.AddIssueCommentRequest{Repo: "o/r", IssueNumber: 7, Body: "b"}
	got := resourcesOf(req, nil)
	var names []string
	for _, r := range got {
		names = append(names, r.Kind+"="+r.Value)
	}
	if strings.Join(names, ",") != "repository=o/r,issue=7" {
		t.Errorf("resources %v, want repository=o/r,issue=7", names)
	}
	if sha := resultSHA(&ghopsv1.MergePullRequestRequest{Repo: "o/r", PrNumber: 1, Sha: proto.String("abc1234")}, nil); sha != "" {
		t.Errorf("a failed write's sha %q, want none", sha)
	}
}
