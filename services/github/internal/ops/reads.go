package ops

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	ghopsv1 "ghops.dev/gen/ghops/v1"
	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/codes"

	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/ghstatus"
)

// Search implements the search tool: go-github's Search.Repositories (the
// same one GET, with its Accept header) with the answer decoded through the
// memo into only the fields the answer keeps. Search answers carry ETags, so
// a repeated search is a 304 whose cached body the memo has already
// decoded; decoding go-github's full Repository for every hit, on every
// call, was most of search's CPU in the service (docs/benchmarks.md,
// "Throughput against github-mcp-server").
func (s *Service) Search(ctx context.Context, req *ghopsv1.SearchRequest) (*ghopsv1.SearchResponse, error) {
	p, pp := pageOf(req.Page, req.PerPage)
	res, resp, err := getAccept[*searchResult](ctx, s, s.client(ctx), "search/repositories", searchQuery(req.GetQuery(), p, pp), searchAccept)
	if err != nil {
		return nil, s.fail(ctx, err, ghstatus.Context{Tool: ghopsv1.ToolSearch})
	}
	if res == nil {
		res = new(searchResult) // an empty answer, as go-github gives it
	}
	out := &ghopsv1.SearchResponse{TotalCount: int32(res.Total), IncompleteResults: res.IncompleteResults, Page: pageInfo(p, pp, resp)}
	for _, r := range res.Items {
		if r == nil {
			r = new(searchRepo) // a null item, which go-github keeps as an empty Repository
		}
		out.Repositories = append(out.Repositories, &ghopsv1.RepositorySummary{
			FullName: r.FullName, Description: r.Description, Language: r.Language,
			Stars: int32(r.Stars), Forks: int32(r.Forks), Visibility: visibilityOf(r.Visibility, r.Private),
			DefaultBranch: r.DefaultBranch, Archived: r.Archived, Fork: r.Fork, Topics: slices.Clone(r.Topics),
			UpdatedAt: ts(r.UpdatedAt),
		})
	}
	return out, nil
}

// searchAccept is the Accept header go-github's Search.Repositories sends.
const searchAccept = "application/vnd.github.mercy-preview+json"

// searchQuery is the query go-github's Search.Repositories builds: the
// page and page size (left out when zero), and q, always.
func searchQuery(q string, page, perPage int) url.Values {
	v := url.Values{"q": {q}}
	if page != 0 {
		v.Set("page", strconv.Itoa(page))
	}
	if perPage != 0 {
		v.Set("per_page", strconv.Itoa(perPage))
	}
	return v
}

// searchResult is GitHub's answer to a repository search, reduced to what
// the search tool answers: go-github's RepositoriesSearchResult decodes
// some eighty fields of every hit, owner and license included, which the
// answer never reads.
type searchResult struct {
	Total             int           `json:"total_count"`
	IncompleteResults bool          `json:"incomplete_results"`
	Items             []*searchRepo `json:"items"`
}

// searchRepo is a hit of a repository search: the fields of go-github's
// Repository that the answer keeps, with the same JSON names and types
// (a JSON null leaves the zero value, as go-github's getters give it).
type searchRepo struct {
	FullName      string            `json:"full_name"`
	Description   string            `json:"description"`
	Language      string            `json:"language"`
	Stars         int               `json:"stargazers_count"`
	Forks         int               `json:"forks_count"`
	Visibility    string            `json:"visibility"`
	Private       bool              `json:"private"`
	DefaultBranch string            `json:"default_branch"`
	Archived      bool              `json:"archived"`
	Fork          bool              `json:"fork"`
	Topics        []string          `json:"topics"`
	UpdatedAt     *github.Timestamp `json:"updated_at"`
}

func visibility(r *github.Repository) string {
	return visibilityOf(r.GetVisibility(), r.GetPrivate())
}

// visibilityOf is a repository's visibility: GitHub's field when it sends
// one, else told by private.
func visibilityOf(v string, private bool) string {
	if v != "" {
		return v
	}
	if private {
		return "private"
	}
	return "public"
}

