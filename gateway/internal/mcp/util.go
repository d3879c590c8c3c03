package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"ghops.dev/gateway/internal/rpcerror"
)

// toString renders a recovered panic value for the log.
func toString(p any) string { return fmt.Sprint(p) }

// asMaxBytes reports whether err is the body-size error of MaxBytesReader.
func asMaxBytes(err error, target **http.MaxBytesError) bool { return errors.As(err, target) }

// compactInto writes raw JSON without insignificant whitespace.
func compactInto(b *bytes.Buffer, raw []byte) error { return json.Compact(b, raw) }

// newTooLarge is the -32600 of a message over the size limit.
func newTooLarge(limit int64) *rpcerror.Error {
	e := rpcerror.New(rpcerror.InvalidRequest, "")
	e.Message = "Request body exceeds " + strconv.FormatInt(limit, 10) + " bytes"
	return e
}
