package reorder

import (
	_ "embed"
	"errors"
	"fmt"
	"math/bits"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/transform"
	"github.com/graphnb/graphnb/graph"
)

// kernelSource is the CUDA C of the ordering, compiled by NVRTC once per
// device (and cached on disk by package gpu).
//
//go:embed reorder.cu
var kernelSource string

const (
	// blockSize is the threads per block of every launch (whole warps:
	// rcm_search_level, rcm_count and rcm_level_keys vote per warp).
	blockSize = 256
	// none is reorder.cu's RCM_NONE: unreached, no candidate.
	none = 1<<31 - 1
	// chunk is reorder.cu's RCM_CHUNK: arcs per chunk of a list.
	chunk = 256
	// expandThreads is the grid of the kernels over chunks (grid-stride
	// loops, a warp per chunk): enough warps to fill a large GPU.
	expandThreads = 2048 * blockSize
	// maxPeripheralRounds bounds George and Liu's search, as in
	// graph.RCMOrder: the search from the start, then at most 16 moves.
	maxPeripheralRounds = 16
)

// kernelNames lists every kernel the Go side launches.
func kernelNames() []string {
	return []string{
		"rcm_check", "rcm_degree_keys", "rcm_rank", "rcm_chunks", "rcm_hook", "rcm_flatten", "rcm_label", "rcm_seed",
		"rcm_search_level", "rcm_ecc", "rcm_last", "rcm_move", "rcm_place_roots", "rcm_parent", "rcm_count",
		"rcm_level_keys", "rcm_place", "rcm_comp_keys", "rcm_reverse",
	}
}

var compiled = gpu.ModuleCache{Name: "reorder.cu", Source: kernelSource}

// RCMOrder computes on g's device the reverse Cuthill-McKee ordering that
// graph.RCMOrder computes on the host, identical bit for bit:
// newID[old] is a vertex's new number and oldID[new] its old one (inverse
// permutations of [0, N), each a new buffer of N int32 the caller frees).
// Pass newID to a renumbering as graph.RCMOrder's.
//
// The rules are graph.RCMOrder's: components in the (degree, id) order of
// their least vertex; each non-isolated component's root found by George
// and Liu's search from that vertex (at most 16 moves to the least-(degree,
// id) vertex of the last level while the eccentricity grows); the
// Cuthill-McKee order level by level, each vertex's unnumbered neighbours
// after those of earlier vertices of its level, in (degree, id) order; the
// whole order reversed, so isolated vertices (numbered first) get the
// largest new ids.
//
// All components are ordered at once (see the package doc): connected
// components by hooking, one breadth-first search per round of George and
// Liu's search for every component still moving, then one level of the
// Cuthill-McKee numbering at a time for all components, each level sorted
// by (least parent position, degree, id) with transform.Sorter. Kernels
// over arcs take the current frontier's lists cut in chunks of 256 arcs,
// a warp per chunk, so hubs are spread over many warps and a small level
// costs a few launches. Launches are O(rounds × levels), independent of
// the number of components; work is O(N + M) per search (at most 17) and
// for the numbering, plus O(N) per level and radix sorts of about 3N
// pairs in all. Device memory: at most about 150 bytes per vertex and 1/32
// byte per arc of scratch, freed before returning, besides the two
// results; graphs of 2³⁹ arcs or more are refused (32-bit chunk counts).
//
// g must be undirected (symmetric lists, as every undirected graph the
// project builds): a directed graph is refused, because graph.RCMOrder's
// rule for it (follow out-arcs, skipping vertices numbered from earlier
// starts) is sequential over starts; order its host copy with
// graph.RCMOrder, or symmetrize it. On the host device (dev.IsHost()) the
// host copy is ordered by graph.RCMOrder. Errors: a nil, closed or
// directed graph, an arc to a vertex outside [0, N), an asymmetric
// "undirected" graph (some vertex not reached from its component's root),
// a device error, and cancel's error when interrupted (checked between
// search and numbering levels).
func RCMOrder(g *gpu.Graph) (newID, oldID *gpu.Int32s, err error) {
	if g == nil || g.Offsets == nil || g.Adj == nil {
		return nil, nil, errors.New("reorder: RCMOrder: no graph (nil or without arrays)")
	}
	if g.Directed {
		return nil, nil, errors.New("reorder: RCMOrder: the graph is directed; the device order follows graph.RCMOrder for undirected graphs only (run graph.RCMOrder on its host copy, or build the graph with Symmetrize)")
	}
	dev := g.Device()
	if dev == nil {
		return nil, nil, errors.New("reorder: RCMOrder: the graph has no device")
	}
	if dev.IsHost() {
		return hostOrder(g)
	}
	if g.N == 0 {
		return emptyResult(dev)
	}
	if g.Arcs/chunk >= 1<<31 {
		return nil, nil, fmt.Errorf("reorder: RCMOrder: %d arcs exceed the 32-bit chunk count of the device order (at most %d arcs); use graph.RCMOrder on the host copy", g.Arcs, int64(chunk)<<31-1)
	}
	fn, err := compiled.Functions(dev, kernelNames())
	if err != nil {
		return nil, nil, fmt.Errorf("reorder: RCMOrder: %w", err)
	}
	o := &order{g: g, dev: dev, fn: fn, tmp: gpu.NewAllocations(dev), n: g.N, m: g.Arcs}
	defer func() {
		err = errors.Join(err, o.free())
		if err != nil {
			newID.Free()
			oldID.Free()
			newID, oldID = nil, nil
			err = fmt.Errorf("reorder: RCMOrder: %w", err)
		}
	}()
	if err := o.run(); err != nil {
		return nil, nil, err
	}
	if newID, oldID, err = o.result(); err != nil {
		return nil, nil, err
	}
	return newID, oldID, o.phase("result")
}

