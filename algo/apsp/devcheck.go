package apsp

import (
	_ "embed"
	"fmt"
	"math"
	mathbits "math/bits"
	"math/rand/v2"
	"slices"

	"github.com/graphnb/graphnb/algo/internal/devcheck"
	"github.com/graphnb/graphnb/algo/internal/prepared"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// checkBody is the device check (check.cu), a module of its own: it
// shares no code with the Floyd-Warshall kernels of fw.cu.
//
//go:embed check.cu
var checkBody string

// checkSource is what NVRTC compiles: the shared helpers of
// algo/internal/devcheck (check.cuh), then check.cu.
var checkSource = devcheck.Source(checkBody)

var checkModule = gpu.ModuleCache{Name: "apsp_check.cu", Source: checkSource}

// Kernel names and control words of check.cu (a test compares them).
const (
	kCkMaxAbs   = "apspck_maxabs_f32"
	kCkRefInit  = "apspck_ref_init"
	kCkRelaxI32 = "apspck_relax_i32"
	kCkRelaxF32 = "apspck_relax_f32"
	kCkRowsI32  = "apspck_rows_i32"
	kCkRowsF32  = "apspck_rows_f32"
	kCkJump     = "apspck_jump"
	kCkFinal    = "apspck_final"

	ckBlock   = 256              // CK_BLOCK
	ckErr     = devcheck.ErrWord // CK_ERR
	ckChanged = 1                // CK_CHANGED
	ckMaxAbs  = 2                // CK_MAXABS
	ckWords   = 4                // CK_WORDS
	ckNone    = devcheck.None
	// ckRoundBatch is how many relaxation rounds run between two reads
	// of the change word.
	ckRoundBatch = 8
)

var checkKernelNames = []string{kCkMaxAbs, kCkRefInit, kCkRelaxI32, kCkRelaxF32, kCkRowsI32, kCkRowsF32, kCkJump, kCkFinal}

// Rules of check.cu, in the order they are reported.
const (
	ruleValue = 1 + iota
	ruleParent
	ruleTree
)

// DeviceCheckSamples is the number of source rows bench's device check
// samples per result.
const DeviceCheckSamples = 8

// checkState is the device memory of Check, allocated by its first call
// and kept until Close: the input matrix (the runs overwrite theirs), the
// sampled sources and rows, the reference rows, the frontiers, the
// pointer-jumping ancestors and the control words.
type checkState struct {
	fn          map[string]*gpu.Function
	m           *gpu.Int32s // the input, as 4-byte words
	sneg        float64     // (N−1)·max|entry| for float32 with negative entries, else 0
	src         *gpu.Int32s
	dist, par   *gpu.Int32s
	anc         *gpu.Int32s
	ref         *gpu.Float64s
	front, next *gpu.Uint8s
	ctl         *gpu.Uint64s
}

// Checker names the checker Check runs on this Prepared: "device" on a
// GPU, "cpu" on the host device and when the matrix is streamed out of
// core (it does not fit the device, so the check runs on the host).
func (p *Prepared) Checker() string { return devcheck.Checker(p.Device().IsHost() || p.ooc != nil) }

// Check validates r, a result of p's matrix, on the device, by a method
// other than Floyd-Warshall, on sampled rows. What is checked in full and
// what is sampled:
//
//   - in full (on the host, where the result is; O(N)): the diagonal,
//     Dist[i][i] = 0 and, with Parents, Parents[i][i] = i;
//   - sampled: the rows of k = min(samples, N) sources — always 0 and
//     N−1, the others drawn without repetition from seed (deterministic;
//     samples ≥ N checks every row). For each, the device recomputes the
//     row by a frontier Bellman-Ford in float64 (exact for int32 sums)
//     and compares Dist entry by entry with Check's rule: reachability
//     exactly, int32 exactly (lengths ≥ InfI32 are unreachable), float32
//     within N·2⁻²²·S (S = |want|, or (N−1)·max|entry| with negative
//     entries). With Parents (not DistancesOnly) it checks the row's
//     predecessors: Parents[s][s] = s, -1 exactly for the unreachable,
//     else an edge p→j with Dist[s][j] agreeing with Dist[s][p] + w(p,j),
//     and following them from every j leads to s (pointer jumping).
//
// Agreement with the reference implies no edge can still shorten a
// sampled distance (beyond the float tolerance). The sampled rows are
// uploaded (8·k·N bytes); the matrix is uploaded by the first check and
// kept (4·N² bytes, plus 22·k·N for the rows) until Close. A failure is an
// error naming the rule and the lowest offending entry (source, vertex),
// e.g. "apsp: device check: value: Dist[0][5] = 7, but the shortest path
// has length 6". A negative cycle reachable from a sampled source is an
// error. On the host device, and for a matrix streamed out of core, it
// is Check(d, r, samples, seed), which samples without forcing 0 and N−1.
// It is serialised with Run.
func (p *Prepared) Check(r *Result, samples int, seed uint64) error {
	if p.Checker() == "cpu" {
		return Check(p.d, r, samples, seed)
	}
	d, n := p.d, p.info.n
	if err := checkShape(d, r, samples, false); err != nil {
		return fmt.Errorf("apsp: device check: %w", err)
	}
	if n == 0 {
		return nil
	}
	if err := checkDiagonal(r); err != nil {
		return err
	}
	sources := deviceSources(n, samples, seed)
	prepared.Lock(&p.base)
	defer prepared.Unlock(&p.base)
	if err := prepared.Open(&p.base); err != nil {
		return err
	}
	ck, err := p.checkState(len(sources))
	if err != nil {
		return fmt.Errorf("apsp: device check: %w", err)
	}
	key, neg, err := p.checkDevice(ck, r, sources)
	if err != nil {
		return fmt.Errorf("apsp: device check of %s: %w", p.Label(), err)
	}
	if neg >= 0 {
		return fmt.Errorf("apsp: device check: the matrix has a negative cycle reachable from a sampled source (of %v): no result can be valid", sources)
	}
	if key != ckNone {
		return p.checkFailure(ck, r, sources, key)
	}
	return nil
}

// checkDiagonal checks Dist[i][i] = 0 and Parents[i][i] = i for every i.
func checkDiagonal(r *Result) error {
	n := r.Dist.N
	for i := range n {
		if x := r.Dist.At(i, i); x != 0 {
			return fmt.Errorf("apsp: device check: diagonal: Dist[%d][%d] = %v, want 0", i, i, x)
		}
		if r.Parents != nil && r.Parents[i*n+i] != int32(i) {
			return fmt.Errorf("apsp: device check: diagonal: Parents[%d][%d] = %d, want %d", i, i, r.Parents[i*n+i], i)
		}
	}
	return nil
}

// deviceSources returns the sampled sources, sorted: every vertex when
// samples ≥ n, else 0, n−1 and samples−2 others drawn from seed.
func deviceSources(n, samples int, seed uint64) []int32 {
	var out []int32
	if samples >= n {
		for i := range n {
			out = append(out, int32(i))
		}
		return out
	}
	out = []int32{0}
	if n > 1 && samples > 1 {
		out = append(out, int32(n-1))
	}
	for _, v := range rand.New(rand.NewPCG(seed, 0x61707370)).Perm(n) {
		if len(out) >= samples {
			break
		}
		if v != 0 && v != n-1 {
			out = append(out, int32(v))
		}
	}
	slices.Sort(out)
	return out
}

// checkState returns the check's buffers for k sampled rows, allocating
// them on first use (the rows again when k changes).
func (p *Prepared) checkState(k int) (*checkState, error) {
	n := p.info.n
	ck := p.ck
	if ck == nil {
		fn, err := checkModule.Functions(p.Device(), checkKernelNames)
		if err != nil {
			return nil, err
		}
		ck = &checkState{fn: fn}
		if ck.m, err = p.mem.Int32sFrom(bits(p.d)); err != nil {
			return nil, err
		}
		if ck.ctl, err = p.mem.AllocUint64s(ckWords); err != nil {
			return nil, err
		}
		if p.info.f32 && p.info.neg {
			if ck.sneg, err = p.maxAbs(ck); err != nil {
				return nil, err
			}
		}
		p.ck = ck
	}
	if ck.src != nil && ck.src.Len() == k {
		return ck, nil
	}
	for _, b := range []interface{ Free() error }{ck.src, ck.dist, ck.par, ck.anc, ck.ref, ck.front, ck.next} {
		if b != nil {
			_ = b.Free()
		}
	}
	var err error
	if ck.src, err = p.mem.AllocInt32s(k); err != nil {
		return nil, err
	}
	for _, b := range []**gpu.Int32s{&ck.dist, &ck.par, &ck.anc} {
		if *b, err = p.mem.AllocInt32s(k * n); err != nil {
			return nil, err
		}
	}
	if ck.ref, err = p.mem.AllocFloat64s(k * n); err != nil {
		return nil, err
	}
	for _, b := range []**gpu.Uint8s{&ck.front, &ck.next} {
		if *b, err = p.mem.AllocUint8s(k * n); err != nil {
			return nil, err
		}
	}
	return ck, nil
}

// maxAbs returns (N−1)·max|finite off-diagonal entry| of the float32
// matrix, found on the device.
func (p *Prepared) maxAbs(ck *checkState) (float64, error) {
	n := int64(p.info.n)
	ctl := make([]uint64, ckWords)
	err := p.Device().Exec(func(t *gpu.Thread) error {
		if err := ck.ctl.Upload(ctl); err != nil {
			return err
		}
		if err := t.Launch(ck.fn[kCkMaxAbs], elementGrid(n*n), gpu.D1(ckBlock), 0, ck.m, n, ck.ctl); err != nil {
			return err
		}
		return ck.ctl.Download(ctl)
	})
	return float64(n-1) * float64(math.Float32frombits(uint32(ctl[ckMaxAbs]))), err
}

// checkDevice uploads the sampled rows, computes the reference rows and
// runs the rules; it returns the failure key and, when the reference
// rows still changed after N rounds (a negative cycle), a round ≥ 0
// (else -1).
func (p *Prepared) checkDevice(ck *checkState, r *Result, sources []int32) (uint64, int, error) {
	n, k := int64(p.info.n), len(sources)
	fn, block := ck.fn, gpu.D1(ckBlock)
	grid := elementGrid(int64(k) * n)
	dist, par := make([]int32, k*int(n)), []int32(nil)
	all := bits(r.Dist)
	for t, s := range sources {
		copy(dist[t*int(n):], all[int64(s)*n:(int64(s)+1)*n])
	}
	if r.Parents != nil {
		par = make([]int32, k*int(n))
		for t, s := range sources {
			copy(par[t*int(n):], r.Parents[int64(s)*n:(int64(s)+1)*n])
		}
	}
	relax, rows := fn[kCkRelaxI32], fn[kCkRowsI32]
	isint := int32(1)
	if p.info.f32 {
		relax, rows, isint = fn[kCkRelaxF32], fn[kCkRowsF32], 0
	}
	ctl := devcheck.Initial(ckWords)
	negRound := -1
	err := p.Device().Exec(func(t *gpu.Thread) error {
		if err := ck.src.Upload(sources); err != nil {
			return err
		}
		if err := ck.dist.Upload(dist); err != nil {
			return err
		}
		if par != nil {
			if err := ck.par.Upload(par); err != nil {
				return err
			}
		}
		if err := ck.ctl.Upload(ctl); err != nil {
			return err
		}
		if err := ck.next.Fill(0); err != nil {
			return err
		}
		if err := t.Launch(fn[kCkRefInit], grid, block, 0, ck.ref, ck.front, ck.src, int32(k), n); err != nil {
			return err
		}
		// Rounds until one changes nothing; round N+1 changing something
		// means a negative cycle.
		front, next := ck.front, ck.next
		for round := 1; ; {
			last := round + ckRoundBatch - 1
			for ; round <= last; round++ {
				if err := t.Launch(relax, grid, block, 0, ck.m, n, int32(k), ck.ref, front, next, int32(round), ck.ctl); err != nil {
					return err
				}
				front, next = next, front
				if err := next.Fill(0); err != nil {
					return err
				}
			}
			if err := ck.ctl.Download(ctl); err != nil {
				return err
			}
			if int(ctl[ckChanged]) < last {
				break
			}
			if int64(last) > n {
				negRound = last
				return nil
			}
		}
		var pb *gpu.Int32s
		if par != nil {
			pb = ck.par
		}
		tol := float64(n) * 0x1p-22
		if err := t.Launch(rows, grid, block, 0, ck.m, n, int32(k), ck.src, ck.dist, pb, ck.ref, isint, tol, ck.sneg, ck.anc, ck.ctl); err != nil {
			return err
		}
		if par != nil {
			for range mathbits.Len(uint(n)) + 1 {
				if err := t.Launch(fn[kCkJump], grid, block, 0, ck.anc, int32(k), n); err != nil {
					return err
				}
			}
			if err := t.Launch(fn[kCkFinal], grid, block, 0, ck.anc, ck.src, int32(k), n, ck.ctl); err != nil {
				return err
			}
		}
		return ck.ctl.Download(ctl)
	})
	return ctl[ckErr], negRound, err
}

// checkFailure words a failure key of check.cu (entry t·N + j: sampled
// source t, vertex j), downloading the reference rows.
func (p *Prepared) checkFailure(ck *checkState, r *Result, sources []int32, key uint64) error {
	n := p.info.n
	rule, idx := devcheck.Rule(key), int(devcheck.Index(key))
	s, j := int(sources[idx/n]), idx%n
	var msg string
	switch rule {
	case ruleValue:
		ref, err := ck.ref.ToHost()
		if err != nil {
			return fmt.Errorf("apsp: device check of %s: %w", p.Label(), err)
		}
		want := ref[idx]
		if p.d.IsInt() && want >= float64(graph.InfI32) {
			want = math.Inf(1)
		}
		msg = fmt.Sprintf("value: Dist[%d][%d] = %v, but the shortest path has length %v", s, j, r.Dist.At(s, j), want)
	case ruleParent:
		pj := int(r.Parents[s*n+j])
		switch {
		case j == s:
			msg = fmt.Sprintf("parent: Parents[%d][%d] = %d, want %d", s, s, pj, s)
		case math.IsInf(r.Dist.At(s, j), 1):
			msg = fmt.Sprintf("parent: Parents[%d][%d] = %d, but %d is unreachable from %d (want -1)", s, j, pj, j, s)
		case pj < 0 || pj >= n || pj == j:
			msg = fmt.Sprintf("parent: Parents[%d][%d] = %d is not a predecessor of %d", s, j, pj, j)
		case math.IsInf(p.d.At(pj, j), 1):
			msg = fmt.Sprintf("parent: Parents[%d][%d] = %d, but there is no edge %d→%d", s, j, pj, pj, j)
		default:
			msg = fmt.Sprintf("parent: Parents[%d][%d] = %d, but Dist[%d][%d] + w(%d,%d) = %v ≠ Dist[%d][%d] = %v",
				s, j, pj, s, pj, pj, j, r.Dist.At(s, pj)+p.d.At(pj, j), s, j, r.Dist.At(s, j))
		}
	case ruleTree:
		msg = fmt.Sprintf("parent tree: following Parents[%d][·] from %d does not lead to %d (a cycle)", s, j, s)
	default:
		msg = fmt.Sprintf("unknown failure %#x", key)
	}
	return fmt.Errorf("apsp: device check: %s", msg)
}
