package mst

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"
	"unsafe"

	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/reorder"
	"github.com/graphnb/graphnb/gpu/transform"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
)

// prepareSource is the CUDA C of the device preparation (resident.go).
//
//go:embed prepare.cu
var prepareSource string

var prepareCompiled = gpu.ModuleCache{Name: "prepare.cu", Source: prepareSource}

// Problem bits of prepare.cu (MP_*).
const (
	mpUnsorted = 1
	mpBad      = 2
)

// prepareKernelNames lists every kernel of prepare.cu the Go side launches.
func prepareKernelNames() []string {
	return []string{
		"mprep_upper", "mprep_eidx", "mprep_first_order",
		"mprep_distinct_count", "mprep_rank", "mprep_vertex_keys", "mprep_degree",
		"mprep_gather", "mprep_bounds_sorted", "mprep_bounds", "mprep_base", "mprep_pack",
		"mprep_forest_count", "mprep_forest_edges", "mprep_edge_keys", "mprep_edge_gather",
	}
}

// PrepareResident readies the device-resident graph g for Run with the
// options o, like Prepare(g.Device(), host copy of g, o), with every
// transform on the device: the arrays it prepares (offsets, neighbour ids
// or their compressed form, weight keys or ranks, edge indices, the tie
// order, the renumbering) are bit-identical to Prepare's, and so are the
// results of Run.
//
// On the device it checks the lists (sorted by id, no repeated arc, ids in
// range, no NaN weight, every arc with its reverse of the same weight),
// numbers the edges by (smaller end, larger end) (a binary search per
// vertex and one per edge, over the shorter of the two lists' ranges
// where its reverse arc can be, a scan), orders every list by
// (weight, edge index) with a stable radix sort of all arcs (by weight
// key, then by vertex), ranks the weights from that sorted order
// (WeightRanks: a scan over the distinct keys), and packs the compressed
// ids (Compress: each list's smallest and largest id are its first and
// last in the input's numbering, else a per-warp reduction). The arrays
// Run reads are made where Run finds them (no copy at the end).
//
// The reverse Cuthill-McKee order of Renumber is graph.RCMOrder's, made
// on the device by reorder.RCMOrder (package gpu/reorder); the relabelling
// and re-sorting that follow run there too.
//
// Kept on the host, measured and documented:
//   - the plan of the split: without a host share it reads only the arc
//     count; a hybrid share, or arrays over the memory cap, download the
//     prepared offsets and make the suffix minimum of the lowest label
//     each host vertex reads (each list's smallest id on the device, one
//     download of 4 bytes per vertex, an O(N) loop);
//   - a host share (Hybrid, or a memory cap below the arrays' size): the
//     prepared arrays are downloaded and split as Prepare does;
//   - Run reads and sorts the forest's edges on the device and downloads
//     only those, once, straight into the result's []Edge (16 bytes an
//     edge).
//
// A graph the device checks reject (lists not sorted by id, a repeated
// arc, an asymmetric arc, a NaN weight, an id out of range) takes the host
// path on its host copy, which sorts the lists or returns Prepare's error
// naming the problem; so does a graph whose device transforms run out of
// device memory (they take about 60 bytes per arc for a while, the host
// path only the prepared arrays). On the host device PrepareResident is Prepare with
// the host copy. Errors are Prepare's, plus device errors of the
// transforms.
func PrepareResident(g *gpu.Graph, o Options) (*Prepared, error) {
	start := time.Now()
	if g == nil || g.Offsets == nil {
		return nil, errors.New("mst: PrepareResident: no graph (nil or without offsets)")
	}
	dev := g.Device()
	if dev.IsHost() {
		h, err := g.Host()
		if err != nil {
			return nil, fmt.Errorf("mst: PrepareResident: %w", err)
		}
		return Prepare(dev, h, o)
	}
	if g.Directed {
		return nil, errDirected
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	p := &Prepared{rg: g, opts: o, n: g.N, arcs: g.Arcs, probeLen: defaultProbeLen}
	p.mem = prepared.Init(&p.base, "mst", o.Label(), dev)
	if err := p.prepareResident(); err != nil {
		_ = p.mem.Free()
		return nil, fmt.Errorf("mst: preparing gpu Borůvka (%s) on %v: %w", p.Label(), dev, err)
	}
	prepared.Done(&p.base, start)
	return p, nil
}

// errHostPath is transformOnDevice's signal that the device checks found
// a graph only the host path handles (it sorts or names the problem).
var errHostPath = errors.New("mst: the host path handles this graph")

// stepTimes, when set (BenchmarkGPUResidentECL with -mst.steps), gets the
// wall time of each step of PrepareResident and of Run's forest edges,
// each step ended by a device synchronize that the steps do not need
// otherwise (so the sum exceeds the unmeasured total a little). Not safe
// for concurrent preparations; nil in normal use.
var stepTimes func(step string, d time.Duration)

// stepClock times steps for stepTimes; a nil clock (stepTimes unset)
// does nothing.
type stepClock struct {
	dev  *gpu.Device
	last time.Time
}

// newStepClock returns a clock started now, nil without stepTimes.
func newStepClock(dev *gpu.Device) *stepClock {
	if stepTimes == nil {
		return nil
	}
	_ = dev.Synchronize()
	return &stepClock{dev: dev, last: time.Now()}
}

// step reports the time since the last step under name.
func (c *stepClock) step(name string) {
	if c == nil {
		return
	}
	_ = c.dev.Synchronize()
	now := time.Now()
	stepTimes(name, now.Sub(c.last))
	c.last = now
}

// prepareResident is PrepareResident on a GPU.
func (p *Prepared) prepareResident() error {
	clock := newStepClock(p.Device())
	tmp := gpu.NewAllocations(p.Device())
	defer tmp.Free()
	// The arrays the rounds read are made in kept, part of p's set, so a
	// device-only plan keeps them without a copy.
	kept := p.mem.Sub()
	dt, err := p.transformOnDevice(tmp, kept, clock)
	if errors.Is(err, errHostPath) || errors.Is(err, gpu.ErrOutOfMemory) {
		// The host path sorts or names the problem, or needs less device
		// memory (the prepared arrays only, split under the cap).
		if err := errors.Join(tmp.Free(), kept.Free()); err != nil {
			return err
		}
		return p.prepareFromHostCopy()
	}
	if err != nil {
		return err
	}
	// The offsets are downloaded, and sufMin computed, only when the plan
	// reads more than the arc count (a hybrid share, arrays over the
	// memory cap).
	var off []int64
	var offErr error
	offAt := func(v int) int64 {
		if v == p.n {
			return p.arcs
		}
		if off == nil && offErr == nil {
			off, offErr = dt.off.ToHost()
		}
		if offErr != nil {
			return 0
		}
		return off[v]
	}
	p.sufMinLoad = func() ([]int32, error) { return dt.suffixMin(p, tmp) }
	defer func() { p.sufMinLoad = nil }()
	if err := p.planAt(offAt); err != nil || offErr != nil || p.sufMinErr != nil {
		return errors.Join(err, offErr, p.sufMinErr)
	}
	clock.step("p9_plan")
	if p.hostFrom < p.n { // a host share: split the downloaded arrays as Prepare does
		offAt(0) // downloads the offsets
		if offErr != nil {
			return offErr
		}
		if err := p.loadSufMin(); err != nil {
			return err
		}
		tr, err := dt.download(p, off)
		if err != nil {
			return err
		}
		if err := kept.Free(); err != nil {
			return err
		}
		return p.upload(tr)
	}
	if err := p.loadKernels(); err != nil {
		return err
	}
	if err := dt.keep(p); err != nil {
		return err
	}
	if err := p.allocWork(); err != nil {
		return err
	}
	clock.step("pz_kernels_work")
	return nil
}

// prepareFromHostCopy is Prepare's host path on the resident graph's host
// copy.
func (p *Prepared) prepareFromHostCopy() error {
	h, err := p.rg.Host()
	if err != nil {
		return err
	}
	p.g = h
	return p.prepareDevice()
}

// forestEdgesOnDevice is forestEdges after PrepareResident: the input's
// edge numbering is rebuilt on the device (a binary search per vertex, a
// scan), each forest edge's ends and weight are read there in edge-index
// order, which is (U, V) order, a stable radix sort by weight puts them in
// sortEdges' order (W, U, V), they are written in Edge's layout, and only
// the n − trees edges are downloaded, in one copy (downloadEdges).
func (p *Prepared) forestEdgesOnDevice() ([]Edge, error) {
	g, n := p.rg, p.n
	mod, err := prepareCompiled.For(p.Device())
	if err != nil {
		return nil, err
	}
	k := kernelLauncher{mod}
	clock := newStepClock(p.Device())
	tmp := gpu.NewAllocations(p.Device())
	defer tmp.Free()
	upper, err := tmp.AllocInt64s(n)
	if err != nil {
		return nil, err
	}
	at, err := tmp.AllocInt64s(n + 1)
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_upper", int64(n), g.Offsets, g.Adj, n, upper, at); err != nil {
		return nil, err
	}
	if _, err := transform.ExclusiveScan(at, int64(n), true); err != nil {
		return nil, err
	}
	words := int64(p.inForest.Len())
	pos, err := tmp.AllocInt64s(int(words) + 1)
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_forest_count", words, p.inForest, words, pos); err != nil {
		return nil, err
	}
	count, err := transform.ExclusiveScan(pos, words, true)
	if err != nil {
		return nil, err
	}
	if count == 0 {
		return []Edge{}, nil
	}
	clock.step("r1_forest_count")
	eu, err := tmp.AllocInt32s(int(count))
	if err != nil {
		return nil, err
	}
	ev, err := tmp.AllocInt32s(int(count))
	if err != nil {
		return nil, err
	}
	ew, err := tmp.AllocFloat64s(int(count))
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_forest_edges", words, p.inForest, words, pos, at, upper, n, g.Adj, g.Weights, g.Weights64, eu, ev, ew); err != nil {
		return nil, err
	}
	// The edges are in (U, V) order: a stable sort by weight gives the
	// order (W, U, V) of sortEdges.
	keys, err := tmp.AllocUint64s(int(count))
	if err != nil {
		return nil, err
	}
	order, err := tmp.AllocUint32s(int(count))
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_edge_keys", count, ew, count, keys, order); err != nil {
		return nil, err
	}
	if err := transform.SortPairs(keys, order, 64); err != nil {
		return nil, err
	}
	out, err := tmp.AllocFloat64s(2 * int(count))
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_edge_gather", count, order, eu, ev, ew, count, out); err != nil {
		return nil, err
	}
	clock.step("r2_forest_sort")
	edges, err := downloadEdges(out, int(count), edgeLayout)
	clock.step("r3_forest_download")
	return edges, err
}

