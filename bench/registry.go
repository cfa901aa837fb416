package bench

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Entry is a variant known by name, so that the command line, JSON sweep
// specs and notebooks can ask for "cpu/dijkstra" rather than build it.
type Entry struct {
	// Name is short and path-like: "cpu/dijkstra", "gpu/both". It is
	// unique per algorithm.
	Name string
	// Algo is the algorithm ("bfs", "sssp", "mst", "apsp").
	Algo string
	// Doc is a one-line description for listings.
	Doc string
	// New builds the variant with its default parameters.
	New func() Variant
}

var registry = struct {
	sync.Mutex
	entries []Entry
}{entries: []Entry{
	{"cpu/do", "bfs", "direction-optimizing BFS (Beamer), all cores", BFSDirectionOptimizing},
	{"cpu/ptd", "bfs", "parallel top-down BFS (no direction switch), all cores", BFSParallelTopDown},
	{"cpu/td", "bfs", "sequential top-down BFS, one core", BFSTopDown},
	{"cpu/dijkstra", "sssp", "Dijkstra with a binary heap, one core (the SSSP study's CPU baseline)", SSSPDijkstra},
	{"cpu/delta", "sssp", "Δ-stepping, Δ from the weights, all cores", func() Variant { return SSSPDeltaStepping(0) }},
	{"cpu/bf", "sssp", "edge-parallel Bellman-Ford (the SSSP study's method), all cores", SSSPBellmanFord},
	{"cpu/boruvka", "mst", "parallel Borůvka (the MST study's method), all cores", MSTBoruvka},
	{"cpu/kruskal", "mst", "Kruskal with a radix sort and union-find", MSTKruskal},
	{"cpu/fw", "apsp", "plain Floyd-Warshall on the float32 matrix", APSPFloydWarshall},
	{"cpu/blocked", "apsp", "blocked Floyd-Warshall, default tile", func() Variant { return APSPBlocked(0) }},
}}

// Register adds a named variant (the GPU variants join this way, see
// gpu_variants.go). It panics on an empty name or algorithm, a nil New,
// or a name already registered for the algorithm — programmer errors.
func Register(e Entry) {
	if e.Name == "" || e.Algo == "" || e.New == nil {
		panic(fmt.Sprintf("bench: Register(%q, %q): name, algorithm and New are required", e.Name, e.Algo))
	}
	registry.Lock()
	defer registry.Unlock()
	for _, x := range registry.entries {
		if x.Name == e.Name && x.Algo == e.Algo {
			panic(fmt.Sprintf("bench: Register: %s variant %q is already registered", e.Algo, e.Name))
		}
	}
	registry.entries = append(registry.entries, e)
}

// Entries returns the registered variants of algo ("" for all), in
// registration order.
func Entries(algo string) []Entry {
	registry.Lock()
	defer registry.Unlock()
	var out []Entry
	for _, e := range registry.entries {
		if algo == "" || e.Algo == algo {
			out = append(out, e)
		}
	}
	return out
}

// Names returns the registered names of algo's variants ("" for all
// algorithms, each name once).
func Names(algo string) []string {
	var out []string
	for _, e := range Entries(algo) {
		if !slices.Contains(out, e.Name) {
			out = append(out, e.Name)
		}
	}
	return out
}

// Algos returns the algorithms with registered variants, in
// registration order.
func Algos() []string {
	var out []string
	for _, e := range Entries("") {
		if !slices.Contains(out, e.Algo) {
			out = append(out, e.Algo)
		}
	}
	return out
}

// Lookup builds algo's variant registered as name (case-insensitive).
// The error for an unknown name lists the valid ones.
func Lookup(algo, name string) (Variant, error) {
	for _, e := range Entries(algo) {
		if strings.EqualFold(e.Name, strings.TrimSpace(name)) {
			return e.New(), nil
		}
	}
	if len(Entries(algo)) == 0 {
		return Variant{}, fmt.Errorf("bench: no variants for algorithm %q; choose one of %s", algo, strings.Join(Algos(), ", "))
	}
	return Variant{}, fmt.Errorf("bench: unknown %s variant %q; choose from %s", algo, name, strings.Join(Names(algo), ", "))
}

// LookupAll builds the named variants of algo; no names means every
// registered variant of algo that runs on one device (the group variants,
// which run only over a group of GPUs, are left out: GroupVariants).
func LookupAll(algo string, names ...string) ([]Variant, error) {
	if len(names) == 0 {
		for _, e := range Entries(algo) {
			if e.New().PrepareGroup == nil {
				names = append(names, e.Name)
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("bench: no variants for algorithm %q; choose one of %s", algo, strings.Join(Algos(), ", "))
		}
	}
	out := make([]Variant, 0, len(names))
	for _, n := range names {
		v, err := Lookup(algo, n)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// slug turns a variant label into a registry name part: lower case,
// letters and digits kept, every other run of characters one "-"
// ("cache && restrict on" → "cache-restrict-on"; Δ and δ are spelled
// "delta", so "near-far (Δ-stepping)" → "near-far-delta-stepping").
func slug(label string) string {
	var b strings.Builder
	dash := false
	label = strings.NewReplacer("Δ", "delta", "δ", "delta").Replace(label)
	for _, r := range strings.ToLower(label) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}
