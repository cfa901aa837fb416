package mst

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/graphnb/graphnb/algo/internal/devcheck"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// checkBody is the device check (check.cu), a module of its own: it
// shares no code with the Borůvka of boruvka.cu.
//
//go:embed check.cu
var checkBody string

// checkSource is what NVRTC compiles: the shared helpers of
// algo/internal/devcheck (check.cuh), then check.cu.
var checkSource = devcheck.Source(checkBody)

var checkModule = gpu.ModuleCache{Name: "mst_check.cu", Source: checkSource}

// Kernel names, sizes and control words of check.cu (a test compares them).
const (
	kCkEdges32    = "mstck_edges_w32"
	kCkEdges64    = "mstck_edges_w64"
	kCkUFInit     = "mstck_uf_init"
	kCkUFUnion    = "mstck_uf_union"
	kCkUFFlatten  = "mstck_uf_flatten"
	kCkSpan       = "mstck_span"
	kCkDegree     = "mstck_degree"
	kCkScanLocal  = "mstck_scan_local"
	kCkScanSums   = "mstck_scan_sums"
	kCkScanAdd    = "mstck_scan_add"
	kCkFill       = "mstck_fill"
	kCkTour       = "mstck_tour"
	kCkRank       = "mstck_rank"
	kCkRootInit32 = "mstck_root_init_w32"
	kCkRootInit64 = "mstck_root_init_w64"
	kCkOrient32   = "mstck_orient_w32"
	kCkOrient64   = "mstck_orient_w64"
	kCkDeep       = "mstck_deep"
	kCkLift32     = "mstck_lift_w32"
	kCkLift64     = "mstck_lift_w64"
	kCkMinimal32  = "mstck_minimal_w32"
	kCkMinimal64  = "mstck_minimal_w64"
	kCkExplain32  = "mstck_explain_w32"
	kCkExplain64  = "mstck_explain_w64"

	ckBlock  = 256              // CK_BLOCK
	ckChunk  = 8                // CK_CHUNK
	ckErr    = devcheck.ErrWord // CK_ERR
	ckRoots  = 1                // CK_ROOTS
	ckDeep   = 2                // CK_DEEP
	ckWords  = 4                // CK_WORDS
	ckNone   = devcheck.None
	ckLevels = 33 // lifting levels at most (2^32 > any depth)
)

var checkKernelNames = []string{kCkEdges32, kCkEdges64, kCkUFInit, kCkUFUnion, kCkUFFlatten, kCkSpan, kCkDegree,
	kCkScanLocal, kCkScanSums, kCkScanAdd, kCkFill, kCkTour, kCkRank, kCkRootInit32, kCkRootInit64, kCkOrient32,
	kCkOrient64, kCkDeep, kCkLift32, kCkLift64, kCkMinimal32, kCkMinimal64, kCkExplain32, kCkExplain64}

// Rules of check.cu, in the order they are reported.
const (
	ruleRange = 1 + iota
	ruleEdge
	ruleWeight
	ruleSpan
	ruleMinimal
)

// DeviceCheck validates spanning forests of one undirected graph on the
// device that holds the graph (see Check). It keeps its device memory
// (about 100 bytes per vertex, plus 8 or 12 per vertex and lifting level)
// between checks until Close. Checks are serialised.
type DeviceCheck struct {
	mu     sync.Mutex
	g      *gpu.Graph
	own    bool       // g was uploaded by NewDeviceCheck: Close frees it
	host   *graph.CSR // on the host device: the CPU check's graph
	mem    *gpu.Allocations
	fn     map[string]*gpu.Function
	closed bool

	// forest edges (F), forest arcs (2F), vertices (n); made on first use
	eu, ev      *gpu.Int32s
	ew          *gpu.Float64s
	to          *gpu.Int32s
	twin, eid   *gpu.Uint32s
	succ, rank  [2]*gpu.Uint32s
	comp, par   *gpu.Int32s
	foff, cur   *gpu.Uint32s
	sums        *gpu.Uint32s
	rin, rout   *gpu.Uint32s
	ups         []*gpu.Int32s // lifting levels; ups[0] = par
	mx32        []*gpu.Float32s
	mx64        []*gpu.Float64s
	upPtr, mxPt *gpu.Uint64s
	ctl         *gpu.Uint64s
	info        *gpu.Int64s
	levels      int // lifting levels of the last rule-5 check
}

