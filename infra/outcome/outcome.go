// Package outcome is the one wording of a write whose outcome is unknown
// (docs/errors.md, "Outcome unknown"): the request was sent and its answer
// lost, so the write may have landed. The gateway puts it in its error and
// audit record (gateway/internal/rpcerror), and the Go client in the error
// of a write whose own HTTP answer was lost (client/errors.go); both read
// it from here so that what a caller is told to do cannot drift apart.
package outcome

const (
	// Unknown is data.outcome, and the audit record's outcome, of a write
	// whose answer was lost after it was sent.
	Unknown = "unknown"
	// Message is the message of such an error.
	Message = "Outcome unknown: the write may have landed"
	// Check says how to find out before retrying (data.check).
	Check = "The answer was lost after the write was sent, so it may have been applied. " +
		"Before retrying, read the state it would have changed: the branch head (get_branches) or its latest " +
		"commits (get_commits) for commit_files and apply_patch, the pull request (list_pull_requests, " +
		"get_pr_mergeability) for the pull request tools."
)
