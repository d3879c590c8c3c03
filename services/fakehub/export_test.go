package fakehub

// SetExclusiveReads makes every handler of h take the hub lock exclusively (true), as before reads
// shared it; benchmarks use it to compare both locking modes in one run. Call it before serving.
func SetExclusiveReads(h *Hub, on bool) { h.ExclusiveReads = on }

// Routes lists the routes h serves, as "METHOD /template", for the conformance test's coverage
// check.
func Routes(h *Hub) []string {
	var out []string
	for route := range h.Handle {
		out = append(out, route.Name())
	}
	return out
}
