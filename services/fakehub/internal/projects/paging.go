package projects

import (
	"encoding/base64"
	"strconv"
	"strings"

	"ghops.dev/services/fakehub/internal/graphql"
	"ghops.dev/services/fakehub/internal/hub"
)

// maxPage is GitHub's largest first or last.
const maxPage = 100

// excessivePagination is the type GitHub gives a first or last above maxPage.
const excessivePagination = "EXCESSIVE_PAGINATION"

func cursor(i int) string {
	return base64.StdEncoding.EncodeToString([]byte("cursor:" + strconv.Itoa(i+1)))
}

func fromCursor(c string) (int, bool) {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "cursor:"))
	return n - 1, err == nil && strings.HasPrefix(string(b), "cursor:") && n >= 1
}

// connection answers a connection of total nodes as GitHub pages it: first/after or
// last/before, one of first and last required, at most maxPage. node builds the i-th node.
func connection(args map[string]any, name, typename string, total int, node func(i int) any) (any, *graphql.Error) {
	first, hasFirst := intArg(args["first"])
	last, hasLast := intArg(args["last"])
	if !hasFirst && !hasLast {
		return nil, graphql.Refusal("", "You must provide a `first` or `last` value to properly paginate the `"+name+"` connection.")
	}
	for _, n := range []struct {
		arg string
		v   int
		set bool
	}{{"first", first, hasFirst}, {"last", last, hasLast}} {
		if n.set && n.v > maxPage {
			return nil, graphql.Refusal(excessivePagination, "Requesting "+strconv.Itoa(n.v)+" records on the `"+name+"` connection exceeds the `"+n.arg+"` limit of 100 records.")
		}
		if n.set && n.v < 0 {
			return nil, graphql.Refusal("", "Argument '"+n.arg+"' on Field '"+name+"' has an invalid value ("+strconv.Itoa(n.v)+"). Expected type 'Int'.")
		}
	}
	start, end := 0, total
	if a, ok := args["after"].(string); ok {
		i, valid := fromCursor(a)
		if !valid {
			return nil, graphql.Refusal("", "`"+a+"` does not appear to be a valid cursor.")
		}
		start = min(max(start, i+1), total)
	}
	if b, ok := args["before"].(string); ok {
		i, valid := fromCursor(b)
		if !valid {
			return nil, graphql.Refusal("", "`"+b+"` does not appear to be a valid cursor.")
		}
		end = max(min(end, i), start)
	}
	if hasFirst {
		end = min(end, start+first)
	}
	if hasLast {
		start = max(start, end-last)
	}
	nodes, edges := []any{}, []any{}
	for i := start; i < end; i++ {
		n := node(i)
		nodes = append(nodes, n)
		edges = append(edges, hub.Obj{"__typename": typename + "Edge", "cursor": cursor(i), "node": n})
	}
	info := hub.Obj{"__typename": "PageInfo", "hasNextPage": end < total, "hasPreviousPage": start > 0, "startCursor": nil, "endCursor": nil}
	if end > start {
		info["startCursor"], info["endCursor"] = cursor(start), cursor(end-1)
	}
	return hub.Obj{"__typename": typename + "Connection", "totalCount": total, "pageInfo": info, "nodes": nodes, "edges": edges}, nil
}
