package bfs

import (
	_ "embed"
	"fmt"
	"math/bits"

	"github.com/graphnb/graphnb/algo/internal/devcheck"
	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/gpu"
)

// checkBody is the device check (check.cu), a module of its own: it
// shares no code with the searches of bfs.cu.
//
//go:embed check.cu
var checkBody string

// checkSource is what NVRTC compiles: the shared helpers of
// algo/internal/devcheck (check.cuh), then check.cu.
var checkSource = devcheck.Source(checkBody)

var checkModule = gpu.ModuleCache{Name: "bfs_check.cu", Source: checkSource}

// Kernel names and control words of check.cu (a test compares them).
const (
	kCkClear    = "bfsck_clear"
	kCkVertices = "bfsck_vertices"
	kCkTails    = "bfscsr_tails"
	kCkAnc      = "bfsck_anc"
	kCkJump     = "bfsck_jump"
	kCkCOO      = "bfsck_coo"
	kCkCSR      = "bfsck_csr"
	kCkCycle    = "bfsck_cycle"
	kCkTreeArc  = "bfsck_treearc"
	kCkExplain  = "bfsck_explain"

	ckErr     = devcheck.ErrWord // check.cu CK_ERR
	ckReached = 1                // CK_REACHED
	ckArcs    = 2                // CK_ARCS
	ckLevels  = 3                // CK_LEVELS
	ckMarks   = 4                // CK_MARKS
	ckWords   = 5                // CK_WORDS, then the level counts
	ckChunk   = 16               // CK_CHUNK: arcs per thread of bfsck_csr
	ckNone    = devcheck.None
)

var checkKernelNames = []string{kCkClear, kCkVertices, kCkAnc, kCkJump, kCkTails, kCkCOO, kCkCSR, kCkTreeArc, kCkCycle, kCkExplain}

// Rules of check.cu, in the order they are reported.
const (
	ruleSource = 1 + iota
	ruleLevel
	ruleParent
	ruleCycle
	ruleTreeLevel
	ruleSpan
	ruleEdgeLevel
	ruleTreeArc
)

// checkState is the device memory of the checks, allocated by the first
// check of a Prepared and kept with it: the levels as bytes, the
// parent-arc marks (a bit per vertex), the control words followed by the
// level counts, the explanation of a failure and, for a CSR, the chunk
// tails (bfscsr_tails); the pointer-jumping ancestors from the first cycle
// search, and Check's copies of a host result's levels and parents from
// its first call.
type checkState struct {
	fn              map[string]*gpu.Function
	levels, parents *gpu.Int32s // Check only
	anc             *gpu.Int32s // cycle searches only
	lv8             *gpu.Uint8s
	marks           *gpu.Uint32s
	tails           *gpu.Int32s
	ctl             *gpu.Uint64s
	info            *gpu.Int64s
}

// Checker names the checker Check and CheckDevice run on this Prepared:
// "device" on a GPU, "cpu" on the host device (where they are the
// package's Check).
func (p *Prepared) Checker() string { return devcheck.Checker(p.host) }

// Check validates r, a result of p's graph, by the rules of the package's
// Check, on the device that holds the graph: it copies r's Levels and
// Parents there (8 bytes per vertex, kept for the next Check) and runs
// CheckDevice's kernels on them, with the same rules and messages. On the
// host device Check is Check(g, r). Check is serialised with Run.
func (p *Prepared) Check(r *Result) error {
	if p.host {
		return Check(p.g, r)
	}
	if r == nil {
		return fmt.Errorf("bfs: device check: no result")
	}
	if err := p.checkShape(r.Source, len(r.Levels), len(r.Parents)); err != nil {
		return err
	}
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	if err := prepared.Open(&p.base); err != nil {
		return err
	}
	ck, err := p.checkState(len(r.FrontierSizes))
	if err == nil && ck.levels == nil {
		var lv, par *gpu.Int32s
		if lv, err = p.mem.AllocInt32s(p.n); err == nil {
			if par, err = p.mem.AllocInt32s(p.n); err == nil {
				ck.levels, ck.parents = lv, par
			}
		}
	}
	if err == nil {
		err = ck.levels.Upload(r.Levels)
	}
	if err == nil {
		err = ck.parents.Upload(r.Parents)
	}
	if err != nil {
		return fmt.Errorf("bfs: device check: %w", err)
	}
	return p.checkOn(ck, ck.levels, ck.parents, r)
}

