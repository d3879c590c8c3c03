// Package gitstore provides an in-memory git repository (objects and refs, via go-git's memory storage)
// with the operations a hosting service needs: building trees from paths, committing, ancestry,
// merge bases and tree-level three-way merges.
package gitstore

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"

	"ghops.dev/services/fakehub/internal/merge3"
)

// ErrNotFound reports a missing object or ref.
var ErrNotFound = errors.New("gitstore: not found")

// Repo is one in-memory git repository. It is not safe for concurrent use; callers serialise access.
type Repo struct {
	st *memory.Storage
}

// New returns an empty repository.
func New() *Repo { return &Repo{st: memory.NewStorage()} }

// Entry is a file in a flattened tree.
type Entry struct {
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// Signature is a commit author or committer.
type Signature struct {
	Name, Email string
	When        time.Time
}

// WriteBlob stores data as a blob and returns its id.
func (r *Repo) WriteBlob(data []byte) (plumbing.Hash, error) {
	obj := r.st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return r.st.SetEncodedObject(obj)
}

// Blob returns the contents of a blob.
func (r *Repo) Blob(h plumbing.Hash) ([]byte, error) {
	obj, err := r.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, ErrNotFound
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// BlobSize returns the size of a blob.
func (r *Repo) BlobSize(h plumbing.Hash) (int64, error) {
	obj, err := r.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return 0, ErrNotFound
	}
	return obj.Size(), nil
}

// ObjectType returns the type of a stored object.
func (r *Repo) ObjectType(h plumbing.Hash) (plumbing.ObjectType, error) {
	obj, err := r.st.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return plumbing.InvalidObject, ErrNotFound
	}
	return obj.Type(), nil
}

// Tree returns a tree object.
func (r *Repo) Tree(h plumbing.Hash) (*object.Tree, error) {
	t, err := object.GetTree(r.st, h)
	if err != nil {
		return nil, ErrNotFound
	}
	return t, nil
}

// Commit returns a commit object.
func (r *Repo) Commit(h plumbing.Hash) (*object.Commit, error) {
	c, err := object.GetCommit(r.st, h)
	if err != nil {
		return nil, ErrNotFound
	}
	return c, nil
}

// Flatten lists every file below a tree by its slash-separated path.
func (r *Repo) Flatten(tree plumbing.Hash) (map[string]Entry, error) {
	out := map[string]Entry{}
	if tree.IsZero() {
		return out, nil
	}
	err := r.flatten(tree, "", out)
	return out, err
}

func (r *Repo) flatten(h plumbing.Hash, prefix string, out map[string]Entry) error {
	t, err := r.Tree(h)
	if err != nil {
		return err
	}
	for _, e := range t.Entries {
		p := prefix + e.Name
		if e.Mode == filemode.Dir {
			if err := r.flatten(e.Hash, p+"/", out); err != nil {
				return err
			}
			continue
		}
		out[p] = Entry{Mode: e.Mode, Hash: e.Hash}
	}
	return nil
}

// WriteTree stores the nested trees for a flat set of files and returns the root tree id. An empty
// set yields git's empty tree.
func (r *Repo) WriteTree(files map[string]Entry) (plumbing.Hash, error) {
	type dir struct {
		files map[string]Entry
		dirs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]Entry{}, dirs: map[string]*dir{}} }
	root := newDir()
	for p, e := range files {
		parts := strings.Split(strings.Trim(p, "/"), "/")
		d := root
		for _, part := range parts[:len(parts)-1] {
			sub, ok := d.dirs[part]
			if !ok {
				sub = newDir()
				d.dirs[part] = sub
			}
			d = sub
		}
		d.files[parts[len(parts)-1]] = e
	}
	var write func(d *dir) (plumbing.Hash, error)
	write = func(d *dir) (plumbing.Hash, error) {
		var entries []object.TreeEntry
		for name, e := range d.files {
			if _, clash := d.dirs[name]; clash {
				return plumbing.ZeroHash, fmt.Errorf("gitstore: %q is both a file and a directory", name)
			}
			entries = append(entries, object.TreeEntry{Name: name, Mode: e.Mode, Hash: e.Hash})
		}
		for name, sub := range d.dirs {
			h, err := write(sub)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
		// git orders entries by name, comparing a directory as if its name ended in "/".
		key := func(e object.TreeEntry) string {
			if e.Mode == filemode.Dir {
				return e.Name + "/"
			}
			return e.Name
		}
		sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
		t := &object.Tree{Entries: entries}
		obj := r.st.NewEncodedObject()
		if err := t.Encode(obj); err != nil {
			return plumbing.ZeroHash, err
		}
		return r.st.SetEncodedObject(obj)
	}
	return write(root)
}

