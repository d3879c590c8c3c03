package contentclean

import (
	"strconv"
	"testing"

	"google.golang.org/protobuf/types/known/timestamppb"

	ghopsv1 "ghops.dev/gen/ghops/v1"
)

// BenchmarkClean measures a big list answer: 100 issues with clean text
// (the common case: one pass over each marked string, nothing allocated
// for the answer), and an answer without marked fields (a lookup).
func BenchmarkClean(b *testing.B) {
	c := New([]string{"configured-service-token"}, nil)
	b.Run("issues100", func(b *testing.B) {
		resp := &ghopsv1.ListIssuesResponse{Page: &ghopsv1.PageInfo{Page: 1, PerPage: 100}}
		for i := range 100 {
			resp.Issues = append(resp.Issues, &ghopsv1.IssueSummary{Number: int32(i), Title: "Build fails on main after the dependency update #" + strconv.Itoa(i),
				State: "open", Labels: []string{"bug", "ci"}, Author: "octocat", Comments: 3, UpdatedAt: timestamppb.Now()})
		}
		b.ReportAllocs()
		for b.Loop() {
			c.Clean(resp)
		}
	})
	b.Run("tree1000unmarked", func(b *testing.B) {
		resp := &ghopsv1.GetTreeResponse{Sha: "abc"}
		for i := range 1000 {
			resp.Entries = append(resp.Entries, &ghopsv1.TreeEntry{Path: "dir/file" + strconv.Itoa(i) + ".go", Type: "blob", Size: 100})
		}
		b.ReportAllocs()
		for b.Loop() {
			c.Clean(resp)
		}
	})
}
