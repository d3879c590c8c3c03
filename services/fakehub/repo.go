package fakehub

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"ghops.dev/services/fakehub/internal/gitstore"
)

// repo is one hosted repository; guarded by Hub.mu.
type repo struct {
	id        int64
	opts      RepoOptions
	git       *gitstore.Repo
	created   time.Time
	pushed    time.Time
	pulls     []*pull
	checks    map[string][]*checkRun
	statuses  map[string][]*commitStatus
	protected map[string][]string
	actions   *actionsData // Actions runs and jobs (actions.go), nil until the first
	// issues are the plain issues (issues.go); pullIssues the issue side of pull requests by number.
	issues     []*issue
	pullIssues map[int]*issue
	labels     []*label
	milestones []*milestone
	// associations are author_association values set by SetAuthorAssociation, by lower-cased login.
	associations map[string]string
}

type checkRun struct {
	id                       int64
	name, status, conclusion string
	sha                      string
	started, completed       time.Time
	actionsRun               int64 // the workflow run of a github-actions job's check run; 0 otherwise
}

type commitStatus struct {
	id             int64
	context, state string
	at             time.Time
}

type pull struct {
	id                 int64
	number             int
	title, body, state string
	draft              bool
	head, base         string
	user               string
	created, updated   time.Time
	closedAt, mergedAt time.Time
	merged             bool
	mergeCommitSHA     string
	headSHA, baseSHA   string // frozen when closed or merged
	seenPair, donePair [2]string
	mergeable          bool
	// testMergeSHA is the test merge commit of donePair while mergeable: GitHub's merge_commit_sha
	// of an open pull request.
	testMergeSHA string
	// rv holds the pull request's reviews, review comments and requested reviewers (reviews.go).
	rv reviewData
}

func (r *repo) fullName() string { return r.opts.Owner + "/" + r.opts.Name }

// systemSig is the identity fakehub commits as for merges made through the API, like GitHub's.
func systemSig(t time.Time) gitstore.Signature {
	return gitstore.Signature{Name: "GitHub", Email: "noreply@github.com", When: t}
}

// seedSig is the fixed identity of Go API commits, so that ids are reproducible given the clock.
func seedSig(t time.Time) gitstore.Signature {
	return gitstore.Signature{Name: "Octo Cat", Email: "octocat@users.noreply.github.com", When: t}
}

func (r *repo) empty() bool {
	_, names := r.git.Refs("refs/heads/")
	return len(names) == 0
}

var hexSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// pullHeadRef matches the ref GitHub keeps for every pull request's head commit,
// refs/pull/{number}/head, which GitHub resolves wherever it takes a ref (also without "refs/").
var pullHeadRef = regexp.MustCompile(`^(?:refs/)?pull/([1-9][0-9]{0,9})/head$`)

// resolve turns a branch, tag, "heads/x", full ref, a pull request's head ref ("refs/pull/1/head",
// "pull/1/head") or commit id into a commit id.
func (r *repo) resolve(ref string) (plumbing.Hash, bool) {
	if ref == "" {
		ref = r.opts.DefaultBranch
	}
	if m := pullHeadRef.FindStringSubmatch(ref); m != nil {
		// Kept outside the git store: the pull request's head is its head branch's tip while
		// open and the commit it was frozen at once closed, as pullSHAs computes it.
		n, _ := strconv.Atoi(m[1])
		if p := r.pullByNumber(n); p != nil {
			if head, _ := r.pullSHAs(p); hexSHA.MatchString(head) {
				return plumbing.NewHash(head), true
			}
		}
		return plumbing.ZeroHash, false
	}
	for _, name := range []string{"refs/heads/" + ref, "refs/tags/" + ref, "refs/" + ref, ref} {
		if h, err := r.git.Ref(name); err == nil {
			return h, true
		}
	}
	if hexSHA.MatchString(ref) {
		h := plumbing.NewHash(ref)
		if _, err := r.git.Commit(h); err == nil {
			return h, true
		}
	}
	return r.resolveShort(ref)
}

