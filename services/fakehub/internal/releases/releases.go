// Package releases serves fakehub's release and tag routes: a repository's releases (listed,
// read by id, tag or as the latest, created with or without generated notes, changed) and its
// tags, as GitHub's REST API answers them.
package releases

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"ghops.dev/services/fakehub/internal/hub"
)

// areaKey is the releases' entry in hub.Areas.
const areaKey = "releases"

// Release is one release of a repository.
type Release struct {
	ID                 int64
	Tag, Target, Name  string
	Body, Author       string
	Draft, Prerelease  bool
	Created, Published time.Time
}

// store is every repository's releases, by lower-cased full name, oldest first. Release ids are
// a sequence of their own (GitHub's releases are a table of their own), so that adding the demo's
// releases moves no other object's id.
type store struct {
	byRepo map[string][]*Release
	lastID int64
}

// firstID precedes the first release id.
const firstID = 4_100_000

// of returns r's releases without creating the store: reads run under the shared lock.
func of(h *hub.Hub, r *hub.Repo) []*Release {
	if s, ok := h.Areas[areaKey].(*store); ok {
		return s.byRepo[hub.RepoKey(r.FullName())]
	}
	return nil
}

// add records rel on r with the next release id; the caller holds h.Mu exclusively.
func add(h *hub.Hub, r *hub.Repo, rel *Release) {
	if h.Areas == nil {
		h.Areas = map[string]any{}
	}
	s, ok := h.Areas[areaKey].(*store)
	if !ok {
		s = &store{byRepo: map[string][]*Release{}, lastID: firstID}
		h.Areas[areaKey] = s
	}
	s.lastID++
	rel.ID = s.lastID
	k := hub.RepoKey(r.FullName())
	s.byRepo[k] = append(s.byRepo[k], rel)
}

type api struct{ *hub.Hub }

// Register adds this area's routes to h through add (see hub.New). latest and tags/{tag} come
// before {release_id}, which would match them too.
func Register(h *hub.Hub, add hub.AddFunc) {
	a := &api{h}
	add("GET", "/repos/{owner}/{repo}/releases", h.WithRepo(hub.PermRead, a.list))
	add("POST", "/repos/{owner}/{repo}/releases", h.WithRepo(hub.PermWrite, a.create))
	add("GET", "/repos/{owner}/{repo}/releases/latest", h.WithRepo(hub.PermRead, a.latest))
	add("GET", "/repos/{owner}/{repo}/releases/tags/{tag}", h.WithRepo(hub.PermRead, a.byTag))
	add("GET", "/repos/{owner}/{repo}/releases/{release_id}", h.WithRepo(hub.PermRead, a.byID))
	add("PATCH", "/repos/{owner}/{repo}/releases/{release_id}", h.WithRepo(hub.PermWrite, a.update))
	add("GET", "/repos/{owner}/{repo}/tags", h.WithRepo(hub.PermRead, a.tags))
}

// AddLocked records a published release of tag at target (a branch or commit), creating the tag
// when it is missing; the seed's way in. It is dated by the target's commit and takes neither an
// object id nor a tick of the hub's clock, so that seeding it changes nothing else. The caller
// holds h.Mu exclusively.
func AddLocked(h *hub.Hub, r *hub.Repo, tag, target, name, body, author string, prerelease bool) (*Release, error) {
	sha, ok := r.Resolve(target)
	if !ok {
		return nil, fmt.Errorf("fakehub: release target %q not found", target)
	}
	cm, err := r.Git.Commit(sha)
	if err != nil {
		return nil, err
	}
	at := cm.Committer.When.UTC()
	rel := &Release{Tag: tag, Target: target, Name: name, Body: body, Author: author, Prerelease: prerelease, Created: at, Published: at}
	if err := tagAt(r, tag, target); err != nil {
		return nil, err
	}
	add(h, r, rel)
	return rel, nil
}