// NewDeviceCheck returns a checker of spanning forests of g on dev: on a
// GPU it uploads g (Close frees the copy); on the host device its Check
// is the CPU's Check. It returns an error for a nil device, a nil or
// directed graph, or a failed upload.
func NewDeviceCheck(dev *gpu.Device, g *graph.CSR) (*DeviceCheck, error) {
	if dev == nil {
		return nil, errors.New("mst: NewDeviceCheck: nil device (use gpu.Default())")
	}
	if g == nil || len(g.Offsets) == 0 {
		return nil, errors.New("mst: NewDeviceCheck: no graph (nil or without offsets)")
	}
	if g.Directed {
		return nil, errors.New("mst: NewDeviceCheck: the graph is directed; spanning forests are of undirected graphs")
	}
	if dev.IsHost() {
		return &DeviceCheck{host: g}, nil
	}
	dg, err := dev.Upload(g)
	if err != nil {
		return nil, fmt.Errorf("mst: NewDeviceCheck: %w", err)
	}
	c, err := newDeviceCheck(dg)
	if err != nil {
		_ = dg.Close()
		return nil, err
	}
	c.own = true
	return c, nil
}

// NewResidentCheck returns a checker of spanning forests of the
// device-resident graph g, which it reads but does not own (g must stay
// open while the checker is used). On the host device its Check is the
// CPU's Check on g's host copy.
func NewResidentCheck(g *gpu.Graph) (*DeviceCheck, error) {
	if g == nil {
		return nil, errors.New("mst: NewResidentCheck: nil graph")
	}
	if g.Directed {
		return nil, errors.New("mst: NewResidentCheck: the graph is directed; spanning forests are of undirected graphs")
	}
	if g.Device().IsHost() {
		h, err := g.Host()
		if err != nil {
			return nil, fmt.Errorf("mst: NewResidentCheck: %w", err)
		}
		return &DeviceCheck{host: h}, nil
	}
	return newDeviceCheck(g)
}

func newDeviceCheck(g *gpu.Graph) (*DeviceCheck, error) {
	fn, err := checkModule.Functions(g.Device(), checkKernelNames)
	if err != nil {
		return nil, fmt.Errorf("mst: device check: %w", err)
	}
	c := &DeviceCheck{g: g, mem: gpu.NewAllocations(g.Device()), fn: fn}
	return c, nil
}

// Checker names the checker Check runs: "device" on a GPU, "cpu" on the
// host device.
func (c *DeviceCheck) Checker() string { return devcheck.Checker(c.host != nil) }

// Bytes returns the device memory the checker holds: its buffers, and
// the graph when it uploaded it.
func (c *DeviceCheck) Bytes() int64 {
	if c.host != nil {
		return 0
	}
	b := c.mem.Bytes()
	if c.own {
		b += c.g.Bytes()
	}
	return b
}

// Close frees the checker's device memory (and the graph it uploaded);
// idempotent.
func (c *DeviceCheck) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.host != nil {
		c.closed = true
		return nil
	}
	c.closed = true
	err := c.mem.Free()
	if c.own {
		err = errors.Join(err, c.g.Close())
	}
	return err
}

