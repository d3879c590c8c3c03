// Package ops implements the RPCs of ghops.v1.GitHubService over
// go-github v66. Handlers assume validated requests (the validation
// interceptor runs first) and turn every failure into a status through
// ghstatus, the one place where GitHub errors are translated.
package ops

import (
	"context"
	"log/slog"
	"strings"
	"time"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/timestamppb"

	"ghops.dev/services/github/internal/ghstatus"
	"ghops.dev/services/github/internal/joblog"
	"ghops.dev/services/github/internal/jsonmemo"
)

// ClientFunc returns the go-github client for the call in ctx (the service
// token's, or the caller's own when the server allows it).
type ClientFunc func(ctx context.Context) *github.Client

// Limits are the caps and waits of the handlers.
type Limits struct {
	// MaxFileBytes caps read_file content and fetch's README text.
	MaxFileBytes int
	// MaxTreeEntries caps get_tree.
	MaxTreeEntries int
	// MergeabilityAttempts bounds get_pr_mergeability's polling.
	MergeabilityAttempts int
	// MergeabilityBackoff is its first delay, doubled after each attempt.
	MergeabilityBackoff time.Duration
	// MaxPatchFiles caps the files one apply_patch changes (0: DefaultMaxPatchFiles).
	MaxPatchFiles int
	// MaxPatchBytes caps the bytes of one apply_patch patch (0: DefaultMaxPatchBytes).
	MaxPatchBytes int
}

// Service implements ghopsv1.GitHubServiceServer.
type Service struct {
	ghopsv1.UnimplementedGitHubServiceServer
	client ClientFunc
	limits Limits
	env    Environment
	memo   *jsonmemo.Memo
	log    *slog.Logger
	// logs downloads job logs from the signed URL GitHub redirects to
	// (another host, such as Azure blob storage): a plain client on
	// purpose, so that the token never goes there, with a timeout of its
	// own since the download is outside the API's transports, and only to
	// the allowed log hosts (WithLogHosts; none until set).
	logs *joblog.Downloader
	// kinds remembers what GitHub's answers said numbers are, so that a
	// write need not read the kind again (kindmemo.go).
	kinds *issueKinds
}

// New returns the handlers.
func New(client ClientFunc, limits Limits, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{client: client, limits: limits, log: log, logs: joblog.NewDownloader(joblog.Hosts{}, logTimeout), kinds: newIssueKinds()}
}

// fail translates err, logging the cause of an Internal answer (which the
// caller never sees). A number or id of the wrong kind or repository is
// -32002 saying so (mismatch).
func (s *Service) fail(ctx context.Context, err error, c ghstatus.Context) error {
	if st := s.mismatch(ctx, err, c); st != nil {
		return st
	}
	st := ghstatus.FromError(err, c)
	if code := statusCode(st); code == codes.Internal || code == codes.Unavailable {
		s.log.WarnContext(ctx, "github call failed", "tool", c.Tool, "repo", c.Repo, "cause", ghstatus.Text(err))
	}
	return st
}

func splitRepo(repo string) (string, string) {
	owner, name, _ := strings.Cut(repo, "/")
	return owner, name
}

func ts(t *github.Timestamp) *timestamppb.Timestamp {
	if t == nil || t.IsZero() {
		return nil
	}
	return timestamppb.New(t.Time)
}

func pageOf(page, perPage *int32) (int, int) {
	p, pp := 1, 30
	if page != nil {
		p = int(*page)
	}
	if perPage != nil {
		pp = int(*perPage)
	}
	return p, pp
}

func pageInfo(p, pp int, resp *github.Response) *ghopsv1.PageInfo {
	return &ghopsv1.PageInfo{Page: int32(p), PerPage: int32(pp), HasNext: resp != nil && resp.NextPage != 0}
}

// refOf picks branch or ref (validation allows at most one).
func refOf(branch, ref *string) string {
	if branch != nil {
		return *branch
	}
	if ref != nil {
		return *ref
	}
	return ""
}

// send sends one write to GitHub and decodes its answer into a new T: the shape of every write
// whose answer is what was written (an issue, a label, a milestone, a release, an issue's labels).
// It does not retry: not every write is idempotent.
func send[T any](ctx context.Context, gh *github.Client, method, u string, body any) (*T, error) {
	hreq, err := gh.NewRequest(method, u, body)
	if err != nil {
		return nil, err
	}
	out := new(T)
	if _, err := gh.Do(ctx, hreq, out); err != nil {
		return nil, err
	}
	return out, nil
}
