package hub

import (
	"mime"
	"path"
	"strings"
)

// MediaParam is the custom media type parameter the request's Accept header asks for ("raw",
// "object", "html", ...), or "" for the default JSON representation. The first vnd.github type
// with a parameter wins, as GitHub reads one representation per request.
func MediaParam(accept string) string {
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

// SymlinkTarget resolves a symlink's text against the directory holding it, as git does, and
// reports the repository path it names; ok is false when it leaves the repository.
func SymlinkTarget(linkPath, text string) (string, bool) {
	if strings.HasPrefix(text, "/") {
		return "", false
	}
	p := path.Join(path.Dir(linkPath), text)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", false
	}
	return p, true
}