// CheckDevice validates r, a result of RunOnDevice on p's graph, where it
// is: by the rules of the package's Check, with nothing copied to the
// device and nothing back but a few control words (and, on failure, the
// ends of the offending arc), with one synchronisation when it passes. A
// per-vertex pass checks the source, the levels and parents and rule 2
// and keeps the levels as bytes; an edge-parallel pass over the arcs (the
// CSR's, or the COO's edges in both directions for EdgeScan) checks rules
// 3 and 4 and marks and counts the vertices whose parent arc exists
// (rule 5: all reached ones but the source); rule 1 follows from rule 2
// (levels fall by one along parents), and when rule 2 fails, pointer
// jumping (⌈log₂ N⌉+1 rounds) looks for a
// cycle, reported first. It also checks Reached, FrontierSizes and, where
// the CSR is on the device (the direction-optimizing and
// dynamic-parallelism methods), ComponentEdges. The check is independent
// of the search: other kernels (check.cu), which only read levels and
// parents. It reads the graph as prepared (the COO, permuted or not, or
// the CSR), whose construction is tested against the host's.
//
// The first check allocates 1⅛ bytes per vertex and, on a CSR, 4 bytes
// per 16 arcs, kept until Close (4 bytes per vertex more for the first
// cycle search). A failure is an error naming the rule and the lowest
// offending vertex or arc of the first rule broken (the rules
// in the order: source, levels, rule 1 parents, rule 1 cycles, rule 2,
// rule 4, rule 3, rule 5), e.g. "bfs: device check: rule 3 (edge levels):
// arc 5→9 joins levels 1 and 3, more than one apart". It returns an
// error for a nil or closed result, one without parents, or one of
// another graph size or device. On the host device it is Check(g, r's
// Result). CheckDevice is serialised with Run.
func (p *Prepared) CheckDevice(r *DeviceResult) error {
	if r == nil {
		return fmt.Errorf("bfs: device check: no result")
	}
	if p.host || r.host {
		res, err := r.Result()
		if err != nil {
			return err
		}
		return p.Check(res)
	}
	b, err := r.lockBuffers()
	if err != nil {
		return err
	}
	defer r.mu.Unlock()
	nparents := 0
	if b.parents != nil {
		nparents = r.N
	}
	if err := p.checkShape(r.Source, r.N, nparents); err != nil {
		return err
	}
	if b.levels.Device() != p.Device() {
		return fmt.Errorf("bfs: device check: the result is on %v but the graph on %v", b.levels.Device(), p.Device())
	}
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	if err := prepared.Open(&p.base); err != nil {
		return err
	}
	ck, err := p.checkState(len(r.FrontierSizes))
	if err != nil {
		return fmt.Errorf("bfs: device check: %w", err)
	}
	return p.checkOn(ck, b.levels, b.parents, r.summary())
}

// checkShape returns an error for a result whose levels or parents do
// not cover p's graph or whose source is outside it.
func (p *Prepared) checkShape(src int32, levels, parents int) error {
	n := p.n
	if levels != n || parents != n {
		return fmt.Errorf("bfs: device check: result has %d levels and %d parents for a %d-vertex graph (parents need Options.Parents)", levels, parents, n)
	}
	if src < 0 || int(src) >= n {
		return fmt.Errorf("bfs: device check: source %d is outside [0,%d)", src, n)
	}
	return nil
}

// checkState returns the check's buffers, allocating them on first use
// (the level counts after the control words: nlevels words, grown when a
// deeper result comes).
func (p *Prepared) checkState(nlevels int) (*checkState, error) {
	ck := p.ck
	if ck == nil {
		fn, err := checkModule.Functions(p.Device(), checkKernelNames)
		if err != nil {
			return nil, err
		}
		ck = &checkState{fn: fn}
		mem := p.mem
		if ck.lv8, err = mem.AllocUint8s(p.n); err != nil {
			return nil, err
		}
		if ck.marks, err = mem.AllocUint32s((p.n + 31) / 32); err != nil {
			return nil, err
		}
		if ck.info, err = mem.AllocInt64s(6); err != nil {
			return nil, err
		}
		if p.coo == nil && p.arcs > 0 {
			if ck.tails, err = p.chunkTails(ck); err != nil {
				return nil, err
			}
		}
		p.ck = ck
	}
	if ck.ctl == nil || ck.ctl.Len() < ckWords+max(nlevels, 1) {
		c, err := p.mem.AllocUint64s(ckWords + max(nlevels, 64))
		if err != nil {
			return nil, err
		}
		if ck.ctl != nil {
			_ = ck.ctl.Free()
		}
		ck.ctl = c
	}
	return ck, nil
}

