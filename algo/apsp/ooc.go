package apsp

import (
	"fmt"
	"math"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// Out-of-core blocked Floyd-Warshall.
//
// The matrix, padded to np = q·K, lives in pinned host memory as q×q
// blocks of K×K entries, each block contiguous (row-major inside), one
// buffer per plane (distances, predecessors, hops). Round r (r = 0..q-1)
// does for the diagonal block (r, r) what a tile round does for a tile:
//
//  1. upload block row r (R, contiguous) and block column r (C, q copies);
//  2. close the diagonal block: in-core blocked Floyd-Warshall on it
//     (fw_phase1/2/3 with stride K), then copy it into C;
//  3. block row and column: R_J = D ⊗ R_J and C_I = C_I ⊗ D for J, I ≠ r
//     (fw_mp into a spare block, copied back: the product reads the block
//     it replaces);
//  4. write R and C back, and stream every other block (I, J) through two
//     device buffers, up to G blocks of a block row per copy:
//     upload, A_IJ = min(A_IJ, C_I ⊗ R_J) (fw_mp), download.
//
// Copies run on one stream and kernels on another; the host orders them
// with events, always queueing the next kernel before it waits for the
// previous one, so the uploads and downloads of neighbouring units
// overlap the product of the current one. After round r every entry is
// the shortest distance through intermediate vertices in blocks 0..r, so
// after q rounds the matrix holds all shortest distances: exactly the
// in-core result for int32 (float32 sums are grouped by block).

// oocPlan is the block structure of an out-of-core run.
type oocPlan struct {
	K int // block side, a multiple of the tile
	q int // blocks per side: np = q·K ≥ n
	G int // blocks per transfer unit (1 ≤ G ≤ q-1)
}

// oocBytes is the device memory of a plan: R and C (q blocks each), the
// spare block and two buffers of G blocks, per plane.
func oocBytes(K, q, G, planes int) int64 {
	kk := int64(K) * int64(K)
	return int64(4*planes) * kk * int64(2*q+1+2*G)
}

// planFor is the planner Prepare uses (tests force plans through it).
var planFor = planOOC

// planOOC picks the largest blocks (the fewest rounds, so the least
// traffic) whose buffers fit in capBytes, then as many blocks per
// transfer as fit.
func planOOC(n, tile, planes int, capBytes int64) (oocPlan, error) {
	for q := 2; ; q++ {
		K := roundUp((n+q-1)/q, tile)
		if oocBytes(K, q, 1, planes) <= capBytes {
			G := 1
			for G < q-1 && oocBytes(K, q, G+1, planes) <= capBytes {
				G++
			}
			return oocPlan{K: K, q: q, G: G}, nil
		}
		if K <= tile {
			return oocPlan{}, fmt.Errorf("a memory cap of %s is too small for %d vertices even out of core: blocks of one %d×%d tile need %s",
				card.Bytes(capBytes), n, tile, tile, card.Bytes(oocBytes(K, q, 1, planes)))
		}
	}
}

// oocState is the memory, streams and events of out-of-core runs.
type oocState struct {
	plan oocPlan
	host []*gpu.Pinned    // per plane: the np×np matrix in blocks
	R, C []*gpu.Int32s    // per plane: block row r and block column r (q blocks each)
	T    []*gpu.Int32s    // per plane: one spare block
	W    [2][]*gpu.Int32s // per plane: the two transfer buffers of G blocks
	cs   *gpu.Stream      // kernels
	xs   *gpu.Stream      // copies
	evRC *gpu.Event       // R and C uploaded
	evPS *gpu.Event       // before steps 2-3 on cs
	evPE *gpu.Event       // after steps 2-3 on cs
	evLd [2]*gpu.Event    // a unit uploaded into W[i]
	evKS [2]*gpu.Event    // before the product of W[i]
	evKE [2]*gpu.Event    // after the product of W[i]
	trEv []*gpu.Event     // the events of traced runs (oocTracer's pool)
}

// prepareOOC allocates what a plan needs.
func (p *Prepared) prepareOOC(plan oocPlan) error {
	o := &oocState{plan: plan}
	p.ooc = o
	planes := p.cfg.planes()
	np := plan.K * plan.q
	kk := plan.K * plan.K
	var err error
	for range planes {
		var h *gpu.Pinned
		if h, err = p.mem.AllocPinned(int64(np) * int64(np) * 4); err != nil {
			return err
		}
		o.host = append(o.host, h)
		for _, x := range []struct {
			dst *[]*gpu.Int32s
			n   int
		}{{&o.R, plan.q * kk}, {&o.C, plan.q * kk}, {&o.T, kk}, {&o.W[0], plan.G * kk}, {&o.W[1], plan.G * kk}} {
			b, err := p.mem.AllocInt32s(x.n)
			if err != nil {
				return err
			}
			*x.dst = append(*x.dst, b)
		}
	}
	if o.cs, err = p.mem.NewStream(); err != nil {
		return err
	}
	if o.xs, err = p.mem.NewStream(); err != nil {
		return err
	}
	for _, e := range []**gpu.Event{&o.evRC, &o.evPS, &o.evPE, &o.evLd[0], &o.evLd[1], &o.evKS[0], &o.evKS[1], &o.evKE[0], &o.evKE[1]} {
		if *e, err = p.mem.NewEvent(); err != nil {
			return err
		}
	}
	return nil
}

// plane returns the i-th plane of a buffer set, nil when not kept (a
// NULL kernel argument).
func plane(set []*gpu.Int32s, i int) *gpu.Int32s {
	if i < len(set) {
		return set[i]
	}
	return nil
}

// oocUnit is a run of cnt blocks (I, J0) … (I, J0+cnt-1) of one block
// row, contiguous in the host layout.
type oocUnit struct{ I, J0, cnt int }

// oocUnits lists the blocks of round r's step 4: every block outside
// block row and column r, in runs of at most g.
func oocUnits(q, r, g int) []oocUnit {
	var out []oocUnit
	for I := 0; I < q; I++ {
		if I == r {
			continue
		}
		for _, span := range [][2]int{{0, r}, {r + 1, q}} {
			for J := span[0]; J < span[1]; J += g {
				out = append(out, oocUnit{I, J, min(g, span[1]-J)})
			}
		}
	}
	return out
}

// runOOC packs the input into blocks, streams the rounds and unpacks;
// traced, it records its rounds' events (oocTracer). Its kernels are the
// untraced build's (the log's arguments NULL) either way.
func (p *Prepared) runOOC(traced bool) (*Result, error) {
	r := p.newResult()
	t0 := time.Now()
	p.packBlocks()
	pack := time.Since(t0)
	var kernels time.Duration
	var tr *oocTracer // nil: untraced, no events beyond the run's own
	if traced {
		tr = &oocTracer{p: p, pool: &p.ooc.trEv}
	}
	total, err := p.Device().Time(func(t *gpu.Thread) error {
		err := p.streamRounds(t, &kernels, tr)
		if err != nil {
			// nothing may still write the pinned memory or the buffers.
			_ = t.StreamSynchronize(p.ooc.xs)
			_ = t.StreamSynchronize(p.ooc.cs)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	t1 := time.Now()
	p.unpackBlocks(r)
	r.Time = kernels
	r.CopyTime = max(0, total-kernels) + time.Since(t1)
	r.PrepTime += pack
	if tr != nil {
		pl := p.ooc.plan
		// read on the device thread: one hop, not one per event.
		var steps []trace.Step
		err := p.Device().Exec(func(*gpu.Thread) error {
			var err error
			steps, err = tr.steps(pl.K, pl.K*pl.q)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("tracing: %w", err)
		}
		r.Trace = newTrace(r, p.info.n, steps)
		r.Trace.Time = total // the streamed run's span: its rounds' time, copies included
	}
	return r, nil
}

// streamRounds queues and drives the q rounds (see the top of this file),
// adding the kernels' GPU time to *kernels; tr (nil when untraced)
// records the events of the trace's rounds: it stands in for the fixed
// events the run records anyway (a fresh event of its pool each time, so
// that all can be read after the run), and adds one on the copy stream
// before and after each batch of transfers that does not follow the
// previous one at once (see oocTracer).
func (p *Prepared) streamRounds(t *gpu.Thread, kernels *time.Duration, tr *oocTracer) error {
	o := p.ooc
	K, q := o.plan.K, o.plan.q
	kk := K * K
	planes := len(o.R)
	host := make([][]int32, planes)
	for x := range host {
		host[x] = o.host[x].Int32s()
	}
	// blockAt is block (I, J) of plane x in the host layout; runAt a run
	// of cnt blocks of a block row.
	runAt := func(x, I, J, cnt int) []int32 { return host[x][(I*q+J)*kk : (I*q+J+cnt)*kk] }
	block := gpu.D2(16, 16)
	mp := func(cin []*gpu.Int32s, cinOff int, cout []*gpu.Int32s, coutOff int, a []*gpu.Int32s, aOff int, b []*gpu.Int32s, bOff int, width int) error {
		return t.LaunchOn(o.cs, p.k.mp, gpu.D2(width*K/p.cfg.tile, K/p.cfg.tile), block, 0,
			plane(cin, 0), plane(cin, 1), plane(cin, 2), cinOff,
			plane(cout, 0), plane(cout, 1), plane(cout, 2), coutOff,
			plane(a, 0), plane(a, 2), aOff,
			plane(b, 0), plane(b, 1), plane(b, 2), bOff, K)
	}
	copyBlock := func(dst []*gpu.Int32s, dOff int, src []*gpu.Int32s, sOff int) error {
		for x := range dst {
			if err := t.LaunchOn(o.cs, p.k.copy, elementGrid(int64(kk)), gpu.D1(elementBlock), 0, dst[x], dOff, src[x], sOff, kk); err != nil {
				return err
			}
		}
		return nil
	}
	elapsed := func(a, b *gpu.Event) error {
		d, err := gpu.Elapsed(a, b)
		*kernels += d
		return err
	}
	for r := 0; r < q; r++ {
		if err := cancel.Check(); err != nil {
			return err
		}
		// 1. block row r and block column r.
		c0 := tr.beginRound(t, o.xs)
		for x := 0; x < planes; x++ {
			if err := o.R[x].UploadAsync(o.xs, 0, runAt(x, r, 0, q)); err != nil {
				return err
			}
			for I := 0; I < q; I++ {
				if err := o.C[x].UploadAsync(o.xs, I*kk, runAt(x, I, r, 1)); err != nil {
					return err
				}
			}
		}
		evRC, c1, err := tr.record(t, o.xs, o.evRC)
		if err != nil {
			return err
		}
		tr.copied(c0, c1)
		if err := evRC.Synchronize(); err != nil {
			return err
		}
		// 2. the diagonal block, closed in core, and its copy in C.
		evPS, k0, err := tr.record(t, o.cs, o.evPS)
		if err != nil {
			return err
		}
		if err := p.blockedRounds(t, o.cs, p.k, nil, false, plane(o.R, 0), plane(o.R, 1), plane(o.R, 2), int64(r*kk), K, K/p.cfg.tile); err != nil {
			return err
		}
		if err := copyBlock(o.C, r*kk, o.R, r*kk); err != nil {
			return err
		}
		// 3. the rest of block row r and block column r.
		for J := 0; J < q; J++ {
			if J == r {
				continue
			}
			if err := mp(o.R, J*kk, o.T, 0, o.R, r*kk, o.R, J*kk, 1); err != nil {
				return err
			}
			if err := copyBlock(o.R, J*kk, o.T, 0); err != nil {
				return err
			}
		}
		for I := 0; I < q; I++ {
			if I == r {
				continue
			}
			if err := mp(o.C, I*kk, o.T, 0, o.C, I*kk, o.R, r*kk, 1); err != nil {
				return err
			}
			if err := copyBlock(o.C, I*kk, o.T, 0); err != nil {
				return err
			}
		}
		evPE, k1, err := tr.record(t, o.cs, o.evPE)
		if err != nil {
			return err
		}
		tr.ran(k0, k1)
		// 4. every other block, two buffers deep.
		units := oocUnits(q, r, o.plan.G)
		var evLd, evKS, evKE [2]*gpu.Event // the events of the unit in W[i]
		// load queues unit m's upload; start is the trace's event before
		// it (the end of the transfer queued just before it), and returns
		// the trace's event after it.
		load := func(m, start int) (int, error) {
			u, w := units[m], o.W[m%2]
			for x := 0; x < planes; x++ {
				if err := w[x].UploadAsync(o.xs, 0, runAt(x, u.I, u.J0, u.cnt)); err != nil {
					return -1, err
				}
			}
			e, end, err := tr.record(t, o.xs, o.evLd[m%2])
			evLd[m%2] = e
			tr.copied(start, end)
			return end, err
		}
		compute := func(m int) error {
			u, w := units[m], o.W[m%2]
			if err := evLd[m%2].Synchronize(); err != nil {
				return err
			}
			ks, i0, err := tr.record(t, o.cs, o.evKS[m%2])
			if err != nil {
				return err
			}
			if err := mp(w, 0, w, 0, o.C, u.I*kk, o.R, u.J0*kk, u.cnt); err != nil {
				return err
			}
			ke, i1, err := tr.record(t, o.cs, o.evKE[m%2])
			evKS[m%2], evKE[m%2] = ks, ke
			tr.ran(i0, i1)
			return err
		}
		// store queues unit m's download, and returns the trace's event
		// after it.
		store := func(m int) (int, error) {
			u, w := units[m], o.W[m%2]
			start := tr.mark(t, o.xs)
			for x := 0; x < planes; x++ {
				if err := w[x].DownloadAsync(o.xs, 0, runAt(x, u.I, u.J0, u.cnt)); err != nil {
					return -1, err
				}
			}
			end := tr.mark(t, o.xs)
			tr.copied(start, end)
			return end, nil
		}
		prev := -1
		for m := 0; m < min(2, len(units)); m++ {
			start := prev // unit 1 is queued right behind unit 0's upload
			if m == 0 {
				start = tr.mark(t, o.xs) // unit 0 after the host queued the phases: the copy stream may have idled
			}
			var err error
			if prev, err = load(m, start); err != nil {
				return err
			}
		}
		// block row and column r are final: back to the host.
		if err := evPE.Synchronize(); err != nil {
			return err
		}
		if err := elapsed(evPS, evPE); err != nil {
			return err
		}
		d0 := tr.mark(t, o.xs)
		for x := 0; x < planes; x++ {
			if err := o.R[x].DownloadAsync(o.xs, 0, runAt(x, r, 0, q)); err != nil {
				return err
			}
			for I := 0; I < q; I++ {
				if I == r {
					continue
				}
				if err := o.C[x].DownloadAsync(o.xs, I*kk, runAt(x, I, r, 1)); err != nil {
					return err
				}
			}
		}
		tr.copied(d0, tr.mark(t, o.xs))
		if len(units) > 0 {
			if err := compute(0); err != nil {
				return err
			}
		}
		for m := range units {
			if m+1 < len(units) {
				if err := compute(m + 1); err != nil { // queued behind m: the GPU stays busy
					return err
				}
			}
			if err := evKE[m%2].Synchronize(); err != nil {
				return err
			}
			if err := elapsed(evKS[m%2], evKE[m%2]); err != nil {
				return err
			}
			end, err := store(m)
			if err != nil {
				return err
			}
			if m+2 < len(units) {
				if _, err := load(m+2, end); err != nil { // after store(m) on the copy stream: W[m%2] is free
					return err
				}
			}
		}
		tr.endRound(t, o.xs)
	}
	if err := t.StreamSynchronize(o.xs); err != nil {
		return err
	}
	return t.StreamSynchronize(o.cs)
}

// packBlocks writes the input into the host blocks as fw_init does on
// the device: diagonal 0, int32 entries ≥ InfI32 as InfI32, padding
// isolated; predecessors and hop counts initialised. Block rows in
// parallel.
func (p *Prepared) packBlocks() {
	o := p.ooc
	if p.info.f32 {
		inf := float32(math.Inf(1))
		packTyped(p.d.F32, o, p.info.n, inf, func(v float32) float32 { return v }, func(v float32) bool { return v < inf })
	} else {
		packTyped(p.d.I32, o, p.info.n, graph.InfI32, func(v int32) int32 { return min(v, graph.InfI32) }, func(v int32) bool { return v < graph.InfI32 })
	}
}

func hostPlane[T int32 | float32](pin *gpu.Pinned) []T {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(pin.Float32s()).([]T)
	}
	return any(pin.Int32s()).([]T)
}

func packTyped[T int32 | float32](in []T, o *oocState, n int, inf T, clamp func(T) T, finite func(T) bool) {
	K, q := o.plan.K, o.plan.q
	kk := K * K
	d := hostPlane[T](o.host[0])
	var pr, hp []int32
	if len(o.host) > 1 {
		pr = o.host[1].Int32s()
	}
	if len(o.host) > 2 {
		hp = o.host[2].Int32s()
	}
	par.ForChunks(q, 1, func(I, _, _ int) {
		for J := 0; J < q; J++ {
			for i := 0; i < K; i++ {
				gi := I*K + i
				at := (I*q+J)*kk + i*K
				for j := 0; j < K; j++ {
					gj := J*K + j
					var v T
					switch {
					case gi == gj:
						v = 0
					case gi < n && gj < n:
						v = clamp(in[gi*n+gj])
					default:
						v = inf
					}
					d[at+j] = v
					if pr != nil {
						pr[at+j] = -1
						if gi == gj || finite(v) {
							pr[at+j] = int32(gi)
						}
					}
					if hp != nil {
						hp[at+j] = 1
						if gi == gj {
							hp[at+j] = 0
						}
					}
				}
			}
		}
	})
}

// unpackBlocks copies the n×n distances and predecessors from the host
// blocks into r.
func (p *Prepared) unpackBlocks(r *Result) {
	o := p.ooc
	n, K, q := p.info.n, o.plan.K, o.plan.q
	kk := K * K
	dst := bits(r.Dist)
	d := o.host[0].Int32s()
	var pr []int32
	if r.Parents != nil {
		pr = o.host[1].Int32s()
	}
	par.ForChunks(q, 1, func(I, _, _ int) {
		for i := 0; i < K && I*K+i < n; i++ {
			gi := I*K + i
			for J := 0; J < q && J*K < n; J++ {
				w := min(K, n-J*K)
				at := (I*q+J)*kk + i*K
				copy(dst[gi*n+J*K:gi*n+J*K+w], d[at:at+w])
				if pr != nil {
					copy(r.Parents[gi*n+J*K:gi*n+J*K+w], pr[at:at+w])
				}
			}
		}
	})
}