// tagAt creates refs/tags/tag at target unless the tag exists.
func tagAt(r *hub.Repo, tag, target string) error {
	if _, err := r.Git.Ref("refs/tags/" + tag); err == nil {
		return nil
	}
	sha, ok := r.Resolve(target)
	if !ok {
		return fmt.Errorf("fakehub: release target %q not found", target)
	}
	return r.Git.SetRef("refs/tags/"+tag, sha)
}

// visible reports whether the caller may see rel: drafts only with push access, as on GitHub.
func (a *api) visible(c *hub.ReqCtx, r *hub.Repo, rel *Release) bool {
	return !rel.Draft || a.Perm(c.Tok, r) == hub.PermWrite
}

// obj renders rel as GitHub's release shape.
func (a *api) obj(c *hub.ReqCtx, r *hub.Repo, rel *Release) hub.Obj {
	u := c.RepoURL(r) + "/releases/" + strconv.FormatInt(rel.ID, 10)
	var published any
	if !rel.Draft {
		published = hub.Ts(rel.Published)
	}
	var name, body any
	if rel.Name != "" {
		name = rel.Name
	}
	if rel.Body != "" {
		body = rel.Body
	}
	html := c.Web + "/" + r.FullName() + "/releases/tag/" + rel.Tag
	if rel.Draft {
		html = c.Web + "/" + r.FullName() + "/releases/tag/untagged-" + strconv.FormatInt(rel.ID, 10)
	}
	return hub.Obj{
		"url": u, "html_url": html, "assets_url": u + "/assets",
		"upload_url":  strings.Replace(c.RepoURL(r), "http://", "http://uploads.", 1) + "/releases/" + strconv.FormatInt(rel.ID, 10) + "/assets{?name,label}",
		"tarball_url": c.RepoURL(r) + "/tarball/" + rel.Tag, "zipball_url": c.RepoURL(r) + "/zipball/" + rel.Tag,
		"id": rel.ID, "node_id": hub.NodeID("Release", rel.ID), "tag_name": rel.Tag, "target_commitish": rel.Target,
		"name": name, "body": body, "draft": rel.Draft, "prerelease": rel.Prerelease,
		"created_at": hub.Ts(rel.Created), "published_at": published, "author": c.UserObj(rel.Author), "assets": []hub.Obj{},
	}
}

// newestFirst orders releases as GitHub lists them: by creation, newest first.
func newestFirst(rels []*Release) []*Release {
	out := append([]*Release(nil), rels...)
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Created.After(out[j].Created) || out[i].Created.Equal(out[j].Created) && out[i].ID > out[j].ID
	})
	return out
}

// list answers GET /repos/{owner}/{repo}/releases.
func (a *api) list(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	var seen []*Release
	for _, rel := range newestFirst(of(a.Hub, r)) {
		if a.visible(c, r, rel) {
			seen = append(seen, rel)
		}
	}
	return hub.PageReply(c, seen, func(rel *Release) hub.Obj { return a.obj(c, r, rel) })
}

// latest answers GET /repos/{owner}/{repo}/releases/latest: the newest published release that
// is neither a draft nor a prerelease.
func (a *api) latest(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	var best *Release
	for _, rel := range of(a.Hub, r) {
		if !rel.Draft && !rel.Prerelease && (best == nil || !rel.Published.Before(best.Published)) {
			best = rel
		}
	}
	if best == nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, a.obj(c, r, best))
}

// byTag answers GET /repos/{owner}/{repo}/releases/tags/{tag}: published releases only.
func (a *api) byTag(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	for _, rel := range of(a.Hub, r) {
		if !rel.Draft && rel.Tag == c.Params["tag"] {
			return hub.OkReply(200, a.obj(c, r, rel))
		}
	}
	return hub.NotFound()
}