// chunkTails returns the table of bfscsr_tails for p's CSR: the tail of
// the first arc of each chunk of ckChunk arcs.
func (p *Prepared) chunkTails(ck *checkState) (*gpu.Int32s, error) {
	chunks := int((p.arcs + ckChunk - 1) / ckChunk)
	tails, err := p.mem.AllocInt32s(chunks)
	if err != nil {
		return nil, err
	}
	err = p.Device().Exec(func(t *gpu.Thread) error {
		return t.Launch(ck.fn[kCkTails], p.grid(chunks), gpu.D1(blockSize), 0, p.off, int64(p.n), p.arcs, tails)
	})
	if err != nil {
		_ = tails.Free()
		return nil, err
	}
	return tails, nil
}

// checkOn runs check.cu on levels and parents, a result with r's
// bookkeeping (r's own levels and parents are not read): bfsck_clear,
// bfsck_vertices, the arc pass and one download of the control words and
// level counts; the rule 5 search (when fewer vertices were marked than
// reached), the cycle search and the explanation only on failure.
func (p *Prepared) checkOn(ck *checkState, levels, parents *gpu.Int32s, r *Result) error {
	n, src, fn := p.n, r.Source, ck.fn
	block := gpu.D1(blockSize)
	ctl := make([]uint64, ck.ctl.Len())
	nl := len(r.FrontierSizes)
	fail := func(err error) error {
		return fmt.Errorf("bfs: device check of %s from %d: %w", p.Label(), src, err)
	}
	err := p.Device().Exec(func(t *gpu.Thread) error {
		if err := t.Launch(fn[kCkClear], gpu.D1(1), block, 0, ck.ctl, int32(ck.ctl.Len())); err != nil {
			return err
		}
		if err := t.Launch(fn[kCkVertices], p.grid(n), block, 0, levels, parents, ck.lv8, ck.marks, int64(n), src, ck.ctl, nl); err != nil {
			return err
		}
		if p.coo != nil {
			if err := t.Launch(fn[kCkCOO], p.grid(int(p.coo.Edges)), block, 0, p.coo.Start, p.coo.End, p.coo.Edges,
				levels, parents, src, ck.marks, ck.ctl); err != nil {
				return err
			}
		} else {
			directed := int32(0)
			if p.directed {
				directed = 1
			}
			if err := t.Launch(fn[kCkCSR], p.grid(int((p.arcs+ckChunk-1)/ckChunk)), block, 0, p.off, p.adj, ck.tails, p.arcs,
				directed, levels, ck.lv8, parents, src, ck.marks, ck.ctl); err != nil {
				return err
			}
		}
		if err := ck.ctl.Download(ctl); err != nil {
			return err
		}
		if ctl[ckErr] != ckNone || ctl[ckReached] == 0 || ctl[ckMarks] == ctl[ckReached]-1 {
			return nil
		}
		// Some reached vertex lacks its parent arc: find the lowest.
		if err := t.Launch(fn[kCkTreeArc], p.grid(n), block, 0, levels, ck.marks, int64(n), src, ck.ctl); err != nil {
			return err
		}
		return ck.ctl.Download(ctl)
	})
	if err != nil {
		return fail(err)
	}
	if ctl[ckErr] == ckNone {
		return checkCounts(r, p.directed, ctl, ctl[ckWords:ckWords+nl], p.coo == nil)
	}
	if devcheck.Rule(ctl[ckErr]) == ruleTreeLevel {
		// A cycle, if any, breaks rule 2 too and is reported first.
		if err := p.cycleSearch(ck, levels, parents, src, ctl); err != nil {
			return fail(err)
		}
	}
	info := make([]int64, 6)
	err = p.Device().Exec(func(t *gpu.Thread) error {
		var coo int32
		var st, en *gpu.Int32s
		if p.coo != nil {
			coo, st, en = 1, p.coo.Start, p.coo.End
		}
		if err := t.Launch(fn[kCkExplain], gpu.D1(1), gpu.D1(32), 0, ctl[ckErr], coo, st, en, p.off, p.adj, int64(n),
			levels, parents, ck.info); err != nil {
			return err
		}
		return ck.info.Download(info)
	})
	if err != nil {
		return fail(err)
	}
	return checkFailure(ctl[ckErr], info, src, p.coo != nil)
}