// Fetch implements the fetch tool: the repository, then its README as
// GitHub's /readme finds it (root, .github/ or docs/): two calls, each
// answered by a 304 when unchanged. A 404 from /readme means no README.
func (s *Service) Fetch(ctx context.Context, req *ghopsv1.FetchRequest) (*ghopsv1.FetchResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolFetch, Repo: req.GetRepo()}
	owner, name := splitRepo(req.GetRepo())
	gh := s.client(ctx)
	r, _, err := gh.Repositories.Get(ctx, owner, name)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.FetchResponse{Repository: &ghopsv1.Repository{
		FullName: r.GetFullName(), Description: r.GetDescription(), DefaultBranch: r.GetDefaultBranch(),
		Visibility: visibility(r), Topics: r.Topics, Language: r.GetLanguage(), License: r.GetLicense().GetSPDXID(),
		Homepage: r.GetHomepage(), Stars: int32(r.GetStargazersCount()), Forks: int32(r.GetForksCount()),
		Watchers: int32(r.GetSubscribersCount()), OpenIssues: int32(r.GetOpenIssuesCount()), SizeKb: int32(r.GetSize()),
		Archived: r.GetArchived(), Fork: r.GetFork(), CreatedAt: ts(r.CreatedAt), PushedAt: ts(r.PushedAt),
	}}
	file, _, err := gh.Repositories.GetReadme(ctx, owner, name, nil)
	if err != nil {
		if ghstatus.HTTPStatus(err) == http.StatusNotFound || isEmptyRepo(err) {
			return out, nil // no README (or an empty repository)
		}
		return nil, s.fail(ctx, err, c)
	}
	f, err := s.fileContent(ctx, gh, owner, name, file, c)
	if err != nil {
		return nil, err
	}
	content := f.Content
	if f.Binary {
		content = ""
	}
	out.Readme = &ghopsv1.Readme{Path: f.Path, Size: f.Size, Content: content, Truncated: f.Truncated}
	return out, nil
}

func isEmptyRepo(err error) bool {
	var er *github.ErrorResponse
	return ghstatus.HTTPStatus(err) == http.StatusConflict && asErrorResponse(err, &er) && strings.Contains(strings.ToLower(er.Message), "empty")
}

func rootPath(p string) string {
	p = strings.Trim(p, "/")
	if p == "." {
		return ""
	}
	return p
}

func badPath(tool, msg string) error {
	return ghstatus.InvalidField(ghstatus.Context{Tool: tool}, msg, "path", "path.dot_dot")
}

// ListDirectory implements the list_directory tool in one call.
func (s *Service) ListDirectory(ctx context.Context, req *ghopsv1.ListDirectoryRequest) (*ghopsv1.ListDirectoryResponse, error) {
	path := rootPath(req.GetPath())
	ref := refOf(req.Branch, req.Ref)
	c := ghstatus.Context{Tool: ghopsv1.ToolListDirectory, Repo: req.GetRepo(), Resource: &ghopsv1.Resource{Type: "directory", Id: resID(req.GetRepo(), path, ref)}}
	if strings.Contains(path, "..") {
		return nil, badPath(c.Tool, "path must not contain \"..\"")
	}
	owner, name := splitRepo(req.GetRepo())
	file, dir, err := s.getContents(ctx, s.client(ctx), owner, name, path, ref)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if file != nil {
		return nil, ghstatus.New(codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION,
			"path is a file, not a directory; use read_file", c, nil)
	}
	out := &ghopsv1.ListDirectoryResponse{Path: path, Truncated: len(dir) >= 1000}
	for _, e := range dir {
		out.Entries = append(out.Entries, &ghopsv1.DirectoryEntry{Name: e.GetName(), Path: e.GetPath(), Type: e.GetType(), Size: int32(e.GetSize())})
	}
	sort.SliceStable(out.Entries, func(i, j int) bool {
		di, dj := out.Entries[i].Type == "dir", out.Entries[j].Type == "dir"
		if di != dj {
			return di
		}
		return out.Entries[i].Name < out.Entries[j].Name
	})
	return out, nil
}

func resID(repo, path, ref string) string {
	id := repo
	if path != "" {
		id += ":" + path
	}
	if ref != "" {
		id += "@" + ref
	}
	return id
}

// ReadFile implements the read_file tool: one call, plus one raw blob read
// when GitHub does not inline the content (files over 1 MB).
func (s *Service) ReadFile(ctx context.Context, req *ghopsv1.ReadFileRequest) (*ghopsv1.ReadFileResponse, error) {
	path := strings.Trim(req.GetPath(), "/")
	ref := refOf(req.Branch, req.Ref)
	c := ghstatus.Context{Tool: ghopsv1.ToolReadFile, Repo: req.GetRepo(), Resource: &ghopsv1.Resource{Type: "file", Id: resID(req.GetRepo(), path, ref)}}
	if strings.Contains(path, "..") {
		return nil, badPath(c.Tool, "path must not contain \"..\"")
	}
	if path == "" {
		return nil, badPath(c.Tool, "path must name a file")
	}
	owner, name := splitRepo(req.GetRepo())
	return s.readFile(ctx, s.client(ctx), owner, name, path, ref, c)
}

