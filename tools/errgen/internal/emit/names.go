package emit

import (
	"strings"

	"ghops.dev/tools/errgen/internal/contract"
)

// initialisms are the words Go spells in one case (and GitHub, a name).
var initialisms = map[string]string{
	"API": "API", "GITHUB": "GitHub", "HTTP": "HTTP", "ID": "ID", "JSON": "JSON",
	"PR": "PR", "RPC": "RPC", "SHA": "SHA", "URL": "URL",
}

// GoName turns an enum value suffix (NOT_FOUND) into a Go name (NotFound).
func GoName(suffix string) string {
	var b strings.Builder
	for _, w := range strings.Split(suffix, "_") {
		if w == "" {
			continue
		}
		if s, ok := initialisms[w]; ok {
			b.WriteString(s)
			continue
		}
		b.WriteString(w[:1] + strings.ToLower(w[1:]))
	}
	return b.String()
}

// The exported names that predate the generator and differ from the rule,
// by ErrorCode suffix. They are kept so that the packages' APIs do not
// change; a new code takes the rule's names.
var (
	// gatewayNames: rpcerror.InvalidParams is the -32602 constructor.
	gatewayNames = map[string]string{"INVALID_PARAMS": "InvalidParamsCode"}
	// clientCodeNames: the client's constants for -32603 and -32003.
	clientCodeNames = map[string]string{"INTERNAL_ERROR": "CodeInternal", "GITHUB_VALIDATION": "CodeValidation"}
	// clientSentinelNames: the client's sentinel for -32003.
	clientSentinelNames = map[string]string{"GITHUB_VALIDATION": "ErrValidation"}
)

// gatewayName is rpcerror's constant for k (NotFound).
func gatewayName(k contract.Code) string {
	if n, ok := gatewayNames[k.Suffix()]; ok {
		return n
	}
	return GoName(k.Suffix())
}

// clientCodeName is the client's constant for k (CodeNotFound).
func clientCodeName(k contract.Code) string {
	if n, ok := clientCodeNames[k.Suffix()]; ok {
		return n
	}
	return "Code" + GoName(k.Suffix())
}

// clientSentinelName is the client's sentinel for k: Err and the Go name
// without a trailing "Error" (ErrNotFound, ErrParse). The sentinel itself is
// declared by hand in client/errors.go, with its documentation; the
// generated table does not compile until it is.
func clientSentinelName(k contract.Code) string {
	if n, ok := clientSentinelNames[k.Suffix()]; ok {
		return n
	}
	return "Err" + strings.TrimSuffix(GoName(k.Suffix()), "Error")
}
