package sssp

import (
	_ "embed"
	"fmt"
	"math"
	"math/bits"

	"github.com/graphnb/graphnb/algo/internal/devcheck"
	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/gpu"
)

// checkBody is the device check (check.cu), a module of its own: it
// shares no code with the searches of sssp.cu. It is compiled without
// fused multiply-adds, so its float64 formulas round as check.go's do.
//
//go:embed check.cu
var checkBody string

// checkSource is what NVRTC compiles: the shared helpers of
// algo/internal/devcsr (csr.cuh) and algo/internal/devcheck (check.cuh),
// then check.cu.
var checkSource = devcheck.Source(checkBody)

var checkModule = gpu.ModuleCache{Name: "sssp_check.cu", Source: checkSource,
	Options: []gpu.CompileOption{gpu.Flag("--fmad=false")}}

// Float32Tolerance is the relative tolerance that validates the float32
// distances of the Float32 option (see Prepared.Run): Prepared.Check uses
// it for them, DefaultTolerance otherwise.
const Float32Tolerance = 1e-5

// Kernel names and control words of check.cu (a test compares them).
const (
	kCkVertices = "ssspck_vertices"
	kCkJump     = "ssspck_jump"
	kCkCOO32    = "ssspck_coo_w32"
	kCkCOO64    = "ssspck_coo_w64"
	kCkCSR32    = "ssspck_csr_w32"
	kCkCSR64    = "ssspck_csr_w64"
	kCkUndir32  = "ssspck_undirected_w32"
	kCkUndir64  = "ssspck_undirected_w64"
	kCkChase    = "ssspck_chase"
	kCkFinal    = "ssspck_final"
	kCkExplain  = "ssspck_explain"

	ckErr     = devcheck.ErrWord // check.cu CK_ERR
	ckReached = 1                // CK_REACHED
	ckArcs    = 2                // CK_ARCS
	ckJumped  = 3                // CK_JUMPED
	ckFlat    = 4                // CK_FLAT
	ckChase   = 5                // CK_CHASE
	ckWords   = 6                // CK_WORDS
	ckTile    = 256              // CK_TILE: arcs per warp tile of the CSR pass
	ckNone    = devcheck.None

	// Forms of the arc pass (check.cu CK_FORM_*): how a bound failure's
	// index names its arc.
	formCSR        = 0 // arc k of the CSR
	formCOO        = 1 // 2e: edge e of the COO, start→end; 2e+1: end→start
	formUndirected = 2 // 2k: arc k of an undirected CSR; 2k+1: its reverse
)

// jumpsUnread is the number of pointer-jumping rounds the check launches
// before it reads the control words (paths of up to 2^jumpsUnread arcs
// need no read).
const jumpsUnread = 4

// chaseTuning bounds ssspck_chase, which spares the pointer jumping when
// the parents are shown acyclic: at most cap flat vertices (a parent not
// closer to the source than its child: zero weights, or adoption by an
// equal distance) followed for at most steps parents each; beyond either,
// the check runs the pointer jumping. A variable so that tests can force
// the jumping.
var chaseTuning = struct{ cap, steps uint64 }{cap: 4096, steps: 256}

var checkKernelNames = []string{kCkVertices, kCkChase, kCkJump, kCkCOO32, kCkCOO64, kCkCSR32, kCkCSR64, kCkUndir32, kCkUndir64,
	kCkFinal, kCkExplain}

// Rules of check.cu, in the order they are reported.
const (
	ruleSource = 1 + iota
	ruleReach
	ruleTree
	ruleBound
	ruleParentArc
)

// checkState is the device memory of Check, allocated by the first Check
// of a Prepared and kept with it: the result's distances and parents, the
// pointer-jumping ancestors, the parent-arc marks, control words and the
// explanation of a failure.
type checkState struct {
	fn      map[string]*gpu.Function
	sms     int // the device's multiprocessors, for the grids
	dist    *gpu.Float64s
	parents *gpu.Int32s
	anc     *gpu.Int32s
	flat    *gpu.Int32s // the flat vertices, flatCap of them
	flatCap uint64
	mark    *gpu.Uint8s
	ctl     *gpu.Uint64s
	info    *gpu.Int64s
}