// hostOrder is RCMOrder on the host device: graph.RCMOrder of the host
// copy, wrapped as the device's buffers.
func hostOrder(g *gpu.Graph) (newID, oldID *gpu.Int32s, err error) {
	h, err := g.Host()
	if err != nil {
		return nil, nil, fmt.Errorf("reorder: RCMOrder: %w", err)
	}
	nid, oid, err := graph.RCMOrder(h)
	if err != nil {
		return nil, nil, fmt.Errorf("reorder: RCMOrder: %w", err)
	}
	dev := g.Device()
	if newID, err = dev.Int32sFrom(nid); err != nil {
		return nil, nil, fmt.Errorf("reorder: RCMOrder: %w", err)
	}
	if oldID, err = dev.Int32sFrom(oid); err != nil {
		newID.Free()
		return nil, nil, fmt.Errorf("reorder: RCMOrder: %w", err)
	}
	return newID, oldID, nil
}

// emptyResult is the order of a graph without vertices.
func emptyResult(dev *gpu.Device) (newID, oldID *gpu.Int32s, err error) {
	if newID, err = dev.AllocInt32s(0); err != nil {
		return nil, nil, fmt.Errorf("reorder: RCMOrder: %w", err)
	}
	if oldID, err = dev.AllocInt32s(0); err != nil {
		newID.Free()
		return nil, nil, fmt.Errorf("reorder: RCMOrder: %w", err)
	}
	return newID, oldID, nil
}

// order is one run of RCMOrder on a device: its kernels, its scratch and
// the per-vertex arrays the steps pass on.
type order struct {
	g   *gpu.Graph
	dev *gpu.Device
	fn  map[string]*gpu.Function
	tmp *gpu.Allocations
	n   int
	m   int64

	chunks   *gpu.Uint64s // a vertex list cut in chunks (rcm_chunks)
	nchunks  *gpu.Uint32s // their number
	byDegree *gpu.Uint32s // the vertices in (degree, id) order
	rank     *gpu.Int32s  // rank[v]: v's position in byDegree
	rep      *gpu.Int32s  // rep[v]: the root of v's component tree
	least    *gpu.Int32s  // least[tree root]: the least rank in the tree
	comp     *gpu.Int32s  // comp[v]: the least rank of v's component, its name
	number   *gpu.Int64s  // number[name]: the component's place in component order
	comps    int64        // the number of components
	root     *gpu.Int32s  // root[name]: the component's Cuthill-McKee root
	seq      *gpu.Int32s  // the vertices level by level, each level in order
	flag     *gpu.Uint32s // one word the kernels set (grew, more, count, slot)

	sorts map[int]*levelSort

	// rounds, searchLevels and numberLevels count the searches of George
	// and Liu's rounds, their levels in all, and the Cuthill-McKee levels.
	rounds, searchLevels, numberLevels int
}