// edgeLayout reports whether Edge is laid out as prepare.cu's mp_edge
// writes it (int32 ends at bytes 0 and 4, the float64 weight at 8, 16
// bytes, little-endian, as on amd64 and arm64): forestEdgesOnDevice then
// downloads the forest straight into the []Edge.
var edgeLayout = unsafe.Sizeof(Edge{}) == 16 && unsafe.Offsetof(Edge{}.V) == 4 && unsafe.Offsetof(Edge{}.W) == 8 &&
	binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// downloadEdges returns the count edges that mprep_edge_gather wrote into
// words (two words an edge): one download into the result's bytes when
// direct (edgeLayout), else a download and a decoding loop.
func downloadEdges(words *gpu.Float64s, count int, direct bool) ([]Edge, error) {
	out := make([]Edge, count)
	if count == 0 {
		return out, nil
	}
	if direct {
		return out, words.Download(unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(out))), 2*count))
	}
	w, err := words.ToHost()
	if err != nil {
		return nil, err
	}
	if err := par.For(count, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ends := math.Float64bits(w[2*i])
			out[i] = Edge{U: int32(uint32(ends)), V: int32(uint32(ends >> 32)), W: w[2*i+1]}
		}
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// deviceTransformed is the prepared graph on the device, in a temporary
// allocation set: offsets, arc sources and ids in the device's numbering,
// edge indices, weight keys (ranks, or the weights), compressed ids when
// they apply.
//
// The arrays the rounds read (offsets, ids unless Compress is asked,
// weight keys, edge indices, compressed ids) are in the subset kept of
// p's set; the others in the temporary set.
type deviceTransformed struct {
	kept        *gpu.Allocations
	off         *gpu.Int64s
	src, adj    *gpu.Int32s
	eidx, ranks *gpu.Uint32s
	w32         *gpu.Float32s
	w64         *gpu.Float64s
	base        *gpu.Uint32s
	low, high   *gpu.Uint8s
	lo          *gpu.Int32s // each vertex's smallest neighbour (Compress; nil without)
	inputOrder  bool        // the prepared ids are the input's (no Renumber)
}