// Check validates r as a minimum spanning forest of the checker's graph,
// on the device that holds the graph, independently of the Borůvka (none
// of its kernels, no minimum-edge search): the rules of the package's
// Check, with the cycle property instead of a Kruskal reference for
// minimality.
//
//   - rule 1 (edges): every forest edge has 0 ≤ U < V < N and is an edge
//     of the graph with exactly its weight W (a thread per forest edge
//     scans the shorter of its ends' neighbour lists);
//   - rule 2 (forest): the edges form no cycle: a lock-free union-find
//     over them leaves N − len(Edges) trees (the offending edge is then
//     named on the host, as the CPU's Check names it);
//   - rule 3 (spanning): every arc of the graph joins two vertices of one
//     tree, so the trees are the graph's components, and r.Trees is their
//     number;
//   - rule 4 (weight): r.Weight equals the sum of the edges' weights
//     within WeightTolerance (summed on the host, where Edges are);
//   - rule 5 (cycle property): no edge of the graph is lighter than the
//     heaviest forest edge on the forest path between its ends — a
//     spanning forest with that property has the minimum weight. The
//     forest is rooted by an Euler tour ranked by pointer jumping, and
//     every edge's path maximum found by binary lifting (⌈log₂ depth⌉
//     levels). Unweighted graphs skip it: every spanning forest is
//     minimal.
//
// Everything is checked in full: every forest edge, every arc. The
// forest's edges are uploaded (16 bytes each); nothing comes back but a
// few control words, one per lifting level, and on failure the offending
// edge. A failure is an error naming the rule and the lowest offending
// forest edge or arc of the first rule broken, e.g. "mst: device check:
// rule 5 (cycle property): edge 3–9 (arc 17, weight 2) is lighter than
// the heaviest forest edge (weight 5) on the forest path between its
// ends: the forest is not minimal". On the host device it is Check(g, r).
func (c *DeviceCheck) Check(r *Result) error {
	if c.host != nil {
		return Check(c.host, r)
	}
	if r == nil {
		return errors.New("mst: device check: no result (nil)")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("mst: device check: the checker was closed")
	}
	n, f := c.g.N, len(r.Edges)
	if n == 0 {
		if f != 0 || r.Trees != 0 || r.Weight != 0 {
			return fmt.Errorf("mst: device check: the graph has no vertices, but the result has %d edges, %d trees and weight %g", f, r.Trees, r.Weight)
		}
		return nil
	}
	if f >= max(n, 1) {
		if err := forestError(n, r.Edges); err != nil {
			return err
		}
	}
	if f >= max(n, 1) || n >= math.MaxInt32 {
		return fmt.Errorf("mst: device check: %d forest edges on %d vertices", f, n)
	}
	if err := c.alloc(n, f); err != nil {
		return fmt.Errorf("mst: device check: %w", err)
	}
	roots, key, err := c.checkForest(r)
	if err != nil {
		return fmt.Errorf("mst: device check: %w", err)
	}
	if key != ckNone && devcheck.Rule(key) <= ruleWeight {
		return c.failure(key, r)
	}
	if f != n-int(roots) {
		if err := forestError(n, r.Edges); err != nil {
			return err
		}
		return fmt.Errorf("mst: device check: rule 2 (forest): %d edges leave %d trees on %d vertices: a cycle", f, roots, n)
	}
	if key != ckNone {
		return c.failure(key, r)
	}
	if r.Trees != int(roots) {
		return fmt.Errorf("mst: device check: rule 3 (spanning): result says %d trees, but the graph has %d connected components", r.Trees, roots)
	}
	if err := weightError(r.Weight, r.Edges); err != nil {
		return fmt.Errorf("mst: device check: %w", err)
	}
	if f == 0 || (c.g.Weights == nil && c.g.Weights64 == nil) {
		return nil
	}
	key, err = c.checkMinimal(f)
	if err != nil {
		return fmt.Errorf("mst: device check: %w", err)
	}
	if key != ckNone {
		return c.failure(key, r)
	}
	return nil
}

// weightError checks rule 4: weight is the sum of the edges' weights
// within WeightTolerance.
func weightError(weight float64, edges []Edge) error {
	var sum, abs float64
	for _, e := range edges {
		sum += e.W
		abs += math.Abs(e.W)
	}
	if !(math.Abs(weight-sum) <= WeightTolerance*abs) {
		return fmt.Errorf("rule 4 (weight): result weight %.17g differs from the sum of its edges %.17g", weight, sum)
	}
	return nil
}

