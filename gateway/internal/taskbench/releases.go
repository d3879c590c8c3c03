package taskbench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub"
)

// The release tasks: cutting the next release with GitHub's generated
// notes, and auditing the published releases so that "latest" is a release
// of main. github-mcp-server's release tools only read (list_releases,
// get_latest_release, get_release_by_tag, list_tags, get_tag), so it has no
// way through either task; its reading part of the audit is measured all
// the same, and its script ends with the error an agent would meet.

func init() {
	register(releaseNotesTask(), releaseAuditTask())
}

// The releases the demo publishes (v0.1.0, v0.2.0 at main's tip) and those
// the release tasks add.
const (
	releasePrevious = "v0.2.0"
	releaseNext     = "v0.3.0"
	// releaseStray is published from feature/conflict, which main never
	// merged, and so becomes "latest" by mistake.
	releaseStray = "v0.3.0"
)

// releaseNotesTask: cut the next minor release of main, with notes GitHub
// generates from the pull requests merged since the previous release.
func releaseNotesTask() Task {
	return Task{
		Name:     "release-notes",
		Category: "releases",
		Summary:  "Cut the next minor release of main with generated notes, after finding the previous release's tag.",
		Toolsets: map[Server]string{Ghops: "repos", GMS: "repos"},
		// Since v0.2.0 (main's tip in the demo), the pull request
		// "Document the greet package" was merged: the notes list it.
		Setup: func(h *fakehub.Hub) error {
			var pulls []struct {
				Number int `json:"number"`
			}
			if err := Get(context.Background(), h, "/repos/"+Repo+"/pulls?head="+owner+":feature/clean", &pulls); err != nil {
				return err
			}
			if len(pulls) != 1 {
				return fmt.Errorf("pull requests of feature/clean: %d, want 1", len(pulls))
			}
			return Send(context.Background(), h, "PUT", "/repos/"+Repo+"/pulls/"+strconv.Itoa(pulls[0].Number)+"/merge", map[string]string{"merge_method": "merge"}, nil)
		},
		Scripts: map[Server]Script{Ghops: releaseNotesGhops},
		Gap: map[Server]string{
			GMS: "github-mcp-server has no tool that creates a release or a tag: its release tools list and read " +
				"(get_latest_release finds the previous tag, nothing cuts the next release).",
		},
		Verify: verifyReleaseNotes,
	}
}

// releaseNotesGhops reads the latest release's tag, then creates the next
// minor release of the default branch with generated notes.
func releaseNotesGhops(ctx context.Context, c Caller) error {
	res, err := c.Call(ctx, "get_release", map[string]any{"repo": Repo, "latest": true})
	if err != nil {
		return err
	}
	var latest struct {
		Release struct {
			Tag string `json:"tag"`
		} `json:"release"`
	}
	if err := res.Decode(&latest); err != nil {
		return err
	}
	next, err := nextMinor(latest.Release.Tag)
	if err != nil {
		return err
	}
	res, err = c.Call(ctx, "create_release", map[string]any{"repo": Repo, "tag": next, "generate_notes": true})
	if err != nil {
		return err
	}
	var created struct {
		Release struct {
			Tag  string `json:"tag"`
			Body string `json:"body"`
		} `json:"release"`
	}
	if err := res.Decode(&created); err != nil {
		return err
	}
	if created.Release.Tag != next || created.Release.Body == "" {
		return fmt.Errorf("created release %q with notes %q, want %s with notes", created.Release.Tag, created.Release.Body, next)
	}
	return nil
}

// nextMinor is the tag of the next minor version after tag ("v0.2.0" ->
// "v0.3.0").
func nextMinor(tag string) (string, error) {
	parts := strings.Split(strings.TrimPrefix(tag, "v"), ".")
	if len(parts) != 3 || !strings.HasPrefix(tag, "v") {
		return "", fmt.Errorf("tag %q is not vMAJOR.MINOR.PATCH", tag)
	}
	minor, err := strconv.Atoi(parts[1])
	if err != nil {
		return "", fmt.Errorf("tag %q: %w", tag, err)
	}
	return fmt.Sprintf("v%s.%d.0", parts[0], minor+1), nil
}

