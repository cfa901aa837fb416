package bfs

import (
	_ "embed"
	"fmt"
	"math/bits"

	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/gpu"
)

// checkSource is the device check (check.cu), a module of its own: it
// shares no code with the searches of bfs.cu.
//
//go:embed check.cu
var checkSource string

var checkModule = gpu.ModuleCache{Name: "bfs_check.cu", Source: checkSource}

// Kernel names and control words of check.cu (a test compares them).
const (
	kCkVertices = "bfsck_vertices"
	kCkJump     = "bfsck_jump"
	kCkCOO      = "bfsck_coo"
	kCkCSR      = "bfsck_csr"
	kCkFinal    = "bfsck_final"
	kCkExplain  = "bfsck_explain"

	ckErr     = 0 // check.cu CK_ERR
	ckReached = 1 // CK_REACHED
	ckArcs    = 2 // CK_ARCS
	ckLevels  = 3 // CK_LEVELS
	ckWords   = 4 // CK_WORDS
	ckNone    = ^uint64(0)
)

var checkKernelNames = []string{kCkVertices, kCkJump, kCkCOO, kCkCSR, kCkFinal, kCkExplain}

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

// checkState is the device memory of Check, allocated by the first Check
// of a Prepared and kept with it: levels and parents (the result's), the
// pointer-jumping ancestors, the parent-arc marks, control words, level
// counts and the explanation of a failure.
type checkState struct {
	fn              map[string]*gpu.Function
	levels, parents *gpu.Int32s
	anc             *gpu.Int32s
	mark            *gpu.Uint8s
	ctl             *gpu.Uint64s
	counts          *gpu.Uint64s
	info            *gpu.Int64s
}

// Checker names the checker Check runs on this Prepared: "device" on a
// GPU, "cpu" on the host device (where Check is the package's Check).
func (p *Prepared) Checker() string {
	if p.host {
		return "cpu"
	}
	return "device"
}