// forestError returns the CPU's error for the first forest edge out of
// range or closing a cycle (a union-find in the edges' order), or nil.
func forestError(n int, edges []Edge) error {
	uf := newUnionFind(n)
	for i, e := range edges {
		if e.U < 0 || int(e.V) >= n || e.U >= e.V {
			return fmt.Errorf("mst: device check: rule 1 (edges): forest edge %d (%d–%d) must have 0 ≤ U < V < %d", i, e.U, e.V, n)
		}
		if !uf.union(e.U, e.V) {
			return fmt.Errorf("mst: device check: rule 2 (forest): forest edge %d (%d–%d) closes a cycle", i, e.U, e.V)
		}
	}
	return nil
}

// alloc makes the buffers for n vertices and f forest edges (kept while
// the sizes stay).
func (c *DeviceCheck) alloc(n, f int) error {
	var err error
	mem := c.mem
	if c.comp == nil {
		for _, b := range []**gpu.Int32s{&c.comp, &c.par} {
			if *b, err = mem.AllocInt32s(n); err != nil {
				return err
			}
		}
		for _, b := range []**gpu.Uint32s{&c.foff, &c.cur} {
			if *b, err = mem.AllocUint32s(n + 1); err != nil {
				return err
			}
		}
		if c.sums, err = mem.AllocUint32s((n + ckBlock) / ckBlock); err != nil {
			return err
		}
		for _, b := range []**gpu.Uint32s{&c.rin, &c.rout} {
			if *b, err = mem.AllocUint32s(n); err != nil {
				return err
			}
		}
		for _, b := range []**gpu.Uint64s{&c.upPtr, &c.mxPt} {
			if *b, err = mem.AllocUint64s(ckLevels); err != nil {
				return err
			}
		}
		if c.ctl, err = mem.AllocUint64s(ckWords); err != nil {
			return err
		}
		if c.info, err = mem.AllocInt64s(6); err != nil {
			return err
		}
		c.ups = []*gpu.Int32s{c.par}
		if c.g.Weights64 != nil {
			b, err := mem.AllocFloat64s(n)
			if err != nil {
				return err
			}
			c.mx64 = []*gpu.Float64s{b}
		} else {
			b, err := mem.AllocFloat32s(n)
			if err != nil {
				return err
			}
			c.mx32 = []*gpu.Float32s{b}
		}
	}
	if c.eu != nil && c.eu.Len() == f {
		return nil
	}
	for _, b := range []interface{ Free() error }{c.eu, c.ev, c.ew, c.to, c.twin, c.eid, c.succ[0], c.succ[1], c.rank[0], c.rank[1]} {
		if b != nil {
			_ = b.Free()
		}
	}
	for _, b := range []**gpu.Int32s{&c.eu, &c.ev} {
		if *b, err = mem.AllocInt32s(f); err != nil {
			return err
		}
	}
	if c.ew, err = mem.AllocFloat64s(f); err != nil {
		return err
	}
	if c.to, err = mem.AllocInt32s(2 * f); err != nil {
		return err
	}
	for _, b := range []**gpu.Uint32s{&c.twin, &c.eid, &c.succ[0], &c.succ[1], &c.rank[0], &c.rank[1]} {
		if *b, err = mem.AllocUint32s(2 * f); err != nil {
			return err
		}
	}
	return nil
}

// grid is the grid of a grid-stride check kernel over items.
func grid(items int64) gpu.Dim {
	return gpu.D1(int(max(1, min((items+ckBlock-1)/ckBlock, 8192))))
}

// weights returns the graph's weights as kernel arguments: float32 (or
// none) and float64.
func (c *DeviceCheck) weights() (*gpu.Float32s, *gpu.Float64s) { return c.g.Weights, c.g.Weights64 }