// commitFiles commits files on top of branch (created from the default branch if missing).
func (r *repo) commitFiles(branch, message string, files map[string]string, t time.Time) (plumbing.Hash, error) {
	if branch == "" {
		branch = r.opts.DefaultBranch
	}
	parent, err := r.git.Ref("refs/heads/" + branch)
	if err != nil {
		parent, err = r.git.Ref("refs/heads/" + r.opts.DefaultBranch)
		if err != nil {
			parent = plumbing.ZeroHash
		}
	}
	current := map[string]gitstore.Entry{}
	var parents []plumbing.Hash
	if !parent.IsZero() {
		parents = []plumbing.Hash{parent}
		tree, err := r.git.CommitTree(parent)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if current, err = r.git.Flatten(tree); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	added, err := r.git.WriteFiles(files)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	for p, e := range added {
		current[strings.Trim(p, "/")] = e
	}
	tree, err := r.git.WriteTree(current)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	sig := seedSig(t)
	sha, err := r.git.WriteCommit(tree, parents, message+"\n", sig, sig)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	r.pushed = t
	return sha, r.git.SetRef("refs/heads/"+branch, sha)
}

// pullSHAs returns the current head and base commits of a pull request.
func (r *repo) pullSHAs(p *pull) (head, base string) {
	if p.state == "closed" && p.headSHA != "" {
		return p.headSHA, p.baseSHA
	}
	if h, err := r.git.Ref("refs/heads/" + p.head); err == nil {
		head = h.String()
	} else {
		head = p.headSHA
	}
	if b, err := r.git.Ref("refs/heads/" + p.base); err == nil {
		base = b.String()
	} else {
		base = p.baseSHA
	}
	return head, base
}

// testMerge merges head into base in memory; it returns the merged tree or conflicting paths.
func (r *repo) testMerge(head, base plumbing.Hash) (plumbing.Hash, []string, error) {
	mb := r.git.MergeBase(head, base)
	var mbTree plumbing.Hash
	if !mb.IsZero() {
		t, err := r.git.CommitTree(mb)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		mbTree = t
	}
	ht, err := r.git.CommitTree(head)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	bt, err := r.git.CommitTree(base)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	return r.git.MergeTrees(mbTree, bt, ht)
}

// mergeability reports (mergeable, state) the way GitHub does: nil on the first read after the
// pull request was created or either branch moved, computed on later reads.
func (r *repo) mergeability(p *pull, compute bool) (*bool, string) {
	if p.merged || p.state == "closed" {
		return nil, "unknown"
	}
	head, base := r.pullSHAs(p)
	pair := [2]string{head, base}
	if p.donePair != pair {
		if !compute && p.seenPair != pair {
			p.seenPair = pair
			return nil, "unknown"
		}
		tree, conflicts, err := r.testMerge(plumbing.NewHash(head), plumbing.NewHash(base))
		p.mergeable = err == nil && len(conflicts) == 0
		p.testMergeSHA = ""
		if p.mergeable {
			p.testMergeSHA = r.writeTestMerge(p, tree, plumbing.NewHash(head), plumbing.NewHash(base))
		}
		p.donePair = pair
		p.seenPair = pair
	}
	m := p.mergeable
	return &m, r.mergeState(p, head, base)
}

// writeTestMerge records the test merge GitHub makes of a mergeable pull request (base first,
// then head, as refs/pull/N/merge), dated by the later of the two commits so that the same pair
// always gives the same id; "" if it cannot be written.
func (r *repo) writeTestMerge(p *pull, tree, head, base plumbing.Hash) string {
	hc, err := r.git.Commit(head)
	if err != nil {
		return ""
	}
	bc, err := r.git.Commit(base)
	if err != nil {
		return ""
	}
	when := hc.Committer.When
	if bc.Committer.When.After(when) {
		when = bc.Committer.When
	}
	msg := fmt.Sprintf("Merge %s into %s", head, base)
	sha, err := r.git.WriteCommit(tree, []plumbing.Hash{base, head}, msg, systemSig(when), systemSig(when))
	if err != nil {
		return ""
	}
	return sha.String()
}

// mergeabilitySettled reports whether mergeability(p, false) would change nothing.
func (r *repo) mergeabilitySettled(p *pull) bool {
	if p.merged || p.state == "closed" {
		return true
	}
	head, base := r.pullSHAs(p)
	return p.donePair == [2]string{head, base}
}

func (r *repo) mergeState(p *pull, head, base string) string {
	switch {
	case !p.mergeable:
		return "dirty"
	case p.draft:
		return "draft"
	}
	required, protected := r.protected[p.base]
	passing, failing := r.checkResults(head)
	if protected {
		if !r.git.IsAncestor(plumbing.NewHash(base), plumbing.NewHash(head)) {
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
func (r *repo) checkResults(sha string) (passing, notPassing map[string]bool) {
	passing, notPassing = map[string]bool{}, map[string]bool{}
	latest := map[string]bool{}
	for _, c := range r.checks[sha] {
		ok := c.status == "completed" && (c.conclusion == "success" || c.conclusion == "neutral" || c.conclusion == "skipped")
		latest[c.name] = ok
	}
	for _, s := range r.statuses[sha] {
		latest[s.context] = s.state == "success"
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

// validationError is a 422 answer.
type validationError struct {
	Message string
	Errors  []fieldError
}

type fieldError struct {
	Resource string `json:"resource"`
	Field    string `json:"field"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

func (v *validationError) detail() string {
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

func invalid(resource, field, code, msg string) *validationError {
	return &validationError{Message: "Validation Failed", Errors: []fieldError{{Resource: resource, Field: field, Code: code, Message: msg}}}
}

// openPullLocked validates and opens a pull request; head may be "owner:branch".
func (h *Hub) openPullLocked(r *repo, head, base, title, body string, draft bool, user string) (*pull, *validationError) {
	if owner, b, ok := strings.Cut(head, ":"); ok {
		if !strings.EqualFold(owner, r.opts.Owner) {
			return nil, invalid("PullRequest", "head", "invalid", "")
		}
		head = b
	}
	if title == "" {
		return nil, invalid("PullRequest", "title", "missing_field", "")
	}
	if base == "" {
		return nil, invalid("PullRequest", "base", "missing_field", "")
	}
	if head == "" {
		return nil, invalid("PullRequest", "head", "missing_field", "")
	}
	bsha, err := r.git.Ref("refs/heads/" + base)
	if err != nil {
		return nil, invalid("PullRequest", "base", "invalid", "")
	}
	hsha, err := r.git.Ref("refs/heads/" + head)
	if err != nil {
		return nil, invalid("PullRequest", "head", "invalid", "")
	}
	for _, p := range r.pulls {
		if p.state == "open" && p.head == head && p.base == base {
			return nil, invalid("PullRequest", "", "custom", fmt.Sprintf("A pull request already exists for %s:%s.", r.opts.Owner, head))
		}
	}
	if r.git.IsAncestor(hsha, bsha) {
		return nil, invalid("PullRequest", "", "custom", fmt.Sprintf("No commits between %s and %s", base, head))
	}
	if user == "" {
		user = r.opts.Owner
	}
	h.nextID++
	t := h.stamp()
	p := &pull{id: h.nextID, number: r.nextNumber(), title: title, body: body, state: "open", draft: draft,
		head: head, base: base, user: user, created: t, updated: t}
	r.pulls = append(r.pulls, p)
	return p, nil
}

// nextNumber is the next issue or pull request number: GitHub numbers both in one sequence.
func (r *repo) nextNumber() int { return len(r.pulls) + len(r.issues) + 1 }

func (r *repo) pullByNumber(n int) *pull {
	for _, p := range r.pulls {
		if p.number == n {
			return p
		}
	}
	return nil
}

// mergeOutcome is the result of merging a pull request.
type mergeOutcome struct {
	status  int
	message string
	sha     string
}

// mergePull merges a pull request with method merge, squash or rebase.
func (h *Hub) mergePull(r *repo, p *pull, method, sha, title, message string) mergeOutcome {
	if p.merged || p.state != "open" {
		return mergeOutcome{status: 405, message: "Pull Request is not mergeable"}
	}
	head, base := r.pullSHAs(p)
	if sha != "" && sha != head {
		return mergeOutcome{status: 409, message: "Head branch was modified. Review and try the merge again."}
	}
	m, state := r.mergeability(p, true)
	switch {
	case m == nil || !*m:
		return mergeOutcome{status: 405, message: "Pull Request is not mergeable"}
	case state == "draft":
		return mergeOutcome{status: 405, message: "Pull Request is still a draft"}
	case state == "behind":
		return mergeOutcome{status: 405, message: "Head branch is out of date. Review and try the merge again."}
	case state == "blocked":
		return mergeOutcome{status: 405, message: "Required status check is expected."}
	}
	hh, bh := plumbing.NewHash(head), plumbing.NewHash(base)
	t := h.stamp()
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
		return mergeOutcome{status: 422, message: "Invalid merge_method"}
	}
	if fail != nil {
		return *fail
	}
	if err := r.git.SetRef("refs/heads/"+p.base, result); err != nil {
		return mergeOutcome{status: 500, message: err.Error()}
	}
	r.pushed = t
	p.merged, p.state = true, "closed"
	p.mergedAt, p.closedAt, p.updated = t, t, t
	p.mergeCommitSHA = result.String()
	p.headSHA, p.baseSHA = head, base
	return mergeOutcome{status: 200, message: "Pull Request successfully merged", sha: result.String()}
}

// mergeCommit writes the merge commit of a pull request merged with the merge method: the base
// and head as parents, GitHub's default title and the pull request's title as message.
func (r *repo) mergeCommit(p *pull, hh, bh plumbing.Hash, title, message string, t time.Time) (plumbing.Hash, *mergeOutcome) {
	tree, _, err := r.testMerge(hh, bh)
	if err != nil {
		return plumbing.ZeroHash, &mergeOutcome{status: 500, message: err.Error()}
	}
	if title == "" {
		title = fmt.Sprintf("Merge pull request #%d from %s/%s", p.number, r.opts.Owner, p.head)
	}
	if message == "" {
		message = p.title
	}
	result, err := r.git.WriteCommit(tree, []plumbing.Hash{bh, hh}, title+"\n\n"+message+"\n", systemSig(t), systemSig(t))
	if err != nil {
		return plumbing.ZeroHash, &mergeOutcome{status: 500, message: err.Error()}
	}
	return result, nil
}

// squashCommit writes the one commit of a squash merge: the merged tree on the base, authored
// by the head commit's author, with the head's commit messages listed as the default message.
func (r *repo) squashCommit(p *pull, hh, bh plumbing.Hash, title, message string, t time.Time) (plumbing.Hash, *mergeOutcome) {
	tree, _, err := r.testMerge(hh, bh)
	if err != nil {
		return plumbing.ZeroHash, &mergeOutcome{status: 500, message: err.Error()}
	}
	if title == "" {
		title = fmt.Sprintf("%s (#%d)", p.title, p.number)
	}
	if message == "" {
		var lines []string
		for _, c := range r.git.Log(hh) {
			if r.git.IsAncestor(c.Hash, bh) {
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
	hc, err := r.git.Commit(hh)
	if err != nil {
		return plumbing.ZeroHash, &mergeOutcome{status: 500, message: err.Error()}
	}
	author := gitstore.Signature{Name: hc.Author.Name, Email: hc.Author.Email, When: t}
	result, err := r.git.WriteCommit(tree, []plumbing.Hash{bh}, msg, author, systemSig(t))
	if err != nil {
		return plumbing.ZeroHash, &mergeOutcome{status: 500, message: err.Error()}
	}
	return result, nil
}

// rebaseCommits replays the head's own non-merge commits onto the base, oldest first, and
// answers the last; a conflict refuses the rebase.
func (r *repo) rebaseCommits(hh, bh plumbing.Hash, t time.Time) (plumbing.Hash, *mergeOutcome) {
	var commits []plumbing.Hash
	log := r.git.Log(hh)
	for i := len(log) - 1; i >= 0; i-- {
		c := log[i]
		if r.git.IsAncestor(c.Hash, bh) || len(c.ParentHashes) > 1 {
			continue
		}
		commits = append(commits, c.Hash)
	}
	onto := bh
	for _, ch := range commits {
		c, err := r.git.Commit(ch)
		if err != nil {
			return plumbing.ZeroHash, &mergeOutcome{status: 500, message: err.Error()}
		}
		var parentTree plumbing.Hash
		if len(c.ParentHashes) == 1 {
			if parentTree, err = r.git.CommitTree(c.ParentHashes[0]); err != nil {
				return plumbing.ZeroHash, &mergeOutcome{status: 500, message: err.Error()}
			}
		}
		ontoTree, err := r.git.CommitTree(onto)
		if err != nil {
			return plumbing.ZeroHash, &mergeOutcome{status: 500, message: err.Error()}
		}
		tree, conflicts, err := r.git.MergeTrees(parentTree, ontoTree, c.TreeHash)
		if err != nil || len(conflicts) > 0 {
			return plumbing.ZeroHash, &mergeOutcome{status: 405, message: "This branch can't be rebased"}
		}
		author := gitstore.Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When}
		if onto, err = r.git.WriteCommit(tree, []plumbing.Hash{onto}, c.Message, author, systemSig(t)); err != nil {
			return plumbing.ZeroHash, &mergeOutcome{status: 500, message: err.Error()}
		}
	}
	return onto, nil
}

var timeZero time.Time

func parseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339, s) }

func (v *validationError) asError() error {
	return fmt.Errorf("fakehub: %s: %s", v.Message, v.detail())
}