// kernelLauncher launches prepare.cu's kernels on one-thread-per-element
// grids.
type kernelLauncher struct {
	mod *gpu.Module
}

func (l kernelLauncher) run(name string, elems int64, args ...any) error {
	if elems <= 0 {
		return nil
	}
	f, err := l.mod.Function(name)
	if err != nil {
		return err
	}
	return f.Launch(gpu.D1(int((elems+blockSize-1)/blockSize)), gpu.D1(blockSize), 0, args...)
}

// flags downloads a one-word flag or counter buffer.
func downloadOne[T any](x interface{ Download([]T) error }) (T, error) {
	v := make([]T, 1)
	err := x.Download(v)
	return v[0], err
}

// transformOnDevice applies the study's transforms to the resident graph
// (see PrepareResident) and sets the edge count, weight kind and
// compression as transform does (sufMin on demand: suffixMin), with the
// arrays the rounds read in kept and the others in tmp. errHostPath: the
// host path must take it.
func (p *Prepared) transformOnDevice(tmp, kept *gpu.Allocations, clock *stepClock) (*deviceTransformed, error) {
	g, n, m := p.rg, p.n, p.arcs
	if m >= 1<<32 {
		return nil, errHostPath // arc positions are uint32 here
	}
	mod, err := prepareCompiled.For(p.Device())
	if err != nil {
		return nil, err
	}
	k := kernelLauncher{mod}
	dt := &deviceTransformed{kept: kept, inputOrder: !p.opts.Renumber}

	// Checks, and the edge numbering of the input (its lists sorted by id):
	// mprep_eidx flags a graph the host path must take.
	src, err := transform.ArcSources(g)
	if err != nil {
		return nil, err
	}
	defer src.Free()
	flags, err := tmp.AllocUint32s(1)
	if err != nil {
		return nil, err
	}
	clock.step("p1_sources")
	upper, err := tmp.AllocInt64s(n)
	if err != nil {
		return nil, err
	}
	at, err := tmp.AllocInt64s(n + 1)
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_upper", int64(n), g.Offsets, g.Adj, n, upper, at); err != nil {
		return nil, err
	}
	if p.edges, err = transform.ExclusiveScan(at, int64(n), true); err != nil {
		return nil, err
	}
	eidx, err := tmp.AllocUint32s(int(m))
	if err != nil {
		return nil, err
	}
	counts, err := tmp.AllocUint64s(2)
	if err != nil {
		return nil, err
	}
	if err := counts.Fill(0); err != nil {
		return nil, err
	}
	if err := k.run("mprep_eidx", m, g.Offsets, g.Adj, g.Weights, g.Weights64, n, m, src, upper, at, eidx, flags, counts); err != nil {
		return nil, err
	}
	pairsLoops, err := counts.ToHost() // reverse pairs found, self-loops
	if err != nil {
		return nil, err
	}
	if f, err := downloadOne[uint32](flags); err != nil {
		return nil, err
	} else if pairs := int64(pairsLoops[0]); f != 0 || pairs != p.edges || 2*pairs+int64(pairsLoops[1]) != m {
		return nil, errHostPath
	}
	if p.edges >= noEdgeIdx {
		return nil, fmt.Errorf("%d edges exceed the 32-bit edge index (at most %d); use Kruskal", p.edges, int64(noEdgeIdx)-1)
	}
	clock.step("p2_edge_index")

	// The renumbering: graph.RCMOrder's order, made on the device.
	var newID *gpu.Int32s
	if p.opts.Renumber {
		ids, old, err := reorder.RCMOrder(g)
		if err != nil {
			return nil, err
		}
		if err := errors.Join(old.Free(), tmp.Own(int64(ids.Len())*4, ids.Free)); err != nil {
			return nil, err
		}
		newID = ids
	}

	clock.step("p3_rcm")

	// The order of the prepared arcs: every list in edge-index order, then
	// stable sorts by weight key and by (new) vertex.
	perm, err := tmp.AllocUint32s(int(m))
	if err != nil {
		return nil, err
	}
	keys, err := tmp.AllocUint64s(int(m))
	if err != nil {
		return nil, err
	}
	weighted := g.Weights != nil || g.Weights64 != nil
	weightKeys := keys // the ordered weight bits of each arc of perm
	if !weighted {
		weightKeys = nil
	}
	if err := k.run("mprep_first_order", m, src, g.Offsets, upper, g.Adj, g.Weights, g.Weights64, m, perm, weightKeys); err != nil {
		return nil, err
	}
	clock.step("p4_first_order")
	switch {
	case !weighted:
		p.wkind = wNone
	case p.opts.WeightRanks:
		p.wkind = wRank
	case g.Weights != nil:
		p.wkind = wF32
	default:
		p.wkind = wF64
	}
	sorter := transform.NewSorter(p.Device())
	defer sorter.Free()
	var rank *gpu.Uint32s
	if weighted {
		keyBits := 64
		if g.Weights != nil {
			keyBits = 32
		}
		if err := sorter.Sort(keys, perm, keyBits); err != nil {
			return nil, err
		}
		if p.wkind == wRank {
			if rank, err = rankSorted(k, tmp, keys, perm, m); err != nil {
				return nil, err
			}
		}
		clock.step("p5_weight_sort")
	}
	if weighted || newID != nil {
		if err := k.run("mprep_vertex_keys", m, src, newID, perm, m, keys); err != nil {
			return nil, err
		}
		if err := sorter.Sort(keys, perm, max(1, bits.Len(uint(n)))); err != nil {
			return nil, err
		}
		clock.step("p6_vertex_sort")
	}
	if err := cancel.Check(); err != nil {
		return nil, err
	}

	// The prepared arrays.
	if dt.off, err = kept.AllocInt64s(n + 1); err != nil {
		return nil, err
	}
	if newID == nil {
		if err := dt.off.CopyFrom(g.Offsets); err != nil {
			return nil, err
		}
	} else {
		if err := k.run("mprep_degree", int64(n), g.Offsets, newID, n, dt.off); err != nil {
			return nil, err
		}
		if _, err := transform.ExclusiveScan(dt.off, int64(n), true); err != nil {
			return nil, err
		}
	}
	if dt.src, err = tmp.AllocInt32s(int(m)); err != nil {
		return nil, err
	}
	adjSet := kept // the ids are read by the rounds unless compressed
	if p.opts.Compress {
		adjSet = tmp
	}
	if dt.adj, err = adjSet.AllocInt32s(int(m)); err != nil {
		return nil, err
	}
	if dt.eidx, err = kept.AllocUint32s(int(m)); err != nil {
		return nil, err
	}
	switch p.wkind {
	case wRank:
		dt.ranks, err = kept.AllocUint32s(int(m))
	case wF32:
		dt.w32, err = kept.AllocFloat32s(int(m))
	case wF64:
		dt.w64, err = kept.AllocFloat64s(int(m))
	}
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_gather", m, perm, src, g.Adj, newID, eidx, rank, g.Weights, g.Weights64, m,
		dt.src, dt.adj, dt.eidx, dt.ranks, dt.w32, dt.w64); err != nil {
		return nil, err
	}
	clock.step("p7_gather")

	// The compression: each list's smallest and largest id.
	if p.opts.Compress {
		if dt.lo, err = tmp.AllocInt32s(n); err != nil {
			return nil, err
		}
		hi, err := tmp.AllocInt32s(n)
		if err != nil {
			return nil, err
		}
		if err := dt.bounds(k, p, dt.lo, hi); err != nil {
			return nil, err
		}
		if err := dt.compress(k, tmp, p, dt.lo, hi, flags); err != nil {
			return nil, err
		}
		clock.step("p8_compress")
	}
	return dt, cancel.Check()
}

