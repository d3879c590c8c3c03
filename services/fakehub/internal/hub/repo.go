package hub

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"ghops.dev/services/fakehub/internal/gitstore"
	"github.com/go-git/go-git/v5/plumbing"
)

// Repo is one hosted repository; guarded by Hub.mu.
type Repo struct {
	id        int64
	Opts      RepoOptions
	Git       *gitstore.Repo
	created   time.Time
	Pushed    time.Time
	Pulls     []*Pull
	Checks    map[string][]*CheckRun
	Statuses  map[string][]*CommitStatus
	Protected map[string][]string
	actions   *actionsData // Actions runs and jobs (actions.go), nil until the first
	// Issues are the plain issues (issues.go); pullIssues the issue side of pull requests by number.
	Issues     []*Issue
	pullIssues map[int]*Issue
	Labels     []*Label
	Milestones []*Milestone
	// associations are author_association values set by SetAuthorAssociation, by lower-cased login.
	associations map[string]string
}

// CheckRun is a check run recorded on a commit.
type CheckRun struct {
	ID                       int64
	Name, Status, Conclusion string
	SHA                      string
	Started, Completed       time.Time
	actionsRun               int64 // the workflow run of a github-actions job's check run; 0 otherwise
}

// CommitStatus is a commit status recorded for a context.
type CommitStatus struct {
	ID             int64
	Context, State string
	At             time.Time
}

// Pull is a pull request; its issue side (comments, labels, assignees) is the Issue of the same
// number.
type Pull struct {
	id                 int64
	Number             int
	Title, Body, State string
	Draft              bool
	Head, Base         string
	user               string
	created, Updated   time.Time
	ClosedAt, mergedAt time.Time
	Merged             bool
	mergeCommitSHA     string
	HeadSHA, BaseSHA   string // frozen when closed or merged
	SeenPair, donePair [2]string
	mergeable          bool
	// testMergeSHA is the test merge commit of donePair while mergeable: GitHub's merge_commit_sha
	// of an open pull request.
	testMergeSHA string
	// Reviews holds the pull request's reviews, review comments and requested reviewers
	// (reviews.go).
	Reviews ReviewData
}

// FullName is "owner/name" as created.
func (r *Repo) FullName() string { return r.Opts.Owner + "/" + r.Opts.Name }

// SystemSig is the identity fakehub commits as for merges made through the API, like GitHub's.
func SystemSig(t time.Time) gitstore.Signature {
	return gitstore.Signature{Name: "GitHub", Email: "noreply@github.com", When: t}
}

// seedSig is the fixed identity of Go API commits, so that ids are reproducible given the clock.
func seedSig(t time.Time) gitstore.Signature {
	return gitstore.Signature{Name: "Octo Cat", Email: "octocat@users.noreply.github.com", When: t}
}

// Empty reports whether the repository has no commits yet.
func (r *Repo) Empty() bool {
	_, names := r.Git.Refs("refs/heads/")
	return len(names) == 0
}

// HexSHA matches a full commit id.
var HexSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// pullHeadRef matches the ref GitHub keeps for every pull request's head commit,
// refs/pull/{number}/head, which GitHub resolves wherever it takes a ref (also without "refs/").
var pullHeadRef = regexp.MustCompile(`^(?:refs/)?pull/([1-9][0-9]{0,9})/head$`)

// Resolve turns a branch, tag, "heads/x", full ref, a pull request's head ref ("refs/pull/1/head",
// "pull/1/head") or commit id into a commit id.
func (r *Repo) Resolve(ref string) (plumbing.Hash, bool) {
	if ref == "" {
		ref = r.Opts.DefaultBranch
	}
	if m := pullHeadRef.FindStringSubmatch(ref); m != nil {
		// Kept outside the git store: the pull request's head is its head branch's tip while
		// open and the commit it was frozen at once closed, as pullSHAs computes it.
		n, _ := strconv.Atoi(m[1])
		if p := r.PullByNumber(n); p != nil {
			if head, _ := r.PullSHAs(p); HexSHA.MatchString(head) {
				return plumbing.NewHash(head), true
			}
		}
		return plumbing.ZeroHash, false
	}
	for _, name := range []string{"refs/heads/" + ref, "refs/tags/" + ref, "refs/" + ref, ref} {
		if h, err := r.Git.Ref(name); err == nil {
			return h, true
		}
	}
	if HexSHA.MatchString(ref) {
		h := plumbing.NewHash(ref)
		if _, err := r.Git.Commit(h); err == nil {
			return h, true
		}
	}
	return r.resolveShort(ref)
}