// checkForest uploads the forest and runs rules 1 and 3 and the
// union-find; it returns the number of trees and the failure key.
func (c *DeviceCheck) checkForest(r *Result) (roots, key uint64, err error) {
	g, fn := c.g, c.fn
	n, f := int64(g.N), int64(len(r.Edges))
	eu, ev, ew := make([]int32, f), make([]int32, f), make([]float64, f)
	for i, e := range r.Edges {
		eu[i], ev[i], ew[i] = e.U, e.V, e.W
	}
	w32, w64 := c.weights()
	block := gpu.D1(ckBlock)
	ctl := devcheck.Initial(ckWords)
	err = g.Device().Exec(func(t *gpu.Thread) error {
		for _, up := range []error{c.eu.Upload(eu), c.ev.Upload(ev), c.ew.Upload(ew), c.ctl.Upload(ctl)} {
			if up != nil {
				return up
			}
		}
		var err error
		if w64 != nil {
			err = t.Launch(fn[kCkEdges64], grid(f), block, 0, g.Offsets, g.Adj, w64, n, c.eu, c.ev, c.ew, f, c.ctl)
		} else {
			err = t.Launch(fn[kCkEdges32], grid(f), block, 0, g.Offsets, g.Adj, w32, n, c.eu, c.ev, c.ew, f, c.ctl)
		}
		if err != nil {
			return err
		}
		if err := t.Launch(fn[kCkUFInit], grid(n), block, 0, c.comp, n); err != nil {
			return err
		}
		if err := t.Launch(fn[kCkUFUnion], grid(f), block, 0, c.eu, c.ev, f, n, c.comp); err != nil {
			return err
		}
		if err := t.Launch(fn[kCkUFFlatten], grid(n), block, 0, c.comp, n, c.ctl); err != nil {
			return err
		}
		m := g.Arcs
		if err := t.Launch(fn[kCkSpan], grid((m+ckChunk-1)/ckChunk), block, 0, g.Offsets, g.Adj, n, m, c.comp, c.ctl); err != nil {
			return err
		}
		return c.ctl.Download(ctl)
	})
	return ctl[ckRoots], ctl[ckErr], err
}

// checkMinimal roots the forest (its edges uploaded, its trees in comp),
// builds the lifting tables and checks rule 5; it returns the failure key.
func (c *DeviceCheck) checkMinimal(f int) (uint64, error) {
	g, fn := c.g, c.fn
	n := int64(g.N)
	ctl := make([]uint64, ckWords)
	err := g.Device().Exec(func(t *gpu.Thread) error {
		if err := c.rootForest(t, f); err != nil {
			return err
		}
		pw := c.pathWeights()
		w32b, w64b := c.weights()
		m := g.Arcs
		minimal, ws := fn[kCkMinimal32], any(w32b)
		if w64b != nil {
			minimal, ws = fn[kCkMinimal64], w64b
		}
		if err := t.Launch(minimal, grid((m+ckChunk-1)/ckChunk), gpu.D1(ckBlock), 0, g.Offsets, g.Adj, ws, n, m, int32(c.levels),
			c.upPtr, c.mxPt, pw, c.rin, c.rout, c.ctl); err != nil {
			return err
		}
		return c.ctl.Download(ctl)
	})
	return ctl[ckErr], err
}

// pathWeights is lifting level 0's weights: each vertex's edge to its
// parent (a *gpu.Float32s or *gpu.Float64s, as the graph's weights).
func (c *DeviceCheck) pathWeights() any {
	if c.mx64 != nil {
		return c.mx64[0]
	}
	return c.mx32[0]
}