// bounds sets lo (and hi unless nil) to the smallest (largest) id of each
// prepared list, INT32_MAX (−1) for an empty one: the first and last ids
// of the input's lists (sorted by id) when the ids are the input's, else
// a segmented reduction over the prepared arcs (no atomic per arc).
func (dt *deviceTransformed) bounds(k kernelLauncher, p *Prepared, lo, hi *gpu.Int32s) error {
	n, m := p.n, p.arcs
	if dt.inputOrder {
		return k.run("mprep_bounds_sorted", int64(n), p.rg.Offsets, p.rg.Adj, n, lo, hi)
	}
	if err := lo.Fill(math.MaxInt32); err != nil {
		return err
	}
	if hi != nil {
		if err := hi.Fill(-1); err != nil {
			return err
		}
	}
	return k.run("mprep_bounds", m, dt.src, dt.adj, m, lo, hi)
}

// suffixMin returns sufMin of the prepared graph (suffixMinNeighbour):
// each list's smallest id on the device (bounds, or Compress's), one
// download of 4 bytes per vertex and an O(n) loop on the host. The plan
// asks for it only when it considers a host share.
func (dt *deviceTransformed) suffixMin(p *Prepared, tmp *gpu.Allocations) ([]int32, error) {
	n := p.n
	lo := dt.lo
	if lo == nil {
		mod, err := prepareCompiled.For(p.Device())
		if err != nil {
			return nil, err
		}
		if lo, err = tmp.AllocInt32s(n); err != nil {
			return nil, err
		}
		defer lo.Free()
		if err := dt.bounds(kernelLauncher{mod}, p, lo, nil); err != nil {
			return nil, err
		}
	}
	low, err := lo.ToHost()
	if err != nil {
		return nil, err
	}
	s := make([]int32, n+1)
	s[n] = int32(n)
	for v := n - 1; v >= 0; v-- {
		s[v] = min(int32(v), low[v], s[v+1])
	}
	return s, nil
}