func (s *Service) readFile(ctx context.Context, gh *github.Client, owner, name, path, ref string, c ghstatus.Context) (*ghopsv1.ReadFileResponse, error) {
	file, _, err := s.getContents(ctx, gh, owner, name, path, ref)
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	if file == nil {
		return nil, ghstatus.New(codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION,
			"path is a directory, not a file; use list_directory", c, nil)
	}
	return s.fileContent(ctx, gh, owner, name, file, c)
}

// fileContent decodes a contents-API file answer (also /readme's), reading
// the start of the raw blob when GitHub did not inline it, within the cap.
func (s *Service) fileContent(ctx context.Context, gh *github.Client, owner, name string, file *github.RepositoryContent, c ghstatus.Context) (*ghopsv1.ReadFileResponse, error) {
	var err error
	if file.GetType() != "file" {
		return nil, ghstatus.New(codes.FailedPrecondition, ghopsv1.ErrorReason_ERROR_REASON_GITHUB_VALIDATION,
			"path is a "+file.GetType()+", not a regular file", c, nil)
	}
	limit := s.limits.MaxFileBytes
	var data []byte
	switch file.GetEncoding() {
	case "base64":
		// GitHub wraps the base64 at 60 columns; the decoder skips \r and \n.
		data, err = base64.StdEncoding.DecodeString(rawContent(file))
		if err != nil {
			return nil, s.fail(ctx, err, c)
		}
	case "":
		data = []byte(rawContent(file))
	default: // "none": too large to inline; read the start of the raw blob
		data, err = s.rawBlobPrefix(ctx, gh, owner, name, file.GetSHA(), limit+utf8.UTFMax)
		if err != nil {
			return nil, s.fail(ctx, err, c)
		}
	}
	size := file.GetSize()
	if size < len(data) {
		size = len(data)
	}
	content, encoding, truncated, binary := capContent(data, size, limit)
	return &ghopsv1.ReadFileResponse{
		Path: file.GetPath(), Sha: file.GetSHA(), Size: int32(size), Encoding: encoding,
		Content: content, Truncated: truncated, Binary: binary,
	}, nil
}

func (s *Service) rawBlobPrefix(ctx context.Context, gh *github.Client, owner, name, sha string, n int) ([]byte, error) {
	u, err := ghpath.Repo("repo", owner+"/"+name, ghpath.Lit("git/blobs"), ghpath.One("sha", sha))
	if err != nil {
		return nil, err
	}
	req, err := gh.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.github.raw")
	resp, err := gh.BareDo(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, int64(n)))
}

// capContent encodes data (the start of a file of size bytes, or all of it)
// as UTF-8 text when it is text, else base64, keeping at most limit bytes of
// the file. A text cut never splits a character.
func capContent(data []byte, size, limit int) (content, encoding string, truncated, binary bool) {
	truncated = size > len(data) || len(data) > limit
	head := data
	if len(head) > limit {
		head = head[:limit]
	}
	probe := data
	if truncated {
		// The last character of a cut prefix may be incomplete: drop it for the check.
		probe = trimPartialRune(data)
	}
	if utf8.Valid(probe) && !containsNUL(probe) {
		text := trimPartialRune(head)
		if !truncated {
			text = head
		}
		return string(text), "utf8", truncated, false
	}
	return base64.StdEncoding.EncodeToString(head), "base64", truncated, true
}

func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		r, size := utf8.DecodeLastRune(b[:len(b)-i])
		if r != utf8.RuneError || size > 1 {
			if i == 0 {
				return b
			}
			// b ends with i bytes of an incomplete character.
			return b[:len(b)-i]
		}
	}
	return b
}

func containsNUL(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return false
}

// refType is data.resource's type for a lookup by a branch parameter or
// else by a ref (docs/errors.md): "branch" when the branch parameter named
// it, "ref" when the value may be a tag or a sha.
func refType(branch *string) string {
	if branch != nil {
		return "branch"
	}
	return "ref"
}

