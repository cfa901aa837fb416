package mst

import (
	_ "embed"
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
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
		"mprep_check", "mprep_upper", "mprep_eidx", "mprep_selfloop", "mprep_first_order",
		"mprep_weight_keys", "mprep_distinct", "mprep_rank", "mprep_vertex_keys", "mprep_degree",
		"mprep_gather", "mprep_iota", "mprep_bounds", "mprep_base", "mprep_pack",
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
// vertex and per arc, a scan), orders every list by (weight, edge index)
// with a stable radix sort of all arcs (by weight key, then by vertex),
// ranks the weights from that sorted order (WeightRanks: a scan over the
// distinct keys), and packs the compressed ids (Compress).
//
// Kept on the host, measured and documented:
//   - the reverse Cuthill-McKee order of Renumber (graph.RCMOrder: a BFS
//     per component from a pseudo-peripheral vertex whose order depends
//     on the whole previous level, with no exact parallel form here): it
//     downloads the offsets and ids (8 bytes per vertex, 4 per arc; none when g has a
//     host copy) and runs on all cores; the relabelling and re-sorting
//     that follow run on the device;
//   - the suffix minimum of the lowest label each host vertex reads (one
//     download of 4 bytes per vertex, an O(N) loop), and the plan of the
//     split, which downloads the prepared offsets only for a hybrid share
//     or arrays over the memory cap;
//   - a host share (Hybrid, or a memory cap below the arrays' size): the
//     prepared arrays are downloaded and split as Prepare does;
//   - Run reads and sorts the forest's edges on the device and downloads
//     only those.
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

// prepareResident is PrepareResident on a GPU.
func (p *Prepared) prepareResident() error {
	tmp := gpu.NewAllocations(p.Device())
	defer tmp.Free()
	dt, err := p.transformOnDevice(tmp)
	if errors.Is(err, errHostPath) || errors.Is(err, gpu.ErrOutOfMemory) {
		// The host path sorts or names the problem, or needs less device
		// memory (the prepared arrays only, split under the cap).
		if err := tmp.Free(); err != nil {
			return err
		}
		return p.prepareFromHostCopy()
	}
	if err != nil {
		return err
	}
	// The offsets are downloaded only when the plan reads more than the
	// arc count (a hybrid share, arrays over the memory cap).
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
	if err := p.planAt(offAt); err != nil || offErr != nil {
		return errors.Join(err, offErr)
	}
	if p.hostFrom < p.n { // a host share: split the downloaded arrays as Prepare does
		offAt(0) // downloads the offsets
		if offErr != nil {
			return offErr
		}
		tr, err := dt.download(p, off)
		if err != nil {
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
	return p.allocWork()
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
// sortEdges' order (W, U, V), and only the n − trees edges are
// downloaded.
func (p *Prepared) forestEdgesOnDevice() ([]Edge, error) {
	g, n := p.rg, p.n
	mod, err := prepareCompiled.For(p.Device())
	if err != nil {
		return nil, err
	}
	k := kernelLauncher{mod}
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
	ou, err := tmp.AllocInt32s(int(count))
	if err != nil {
		return nil, err
	}
	ov, err := tmp.AllocInt32s(int(count))
	if err != nil {
		return nil, err
	}
	ow, err := tmp.AllocFloat64s(int(count))
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_edge_gather", count, order, eu, ev, ew, count, ou, ov, ow); err != nil {
		return nil, err
	}
	eu, ev, ew = ou, ov, ow
	u, err := eu.ToHost()
	if err != nil {
		return nil, err
	}
	v, err := ev.ToHost()
	if err != nil {
		return nil, err
	}
	w, err := ew.ToHost()
	if err != nil {
		return nil, err
	}
	out := make([]Edge, count)
	if err := par.For(len(out), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = Edge{U: u[i], V: v[i], W: w[i]}
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
type deviceTransformed struct {
	off          *gpu.Int64s
	src, adj     *gpu.Int32s
	eidx, ranks  *gpu.Uint32s
	w32          *gpu.Float32s
	w64          *gpu.Float64s
	base         *gpu.Uint32s
	low, high    *gpu.Uint8s
	suffixLowest []int32
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
// (see PrepareResident) and sets the edge count, weight kind, compression
// and sufMin, as transform does. errHostPath: the host path must take it.
func (p *Prepared) transformOnDevice(tmp *gpu.Allocations) (*deviceTransformed, error) {
	g, n, m := p.rg, p.n, p.arcs
	if m >= 1<<32 {
		return nil, errHostPath // arc positions are uint32 here
	}
	mod, err := prepareCompiled.For(p.Device())
	if err != nil {
		return nil, err
	}
	k := kernelLauncher{mod}
	dt := &deviceTransformed{}

	// Checks, and the edge numbering of the input (its lists sorted by id).
	src, err := transform.ArcSources(g)
	if err != nil {
		return nil, err
	}
	defer src.Free()
	flags, err := tmp.AllocUint32s(1)
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_check", m, g.Offsets, g.Adj, g.Weights, g.Weights64, n, m, src, flags); err != nil {
		return nil, err
	}
	if f, err := downloadOne[uint32](flags); err != nil {
		return nil, err
	} else if f != 0 {
		return nil, errHostPath
	}
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
	if p.edges >= noEdgeIdx {
		return nil, fmt.Errorf("%d edges exceed the 32-bit edge index (at most %d); use Kruskal", p.edges, int64(noEdgeIdx)-1)
	}
	eidx, err := tmp.AllocUint32s(int(m))
	if err != nil {
		return nil, err
	}
	lower, err := tmp.AllocUint64s(1)
	if err != nil {
		return nil, err
	}
	if err := lower.Fill(0); err != nil {
		return nil, err
	}
	if err := k.run("mprep_eidx", m, g.Offsets, g.Adj, g.Weights, g.Weights64, m, src, upper, at, eidx, flags, lower); err != nil {
		return nil, err
	}
	low, err := downloadOne[uint64](lower)
	if err != nil {
		return nil, err
	}
	if f, err := downloadOne[uint32](flags); err != nil {
		return nil, err
	} else if f != 0 || int64(low) != p.edges {
		return nil, errHostPath
	}

	// The renumbering (host: see PrepareResident).
	var newID *gpu.Int32s
	if p.opts.Renumber {
		h, err := rcmInput(g)
		if err != nil {
			return nil, err
		}
		ids, _, err := graph.RCMOrder(h)
		if err != nil {
			return nil, err
		}
		if newID, err = tmp.Int32sFrom(ids); err != nil {
			return nil, err
		}
	}

	// The order of the prepared arcs: every list in edge-index order, then
	// stable sorts by weight key and by (new) vertex.
	loop, err := tmp.AllocInt64s(n)
	if err != nil {
		return nil, err
	}
	if err := loop.Fill(-1); err != nil {
		return nil, err
	}
	perm, err := tmp.AllocUint32s(int(m))
	if err != nil {
		return nil, err
	}
	keys, err := tmp.AllocUint64s(int(m))
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_selfloop", m, src, g.Adj, m, loop); err != nil {
		return nil, err
	}
	if err := k.run("mprep_first_order", m, src, g.Offsets, loop, m, perm); err != nil {
		return nil, err
	}
	weighted := g.Weights != nil || g.Weights64 != nil
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
		if err := k.run("mprep_weight_keys", m, g.Weights, g.Weights64, perm, m, keys); err != nil {
			return nil, err
		}
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
	}
	if weighted || newID != nil {
		if err := k.run("mprep_vertex_keys", m, src, newID, perm, m, keys); err != nil {
			return nil, err
		}
		if err := sorter.Sort(keys, perm, max(1, bits.Len(uint(n)))); err != nil {
			return nil, err
		}
	}
	if err := cancel.Check(); err != nil {
		return nil, err
	}

	// The prepared arrays.
	if newID == nil {
		if dt.off, err = tmp.AllocInt64s(n + 1); err != nil {
			return nil, err
		}
		if err := dt.off.CopyFrom(g.Offsets); err != nil {
			return nil, err
		}
	} else {
		if dt.off, err = tmp.AllocInt64s(n + 1); err != nil {
			return nil, err
		}
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
	if dt.adj, err = tmp.AllocInt32s(int(m)); err != nil {
		return nil, err
	}
	if dt.eidx, err = tmp.AllocUint32s(int(m)); err != nil {
		return nil, err
	}
	switch p.wkind {
	case wRank:
		dt.ranks, err = tmp.AllocUint32s(int(m))
	case wF32:
		dt.w32, err = tmp.AllocFloat32s(int(m))
	case wF64:
		dt.w64, err = tmp.AllocFloat64s(int(m))
	}
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_gather", m, perm, src, g.Adj, newID, eidx, rank, g.Weights, g.Weights64, m,
		dt.src, dt.adj, dt.eidx, dt.ranks, dt.w32, dt.w64); err != nil {
		return nil, err
	}

	// The lowest label each vertex reads, and the compression.
	lowest, err := tmp.AllocInt32s(n)
	if err != nil {
		return nil, err
	}
	if err := k.run("mprep_iota", int64(n), lowest, n); err != nil {
		return nil, err
	}
	var lo, hi *gpu.Int32s
	if p.opts.Compress {
		if lo, err = tmp.AllocInt32s(n); err != nil {
			return nil, err
		}
		if hi, err = tmp.AllocInt32s(n); err != nil {
			return nil, err
		}
		if err := lo.Fill(1<<31 - 1); err != nil {
			return nil, err
		}
		if err := hi.Fill(-1); err != nil {
			return nil, err
		}
	}
	if err := k.run("mprep_bounds", m, dt.src, dt.adj, m, lowest, lo, hi); err != nil {
		return nil, err
	}
	if p.opts.Compress {
		if err := dt.compress(k, tmp, p, lo, hi, flags); err != nil {
			return nil, err
		}
	}
	vl, err := lowest.ToHost()
	if err != nil {
		return nil, err
	}
	p.sufMin = make([]int32, n+1)
	p.sufMin[n] = int32(n)
	for v := n - 1; v >= 0; v-- {
		p.sufMin[v] = min(vl[v], p.sufMin[v+1])
	}
	return dt, cancel.Check()
}

// rcmInput is what graph.RCMOrder reads of g: its host copy when it has
// one, else a download of its offsets and ids (the weights play no part).
func rcmInput(g *gpu.Graph) (*graph.CSR, error) {
	if g.HasHost() {
		return g.Host()
	}
	off, err := g.Offsets.ToHost()
	if err != nil {
		return nil, err
	}
	adj, err := g.Adj.ToHost()
	if err != nil {
		return nil, err
	}
	return &graph.CSR{Offsets: off, Adj: adj}, nil
}

// rankSorted returns the rank of every arc's weight (graph.WeightRanks)
// from keys, the arcs' weight keys in sorted order, perm the arcs.
func rankSorted(k kernelLauncher, tmp *gpu.Allocations, keys *gpu.Uint64s, perm *gpu.Uint32s, m int64) (*gpu.Uint32s, error) {
	cnt, err := tmp.AllocInt64s(int(m))
	if err != nil {
		return nil, err
	}
	defer cnt.Free()
	if err := k.run("mprep_distinct", m, keys, m, cnt); err != nil {
		return nil, err
	}
	if _, err := transform.ExclusiveScan(cnt, m, false); err != nil {
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
	if dt.low, err = tmp.AllocUint8s(int(m)); err != nil {
		return err
	}
	if dt.high, err = tmp.AllocUint8s(int((m + 3) / 4)); err != nil {
		return err
	}
	p.compressed = true
	return k.run("mprep_pack", (m+3)/4, dt.src, dt.adj, dt.base, m, dt.low, dt.high)
}

// keep copies the arrays the rounds read into p's allocation set (all the
// vertices are the GPU's).
func (dt *deviceTransformed) keep(p *Prepared) error {
	d := p.mem
	var err error
	if p.dOff, err = copyOf(d.AllocInt64s, dt.off); err != nil {
		return err
	}
	if p.compressed {
		if p.dBase, err = copyOf(d.AllocUint32s, dt.base); err != nil {
			return err
		}
		if p.dLo, err = copyOf(d.AllocUint8s, dt.low); err != nil {
			return err
		}
		if p.dHi, err = copyOf(d.AllocUint8s, dt.high); err != nil {
			return err
		}
	} else if p.dAdj, err = copyOf(d.AllocInt32s, dt.adj); err != nil {
		return err
	}
	switch p.wkind {
	case wRank:
		p.dW32, err = copyOf(d.AllocUint32s, dt.ranks)
	case wF32:
		p.dWf, err = copyOf(d.AllocFloat32s, dt.w32)
	case wF64:
		p.dWd, err = copyOf(d.AllocFloat64s, dt.w64)
	}
	if err != nil {
		return err
	}
	p.dEidx, err = copyOf(d.AllocUint32s, dt.eidx)
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