// rankSorted returns the rank of every arc's weight (graph.WeightRanks)
// from keys, the arcs' weight keys in sorted order, perm the arcs: each
// block of blockSize keys counts the new values it starts, a scan of
// those counts gives each block's first rank, and each key's rank is that
// plus the new values up to it in its block.
func rankSorted(k kernelLauncher, tmp *gpu.Allocations, keys *gpu.Uint64s, perm *gpu.Uint32s, m int64) (*gpu.Uint32s, error) {
	blocks := (m + blockSize - 1) / blockSize
	cnt, err := tmp.AllocInt64s(int(blocks))
	if err != nil {
		return nil, err
	}
	defer cnt.Free()
	if err := k.run("mprep_distinct_count", m, keys, m, cnt); err != nil {
		return nil, err
	}
	if _, err := transform.ExclusiveScan(cnt, blocks, false); err != nil {
		return nil, err
	}
	rank, err := tmp.AllocUint32s(int(m))
	if err != nil {
		return nil, err
	}
	return rank, k.run("mprep_rank", m, keys, cnt, perm, m, rank)
}

// compress packs the prepared ids (graph.Compress's layout) when every
// list spans fewer than graph.CompressSpan ids, and sets p.compressed or
// p.noCompress as transform does.
func (dt *deviceTransformed) compress(k kernelLauncher, tmp *gpu.Allocations, p *Prepared, lo, hi *gpu.Int32s, flags *gpu.Uint32s) error {
	n, m := p.n, p.arcs
	var err error
	if err := flags.Fill(0); err != nil {
		return err
	}
	if dt.base, err = tmp.AllocUint32s(n); err != nil {
		return err
	}
	if err := k.run("mprep_base", int64(n), lo, hi, n, dt.base, flags); err != nil {
		return err
	}
	f, err := downloadOne[uint32](flags)
	if err != nil {
		return err
	}
	if f != 0 {
		p.noCompress = "ids not compressed: a neighbour list spans " + fmt.Sprint(graph.CompressSpan) + " ids or more"
		dt.base.Free()
		dt.base = nil
		return nil
	}
	if dt.base, err = copyOf(dt.kept.AllocUint32s, dt.base); err != nil {
		return err
	}
	if dt.low, err = dt.kept.AllocUint8s(int(m)); err != nil {
		return err
	}
	if dt.high, err = dt.kept.AllocUint8s(int((m + 3) / 4)); err != nil {
		return err
	}
	p.compressed = true
	return k.run("mprep_pack", (m+3)/4, dt.src, dt.adj, dt.base, m, dt.low, dt.high)
}