// Check validates r, a result of p's graph, by the rules of the package's
// Check, on the device that holds the graph: per-vertex kernels check the
// source, the levels and parents and rule 2; edge-parallel kernels check
// rules 3 and 4 on every arc (on the COO, each edge in both directions)
// and mark each vertex whose parent arc exists (rule 5); pointer jumping
// (⌈log₂ N⌉+1 rounds) checks that parents lead every reached vertex to
// the source without a cycle (rule 1). It also checks Reached,
// FrontierSizes and, where the CSR is on the device (the
// direction-optimizing and dynamic-parallelism methods), ComponentEdges.
// The check is independent of the search: other kernels, which only read
// levels and parents. It reads the graph as prepared (the COO, permuted
// or not, or the CSR), whose construction is tested against the host's.
//
// The result's Levels and Parents are copied to the device (8 bytes per
// vertex) and checked there; nothing is copied back but a few control
// words, and on failure the ends of the offending arc. The first Check
// allocates 13 bytes per vertex, kept until Close. A failure is an error
// naming the rule and the lowest offending vertex or arc of the first
// rule broken (the rules in the order: source, levels, rule 1 parents,
// rule 1 cycles, rule 2, rule 4, rule 3, rule 5), e.g. "bfs: device
// check: rule 3 (edge levels): arc 5→9 joins levels 1 and 3, more than
// one apart". On the host device Check is Check(g, r). Check is
// serialised with Run.
func (p *Prepared) Check(r *Result) error {
	if p.host {
		return Check(p.g, r)
	}
	if r == nil {
		return fmt.Errorf("bfs: device check: no result")
	}
	n := p.n
	if len(r.Levels) != n || len(r.Parents) != n {
		return fmt.Errorf("bfs: device check: result has %d levels and %d parents for a %d-vertex graph (parents need Options.Parents)", len(r.Levels), len(r.Parents), n)
	}
	if r.Source < 0 || int(r.Source) >= n {
		return fmt.Errorf("bfs: device check: source %d is outside [0,%d)", r.Source, n)
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
	if err := ck.levels.Upload(r.Levels); err != nil {
		return fmt.Errorf("bfs: device check: %w", err)
	}
	if err := ck.parents.Upload(r.Parents); err != nil {
		return fmt.Errorf("bfs: device check: %w", err)
	}
	return p.checkDevice(ck, r)
}

// checkState returns the check's buffers, allocating them on first use
// (counts: nlevels words, grown when a deeper result comes).
func (p *Prepared) checkState(nlevels int) (*checkState, error) {
	ck := p.ck
	if ck == nil {
		m, err := checkModule.For(p.Device())
		if err != nil {
			return nil, err
		}
		ck = &checkState{fn: map[string]*gpu.Function{}}
		for _, name := range checkKernelNames {
			if ck.fn[name], err = m.Function(name); err != nil {
				return nil, err
			}
		}
		mem, n := p.mem, p.n
		for _, b := range []**gpu.Int32s{&ck.levels, &ck.parents, &ck.anc} {
			if *b, err = mem.AllocInt32s(n); err != nil {
				return nil, err
			}
		}
		if ck.mark, err = mem.AllocUint8s(n); err != nil {
			return nil, err
		}
		if ck.ctl, err = mem.AllocUint64s(ckWords); err != nil {
			return nil, err
		}
		if ck.info, err = mem.AllocInt64s(6); err != nil {
			return nil, err
		}
		p.ck = ck
	}
	if ck.counts == nil || ck.counts.Len() < max(nlevels, 1) {
		c, err := p.mem.AllocUint64s(max(nlevels, 64))
		if err != nil {
			return nil, err
		}
		if ck.counts != nil {
			_ = ck.counts.Free()
		}
		ck.counts = c
	}
	return ck, nil
}

// checkDevice runs check.cu on the levels and parents in ck.
func (p *Prepared) checkDevice(ck *checkState, r *Result) error {
	n, src, fn := p.n, r.Source, ck.fn
	block := gpu.D1(blockSize)
	ctl := make([]uint64, ckWords)
	nl := len(r.FrontierSizes)
	var counts []uint64
	err := p.Device().Exec(func(t *gpu.Thread) error {
		if err := ck.ctl.Upload([]uint64{ckNone, 0, 0, 0}); err != nil {
			return err
		}
		if err := ck.counts.Fill(0); err != nil {
			return err
		}
		if err := ck.mark.Fill(0); err != nil {
			return err
		}
		vgrid := p.grid(n)
		if err := t.Launch(fn[kCkVertices], vgrid, block, 0, ck.levels, ck.parents, int64(n), src, ck.anc, ck.ctl, ck.counts, nl); err != nil {
			return err
		}
		if p.coo != nil {
			if err := t.Launch(fn[kCkCOO], p.grid(int(p.coo.Edges)), block, 0, p.coo.Start, p.coo.End, p.coo.Edges,
				ck.levels, ck.parents, ck.mark, ck.ctl); err != nil {
				return err
			}
		} else {
			m := p.g.NumArcs()
			if err := t.Launch(fn[kCkCSR], p.grid(int((m+7)/8)), block, 0, p.off, p.adj, int64(n), m,
				ck.levels, ck.parents, ck.mark, ck.ctl); err != nil {
				return err
			}
		}
		for range bits.Len(uint(n)) + 1 {
			if err := t.Launch(fn[kCkJump], vgrid, block, 0, ck.anc, int64(n)); err != nil {
				return err
			}
		}
		if err := t.Launch(fn[kCkFinal], vgrid, block, 0, ck.levels, ck.anc, ck.mark, int64(n), src, ck.ctl); err != nil {
			return err
		}
		if err := ck.ctl.Download(ctl); err != nil {
			return err
		}
		if ctl[ckErr] != ckNone {
			var coo int32
			var st, en *gpu.Int32s
			if p.coo != nil {
				coo, st, en = 1, p.coo.Start, p.coo.End
			}
			return t.Launch(fn[kCkExplain], gpu.D1(1), gpu.D1(32), 0, ctl[ckErr], coo, st, en, p.off, p.adj, int64(n),
				ck.levels, ck.parents, ck.info)
		}
		var err error
		counts, err = ck.counts.ToHost()
		return err
	})
	if err != nil {
		return fmt.Errorf("bfs: device check of %s from %d: %w", p.Label(), src, err)
	}
	if ctl[ckErr] != ckNone {
		info := make([]int64, 6)
		if err := ck.info.Download(info); err != nil {
			return fmt.Errorf("bfs: device check of %s from %d: %w", p.Label(), src, err)
		}
		return checkFailure(ctl[ckErr], info, src, p.coo != nil)
	}
	return checkCounts(r, p.g.Directed, ctl, counts[:nl], p.coo == nil)
}

// checkFailure words a failure key of check.cu with its explanation info
// = {u, v, level u, level v, parent u, parent v}.
func checkFailure(key uint64, info []int64, src int32, coo bool) error {
	rule, idx := key>>48, key&(1<<48-1)
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