// WriteFiles stores text files as blobs (mode 100644) and returns the flat entry set.
func (r *Repo) WriteFiles(files map[string]string) (map[string]Entry, error) {
	out := make(map[string]Entry, len(files))
	for p, c := range files {
		h, err := r.WriteBlob([]byte(c))
		if err != nil {
			return nil, err
		}
		out[p] = Entry{Mode: filemode.Regular, Hash: h}
	}
	return out, nil
}

// WriteCommit stores a commit and returns its id.
func (r *Repo) WriteCommit(tree plumbing.Hash, parents []plumbing.Hash, message string, author, committer Signature) (plumbing.Hash, error) {
	c := &object.Commit{
		Author:       object.Signature{Name: author.Name, Email: author.Email, When: author.When},
		Committer:    object.Signature{Name: committer.Name, Email: committer.Email, When: committer.When},
		Message:      message,
		TreeHash:     tree,
		ParentHashes: parents,
	}
	obj := r.st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return r.st.SetEncodedObject(obj)
}

// SetRef points a full ref name (refs/heads/main) at a commit.
func (r *Repo) SetRef(name string, h plumbing.Hash) error {
	return r.st.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(name), h))
}

// DeleteRef removes a ref.
func (r *Repo) DeleteRef(name string) error {
	return r.st.RemoveReference(plumbing.ReferenceName(name))
}

// Ref resolves a full ref name.
func (r *Repo) Ref(name string) (plumbing.Hash, error) {
	ref, err := r.st.Reference(plumbing.ReferenceName(name))
	if err != nil || ref.Type() != plumbing.HashReference {
		return plumbing.ZeroHash, ErrNotFound
	}
	return ref.Hash(), nil
}

// Refs lists all refs with the given prefix (e.g. "refs/heads/"), sorted by name.
func (r *Repo) Refs(prefix string) (map[string]plumbing.Hash, []string) {
	m := map[string]plumbing.Hash{}
	var names []string
	iter, err := r.st.IterReferences()
	if err != nil {
		return m, nil
	}
	_ = iter.ForEach(func(ref *plumbing.Reference) error {
		n := ref.Name().String()
		if ref.Type() == plumbing.HashReference && strings.HasPrefix(n, prefix) {
			m[n] = ref.Hash()
			names = append(names, n)
		}
		return nil
	})
	sort.Strings(names)
	return m, names
}

// IsAncestor reports whether a is b or an ancestor of b.
func (r *Repo) IsAncestor(a, b plumbing.Hash) bool {
	seen := map[plumbing.Hash]bool{}
	stack := []plumbing.Hash{b}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if h == a {
			return true
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := r.Commit(h)
		if err != nil {
			continue
		}
		stack = append(stack, c.ParentHashes...)
	}
	return false
}

// Ancestors returns the set of commits reachable from h, h included.
func (r *Repo) Ancestors(h plumbing.Hash) map[plumbing.Hash]bool {
	seen := map[plumbing.Hash]bool{}
	stack := []plumbing.Hash{h}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		if c, err := r.Commit(x); err == nil {
			stack = append(stack, c.ParentHashes...)
		}
	}
	return seen
}