// keep hands the arrays the rounds read to p (all the vertices are the
// GPU's): they are in p's set already, except the ids when Compress was
// asked but not applied (copied).
func (dt *deviceTransformed) keep(p *Prepared) error {
	p.dOff, p.dEidx = dt.off, dt.eidx
	p.dW32, p.dWf, p.dWd = dt.ranks, dt.w32, dt.w64
	if p.compressed {
		p.dBase, p.dLo, p.dHi = dt.base, dt.low, dt.high
		return nil
	}
	if !p.opts.Compress {
		p.dAdj = dt.adj
		return nil
	}
	var err error
	p.dAdj, err = copyOf(p.mem.AllocInt32s, dt.adj)
	return err
}

// copyOf allocates a buffer like src with alloc and copies src into it.
func copyOf[B interface {
	Len() int
	CopyFrom(B) error
}](alloc func(int) (B, error), src B) (B, error) {
	b, err := alloc(src.Len())
	if err != nil {
		return b, err
	}
	return b, b.CopyFrom(src)
}

// download brings the prepared arrays to the host as transform's result
// (for a host share), off being the downloaded offsets.
func (dt *deviceTransformed) download(p *Prepared, off []int64) (*transformed, error) {
	gs := &graph.CSR{Offsets: off}
	tr := &transformed{gs: gs}
	var err error
	if gs.Adj, err = dt.adj.ToHost(); err != nil {
		return nil, err
	}
	if tr.eidx, err = dt.eidx.ToHost(); err != nil {
		return nil, err
	}
	switch p.wkind {
	case wRank:
		tr.ranks, err = dt.ranks.ToHost()
	case wF32:
		gs.Weights, err = dt.w32.ToHost()
	case wF64:
		gs.Weights64, err = dt.w64.ToHost()
	}
	if err != nil {
		return nil, err
	}
	if p.compressed {
		tr.packed = &graph.CompressedAdj{Offsets: off}
		if tr.packed.Base, err = dt.base.ToHost(); err != nil {
			return nil, err
		}
		if tr.packed.Low, err = dt.low.ToHost(); err != nil {
			return nil, err
		}
		if tr.packed.High, err = dt.high.ToHost(); err != nil {
			return nil, err
		}
	}
	return tr, nil
}
