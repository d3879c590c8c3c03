package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/go-github/v66/github"

	"ghops.dev/services/github/internal/ghpath"
	"ghops.dev/services/github/internal/jsonmemo"
)

// WithMemo makes the hot reads (search, get_commits, get_branches, list_pull_requests,
// get_pull_request, get_pr_mergeability, read_file, list_directory) decode GitHub's answers through m: a body
// unchanged since the last call is not decoded again.
func (s *Service) WithMemo(m *jsonmemo.Memo) *Service {
	s.memo = m
	return s
}

// get is go-github's GET (path relative to the API root, with the query q)
// with the answer decoded through the memo. BareDo keeps go-github's error
// and rate-limit handling; only the decoding differs. The value may be
// shared with other calls: read it, never change it.
func get[T any](ctx context.Context, s *Service, gh *github.Client, path string, q url.Values) (T, *github.Response, error) {
	return getAccept[T](ctx, s, gh, path, q, "")
}

// getAccept is get with the Accept header set to accept when it is not
// empty, for the endpoints go-github asks for with a media type of its own
// (search asks for the topics preview): the request stays the one
// go-github's method sends.
func getAccept[T any](ctx context.Context, s *Service, gh *github.Client, path string, q url.Values, accept string) (T, *github.Response, error) {
	var zero T
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	req, err := gh.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		return zero, nil, err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := gh.BareDo(ctx, req)
	if err != nil {
		return zero, resp, err
	}
	v, err := jsonmemo.Decode[T](s.memo, resp.Response)
	return v, resp, err
}

// query is the query of a request: the pairs whose value is not empty,
// as go-github leaves out the zero fields of its option structs.
func query(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	return q
}

// listQuery is the query of a page of a list, with more pairs.
func listQuery(page, perPage int, kv ...string) url.Values {
	return query(append(kv, "page", strconv.Itoa(page), "per_page", strconv.Itoa(perPage))...)
}

// contents is a contents-API answer: a file (an object) or a directory
// (an array), told apart by the first byte as go-github's GetContents
// tells them apart by trying both.
type contents struct {
	file *github.RepositoryContent
	dir  []*github.RepositoryContent
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *contents) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return json.Unmarshal(b, &c.dir)
	}
	return json.Unmarshal(b, &c.file)
}

// getContents is go-github's Repositories.GetContents through the memo.
// The path goes through ghpath: go-github's own escaping keeps ".."
// segments, which URL resolution would then apply.
func (s *Service) getContents(ctx context.Context, gh *github.Client, owner, name, path, ref string) (*github.RepositoryContent, []*github.RepositoryContent, error) {
	u, err := ghpath.Repo("repo", owner+"/"+name, ghpath.Lit("contents"), ghpath.Segments("path", strings.TrimSuffix(path, "/")))
	if err != nil {
		return nil, nil, err
	}
	if path == "" {
		u += "/" // the root directory, as go-github asks for it
	}
	c, _, err := get[contents](ctx, s, gh, u, query("ref", ref))
	return c.file, c.dir, err
}