// rootForest roots the forest of f edges (uploaded in eu, ev, ew, its
// trees in comp) by its Euler tours and builds the lifting tables
// (c.levels of them, their addresses in upPtr and mxPt), on t: what rule
// 5 reads, here and on each rank of a group (GroupResult.Check). It
// resets ctl.
func (c *DeviceCheck) rootForest(t *gpu.Thread, f int) error {
	fn := c.fn
	n, arcs := int64(c.g.N), int64(2*f)
	block := gpu.D1(ckBlock)
	ctl := make([]uint64, ckWords)
	// The forest's CSR: degrees, their exclusive prefix sums, arcs.
	if err := c.foff.Fill(0); err != nil {
		return err
	}
	if err := t.Launch(fn[kCkDegree], grid(int64(f)), block, 0, c.eu, c.ev, int64(f), c.foff); err != nil {
		return err
	}
	nb := (n + ckBlock) / ckBlock // blocks over n+1 entries
	if err := t.Launch(fn[kCkScanLocal], gpu.D1(int(nb)), block, 0, c.foff, n+1, c.sums); err != nil {
		return err
	}
	if err := t.Launch(fn[kCkScanSums], gpu.D1(1), block, 0, c.sums, nb); err != nil {
		return err
	}
	if err := t.Launch(fn[kCkScanAdd], gpu.D1(int(nb)), block, 0, c.foff, n+1, c.sums); err != nil {
		return err
	}
	if err := c.cur.CopyFrom(c.foff); err != nil {
		return err
	}
	if err := t.Launch(fn[kCkFill], grid(int64(f)), block, 0, c.eu, c.ev, int64(f), c.cur, c.to, c.twin, c.eid); err != nil {
		return err
	}
	// The Euler tours, ranked.
	if err := t.Launch(fn[kCkTour], grid(arcs), block, 0, c.foff, c.to, c.twin, c.comp, arcs, c.succ[0], c.rank[0]); err != nil {
		return err
	}
	cur := 0
	for range bits.Len64(uint64(arcs)) + 1 {
		if err := t.Launch(fn[kCkRank], grid(arcs), block, 0, c.succ[cur], c.rank[cur], c.succ[1-cur], c.rank[1-cur], arcs); err != nil {
			return err
		}
		cur = 1 - cur
	}
	// Rooted: parents, edge weights, Euler ranks.
	init, orient := fn[kCkRootInit32], fn[kCkOrient32]
	if c.mx64 != nil {
		init, orient = fn[kCkRootInit64], fn[kCkOrient64]
	}
	pw := c.pathWeights()
	if err := t.Launch(init, grid(n), block, 0, n, c.par, pw, c.rin, c.rout); err != nil {
		return err
	}
	if err := t.Launch(orient, grid(arcs), block, 0, c.to, c.twin, c.eid, c.ew, arcs, c.rank[cur], c.par, pw, c.rin, c.rout); err != nil {
		return err
	}
	// Lifting levels while some 2^k-th ancestor is not a root.
	if err := c.ctl.Upload(devcheck.Initial(ckWords)); err != nil {
		return err
	}
	for k := 0; ; k++ {
		if err := t.Launch(fn[kCkDeep], grid(n), block, 0, c.ups[k], c.comp, n, int32(k), c.ctl); err != nil {
			return err
		}
		if err := c.ctl.Download(ctl); err != nil {
			return err
		}
		if ctl[ckDeep] < uint64(k)+1 || k+1 >= ckLevels {
			c.levels = k + 1
			break
		}
		if err := c.lift(t, k+1); err != nil {
			return err
		}
	}
	return c.uploadLevelPointers()
}

// lift builds lifting level k (≥ 1) from level k−1, allocating it on first
// use.
func (c *DeviceCheck) lift(t *gpu.Thread, k int) error {
	n := c.g.N
	if len(c.ups) <= k {
		up, err := c.mem.AllocInt32s(n)
		if err != nil {
			return err
		}
		c.ups = append(c.ups, up)
		if c.mx64 != nil {
			mx, err := c.mem.AllocFloat64s(n)
			if err != nil {
				return err
			}
			c.mx64 = append(c.mx64, mx)
		} else {
			mx, err := c.mem.AllocFloat32s(n)
			if err != nil {
				return err
			}
			c.mx32 = append(c.mx32, mx)
		}
	}
	if c.mx64 != nil {
		return t.Launch(c.fn[kCkLift64], grid(int64(n)), gpu.D1(ckBlock), 0, c.ups[k-1], c.mx64[k-1], c.ups[k], c.mx64[k], int64(n))
	}
	return t.Launch(c.fn[kCkLift32], grid(int64(n)), gpu.D1(ckBlock), 0, c.ups[k-1], c.mx32[k-1], c.ups[k], c.mx32[k], int64(n))
}