// Checker names the checker Check runs on this Prepared: "device" on a
// GPU, "cpu" on the host device (where Check is the package's
// CheckTolerance).
func (p *Prepared) Checker() string { return devcheck.Checker(p.Device().IsHost()) }

// Check validates r, a result of p's graph, on the device: CheckTolerance
// with Float32Tolerance for float32 distances (the Float32 option on a
// GPU), DefaultTolerance otherwise.
func (p *Prepared) Check(r *Result) error {
	tol := DefaultTolerance
	if p.opts.Float32 && !p.Device().IsHost() {
		tol = Float32Tolerance
	}
	return p.CheckTolerance(r, tol)
}

// CheckTolerance validates r, a result of p's graph, by the certificate
// of the package's CheckTolerance, with the same float64 formulas and
// relative tolerance tol, on the device that holds the graph: a
// per-vertex kernel checks the source and reach rules; edge-parallel
// kernels check the bound on every arc (on the COO and on an undirected
// CSR, each edge once in both directions: the graph's arcs come in pairs
// of equal weight) and mark each vertex whose parent arc is tight; the parent
// tree (parents lead every reached vertex to the source) holds when the
// few flat vertices (a parent not closer than its child; every cycle
// holds one) all reach the source (ssspck_chase), else pointer jumping
// (⌈log₂ N⌉+1 rounds at most) finds the vertices that do not. It also checks Reached and,
// where the CSR is on the device (the frontier and near-far methods),
// ComponentEdges. The check is independent of the search: other kernels,
// which only read distances and parents. It reads the graph as prepared
// (the COO, permuted or not, or the CSR with each vertex's arcs light
// first: the same arcs), whose construction is tested against the
// host's.
//
// The result's Dist and Parents are copied to the device (12 bytes per
// vertex) and checked there; nothing is copied back but a few control
// words, and on failure the offending arc. The first check allocates 21
// bytes per vertex and 16 KiB, kept until Close. A failure is an error naming the
// rule and the lowest offending vertex or arc of the first rule broken
// (in the order source, reach, parent tree, bound, parent arc), e.g.
// "sssp: device check: bound: arc 3→7 (weight 0.5) gives vertex 7 the
// distance 1 + 0.5 = 1.5, shorter than Dist[7] = 2". On the host device
// it is CheckTolerance(g, r, tol). It is serialised with Run.
func (p *Prepared) CheckTolerance(r *Result, tol float64) error {
	if p.Device().IsHost() {
		return CheckTolerance(p.g, r, tol)
	}
	if r == nil {
		return fmt.Errorf("sssp: device check: no result")
	}
	if !(tol >= 0) {
		return fmt.Errorf("sssp: device check: tolerance %g must be ≥ 0", tol)
	}
	n := p.n
	if len(r.Dist) != n || len(r.Parents) != n {
		return fmt.Errorf("sssp: device check: result has %d distances and %d parents for a %d-vertex graph (parents need Options.Parents)", len(r.Dist), len(r.Parents), n)
	}
	if r.Source < 0 || int(r.Source) >= n {
		return fmt.Errorf("sssp: device check: source %d is outside [0,%d)", r.Source, n)
	}
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	if err := prepared.Open(&p.base); err != nil {
		return err
	}
	ck, err := p.checkState()
	if err == nil && ck.dist == nil {
		if ck.dist, err = p.mem.AllocFloat64s(n); err == nil {
			ck.parents, err = p.mem.AllocInt32s(n)
		}
	}
	if err != nil {
		ck.dist = nil
		return fmt.Errorf("sssp: device check: %w", err)
	}
	if err := ck.dist.Upload(r.Dist); err != nil {
		return fmt.Errorf("sssp: device check: %w", err)
	}
	if err := ck.parents.Upload(r.Parents); err != nil {
		return fmt.Errorf("sssp: device check: %w", err)
	}
	return p.checkDevice(ck, ck.dist, ck.parents, r.Source, r.Reached, r.ComponentEdges, tol)
}

