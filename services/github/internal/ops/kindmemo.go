package ops

import (
	"strconv"
	"strings"
	"sync"
	"time"
)

// The issue tools check a number's kind before they write (kinds.go),
// which costs a GET per write. Most writes follow an answer of GitHub's
// that already said what the number is: a list or a search the agent
// read, the issue or pull request it just created, an earlier check. The
// service remembers those answers for kindTTL and lets a write skip the
// GET when the number is known to be of the tool's kind; anything else
// (unknown, expired, the other kind) makes the GET as before, so a
// refusal always rests on GitHub's answer of the moment. The only change
// GitHub allows to a number's kind is an issue turned into a pull request
// (POST /pulls with "issue"); kindTTL bounds how long a write could act on
// such a number as on the issue it was. Nothing is skipped but the
// check: the write itself is GitHub's to authorize for the caller's
// token, so an entry learnt from one caller's answer gives another
// nothing GitHub would not.

// kindTTL is how long a number's kind is taken as known.
const kindTTL = 10 * time.Minute

// kindMemoMax bounds the entries; when full, the memo starts again empty
// (it is a saving, not a record).
const kindMemoMax = 100_000

// kindEntry is what GitHub last said number n is: an issue with its id,
// or a pull request.
type kindEntry struct {
	id   int64
	pull bool
	at   time.Time
}

// issueKinds is the memo of numbers' kinds, by repository (case folded,
// as GitHub's names are) and number. A nil *issueKinds remembers nothing.
type issueKinds struct {
	mu  sync.Mutex
	m   map[string]kindEntry
	now func() time.Time
}

// newIssueKinds returns an empty memo on the wall clock.
func newIssueKinds() *issueKinds {
	return &issueKinds{m: map[string]kindEntry{}, now: time.Now}
}

func kindKey(repo string, n int) string { return strings.ToLower(repo) + "#" + strconv.Itoa(n) }

// put records that number n of repo is a pull request (pull) or the
// issue with id; an empty repo (an answer whose repository could not be
// read) is ignored.
func (k *issueKinds) put(repo string, n int, id int64, pull bool) {
	if k == nil || repo == "" || n <= 0 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.m) >= kindMemoMax {
		k.m = map[string]kindEntry{}
	}
	k.m[kindKey(repo, n)] = kindEntry{id: id, pull: pull, at: k.now()}
}

// known says what number n of repo is, if an answer of GitHub's said so
// within kindTTL.
func (k *issueKinds) known(repo string, n int) (kindEntry, bool) {
	if k == nil {
		return kindEntry{}, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	e, ok := k.m[kindKey(repo, n)]
	if !ok || k.now().Sub(e.at) > kindTTL {
		return kindEntry{}, false
	}
	return e, true
}