// hubRelease is the part of GitHub's release the Verifies read.
type hubRelease struct {
	ID         int64  `json:"id"`
	Tag        string `json:"tag_name"`
	Body       string `json:"body"`
	Draft      bool   `json:"draft"`
	Prerelease bool   `json:"prerelease"`
}

// hubRef is the part of GitHub's git reference the Verifies read.
type hubRef struct {
	Object struct {
		SHA string `json:"sha"`
	} `json:"object"`
}

// verifyReleaseNotes: v0.3.0 is published, its tag is main's head and its
// notes list the merged pull request and compare with v0.2.0.
func verifyReleaseNotes(ctx context.Context, h *fakehub.Hub) error {
	var rel hubRelease
	if err := Get(ctx, h, "/repos/"+Repo+"/releases/tags/"+releaseNext, &rel); err != nil {
		return err
	}
	var errs []error
	if rel.Draft || rel.Prerelease {
		errs = append(errs, fmt.Errorf("%s: draft %v, prerelease %v; want a published release", releaseNext, rel.Draft, rel.Prerelease))
	}
	for _, want := range []string{"Document the greet package", releasePrevious + "..." + releaseNext} {
		if !strings.Contains(rel.Body, want) {
			errs = append(errs, fmt.Errorf("%s's notes %q do not mention %q", releaseNext, rel.Body, want))
		}
	}
	var tag, main hubRef
	if err := Get(ctx, h, "/repos/"+Repo+"/git/ref/tags/"+releaseNext, &tag); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if err := Get(ctx, h, "/repos/"+Repo+"/git/ref/heads/main", &main); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if tag.Object.SHA != main.Object.SHA {
		errs = append(errs, fmt.Errorf("tag %s is %s, want main's head %s", releaseNext, tag.Object.SHA, main.Object.SHA))
	}
	return errors.Join(errs...)
}

// releaseAuditTask: a release was published from a branch main never
// merged and became "latest"; the agent finds every published release whose
// tag is not in main's history and marks it a prerelease, which takes it
// out of "latest".
func releaseAuditTask() Task {
	return Task{
		Name:     "release-audit",
		Category: "releases",
		Summary:  "Find the published releases whose tag is not in main's history and mark them prereleases, so that latest is a release of main.",
		Toolsets: map[Server]string{Ghops: "repos", GMS: "repos"},
		Setup: func(h *fakehub.Hub) error {
			return Send(context.Background(), h, "POST", "/repos/"+Repo+"/releases", map[string]any{
				"tag_name": releaseStray, "target_commitish": "feature/conflict", "name": releaseStray,
				"body": "A casual greeting.",
			}, nil)
		},
		Scripts: map[Server]Script{Ghops: releaseAuditGhops, GMS: releaseAuditGMS},
		Gap: map[Server]string{
			GMS: "github-mcp-server reads releases, tags and commits but has no tool that changes a release: " +
				"its script does the reading part (measured) and stops where update_release would mark the release.",
			Ghops: "the three reads cost both servers 3 requests; ghops's fourth is the update gms cannot make. gms's fields " +
				"parameter cuts list_releases to id, tag, draft and prerelease and list_commits to shas (561 content bytes), where " +
				"ghops lists each release's name, target, author, dates, URL and empty body and each commit's message, author, " +
				"date and parents (1,780)",
		},
		Verify: verifyReleaseAudit,
	}
}