// checkState returns the check's buffers, allocating them on first use.
func (p *Prepared) checkState() (*checkState, error) {
	if p.ck != nil {
		return p.ck, nil
	}
	fn, err := checkModule.Functions(p.Device(), checkKernelNames)
	if err != nil {
		return nil, err
	}
	info, err := p.Device().Info() // once: it measures the free memory on the device thread
	if err != nil {
		return nil, err
	}
	ck := &checkState{fn: fn, sms: info.SMs}
	mem, n := p.mem, p.n
	if ck.anc, err = mem.AllocInt32s(n); err != nil {
		return nil, err
	}
	ck.flatCap = chaseTuning.cap
	if ck.flat, err = mem.AllocInt32s(int(ck.flatCap)); err != nil {
		return nil, err
	}
	if ck.mark, err = mem.AllocUint8s(n); err != nil {
		return nil, err
	}
	if ck.ctl, err = mem.AllocUint64s(ckWords); err != nil {
		return nil, err
	}
	if ck.info, err = mem.AllocInt64s(7); err != nil {
		return nil, err
	}
	p.ck = ck
	return ck, nil
}

// checkGrid is the grid of a grid-stride check kernel over n items.
func checkGrid(n int, sms int) gpu.Dim {
	g := gpu.Blocks(n, blockSize)
	g.X = min(g.X, max(sms, 1)*8)
	return g
}

// checkDevice runs check.cu on the distances and parents on the device,
// a result from src claiming reached vertices and componentEdges.
func (p *Prepared) checkDevice(ck *checkState, dist *gpu.Float64s, parents *gpu.Int32s, src int32, reached, componentEdges int64, tol float64) error {
	n, fn, sms := p.n, ck.fn, ck.sms
	block := gpu.D1(blockSize)
	vgrid := checkGrid(n, sms)
	var w32 *gpu.Float32s
	var w64 *gpu.Float64s
	if p.w64 {
		w64, _ = p.weights.(*gpu.Float64s)
	} else {
		w32, _ = p.weights.(*gpu.Float32s)
	}
	ctl := make([]uint64, ckWords)
	err := p.Device().Exec(func(t *gpu.Thread) error {
		if err := ck.ctl.Upload(devcheck.Initial(ckWords)); err != nil {
			return err
		}
		if err := ck.mark.Fill(0); err != nil {
			return err
		}
		if err := t.Launch(fn[kCkVertices], vgrid, block, 0, dist, parents, int64(n), src, ck.anc, ck.flat, ck.flatCap, ck.ctl); err != nil {
			return err
		}
		var err error
		if p.coo != nil {
			f, ws := fn[kCkCOO32], any(w32)
			if p.w64 {
				f, ws = fn[kCkCOO64], w64
			}
			err = t.Launch(f, checkGrid(int(p.coo.Edges), sms), block, 0, p.coo.Start, p.coo.End, ws, p.coo.Edges,
				dist, parents, src, tol, ck.mark, ck.ctl)
		} else {
			f32, f64 := fn[kCkCSR32], fn[kCkCSR64]
			if !p.directed {
				f32, f64 = fn[kCkUndir32], fn[kCkUndir64]
			}
			f, ws := f32, any(w32)
			if p.w64 {
				f, ws = f64, w64
			}
			m := p.csr.Arcs
			err = t.Launch(f, checkGrid(int((m+ckTile-1)/ckTile)*32, sms), block, 0, p.csr.Offsets, p.csr.Adj, ws, int64(n), m,
				dist, parents, src, tol, ck.mark, ck.ctl)
		}
		if err != nil {
			return err
		}
		// The pointer jumping only where the chase could not show the
		// parents acyclic: ⌈log₂ N⌉+1 rounds at most; fewer when the
		// parent paths are short: after jumpsUnread rounds, the control
		// words are read after each one, and the jumping stops at a round
		// that changed nothing.
		if err := t.Launch(fn[kCkChase], checkGrid(int(ck.flatCap), sms), block, 0, ck.anc, ck.flat, ck.flatCap, chaseTuning.steps, src, ck.ctl); err != nil {
			return err
		}
		if err := ck.ctl.Download(ctl); err != nil {
			return err
		}
		tree := int32(0)
		rounds := 0
		if ctl[ckChase] != 0 {
			tree, rounds = 1, bits.Len(uint(n))+1
		}
		for round := 1; round <= rounds; round++ {
			if err := t.Launch(fn[kCkJump], vgrid, block, 0, ck.anc, int64(n), uint64(round), ck.ctl); err != nil {
				return err
			}
			if round >= jumpsUnread && round < rounds {
				if err := ck.ctl.Download(ctl); err != nil {
					return err
				}
				if ctl[ckJumped] != uint64(round) {
					break
				}
			}
		}
		if err := t.Launch(fn[kCkFinal], vgrid, block, 0, dist, ck.anc, ck.mark, int64(n), src, tree, ck.ctl); err != nil {
			return err
		}
		if err := ck.ctl.Download(ctl); err != nil {
			return err
		}
		if ctl[ckErr] == ckNone {
			return nil
		}
		form := p.checkForm()
		var st, en *gpu.Int32s
		var off *gpu.Int64s
		var adj *gpu.Int32s
		if form == formCOO {
			st, en = p.coo.Start, p.coo.End
		} else {
			off, adj = p.csr.Offsets, p.csr.Adj
		}
		return t.Launch(fn[kCkExplain], gpu.D1(1), gpu.D1(32), 0, ctl[ckErr], form, st, en, off, adj, w32, w64, int64(n),
			dist, parents, ck.info)
	})
	if err != nil {
		return fmt.Errorf("sssp: device check of %s from %d: %w", p.Label(), src, err)
	}
	if ctl[ckErr] != ckNone {
		words := make([]int64, 7)
		if err := ck.info.Download(words); err != nil {
			return fmt.Errorf("sssp: device check of %s from %d: %w", p.Label(), src, err)
		}
		return checkFailure(ctl[ckErr], words, p.checkForm())
	}
	if reached != int64(ctl[ckReached]) {
		return fmt.Errorf("sssp: device check: Reached = %d but %d vertices have a finite distance", reached, ctl[ckReached])
	}
	if p.coo == nil {
		want := int64(ctl[ckArcs])
		if !p.directed {
			want /= 2
		}
		if componentEdges != want {
			return fmt.Errorf("sssp: device check: ComponentEdges = %d, want %d", componentEdges, want)
		}
	}
	return nil
}