// MergeBase returns a best common ancestor of a and b (the nearest to b in breadth-first order), or
// the zero hash when the histories are unrelated.
func (r *Repo) MergeBase(a, b plumbing.Hash) plumbing.Hash {
	anc := r.Ancestors(a)
	seen := map[plumbing.Hash]bool{}
	queue := []plumbing.Hash{b}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if anc[h] {
			return h
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		if c, err := r.Commit(h); err == nil {
			queue = append(queue, c.ParentHashes...)
		}
	}
	return plumbing.ZeroHash
}

// Log lists the commits reachable from h, newest committer date first (ties by id), as `git log`
// does by default.
func (r *Repo) Log(h plumbing.Hash) []*object.Commit {
	var out []*object.Commit
	for x := range r.Ancestors(h) {
		if c, err := r.Commit(x); err == nil {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		ti, tj := out[i].Committer.When, out[j].Committer.When
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		// Same second: a descendant first.
		if r.isParent(out[j].Hash, out[i]) {
			return true
		}
		if r.isParent(out[i].Hash, out[j]) {
			return false
		}
		return out[i].Hash.String() < out[j].Hash.String()
	})
	return out
}

func (r *Repo) isParent(p plumbing.Hash, c *object.Commit) bool {
	for _, x := range c.ParentHashes {
		if x == p {
			return true
		}
	}
	return false
}

// CommitTree returns the root tree of a commit.
func (r *Repo) CommitTree(h plumbing.Hash) (plumbing.Hash, error) {
	c, err := r.Commit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// MergeTrees merges the changes from base to ours and base to theirs file by file, merging the lines
// of files both sides changed. It returns the merged tree and the paths that conflict; on conflict
// the tree is zero.
func (r *Repo) MergeTrees(base, ours, theirs plumbing.Hash) (plumbing.Hash, []string, error) {
	fb, err := r.Flatten(base)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	fo, err := r.Flatten(ours)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	ft, err := r.Flatten(theirs)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	paths := map[string]bool{}
	for _, m := range []map[string]Entry{fb, fo, ft} {
		for p := range m {
			paths[p] = true
		}
	}
	out := map[string]Entry{}
	var conflicts []string
	for p := range paths {
		b, inB := fb[p]
		o, inO := fo[p]
		t, inT := ft[p]
		switch {
		case inO == inT && o == t:
			if inO {
				out[p] = o
			}
		case inB == inO && b == o:
			if inT {
				out[p] = t
			}
		case inB == inT && b == t:
			if inO {
				out[p] = o
			}
		case inO && inT && o.Mode == t.Mode:
			var bb []byte
			if inB {
				if bb, err = r.Blob(b.Hash); err != nil {
					return plumbing.ZeroHash, nil, err
				}
			}
			ob, err := r.Blob(o.Hash)
			if err != nil {
				return plumbing.ZeroHash, nil, err
			}
			tb, err := r.Blob(t.Hash)
			if err != nil {
				return plumbing.ZeroHash, nil, err
			}
			res := merge3.Merge(bb, ob, tb, merge3.Labels{})
			if res.Conflicts > 0 {
				conflicts = append(conflicts, p)
				continue
			}
			h, err := r.WriteBlob(res.Content)
			if err != nil {
				return plumbing.ZeroHash, nil, err
			}
			out[p] = Entry{Mode: o.Mode, Hash: h}
		default:
			// modify/delete, or a mode change on both sides.
			conflicts = append(conflicts, p)
		}
	}
	if len(conflicts) > 0 {
		sort.Strings(conflicts)
		return plumbing.ZeroHash, conflicts, nil
	}
	h, err := r.WriteTree(out)
	return h, nil, err
}

// Clone returns a copy of r with every object and ref, sharing nothing with it: a fork's
// repository, whose later commits and refs stay its own.
func (r *Repo) Clone() (*Repo, error) {
	out := New()
	objs, err := r.st.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		return nil, err
	}
	if err := objs.ForEach(func(o plumbing.EncodedObject) error {
		_, err := out.st.SetEncodedObject(o)
		return err
	}); err != nil {
		return nil, err
	}
	refs, err := r.st.IterReferences()
	if err != nil {
		return nil, err
	}
	if err := refs.ForEach(out.st.SetReference); err != nil {
		return nil, err
	}
	return out, nil
}