// byIDOf resolves {release_id} to a release the caller may see.
func (a *api) byIDOf(c *hub.ReqCtx, r *hub.Repo) *Release {
	id, err := strconv.ParseInt(c.Params["release_id"], 10, 64)
	if err != nil {
		return nil
	}
	for _, rel := range of(a.Hub, r) {
		if rel.ID == id && a.visible(c, r, rel) {
			return rel
		}
	}
	return nil
}

// byID answers GET /repos/{owner}/{repo}/releases/{release_id}.
func (a *api) byID(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	rel := a.byIDOf(c, r)
	if rel == nil {
		return hub.NotFound()
	}
	return hub.OkReply(200, a.obj(c, r, rel))
}

// input is the body of POST and PATCH; a member of the wrong JSON type fails decoding (400).
type input struct {
	TagName              *string `json:"tag_name"`
	TargetCommitish      *string `json:"target_commitish"`
	Name                 *string `json:"name"`
	Body                 *string `json:"body"`
	Draft                *bool   `json:"draft"`
	Prerelease           *bool   `json:"prerelease"`
	GenerateReleaseNotes *bool   `json:"generate_release_notes"`
}

// invalid is GitHub's 422 naming a release field.
func invalid(field, code string) *hub.Reply {
	return hub.Validation(hub.Invalid("Release", field, code, ""))
}

// tagTaken reports whether another release of r has tag.
func tagTaken(rels []*Release, tag string, except *Release) bool {
	for _, rel := range rels {
		if rel != except && rel.Tag == tag {
			return true
		}
	}
	return false
}

// checkTag refuses a tag name git would not accept.
func checkTag(tag string) bool {
	return tag != "" && !strings.ContainsAny(tag, " ~^:?*[\\") && !strings.Contains(tag, "..") &&
		!strings.HasPrefix(tag, "/") && !strings.HasSuffix(tag, "/") && !strings.HasSuffix(tag, ".lock")
}

// create answers POST /repos/{owner}/{repo}/releases: 422 already_exists for a tag another
// release has, 422 for a missing tag_name or a target that names nothing.
func (a *api) create(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	var in input
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.TagName == nil || strings.TrimSpace(*in.TagName) == "" {
		return invalid("tag_name", "missing_field")
	}
	tag := *in.TagName
	if !checkTag(tag) {
		return invalid("tag_name", "invalid")
	}
	rels := of(a.Hub, r)
	if tagTaken(rels, tag, nil) {
		return invalid("tag_name", "already_exists")
	}
	target := r.Opts.DefaultBranch
	if in.TargetCommitish != nil && *in.TargetCommitish != "" {
		target = *in.TargetCommitish
	}
	if _, err := r.Git.Ref("refs/tags/" + tag); err != nil {
		if _, ok := r.Resolve(target); !ok {
			return invalid("target_commitish", "invalid")
		}
	}
	now := a.Stamp()
	rel := &Release{Tag: tag, Target: target, Author: c.Tok.Login, Created: now}
	if in.Draft != nil {
		rel.Draft = *in.Draft
	}
	if in.Prerelease != nil {
		rel.Prerelease = *in.Prerelease
	}
	if in.Name != nil {
		rel.Name = *in.Name
	}
	if in.Body != nil {
		rel.Body = *in.Body
	}
	if in.GenerateReleaseNotes != nil && *in.GenerateReleaseNotes {
		notes := a.notes(c, r, rels, tag, target)
		if rel.Name == "" {
			rel.Name = tag
		}
		if rel.Body != "" {
			rel.Body += "\n\n"
		}
		rel.Body += notes
	}
	if !rel.Draft {
		rel.Published = now
		if err := tagAt(r, tag, target); err != nil {
			return invalid("target_commitish", "invalid")
		}
	}
	add(a.Hub, r, rel)
	rep := hub.OkReply(201, a.obj(c, r, rel))
	rep.SetHeader("Location", c.RepoURL(r)+"/releases/"+strconv.FormatInt(rel.ID, 10))
	return rep
}

