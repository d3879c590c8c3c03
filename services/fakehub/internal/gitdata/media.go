package gitdata

import (
	"ghops.dev/services/fakehub/internal/hub"
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

// rawReply answers data in the raw media type, as GitHub does for blobs and files asked for raw.
func rawReply(data []byte) *hub.Reply {
	if data == nil {
		data = []byte{} // an empty file is still a body, not "no body"
	}
	rep := &hub.Reply{Status: 200, Raw: data, Ctype: rawContentType}
	rep.SetHeader("X-GitHub-Media-Type", "github.v3; param=raw")
	return rep
}