// cycleSearch follows parents by pointer jumping and lowers ctl[ckErr]
// (on the device and in ctl) to the first vertex they do not lead to src.
func (p *Prepared) cycleSearch(ck *checkState, levels, parents *gpu.Int32s, src int32, ctl []uint64) error {
	n, fn, block, vgrid := p.n, ck.fn, gpu.D1(blockSize), p.grid(p.n)
	if ck.anc == nil {
		anc, err := p.mem.AllocInt32s(n)
		if err != nil {
			return err
		}
		ck.anc = anc
	}
	return p.Device().Exec(func(t *gpu.Thread) error {
		if err := t.Launch(fn[kCkAnc], vgrid, block, 0, levels, parents, int64(n), src, ck.anc); err != nil {
			return err
		}
		for range bits.Len(uint(n)) + 1 {
			if err := t.Launch(fn[kCkJump], vgrid, block, 0, ck.anc, int64(n)); err != nil {
				return err
			}
		}
		if err := t.Launch(fn[kCkCycle], vgrid, block, 0, levels, ck.anc, int64(n), src, ck.ctl); err != nil {
			return err
		}
		return ck.ctl.Download(ctl)
	})
}

// checkFailure words a failure key of check.cu with its explanation info
// = {u, v, level u, level v, parent u, parent v}.
func checkFailure(key uint64, info []int64, src int32, coo bool) error {
	rule, idx := devcheck.Rule(key), devcheck.Index(key)
	u, v, lu, lv, pv := info[0], info[1], info[2], info[3], info[5]
	var msg string
	switch rule {
	case ruleSource:
		msg = fmt.Sprintf("rule 1 (tree): source %d has level %d and parent %d, want level 0 and itself", v, lv, pv)
	case ruleLevel:
		msg = fmt.Sprintf("vertex %d has level %d and parent %d (want level ≥ 0, or -1 and parent -1 when unreached)", v, lv, pv)
	case ruleParent:
		msg = fmt.Sprintf("rule 1 (tree): reached vertex %d (level %d) has parent %d, not a reached vertex", v, lv, pv)
	case ruleCycle:
		msg = fmt.Sprintf("rule 1 (tree): following parents from vertex %d (level %d, parent %d) does not reach source %d (a cycle)", v, lv, pv, src)
	case ruleTreeLevel:
		msg = fmt.Sprintf("rule 2 (tree levels): vertex %d has level %d but its parent %d does not have level %d", v, lv, pv, lv-1)
	case ruleSpan:
		msg = fmt.Sprintf("rule 4 (spanning): vertex %d is unreached but has an arc from reached vertex %d (level %d)", v, u, lu)
	case ruleEdgeLevel:
		msg = fmt.Sprintf("rule 3 (edge levels): arc %d→%d joins levels %d and %d, more than one apart", u, v, lu, lv)
	case ruleTreeArc:
		msg = fmt.Sprintf("rule 5 (tree arcs): vertex %d has parent %d but the graph has no arc %d→%d", v, pv, pv, v)
	default:
		msg = fmt.Sprintf("unknown failure %#x", key)
	}
	if rule == ruleSpan || rule == ruleEdgeLevel {
		if coo {
			msg += fmt.Sprintf(" (edge %d of the COO)", idx/2)
		} else {
			msg += fmt.Sprintf(" (arc %d)", idx)
		}
	}
	return fmt.Errorf("bfs: device check: %s", msg)
}

// checkCounts compares the result's bookkeeping with the device's counts.
func checkCounts(r *Result, directed bool, ctl, counts []uint64, arcs bool) error {
	if got := int(ctl[ckLevels]); got != len(r.FrontierSizes) {
		return fmt.Errorf("bfs: device check: %d frontier sizes for %d levels", len(r.FrontierSizes), got)
	}
	for l, c := range counts {
		if r.FrontierSizes[l] != int64(c) {
			return fmt.Errorf("bfs: device check: FrontierSizes[%d] = %d but %d vertices have level %d", l, r.FrontierSizes[l], c, l)
		}
	}
	if r.Reached != int64(ctl[ckReached]) {
		return fmt.Errorf("bfs: device check: Reached = %d but %d vertices have a level", r.Reached, ctl[ckReached])
	}
	if arcs {
		want := int64(ctl[ckArcs])
		if !directed {
			want /= 2
		}
		if r.ComponentEdges != want {
			return fmt.Errorf("bfs: device check: ComponentEdges = %d, want %d", r.ComponentEdges, want)
		}
	}
	return nil
}