// notes writes GitHub's generated release notes: the pull requests merged into target (its
// branch, or a head the target's history holds) since the previous published release, then the
// changelog link.
func (a *api) notes(c *hub.ReqCtx, r *hub.Repo, rels []*Release, tag, target string) string {
	var prev *Release
	for _, rel := range rels {
		if !rel.Draft && (prev == nil || rel.Published.After(prev.Published)) {
			prev = rel
		}
	}
	head, _ := r.Resolve(target)
	reach := r.Git.Ancestors(head)
	var b strings.Builder
	for _, p := range r.Pulls {
		if !p.Merged || prev != nil && !p.ClosedAt.After(prev.Published) {
			continue
		}
		sha, _ := r.PullSHAs(p)
		if p.Base != target && !(hub.HexSHA.MatchString(sha) && reach[plumbing.NewHash(sha)]) {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("## What's Changed\n")
		}
		fmt.Fprintf(&b, "* %s by @%s in %s/%s/pull/%d\n", p.Title, p.Author(), c.Web, r.FullName(), p.Number)
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	if prev != nil {
		fmt.Fprintf(&b, "**Full Changelog**: %s/%s/compare/%s...%s", c.Web, r.FullName(), prev.Tag, tag)
	} else {
		fmt.Fprintf(&b, "**Full Changelog**: %s/%s/commits/%s", c.Web, r.FullName(), tag)
	}
	return b.String()
}

// update answers PATCH /repos/{owner}/{repo}/releases/{release_id}: only the members sent change;
// publishing a draft creates its tag.
func (a *api) update(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	rel := a.byIDOf(c, r)
	if rel == nil {
		return hub.NotFound()
	}
	var in input
	if bad := hub.Decode(c, &in); bad != nil {
		return bad
	}
	if in.TagName != nil {
		if !checkTag(*in.TagName) {
			return invalid("tag_name", "invalid")
		}
		if tagTaken(of(a.Hub, r), *in.TagName, rel) {
			return invalid("tag_name", "already_exists")
		}
	}
	if in.TargetCommitish != nil {
		if _, ok := r.Resolve(*in.TargetCommitish); !ok {
			return invalid("target_commitish", "invalid")
		}
	}
	ch := *rel
	if in.TagName != nil {
		ch.Tag = *in.TagName
	}
	if in.TargetCommitish != nil {
		ch.Target = *in.TargetCommitish
	}
	if in.Name != nil {
		ch.Name = *in.Name
	}
	if in.Body != nil {
		ch.Body = *in.Body
	}
	if in.Prerelease != nil {
		ch.Prerelease = *in.Prerelease
	}
	if in.Draft != nil {
		ch.Draft = *in.Draft
	}
	if !ch.Draft {
		if rel.Draft || ch.Published.IsZero() {
			ch.Published = a.Stamp()
		}
		if err := tagAt(r, ch.Tag, ch.Target); err != nil {
			return invalid("target_commitish", "invalid")
		}
	}
	*rel = ch
	return hub.OkReply(200, a.obj(c, r, rel))
}

// tags answers GET /repos/{owner}/{repo}/tags: newest name first, as GitHub sorts them.
func (a *api) tags(c *hub.ReqCtx, r *hub.Repo) *hub.Reply {
	refs, names := r.Git.Refs("refs/tags/")
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	return hub.PageReply(c, names, func(n string) hub.Obj {
		tag := strings.TrimPrefix(n, "refs/tags/")
		sha := refs[n].String()
		return hub.Obj{"name": tag, "node_id": hub.NodeID("Ref", int64(len(n))),
			"commit":      hub.Obj{"sha": sha, "url": c.RepoURL(r) + "/commits/" + sha},
			"zipball_url": c.RepoURL(r) + "/zipball/refs/tags/" + tag, "tarball_url": c.RepoURL(r) + "/tarball/refs/tags/" + tag}
	})
}