// minSortLen is the smallest length of a level's sort buffers (or the
// power of two that holds every vertex, when smaller); longer levels use
// the next power of two (see levelSort). The small levels of a graph
// share one set of buffers, sorted in microseconds. (A variable for the
// fake-GPU test, which lowers it to sort in buffers of several lengths.)
var minSortLen = 1 << 14

// phaseDone, when set (by the benchmark), is called after each phase of
// a device order with the device synchronized: the phase's name and the
// order so far. It is nil otherwise and costs nothing then.
var phaseDone func(phase string, o *order)

// phase reports the end of a phase to phaseDone.
func (o *order) phase(name string) error {
	if phaseDone == nil {
		return nil
	}
	if err := o.dev.Synchronize(); err != nil {
		return err
	}
	phaseDone(name, o)
	return nil
}

// levelSort holds the sort buffers of one length (a power of two).
type levelSort struct {
	keys   *gpu.Uint64s
	vals   *gpu.Uint32s
	sorter *transform.Sorter
}

// free releases the scratch.
func (o *order) free() error { return errors.Join(o.freeSorts(), o.tmp.Free()) }

// freeSorts releases the levels' sort buffers.
func (o *order) freeSorts() error {
	var errs []error
	for length, s := range o.sorts {
		errs = append(errs, s.sorter.Free(), s.keys.Free(), s.vals.Free())
		delete(o.sorts, length)
	}
	return errors.Join(errs...)
}

// launch runs kernel name on a 1-D grid covering items threads.
func (o *order) launch(name string, items int64, args ...any) error {
	if items <= 0 {
		return nil
	}
	grid := int((items + blockSize - 1) / blockSize)
	if err := o.fn[name].Launch(gpu.D1(grid), gpu.D1(blockSize), 0, args...); err != nil {
		return err
	}
	return nil
}

// word clears the flag word, runs kernel name over items threads and
// returns the word.
func (o *order) word(name string, items int64, args ...any) (uint32, error) {
	if err := o.flag.Fill(0); err != nil {
		return 0, err
	}
	if err := o.launch(name, items, args...); err != nil {
		return 0, err
	}
	w := []uint32{0}
	err := o.flag.Download(w)
	return w[0], err
}

// bitLen is the number of bits of x (at least 1).
func bitLen(x int) int { return max(1, bits.Len(uint(x))) }

// run computes the Cuthill-McKee sequence: components, roots, levels.
func (o *order) run() (err error) {
	if o.flag, err = o.tmp.AllocUint32s(1); err != nil {
		return err
	}
	bad, err := o.word("rcm_check", o.m, o.g.Adj, o.m, o.n, o.flag)
	if err != nil {
		return err
	}
	if bad != 0 {
		return fmt.Errorf("some arc leads outside the %d vertices: the graph is malformed (make device graphs with gpu.Device.Upload, a generator or gpu.Device.NewGraph of valid CSR arrays)", o.n)
	}
	if o.chunks, err = o.tmp.AllocUint64s(o.n + int(o.m/chunk) + 1); err != nil {
		return err
	}
	if o.nchunks, err = o.tmp.AllocUint32s(1); err != nil {
		return err
	}
	if err := o.phase("check"); err != nil {
		return err
	}
	for _, step := range []struct {
		name string
		run  func() error
	}{{"components", o.components}, {"roots", o.roots}, {"levels", o.levels}} {
		if err := step.run(); err != nil {
			return err
		}
		if err := o.phase(step.name); err != nil {
			return err
		}
	}
	return nil
}

// components sorts the vertices by (degree, id) and names each connected
// component by the least rank of its vertices.
func (o *order) components() (err error) {
	n := int64(o.n)
	keys, err := o.tmp.AllocUint64s(o.n)
	if err != nil {
		return err
	}
	if o.byDegree, err = o.tmp.AllocUint32s(o.n); err != nil {
		return err
	}
	if o.rep, err = o.tmp.AllocInt32s(o.n); err != nil {
		return err
	}
	if err := o.launch("rcm_degree_keys", n, o.g.Offsets, o.n, keys, o.byDegree, o.rep); err != nil {
		return err
	}
	if err := transform.SortPairs(keys, o.byDegree, 64); err != nil {
		return err
	}
	if err := keys.Free(); err != nil {
		return err
	}
	if o.rank, err = o.tmp.AllocInt32s(o.n); err != nil {
		return err
	}
	if err := o.launch("rcm_rank", n, o.byDegree, o.n, o.rank); err != nil {
		return err
	}
	if err := o.chunk(nil, 0, n); err != nil {
		return err
	}
	if err := o.launch("rcm_hook", expandThreads, o.chunks, o.nchunks, o.g.Offsets, o.g.Adj, o.rep); err != nil {
		return err
	}
	if o.least, err = o.tmp.AllocInt32s(o.n); err != nil {
		return err
	}
	if err := o.least.Fill(none); err != nil {
		return err
	}
	if err := o.launch("rcm_flatten", n, o.n, o.rep, o.rank, o.least); err != nil {
		return err
	}
	return cancel.Check()
}