// CommitFiles commits files on top of branch (created from the default branch if missing).
func (r *Repo) CommitFiles(branch, message string, files map[string]string, t time.Time) (plumbing.Hash, error) {
	if branch == "" {
		branch = r.Opts.DefaultBranch
	}
	parent, err := r.Git.Ref("refs/heads/" + branch)
	if err != nil {
		parent, err = r.Git.Ref("refs/heads/" + r.Opts.DefaultBranch)
		if err != nil {
			parent = plumbing.ZeroHash
		}
	}
	current := map[string]gitstore.Entry{}
	var parents []plumbing.Hash
	if !parent.IsZero() {
		parents = []plumbing.Hash{parent}
		tree, err := r.Git.CommitTree(parent)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if current, err = r.Git.Flatten(tree); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	added, err := r.Git.WriteFiles(files)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	for p, e := range added {
		current[strings.Trim(p, "/")] = e
	}
	tree, err := r.Git.WriteTree(current)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	sig := seedSig(t)
	sha, err := r.Git.WriteCommit(tree, parents, message+"\n", sig, sig)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	r.Pushed = t
	return sha, r.Git.SetRef("refs/heads/"+branch, sha)
}

// PullSHAs returns the current head and base commits of a pull request.
func (r *Repo) PullSHAs(p *Pull) (head, base string) {
	if p.State == "closed" && p.HeadSHA != "" {
		return p.HeadSHA, p.BaseSHA
	}
	if h, err := r.Git.Ref("refs/heads/" + p.Head); err == nil {
		head = h.String()
	} else {
		head = p.HeadSHA
	}
	if b, err := r.Git.Ref("refs/heads/" + p.Base); err == nil {
		base = b.String()
	} else {
		base = p.BaseSHA
	}
	return head, base
}

// testMerge merges head into base in memory; it returns the merged tree or conflicting paths.
func (r *Repo) testMerge(head, base plumbing.Hash) (plumbing.Hash, []string, error) {
	mb := r.Git.MergeBase(head, base)
	var mbTree plumbing.Hash
	if !mb.IsZero() {
		t, err := r.Git.CommitTree(mb)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		mbTree = t
	}
	ht, err := r.Git.CommitTree(head)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	bt, err := r.Git.CommitTree(base)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	return r.Git.MergeTrees(mbTree, bt, ht)
}

// Mergeability reports (mergeable, state) the way GitHub does: nil on the first read after the
// pull request was created or either branch moved, computed on later reads.
func (r *Repo) Mergeability(p *Pull, compute bool) (*bool, string) {
	if p.Merged || p.State == "closed" {
		return nil, "unknown"
	}
	head, base := r.PullSHAs(p)
	pair := [2]string{head, base}
	if p.donePair != pair {
		if !compute && p.SeenPair != pair {
			p.SeenPair = pair
			return nil, "unknown"
		}
		tree, conflicts, err := r.testMerge(plumbing.NewHash(head), plumbing.NewHash(base))
		p.mergeable = err == nil && len(conflicts) == 0
		p.testMergeSHA = ""
		if p.mergeable {
			p.testMergeSHA = r.writeTestMerge(p, tree, plumbing.NewHash(head), plumbing.NewHash(base))
		}
		p.donePair = pair
		p.SeenPair = pair
	}
	m := p.mergeable
	return &m, r.mergeState(p, head, base)
}

// writeTestMerge records the test merge GitHub makes of a mergeable pull request (base first,
// then head, as refs/pull/N/merge), dated by the later of the two commits so that the same pair
// always gives the same id; "" if it cannot be written.
func (r *Repo) writeTestMerge(p *Pull, tree, head, base plumbing.Hash) string {
	hc, err := r.Git.Commit(head)
	if err != nil {
		return ""
	}
	bc, err := r.Git.Commit(base)
	if err != nil {
		return ""
	}
	when := hc.Committer.When
	if bc.Committer.When.After(when) {
		when = bc.Committer.When
	}
	msg := fmt.Sprintf("Merge %s into %s", head, base)
	sha, err := r.Git.WriteCommit(tree, []plumbing.Hash{base, head}, msg, SystemSig(when), SystemSig(when))
	if err != nil {
		return ""
	}
	return sha.String()
}

// MergeabilitySettled reports whether mergeability(p, false) would change nothing.
func (r *Repo) MergeabilitySettled(p *Pull) bool {
	if p.Merged || p.State == "closed" {
		return true
	}
	head, base := r.PullSHAs(p)
	return p.donePair == [2]string{head, base}
}

func (r *Repo) mergeState(p *Pull, head, base string) string {
	switch {
	case !p.mergeable:
		return "dirty"
	case p.Draft:
		return "draft"
	}
	required, protected := r.Protected[p.Base]
	passing, failing := r.checkResults(head)
	if protected {
		if !r.Git.IsAncestor(plumbing.NewHash(base), plumbing.NewHash(head)) {
			return "behind"
		}
		for _, c := range required {
			if !passing[c] {
				return "blocked"
			}
		}
	}
	for name := range failing {
		isRequired := false
		for _, c := range required {
			isRequired = isRequired || c == name
		}
		if !isRequired {
			return "unstable"
		}
	}
	return "clean"
}

// checkResults reports which check names (check runs and status contexts) pass on a commit, and
// which do not (failing or still pending), using the latest result per name.
func (r *Repo) checkResults(sha string) (passing, notPassing map[string]bool) {
	passing, notPassing = map[string]bool{}, map[string]bool{}
	latest := map[string]bool{}
	for _, c := range r.Checks[sha] {
		ok := c.Status == "completed" && (c.Conclusion == "success" || c.Conclusion == "neutral" || c.Conclusion == "skipped")
		latest[c.Name] = ok
	}
	for _, s := range r.Statuses[sha] {
		latest[s.Context] = s.State == "success"
	}
	for name, ok := range latest {
		if ok {
			passing[name] = true
		} else {
			notPassing[name] = true
		}
	}
	return passing, notPassing
}

// ValidationError is a 422 answer.
type ValidationError struct {
	Message string
	Errors  []FieldError
}

// FieldError is one entry of a 422 body's errors list.
type FieldError struct {
	Resource string `json:"resource"`
	Field    string `json:"field"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

func (v *ValidationError) detail() string {
	var parts []string
	for _, e := range v.Errors {
		if e.Message != "" {
			parts = append(parts, e.Message)
		} else {
			parts = append(parts, fmt.Sprintf("%s %s %s", e.Resource, e.Field, e.Code))
		}
	}
	return strings.Join(parts, "; ")
}

// Invalid is a 422 "Validation Failed" with one error naming resource, field and code.
func Invalid(resource, field, code, msg string) *ValidationError {
	return &ValidationError{Message: "Validation Failed", Errors: []FieldError{{Resource: resource, Field: field, Code: code, Message: msg}}}
}

// OpenPullLocked validates and opens a pull request; head may be "owner:branch".
func (h *Hub) OpenPullLocked(r *Repo, head, base, title, body string, draft bool, user string) (*Pull, *ValidationError) {
	if owner, b, ok := strings.Cut(head, ":"); ok {
		if !strings.EqualFold(owner, r.Opts.Owner) {
			return nil, Invalid("PullRequest", "head", "invalid", "")
		}
		head = b
	}
	if title == "" {
		return nil, Invalid("PullRequest", "title", "missing_field", "")
	}
	if base == "" {
		return nil, Invalid("PullRequest", "base", "missing_field", "")
	}
	if head == "" {
		return nil, Invalid("PullRequest", "head", "missing_field", "")
	}
	bsha, err := r.Git.Ref("refs/heads/" + base)
	if err != nil {
		return nil, Invalid("PullRequest", "base", "invalid", "")
	}
	hsha, err := r.Git.Ref("refs/heads/" + head)
	if err != nil {
		return nil, Invalid("PullRequest", "head", "invalid", "")
	}
	for _, p := range r.Pulls {
		if p.State == "open" && p.Head == head && p.Base == base {
			return nil, Invalid("PullRequest", "", "custom", fmt.Sprintf("A pull request already exists for %s:%s.", r.Opts.Owner, head))
		}
	}
	if r.Git.IsAncestor(hsha, bsha) {
		return nil, Invalid("PullRequest", "", "custom", fmt.Sprintf("No commits between %s and %s", base, head))
	}
	if user == "" {
		user = r.Opts.Owner
	}
	h.NextID++
	t := h.Stamp()
	p := &Pull{id: h.NextID, Number: r.NextNumber(), Title: title, Body: body, State: "open", Draft: draft,
		Head: head, Base: base, user: user, created: t, Updated: t}
	r.Pulls = append(r.Pulls, p)
	return p, nil
}

// NextNumber is the next issue or pull request number: GitHub numbers both in one sequence.
func (r *Repo) NextNumber() int { return len(r.Pulls) + len(r.Issues) + 1 }

// PullByNumber is the pull request numbered n, nil when there is none.
func (r *Repo) PullByNumber(n int) *Pull {
	for _, p := range r.Pulls {
		if p.Number == n {
			return p
		}
	}
	return nil
}

// mergeOutcome is the result of merging a pull request.
type mergeOutcome struct {
	Status  int
	Message string
	SHA     string
}

// MergePull merges a pull request with method merge, squash or rebase.
func (h *Hub) MergePull(r *Repo, p *Pull, method, sha, title, message string) mergeOutcome {
	if p.Merged || p.State != "open" {
		return mergeOutcome{Status: 405, Message: "Pull Request is not mergeable"}
	}
	head, base := r.PullSHAs(p)
	if sha != "" && sha != head {
		return mergeOutcome{Status: 409, Message: "Head branch was modified. Review and try the merge again."}
	}
	m, state := r.Mergeability(p, true)
	switch {
	case m == nil || !*m:
		return mergeOutcome{Status: 405, Message: "Pull Request is not mergeable"}
	case state == "draft":
		return mergeOutcome{Status: 405, Message: "Pull Request is still a draft"}
	case state == "behind":
		return mergeOutcome{Status: 405, Message: "Head branch is out of date. Review and try the merge again."}
	case state == "blocked":
		return mergeOutcome{Status: 405, Message: "Required status check is expected."}
	}
	hh, bh := plumbing.NewHash(head), plumbing.NewHash(base)
	t := h.Stamp()
	var result plumbing.Hash
	var fail *mergeOutcome
	switch method {
	case "", "merge":
		result, fail = r.mergeCommit(p, hh, bh, title, message, t)
	case "squash":
		result, fail = r.squashCommit(p, hh, bh, title, message, t)
	case "rebase":
		result, fail = r.rebaseCommits(hh, bh, t)
	default:
		return mergeOutcome{Status: 422, Message: "Invalid merge_method"}
	}
	if fail != nil {
		return *fail
	}
	if err := r.Git.SetRef("refs/heads/"+p.Base, result); err != nil {
		return mergeOutcome{Status: 500, Message: err.Error()}
	}
	r.Pushed = t
	p.Merged, p.State = true, "closed"
	p.mergedAt, p.ClosedAt, p.Updated = t, t, t
	p.mergeCommitSHA = result.String()
	p.HeadSHA, p.BaseSHA = head, base
	return mergeOutcome{Status: 200, Message: "Pull Request successfully merged", SHA: result.String()}
}

// mergeCommit writes the merge commit of a pull request merged with the merge method: the base
// and head as parents, GitHub's default title and the pull request's title as message.
func (r *Repo) mergeCommit(p *Pull, hh, bh plumbing.Hash, title, message string, t time.Time) (plumbing.Hash, *mergeOutcome) {
	tree, _, err := r.testMerge(hh, bh)
	if err != nil {
		return plumbing.ZeroHash, &mergeOutcome{Status: 500, Message: err.Error()}
	}
	if title == "" {
		title = fmt.Sprintf("Merge pull request #%d from %s/%s", p.Number, r.Opts.Owner, p.Head)
	}
	if message == "" {
		message = p.Title
	}
	result, err := r.Git.WriteCommit(tree, []plumbing.Hash{bh, hh}, title+"\n\n"+message+"\n", SystemSig(t), SystemSig(t))
	if err != nil {
		return plumbing.ZeroHash, &mergeOutcome{Status: 500, Message: err.Error()}
	}
	return result, nil
}

// squashCommit writes the one commit of a squash merge: the merged tree on the base, authored
// by the head commit's author, with the head's commit messages listed as the default message.
func (r *Repo) squashCommit(p *Pull, hh, bh plumbing.Hash, title, message string, t time.Time) (plumbing.Hash, *mergeOutcome) {
	tree, _, err := r.testMerge(hh, bh)
	if err != nil {
		return plumbing.ZeroHash, &mergeOutcome{Status: 500, Message: err.Error()}
	}
	if title == "" {
		title = fmt.Sprintf("%s (#%d)", p.Title, p.Number)
	}
	if message == "" {
		var lines []string
		for _, c := range r.Git.Log(hh) {
			if r.Git.IsAncestor(c.Hash, bh) {
				continue
			}
			lines = append(lines, "* "+strings.TrimSpace(c.Message))
		}
		message = strings.Join(lines, "\n\n")
	}
	msg := title + "\n"
	if message != "" {
		msg += "\n" + message + "\n"
	}
	hc, err := r.Git.Commit(hh)
	if err != nil {
		return plumbing.ZeroHash, &mergeOutcome{Status: 500, Message: err.Error()}
	}
	author := gitstore.Signature{Name: hc.Author.Name, Email: hc.Author.Email, When: t}
	result, err := r.Git.WriteCommit(tree, []plumbing.Hash{bh}, msg, author, SystemSig(t))
	if err != nil {
		return plumbing.ZeroHash, &mergeOutcome{Status: 500, Message: err.Error()}
	}
	return result, nil
}

// rebaseCommits replays the head's own non-merge commits onto the base, oldest first, and
// answers the last; a conflict refuses the rebase.
func (r *Repo) rebaseCommits(hh, bh plumbing.Hash, t time.Time) (plumbing.Hash, *mergeOutcome) {
	var commits []plumbing.Hash
	log := r.Git.Log(hh)
	for i := len(log) - 1; i >= 0; i-- {
		c := log[i]
		if r.Git.IsAncestor(c.Hash, bh) || len(c.ParentHashes) > 1 {
			continue
		}
		commits = append(commits, c.Hash)
	}
	onto := bh
	for _, ch := range commits {
		c, err := r.Git.Commit(ch)
		if err != nil {
			return plumbing.ZeroHash, &mergeOutcome{Status: 500, Message: err.Error()}
		}
		var parentTree plumbing.Hash
		if len(c.ParentHashes) == 1 {
			if parentTree, err = r.Git.CommitTree(c.ParentHashes[0]); err != nil {
				return plumbing.ZeroHash, &mergeOutcome{Status: 500, Message: err.Error()}
			}
		}
		ontoTree, err := r.Git.CommitTree(onto)
		if err != nil {
			return plumbing.ZeroHash, &mergeOutcome{Status: 500, Message: err.Error()}
		}
		tree, conflicts, err := r.Git.MergeTrees(parentTree, ontoTree, c.TreeHash)
		if err != nil || len(conflicts) > 0 {
			return plumbing.ZeroHash, &mergeOutcome{Status: 405, Message: "This branch can't be rebased"}
		}
		author := gitstore.Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When}
		if onto, err = r.Git.WriteCommit(tree, []plumbing.Hash{onto}, c.Message, author, SystemSig(t)); err != nil {
			return plumbing.ZeroHash, &mergeOutcome{Status: 500, Message: err.Error()}
		}
	}
	return onto, nil
}

// TimeZero is the zero time, for fields that were never set (rendered as null).
var TimeZero time.Time

// ParseTime parses an RFC 3339 timestamp as the API sends and accepts them.
func ParseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339, s) }

// AsError is v as a Go error, for the Go API.
func (v *ValidationError) AsError() error {
	return fmt.Errorf("fakehub: %s: %s", v.Message, v.detail())
}