// releaseAuditGhops lists the releases, the tags' commits and main's
// history (the demo's fits one page of 100), then marks each published
// release whose tag's commit main does not hold.
func releaseAuditGhops(ctx context.Context, c Caller) error {
	var rels struct {
		Releases []struct {
			ID         int64  `json:"id"`
			Tag        string `json:"tag"`
			Draft      bool   `json:"draft"`
			Prerelease bool   `json:"prerelease"`
		} `json:"releases"`
	}
	var tags struct {
		Tags []struct {
			Name string `json:"name"`
			SHA  string `json:"sha"`
		} `json:"tags"`
	}
	var commits struct {
		Commits []struct {
			SHA string `json:"sha"`
		} `json:"commits"`
	}
	for _, step := range []struct {
		tool string
		args map[string]any
		out  any
	}{
		{"list_releases", map[string]any{"repo": Repo}, &rels},
		{"list_tags", map[string]any{"repo": Repo}, &tags},
		{"get_commits", map[string]any{"repo": Repo, "branch": "main", "per_page": 100}, &commits},
	} {
		res, err := c.Call(ctx, step.tool, step.args)
		if err != nil {
			return err
		}
		if err := res.Decode(step.out); err != nil {
			return fmt.Errorf("%s: %w", step.tool, err)
		}
	}
	onMain := map[string]bool{}
	for _, cm := range commits.Commits {
		onMain[cm.SHA] = true
	}
	tagSHA := map[string]string{}
	for _, t := range tags.Tags {
		tagSHA[t.Name] = t.SHA
	}
	marked := 0
	for _, rel := range rels.Releases {
		if rel.Draft || rel.Prerelease || onMain[tagSHA[rel.Tag]] {
			continue
		}
		res, err := c.Call(ctx, "update_release", map[string]any{"repo": Repo, "release_id": rel.ID, "prerelease": true})
		if err != nil {
			return err
		}
		if err := res.Decode(&struct{}{}); err != nil {
			return fmt.Errorf("update_release: %w", err)
		}
		marked++
	}
	if marked == 0 {
		return errors.New("no published release has a tag off main's history")
	}
	return nil
}

// releaseAuditGMS does the reading part with github-mcp-server's tools,
// asking only for the fields the audit needs, and finds the releases to
// mark; it has no tool to mark them.
func releaseAuditGMS(ctx context.Context, c Caller) error {
	var rels []struct {
		ID         int64  `json:"id"`
		Tag        string `json:"tag_name"`
		Draft      bool   `json:"draft"`
		Prerelease bool   `json:"prerelease"`
	}
	var tags []struct {
		Name string `json:"name"`
		SHA  string `json:"sha"`
	}
	var commits []struct {
		SHA string `json:"sha"`
	}
	for _, step := range []struct {
		tool string
		args map[string]any
		out  any
	}{
		{"list_releases", map[string]any{"owner": owner, "repo": name, "fields": []string{"id", "tag_name", "draft", "prerelease"}}, &rels},
		{"list_tags", map[string]any{"owner": owner, "repo": name}, &tags},
		{"list_commits", map[string]any{"owner": owner, "repo": name, "sha": "main", "perPage": 100, "fields": []string{"sha"}}, &commits},
	} {
		res, err := c.Call(ctx, step.tool, step.args)
		if err != nil {
			return err
		}
		if err := res.Decode(step.out); err != nil {
			return fmt.Errorf("%s: %w", step.tool, err)
		}
	}
	onMain := map[string]bool{}
	for _, cm := range commits {
		onMain[cm.SHA] = true
	}
	tagSHA := map[string]string{}
	for _, t := range tags {
		tagSHA[t.Name] = t.SHA
	}
	var found []string
	for _, rel := range rels {
		if !rel.Draft && !rel.Prerelease && !onMain[tagSHA[rel.Tag]] {
			found = append(found, rel.Tag)
		}
	}
	return fmt.Errorf("found %v to mark as prereleases, but github-mcp-server has no tool that changes a release", found)
}

// verifyReleaseAudit: the stray release is a prerelease, the demo's
// releases are not, and latest is main's v0.2.0 again.
func verifyReleaseAudit(ctx context.Context, h *fakehub.Hub) error {
	var rels []hubRelease
	if err := Get(ctx, h, "/repos/"+Repo+"/releases", &rels); err != nil {
		return err
	}
	var errs []error
	for _, rel := range rels {
		if want := rel.Tag == releaseStray; rel.Prerelease != want {
			errs = append(errs, fmt.Errorf("%s: prerelease %v, want %v", rel.Tag, rel.Prerelease, want))
		}
	}
	var latest hubRelease
	if err := Get(ctx, h, "/repos/"+Repo+"/releases/latest", &latest); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if latest.Tag != releasePrevious {
		errs = append(errs, fmt.Errorf("latest is %s, want %s", latest.Tag, releasePrevious))
	}
	return errors.Join(errs...)
}