// roots runs George and Liu's search in every component at once and
// leaves each component's root in o.root.
func (o *order) roots() (err error) {
	n := int64(o.n)
	alloc := func(dst **gpu.Int32s) {
		if err == nil {
			*dst, err = o.tmp.AllocInt32s(o.n)
		}
	}
	var try, active, best, dist, ecc, cand, front, next *gpu.Int32s
	for _, p := range []**gpu.Int32s{&o.comp, &o.root, &try, &active, &best, &dist, &ecc, &cand, &front, &next} {
		alloc(p)
	}
	defer func() {
		// The search's own arrays are not needed afterwards.
		err = errors.Join(err, try.Free(), active.Free(), best.Free(), dist.Free(), ecc.Free(), cand.Free(), front.Free(), next.Free())
	}()
	if err != nil {
		return err
	}
	if o.number, err = o.tmp.AllocInt64s(o.n + 1); err != nil {
		return err
	}
	if err := o.number.Fill(0); err != nil {
		return err
	}
	if err := o.launch("rcm_label", n, o.n, o.rep, o.least, o.rank, o.g.Offsets, o.comp, o.number, o.root, try, active); err != nil {
		return err
	}
	if o.comps, err = transform.ExclusiveScan(o.number, n, true); err != nil {
		return err
	}
	for round := 0; round <= maxPeripheralRounds; round++ {
		if err := dist.Fill(none); err != nil {
			return err
		}
		seeds, err := o.word("rcm_seed", n, o.n, o.comp, o.rank, try, active, dist, front, o.flag)
		if err != nil {
			return err
		}
		o.rounds++
		if err := o.search(dist, front, next, seeds); err != nil {
			return err
		}
		if err := ecc.Fill(-1); err != nil {
			return err
		}
		if err := cand.Fill(none); err != nil {
			return err
		}
		if err := o.launch("rcm_ecc", n, o.n, o.comp, dist, ecc); err != nil {
			return err
		}
		if err := o.launch("rcm_last", n, o.n, o.comp, dist, ecc, o.rank, cand); err != nil {
			return err
		}
		more, err := o.word("rcm_move", n, o.n, round == 0, o.comp, o.rank, o.byDegree, ecc, cand, o.root, best, try, active, o.flag)
		if err != nil {
			return err
		}
		if more == 0 {
			break
		}
	}
	return nil
}

// search runs the breadth-first search seeded in dist and front (count
// vertices) to its end; next is scratch for the frontiers.
func (o *order) search(dist, front, next *gpu.Int32s, count uint32) error {
	for level := 0; count > 0; level++ {
		if err := cancel.Check(); err != nil {
			return err
		}
		if err := o.chunk(front, 0, int64(count)); err != nil {
			return err
		}
		c, err := o.word("rcm_search_level", expandThreads, o.chunks, o.nchunks, o.g.Offsets, o.g.Adj, level, dist, next, o.flag)
		if err != nil {
			return err
		}
		if c > 0 {
			o.searchLevels++
		}
		front, next, count = next, front, c
	}
	return nil
}

// chunk cuts the lists of the vertices list[first, first+count) (list
// nil: first, first+1, ...) into o.chunks.
func (o *order) chunk(list *gpu.Int32s, first, count int64) error {
	if err := o.nchunks.Fill(0); err != nil {
		return err
	}
	return o.launch("rcm_chunks", count, list, int(first), int(count), o.g.Offsets, o.chunks, o.nchunks)
}