// GetCommits implements the get_commits tool; sha wins over branch. It is
// go-github's Repositories.ListCommits (the same one GET, query and Accept)
// with the answer decoded through the memo into only the fields the answer
// keeps. Commit lists carry ETags, so a repeated call is a 304 whose cached
// body the memo has already decoded; decoding go-github's full
// RepositoryCommit (author and committer users, tree, verification...) of
// every commit, on every call, cost about a quarter of a warm call's time
// and bytes (docs/benchmarks.md, "get_commits through jsonmemo").
func (s *Service) GetCommits(ctx context.Context, req *ghopsv1.GetCommitsRequest) (*ghopsv1.GetCommitsResponse, error) {
	p, pp := pageOf(req.Page, req.PerPage)
	from := req.GetSha()
	if from == "" {
		from = req.GetBranch()
	}
	typ := "ref"
	if req.Sha == nil {
		typ = refType(req.Branch)
	}
	c := ghstatus.Context{Tool: ghopsv1.ToolGetCommits, Repo: req.GetRepo(), SHA: req.GetSha(), Resource: &ghopsv1.Resource{Type: typ, Id: resID(req.GetRepo(), "", from)}}
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("commits"))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	list, resp, err := get[[]*listedCommit](ctx, s, s.client(ctx), u, commitsQuery(from, p, pp))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	out := &ghopsv1.GetCommitsResponse{Page: pageInfo(p, pp, resp)}
	for _, rc := range list {
		if rc == nil {
			rc = new(listedCommit) // a null item, which go-github keeps as a nil RepositoryCommit
		}
		cm := &ghopsv1.Commit{Sha: rc.SHA, Message: rc.Commit.Message, Author: rc.Author.Login}
		if cm.Author == "" {
			cm.Author = rc.Commit.Author.Name
		}
		if d := rc.Commit.Author.Date; d != nil {
			cm.Date = ts(d)
		}
		if len(rc.Parents) > 0 {
			// A new slice: the memo's value is shared with other calls.
			cm.Parents = make([]string, len(rc.Parents))
			for i, par := range rc.Parents {
				cm.Parents[i] = par.SHA
			}
		}
		out.Commits = append(out.Commits, cm)
	}
	return out, nil
}

// commitsQuery is the query go-github's Repositories.ListCommits builds:
// sha, page and page size, each left out when empty or zero.
func commitsQuery(sha string, page, perPage int) url.Values {
	v := url.Values{}
	if sha != "" {
		v.Set("sha", sha)
	}
	if page != 0 {
		v.Set("page", strconv.Itoa(page))
	}
	if perPage != 0 {
		v.Set("per_page", strconv.Itoa(perPage))
	}
	return v
}

// listedCommit is a commit of GitHub's commit list, reduced to what the
// get_commits answer keeps, with go-github's JSON names and types (a JSON
// null leaves the zero value, as go-github's getters give it).
type listedCommit struct {
	SHA    string `json:"sha"`
	Commit struct {
		Message string `json:"message"`
		Author  struct {
			Name string            `json:"name"`
			Date *github.Timestamp `json:"date"`
		} `json:"author"`
	} `json:"commit"`
	Author struct {
		Login string `json:"login"`
	} `json:"author"`
	Parents []struct {
		SHA string `json:"sha"`
	} `json:"parents"`
}

// GetBranches implements the get_branches tool.
func (s *Service) GetBranches(ctx context.Context, req *ghopsv1.GetBranchesRequest) (*ghopsv1.GetBranchesResponse, error) {
	p, pp := pageOf(req.Page, req.PerPage)
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("branches"))
	if err != nil {
		return nil, s.fail(ctx, err, ghstatus.Context{Tool: ghopsv1.ToolGetBranches, Repo: req.GetRepo()})
	}
	list, resp, err := get[[]*github.Branch](ctx, s, s.client(ctx), u, listQuery(p, pp))
	if err != nil {
		return nil, s.fail(ctx, err, ghstatus.Context{Tool: ghopsv1.ToolGetBranches, Repo: req.GetRepo()})
	}
	out := &ghopsv1.GetBranchesResponse{Page: pageInfo(p, pp, resp)}
	for _, b := range list {
		out.Branches = append(out.Branches, &ghopsv1.Branch{Name: b.GetName(), Sha: b.GetCommit().GetSHA(), Protected: b.GetProtected()})
	}
	return out, nil
}