// checkForm is the form of the check's arc pass over p's graph.
func (p *Prepared) checkForm() int32 {
	switch {
	case p.coo != nil:
		return formCOO
	case !p.directed:
		return formUndirected
	}
	return formCSR
}

// checkFailure words a failure key of check.cu, whose arc pass had the
// given form, with its explanation words = {u, v, bits of Dist[u], bits
// of Dist[v], bits of w, parent of v, bits of Dist[parent of v]}.
func checkFailure(key uint64, words []int64, form int32) error {
	rule, idx := devcheck.Rule(key), devcheck.Index(key)
	f := func(i int) float64 { return math.Float64frombits(uint64(words[i])) }
	u, v, du, dv, w, pv, dp := words[0], words[1], f(2), f(3), f(4), words[5], f(6)
	var msg string
	switch rule {
	case ruleSource:
		msg = fmt.Sprintf("source: Dist[%d] = %g and Parents[%d] = %d, want 0 and the source itself", v, dv, v, pv)
	case ruleReach:
		msg = fmt.Sprintf("reach: vertex %d has distance %g and parent %d (of distance %g): want +Inf and -1, or a finite distance and a reached parent", v, dv, pv, dp)
	case ruleTree:
		msg = fmt.Sprintf("parent tree: following parents from vertex %d (parent %d) does not reach the source (a cycle)", v, pv)
	case ruleBound:
		where := fmt.Sprintf("arc %d", idx)
		switch {
		case form == formCOO:
			where = fmt.Sprintf("edge %d of the COO", idx/2)
		case form == formUndirected && idx%2 == 0:
			where = fmt.Sprintf("arc %d", idx/2)
		case form == formUndirected:
			where = fmt.Sprintf("the reverse of arc %d", idx/2)
		}
		msg = fmt.Sprintf("bound: arc %d→%d (weight %g, %s) gives vertex %d the distance %g + %g = %g, shorter than Dist[%d] = %g",
			u, v, w, where, v, du, w, du+w, v, dv)
	case ruleParentArc:
		msg = fmt.Sprintf("parent arc: vertex %d has parent %d, but the graph has no arc %d→%d of weight Dist[%d] − Dist[%d] = %g",
			v, pv, pv, v, v, pv, dv-dp)
	default:
		msg = fmt.Sprintf("unknown failure %#x", key)
	}
	return fmt.Errorf("sssp: device check: %s", msg)
}