// levels numbers the components' vertices level by level: level 0 holds
// every component's root in component order; a vertex of level L+1 is
// placed by (the least position in level L of its neighbours there, its
// rank), which keeps the components in order within each level, and
// appends each level to o.seq.
func (o *order) levels() (err error) {
	n := int64(o.n)
	var level, pos, parent *gpu.Int32s
	for _, p := range []**gpu.Int32s{&level, &pos, &parent, &o.seq} {
		if *p, err = o.tmp.AllocInt32s(o.n); err != nil {
			return err
		}
	}
	defer func() { err = errors.Join(err, level.Free(), pos.Free(), parent.Free(), o.freeSorts()) }()
	if err := level.Fill(none); err != nil {
		return err
	}
	if err := parent.Fill(none); err != nil {
		return err
	}
	if err := o.launch("rcm_place_roots", n, o.n, o.comp, o.rank, o.root, o.number, level, pos, o.seq); err != nil {
		return err
	}
	shift := bitLen(o.n - 1)
	base, size := o.comps, o.comps
	for cur := 0; base < n; cur++ {
		if err := cancel.Check(); err != nil {
			return err
		}
		if err := o.chunk(o.seq, base-size, size); err != nil {
			return err
		}
		if err := o.launch("rcm_parent", expandThreads, o.chunks, o.nchunks, o.g.Offsets, o.g.Adj, level, pos, parent); err != nil {
			return err
		}
		c, err := o.word("rcm_count", n, o.n, cur+1, parent, level, o.flag)
		if err != nil {
			return err
		}
		count := int64(c)
		if count == 0 {
			return fmt.Errorf("%d of %d vertices are not reached from their component's root; an undirected graph must hold both arcs of every edge", n-base, n)
		}
		s, err := o.levelSort(count)
		if err != nil {
			return err
		}
		length := int64(s.keys.Len())
		if err := o.flag.Fill(0); err != nil {
			return err
		}
		if err := o.launch("rcm_level_keys", max(n, length-count), o.n, cur+1, level, parent, o.rank, shift, o.flag, s.keys, s.vals, int(count), int(length)); err != nil {
			return err
		}
		if err := s.sorter.Sort(s.keys, s.vals, shift+bitLen(int(size-1))); err != nil {
			return err
		}
		if err := o.launch("rcm_place", count, s.vals, int(count), int(base), pos, o.seq); err != nil {
			return err
		}
		base += count
		size = count
		o.numberLevels++
	}
	return nil
}

// levelSort returns the sort buffers for a level of count vertices: of
// the next power of two, at least minSortLen or the power of two that
// holds N, made on first use and kept for the run, so that a run
// allocates O(log N) buffers whatever its levels.
func (o *order) levelSort(count int64) (*levelSort, error) {
	pow2 := func(x int64) int { return 1 << bits.Len64(uint64(x-1)) }
	length := max(pow2(count), min(minSortLen, pow2(int64(o.n))))
	if s := o.sorts[length]; s != nil {
		return s, nil
	}
	if o.sorts == nil {
		o.sorts = map[int]*levelSort{}
	}
	s := &levelSort{sorter: transform.NewSorter(o.dev)}
	var err error
	if s.keys, err = o.tmp.AllocUint64s(length); err != nil {
		return nil, err
	}
	if s.vals, err = o.tmp.AllocUint32s(length); err != nil {
		return nil, err
	}
	o.sorts[length] = s
	return s, nil
}

// result sorts the level-major sequence stably by component (giving the
// Cuthill-McKee order) and reverses it into the two id maps.
func (o *order) result() (newID, oldID *gpu.Int32s, err error) {
	n := int64(o.n)
	keys, err := o.tmp.AllocUint64s(o.n)
	if err != nil {
		return nil, nil, err
	}
	vals, err := o.tmp.AllocUint32s(o.n)
	if err != nil {
		return nil, nil, err
	}
	if err := o.launch("rcm_comp_keys", n, o.n, o.seq, o.comp, o.number, keys, vals); err != nil {
		return nil, nil, err
	}
	if err := transform.SortPairs(keys, vals, bitLen(int(o.comps-1))); err != nil {
		return nil, nil, err
	}
	if newID, err = o.dev.AllocInt32s(o.n); err != nil {
		return nil, nil, err
	}
	if oldID, err = o.dev.AllocInt32s(o.n); err != nil {
		newID.Free()
		return nil, nil, err
	}
	if err := o.launch("rcm_reverse", n, o.n, vals, newID, oldID); err != nil {
		newID.Free()
		oldID.Free()
		return nil, nil, err
	}
	return newID, oldID, nil
}