// uploadLevelPointers writes the device addresses of the lifting levels.
func (c *DeviceCheck) uploadLevelPointers() error {
	ups, mxs := make([]uint64, ckLevels), make([]uint64, ckLevels)
	for k, b := range c.ups {
		ups[k] = b.Ptr()
	}
	for k, b := range c.mx32 {
		mxs[k] = b.Ptr()
	}
	for k, b := range c.mx64 {
		mxs[k] = b.Ptr()
	}
	if err := c.upPtr.Upload(ups); err != nil {
		return err
	}
	return c.mxPt.Upload(mxs)
}

// failure words a failure key of check.cu, with the explanation the
// device writes (failureText).
func (c *DeviceCheck) failure(key uint64, r *Result) error {
	g := c.g
	info := make([]int64, 6)
	if devcheck.Rule(key) >= ruleWeight {
		w32, w64 := c.weights()
		f, pwb, ws := c.fn[kCkExplain32], any(nil), any(w32)
		if w64 != nil {
			f, pwb, ws = c.fn[kCkExplain64], c.mx64[0], w64
		} else {
			pwb = c.mx32[0]
		}
		err := g.Device().Exec(func(t *gpu.Thread) error {
			if err := t.Launch(f, gpu.D1(1), gpu.D1(32), 0, key, g.Offsets, g.Adj, ws, int64(g.N), c.eu, c.ev, c.comp,
				int32(c.levels), c.upPtr, c.mxPt, pwb, c.rin, c.rout, c.info); err != nil {
				return err
			}
			return c.info.Download(info)
		})
		if err != nil {
			return fmt.Errorf("mst: device check: explaining failure %#x: %w", key, err)
		}
	}
	return fmt.Errorf("mst: device check: %s", failureText(key, info, r.Edges, g.N))
}

// failureText words failure key of check.cu (or of multi.cu's group
// check) with the explanation info a kernel wrote (ck_explain's layout)
// and the forest's edges, on a graph of n vertices.
func failureText(key uint64, info []int64, edges []Edge, n int) string {
	rule, idx := devcheck.Rule(key), int64(devcheck.Index(key))
	u, v, a, b := info[0], info[1], info[2], info[3]
	x, y := math.Float64frombits(uint64(info[4])), math.Float64frombits(uint64(info[5]))
	var msg string
	switch rule {
	case ruleRange:
		e := edges[idx]
		msg = fmt.Sprintf("rule 1 (edges): forest edge %d (%d–%d) must have 0 ≤ U < V < %d", idx, e.U, e.V, n)
	case ruleEdge:
		e := edges[idx]
		msg = fmt.Sprintf("rule 1 (edges): forest edge %d (%d–%d) is not an edge of the graph", idx, e.U, e.V)
	case ruleWeight:
		msg = fmt.Sprintf("rule 1 (edges): forest edge %d (%d–%d) weighs %g, but the graph's edge weighs %g", idx, u, v, edges[idx].W, x)
	case ruleSpan:
		msg = fmt.Sprintf("rule 3 (spanning): arc %d→%d (arc %d) joins the tree of %d to the tree of %d: the forest does not span the graph", u, v, idx, a, b)
	case ruleMinimal:
		msg = fmt.Sprintf("rule 5 (cycle property): edge %d–%d (arc %d, weight %g) is lighter than the heaviest forest edge (weight %g) on the forest path between its ends: the forest is not minimal",
			u, v, idx, x, y)
	default:
		msg = fmt.Sprintf("unknown failure %#x", key)
	}
	return msg
}
