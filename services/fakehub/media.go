package fakehub

import (
	"mime"
	"path"
	"strings"
)

// GitHub's custom media types (docs.github.com, "Media types"): a client asks for another
// representation with Accept: application/vnd.github[.v3].PARAM[+json]. fakehub honours the ones
// of the operations it serves: raw for blobs and contents, object for contents.
const (
	mediaRaw    = "raw"
	mediaObject = "object"
	// rawContentType is what GitHub answers raw data with, whatever the file holds.
	rawContentType = "application/vnd.github.raw"
)

// mediaParam is the custom media type parameter the request's Accept header asks for ("raw",
// "object", "html", ...), or "" for the default JSON representation. The first vnd.github type
// with a parameter wins, as GitHub reads one representation per request.
func mediaParam(accept string) string {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		rest, ok := strings.CutPrefix(mt, "application/vnd.github.")
		if !ok {
			continue
		}
		rest = strings.TrimSuffix(rest, "+json")
		rest = strings.TrimPrefix(strings.TrimPrefix(rest, "v3"), ".")
		if rest != "" {
			return rest
		}
	}
	return ""
}

// rawReply answers data in the raw media type, as GitHub does for blobs and files asked for raw.
func rawReply(data []byte) *reply {
	if data == nil {
		data = []byte{} // an empty file is still a body, not "no body"
	}
	rep := &reply{status: 200, raw: data, ctype: rawContentType}
	rep.setHeader("X-GitHub-Media-Type", "github.v3; param=raw")
	return rep
}

// symlinkTarget resolves a symlink's text against the directory holding it, as git does, and
// reports the repository path it names; ok is false when it leaves the repository.
func symlinkTarget(linkPath, text string) (string, bool) {
	if strings.HasPrefix(text, "/") {
		return "", false
	}
	p := path.Join(path.Dir(linkPath), text)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", false
	}
	return p, true
}
