package client

import (
	"encoding/json"
	"math"
	"testing"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func TestMarshalArgs(t *testing.T) {
	tests := []struct {
		name string
		req  proto.Message
		want string
	}{
		{"int64 as a number", &ghopsv1.GetJobLogRequest{Repo: "o/r", JobId: 7, TailLines: proto.Int32(3)}, `{"job_id":7,"repo":"o/r","tail_lines":3}`},
		{"largest int64 exact", &ghopsv1.RerunFailedJobsRequest{Repo: "o/r", RunId: math.MaxInt64}, `{"repo":"o/r","run_id":9223372036854775807}`},
		{"no 64-bit field", &ghopsv1.GetIssueRequest{Repo: "o/r", IssueNumber: 4}, `{"issueNumber":4,"repo":"o/r"}`},
		{"nested and repeated untouched strings", &ghopsv1.CommitFilesRequest{Repo: "o/r", Branch: "main", Message: "12",
			Files: []*ghopsv1.FileChange{{Path: "a", Content: proto.String("34")}}}, `{"branch":"main","files":[{"content":"34","path":"a"}],"message":"12","repo":"o/r"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := marshalArgs(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal([]byte(tc.want), &want)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if tc.name == "largest int64 exact" {
				gb, wb = b, []byte(tc.want)
			}
			if string(gb) != string(wb) {
				t.Errorf("marshalArgs = %s, want %s", b, tc.want)
			}
			back := tc.req.ProtoReflect().New().Interface()
			if err := protojson.Unmarshal(b, back); err != nil || !proto.Equal(back, tc.req) {
				t.Errorf("does not decode back to the request: %v %v", err, back)
			}
		})
	}
}