// ListPullRequests implements the list_pull_requests tool.
func (s *Service) ListPullRequests(ctx context.Context, req *ghopsv1.ListPullRequestsRequest) (*ghopsv1.ListPullRequestsResponse, error) {
	p, pp := pageOf(req.Page, req.PerPage)
	state := req.GetState()
	if state == "" {
		state = "open"
	}
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("pulls"))
	if err != nil {
		return nil, s.fail(ctx, err, ghstatus.Context{Tool: ghopsv1.ToolListPullRequests, Repo: req.GetRepo()})
	}
	list, resp, err := get[[]*github.PullRequest](ctx, s, s.client(ctx), u, listQuery(p, pp, "state", state))
	if err != nil {
		return nil, s.fail(ctx, err, ghstatus.Context{Tool: ghopsv1.ToolListPullRequests, Repo: req.GetRepo()})
	}
	out := &ghopsv1.ListPullRequestsResponse{Page: pageInfo(p, pp, resp)}
	for _, pr := range list {
		out.PullRequests = append(out.PullRequests, &ghopsv1.PullRequestSummary{
			Number: int32(pr.GetNumber()), Title: pr.GetTitle(), State: pr.GetState(), Merged: pr.MergedAt != nil || pr.GetMerged(),
			Draft: pr.GetDraft(), Author: pr.GetUser().GetLogin(), Head: pr.GetHead().GetRef(), Base: pr.GetBase().GetRef(),
			HeadSha: pr.GetHead().GetSHA(), UpdatedAt: ts(pr.UpdatedAt), AuthorAssociation: pr.GetAuthorAssociation(),
		})
	}
	return out, nil
}

func rawContent(f *github.RepositoryContent) string {
	if f.Content == nil {
		return ""
	}
	return *f.Content
}

// GetCommit implements the get_commit tool in one call: GitHub's commit
// answer carries the message, both people, the parents, the stats and the
// page of changed files asked for (page and per_page page the files), whose
// patches are capped as compare_refs' are. GitHub answers a ref or sha it
// cannot resolve with 422 "No commit found for SHA", which is a missing
// commit (-32002), not a refused value.
func (s *Service) GetCommit(ctx context.Context, req *ghopsv1.GetCommitRequest) (*ghopsv1.GetCommitResponse, error) {
	c := ghstatus.Context{Tool: ghopsv1.ToolGetCommit, Repo: req.GetRepo(), SHA: req.GetSha(), Resource: &ghopsv1.Resource{Type: "commit", Id: req.GetRepo() + "@" + req.GetSha()}}
	p, pp := pageOf(req.Page, req.PerPage)
	u, err := ghpath.Repo("repo", req.GetRepo(), ghpath.Lit("commits"), ghpath.Segments("sha", req.GetSha()))
	if err != nil {
		return nil, s.fail(ctx, err, c)
	}
	rc, resp, err := get[*github.RepositoryCommit](ctx, s, s.client(ctx), u, listQuery(p, pp))
	if err != nil {
		if noCommit(err) {
			return nil, ghstatus.NotFound(c, "no commit "+req.GetSha())
		}
		return nil, s.fail(ctx, err, c)
	}
	if rc == nil {
		rc = new(github.RepositoryCommit) // a JSON null
	}
	gc := rc.GetCommit()
	out := &ghopsv1.GetCommitResponse{
		Sha: rc.GetSHA(), Message: gc.GetMessage(),
		Author:    commitPerson(rc.GetAuthor(), gc.GetAuthor()),
		Committer: commitPerson(rc.GetCommitter(), gc.GetCommitter()),
		Stats: &ghopsv1.CommitStats{
			Additions: int32(rc.GetStats().GetAdditions()), Deletions: int32(rc.GetStats().GetDeletions()), Total: int32(rc.GetStats().GetTotal()),
		},
		Files: changedFiles(rc.Files), Page: pageInfo(p, pp, resp),
	}
	for _, par := range rc.Parents {
		out.Parents = append(out.Parents, par.GetSHA())
	}
	return out, nil
}

// commitPerson is a commit's author or committer: the GitHub account git's
// email belongs to, when there is one, and git's own name and date.
func commitPerson(user *github.User, git *github.CommitAuthor) *ghopsv1.CommitPerson {
	return &ghopsv1.CommitPerson{Login: user.GetLogin(), Name: git.GetName(), Date: ts(git.Date)}
}

// noCommit reports whether err is GitHub's answer for a ref or sha that
// names no commit.
func noCommit(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity &&
		strings.HasPrefix(er.Message, "No commit found for")
}
