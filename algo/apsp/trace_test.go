package apsp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/fakegpu"
	"github.com/graphnb/graphnb/trace"
)

// traceVariant is one traced configuration: options, and a forced
// out-of-core plan (q×q blocks, g per copy) when force[0] > 0.
type traceVariant struct {
	name  string
	opts  Options
	force [2]int
}

// traceVariants are the methods traced by the tests: plain, blocked and
// out of core (in core when it fits, and with forced plans).
func traceVariants(tile int) []traceVariant {
	return []traceVariant{
		{"plain", Options{Method: PlainGPU, Tile: tile}, [2]int{}},
		{"blocked", Options{Method: BlockedGPU, Tile: tile}, [2]int{}},
		{"ooc_fits", Options{Method: OutOfCoreGPU, Tile: tile}, [2]int{}},
		{"ooc_q4_g2", Options{Method: OutOfCoreGPU, Tile: tile, MemoryCap: 1}, [2]int{4, 2}},
		{"ooc_q3_g1", Options{Method: OutOfCoreGPU, Tile: tile, MemoryCap: 1}, [2]int{3, 1}},
	}
}

// traceMatrices are small matrices no tile divides, both element types,
// and a sparse one whose runs with predecessors rebuild them.
func traceMatrices(small bool) []gpuCase {
	n := 70
	if !small {
		n = 300
	}
	rng := rand.New(rand.NewPCG(41, 42))
	return []gpuCase{
		{fmt.Sprintf("random_%d_int", n), randDense(rng, n, 0.08, true, ints(1, 100))},
		{fmt.Sprintf("random_%d_float", n+3), randDense(rng, n+3, 0.08, false, reals(0.5, 10))},
		{fmt.Sprintf("sparse_%d_int", n+5), randDense(rng, n+5, 0.01, true, ints(1, 100))},
	}
}

// plainBlockMatrices are matrices whose sizes test PlainGPU's k-blocks
// at their edges: one vertex, fewer than a k-block (traceKBlock), one
// k-block exactly, one k more (the last block's first launch is the
// run's last), and two blocks and one k; float32 for one of them.
func plainBlockMatrices() []gpuCase {
	rng := rand.New(rand.NewPCG(43, 44))
	var out []gpuCase
	for _, n := range []int{1, traceKBlock / 2, traceKBlock, traceKBlock + 1, 2*traceKBlock + 1} {
		out = append(out, gpuCase{fmt.Sprintf("plain_blocks_%d_int", n), randDense(rng, n, 0.2, true, ints(1, 100))})
	}
	return append(out, gpuCase{fmt.Sprintf("plain_blocks_%d_float", traceKBlock+1), randDense(rng, traceKBlock+1, 0.2, false, reals(0.5, 10))})
}

// TestPlainEntries checks plainEntries for every n up to five k-blocks:
// the entries' k's follow one another (each entry's k plus its count is
// the next one's k), start at 0 and sum to n; none spans two k-blocks;
// the last is k = n−1 alone; there is one per k-block, and one more
// where the last block has more than one k.
func TestPlainEntries(t *testing.T) {
	for n := range 5*traceKBlock + 2 {
		entries := plainEntries(n)
		next := 0
		for i, e := range entries {
			if e.k != next || e.count < 1 || e.k/traceKBlock != (e.k+e.count-1)/traceKBlock {
				t.Fatalf("n = %d: entry %d is %+v after k's up to %d", n, i, e, next-1)
			}
			next += e.count
		}
		if next != n {
			t.Fatalf("n = %d: the entries stand for %d k's: %v", n, next, entries)
		}
		want := (n + traceKBlock - 1) / traceKBlock
		if n > 0 && n%traceKBlock != 1 {
			want++ // the run's last k taken from its block's entry
		}
		if len(entries) != want || n > 0 && entries[len(entries)-1] != (plainEntry{n - 1, 1}) {
			t.Fatalf("n = %d: %d entries, want %d ending with k = %d alone: %v", n, len(entries), want, n-1, entries)
		}
	}
}

// sameResult requires two results of one matrix to be identical: Dist
// bit for bit and Parents.
func sameResult(t *testing.T, what string, got, want *Result) {
	t.Helper()
	if !slices.Equal(got.Dist.I32, want.Dist.I32) || !slices.Equal(bits(got.Dist), bits(want.Dist)) || !slices.Equal(got.Parents, want.Parents) {
		t.Fatalf("%s: the traced result differs from the untraced one", what)
	}
}

// expectSteps returns the kind and Inspected of each step a traced run
// of p's method over n vertices has (see Options.Trace).
func expectSteps(p *Prepared, n int) (kind string, inspected []int64) {
	o := p.Options()
	switch {
	case p.Device().IsHost() && o.Method == PlainGPU:
		for k := 0; k < n; k += traceKBlock {
			inspected = append(inspected, relaxations(min(traceKBlock, n-k), n))
		}
		return kindKBlock, inspected
	case p.Device().IsHost():
		tile := o.Tile
		if tile == 0 {
			tile = DefaultTile
		}
		tile = max(1, min(tile, n))
		for b := 0; b < n; b += tile {
			inspected = append(inspected, relaxations(min(tile, n-b), n))
		}
		return kindRound, inspected
	case p.ooc != nil:
		pl := p.ooc.plan
		for range pl.q {
			inspected = append(inspected, relaxations(pl.K, pl.K*pl.q))
		}
		return kindRound, inspected
	case o.Method == PlainGPU:
		for k := 0; k < n; k += traceKBlock {
			inspected = append(inspected, relaxations(min(traceKBlock, n-k), n))
		}
		return kindKBlock, inspected
	default:
		for range p.np / p.cfg.tile {
			inspected = append(inspected, relaxations(p.cfg.tile, p.np))
		}
		return kindRound, inspected
	}
}

// hostArcs counts d's finite off-diagonal entries.
func hostArcs(d *graph.Dense) int64 {
	var m int64
	for i := range d.N {
		for j := range d.N {
			if i != j && !math.IsInf(d.At(i, j), 1) {
				m++
			}
		}
	}
	return m
}

// checkRunTrace requires r's trace to agree with its run on p over d:
// Check passes (on the fake driver, whose events all measure 2.5 ms,
// without its times); Algorithm, Time and n² arcs as the result's; a
// step per round or k-block of the expected kind and relaxations, none
// with a frontier or updates; in core on a GPU the launches are fw_init
// (set-up) then fw_plain per k-block or the three phases per round, in order,
// each step's time its launches'; out of core no launches, and every
// round copied blocks (Copy > 0) of which at most all were exposed.
func checkRunTrace(t *testing.T, what string, p *Prepared, d *graph.Dense, r *Result) {
	t.Helper()
	tr := r.Trace
	if tr == nil {
		t.Fatalf("%s: traced run without a trace", what)
	}
	fake := fakegpu.IsChild()
	if err := tr.Check(); err != nil && !fake {
		t.Fatalf("%s: %v\n%v", what, err, tr)
	}
	if err := tr.Untimed().Check(); err != nil {
		t.Fatalf("%s: untimed: %v", what, err)
	}
	n := d.N
	wantTime := r.Time
	if p.ooc != nil {
		wantTime = tr.Time // the streamed span, checked below
		if !fake && (tr.Time < r.Time || tr.Time > r.Time+r.CopyTime) {
			t.Errorf("%s: the trace's time %v lies outside the kernels' %v and with copies %v", what, tr.Time, r.Time, r.Time+r.CopyTime)
		}
	}
	if tr.Algorithm != r.Algorithm || tr.Time != wantTime || tr.Arcs != int64(n)*int64(n) {
		t.Fatalf("%s: trace %q, %v, %d arcs; result %q, %v, %d entries", what, tr.Algorithm, tr.Time, tr.Arcs, r.Algorithm, r.Time, n*n)
	}
	kind, inspected := expectSteps(p, n)
	kinds := make([]string, len(inspected))
	for i := range kinds {
		kinds[i] = kind
	}
	if p.rebuild {
		kinds, inspected = append(kinds, kindRebuild), append(inspected, int64(n)*hostArcs(d))
	}
	if len(tr.Steps) != len(inspected) {
		t.Fatalf("%s: %d steps, want %d\n%v", what, len(tr.Steps), len(inspected), tr)
	}
	for i, s := range tr.Steps {
		kind := kinds[i]
		if s.Kind != kind || s.Inspected != inspected[i] || s.Frontier != 0 || s.FrontierArcs != 0 || s.Updated != 0 || s.HostTime != 0 || s.Why != "" {
			t.Fatalf("%s: step %d: %+v, want kind %q inspecting %d", what, i, s, kind, inspected[i])
		}
		if s.Exposed > s.Copy || s.Exposed > s.Time {
			t.Fatalf("%s: step %d exposes %v of %v copies in %v", what, i, s.Exposed, s.Copy, s.Time)
		}
		if (p.ooc != nil) != (s.Copy > 0) {
			t.Fatalf("%s: step %d copied %v (out of core: %v)", what, i, s.Copy, p.ooc != nil)
		}
	}
	if p.Device().IsHost() {
		if len(tr.Launches) != 0 || !strings.Contains(tr.Algorithm, "host device") {
			t.Fatalf("%s: the host traced %d launches, algorithm %q", what, len(tr.Launches), tr.Algorithm)
		}
		var sum time.Duration
		for _, s := range tr.Steps {
			sum += s.Time
		}
		if sum > r.Time {
			t.Fatalf("%s: the rounds take %v, the run %v", what, sum, r.Time)
		}
		return
	}
	if p.ooc != nil {
		if len(tr.Launches) != 0 {
			t.Fatalf("%s: an out-of-core trace with %d launches", what, len(tr.Launches))
		}
		return
	}
	checkLaunches(t, what, p, d, tr)
}

// checkLaunches requires an in-core GPU trace's launches to be fw_init
// (step -1), then fw_plain for each k-block (traceKBlock k's: its step,
// Count its k's; the run's last k, n−1, an entry of its own, Count 1,
// taken from its block's unless it is the block's first), so that the
// Counts sum to n, or, per round
// b, fw_phase1 and (with more than one tile) fw_phase2 and fw_phase3
// (step b); each step's time is its launches' sum. A run that rebuilds
// the predecessors of d has the CSR's three launches after fw_init
// (step -1) and its rebuild kernel as its last step: fw_rebuild, the
// only launch with gathered bytes, or a staged one (none gathered).
func checkLaunches(t *testing.T, what string, p *Prepared, d *graph.Dense, tr *trace.Trace) {
	t.Helper()
	suffix := "_i32"
	if p.info.f32 {
		suffix = "_f32"
	}
	type want struct {
		name  string
		step  int
		count int // trace.Launch.Count
	}
	wants := []want{{"fw_init" + suffix, -1, 0}}
	if p.rebuild {
		wants = append(wants, want{"fw_csr_count" + suffix, -1, 0}, want{"fw_csr_scan", -1, 0}, want{"fw_csr_fill" + suffix, -1, 0})
	}
	n := p.info.n
	if p.opts.Method == PlainGPU {
		// an entry per k-block standing for its k's, the run's last k
		// an entry of its own.
		for k := 0; k < n; k += traceKBlock {
			ks, step := min(traceKBlock, n-k), k/traceKBlock
			switch {
			case k+ks < n:
				wants = append(wants, want{"fw_plain" + suffix, step, ks})
			case ks == 1:
				wants = append(wants, want{"fw_plain" + suffix, step, 1})
			default:
				wants = append(wants, want{"fw_plain" + suffix, step, ks - 1}, want{"fw_plain" + suffix, step, 1})
			}
		}
	} else {
		nb := p.np / p.cfg.tile
		for b := range nb {
			wants = append(wants, want{"fw_phase1" + suffix, b, 0})
			if nb > 1 {
				wants = append(wants, want{"fw_phase2" + suffix, b, 0}, want{"fw_phase3" + suffix, b, 0})
			}
		}
		if p.rebuild {
			wants = append(wants, want{rebuildKernelName(p) + suffix, nb, 0})
		}
	}
	if len(tr.Launches) != len(wants) {
		t.Fatalf("%s: %d launches, want %d", what, len(tr.Launches), len(wants))
	}
	launches := len(wants) // fw_init, the CSR's, and every launch of the blocked methods
	if p.opts.Method == PlainGPU {
		launches = 1 + n
	}
	if got := tr.LaunchCount(); got != launches {
		t.Fatalf("%s: the entries stand for %d launches, want %d", what, got, launches)
	}
	per := make([]time.Duration, len(tr.Steps))
	var bytes int64
	for i, l := range tr.Launches {
		if l.Name != wants[i].name || l.Step != wants[i].step || l.Count != wants[i].count || l.Time <= 0 {
			t.Fatalf("%s: launch %d: %+v, want %s of step %d, count %d", what, i, l, wants[i].name, wants[i].step, wants[i].count)
		}
		wantGather := int64(0)
		if strings.HasPrefix(l.Name, "fw_rebuild") && p.rebuildPlan.rows == 0 {
			wantGather = 4 * int64(n) * hostArcs(d) // a lookup D[i][k] per row and arc
		}
		if l.Bytes <= 0 || l.Gather != wantGather {
			t.Fatalf("%s: launch %d (%s): %d bytes, %d gathered; want a model, %d gathered", what, i, l.Name, l.Bytes, l.Gather, wantGather)
		}
		bytes += l.Bytes
		if l.Step >= 0 {
			per[l.Step] += l.Time
		}
	}
	if want := tileCountBytes(p) + rebuildCountBytes(p, d); bytes != want {
		t.Fatalf("%s: the launches move %d bytes, the tile count %d", what, bytes, want)
	}
	for i, s := range tr.Steps {
		if s.Time != per[i] {
			t.Fatalf("%s: step %d takes %v, its launches %v", what, i, s.Time, per[i])
		}
	}
}

// tileCountBytes is the bytes of a traced in-core run on p counted the
// long way, to check launchBytes: the plain method's per-k reads; for the
// blocked one, per launch, the set of (tile, plane) pairs it reads and
// the set it writes (planes 0 distances, 1 predecessors, 2 hop counts),
// an operand that is the updated tile itself (phase 2) adding nothing.
func tileCountBytes(p *Prepared) int64 {
	n, np, tile := int64(p.info.n), int64(p.np), p.cfg.tile
	var planes, aPlanes []int // what C and B read, what A reads
	planes, aPlanes = []int{0}, []int{0}
	if p.cfg.pred {
		planes = append(planes, 1)
	}
	if p.cfg.hops {
		planes, aPlanes = append(planes, 2), append(aPlanes, 2)
	}
	total := 4*n*n + 4*np*np*int64(len(planes)) // fw_init
	if p.opts.Method == PlainGPU {
		perK := n*n + 2*n // distances: all, row k and column k
		if p.cfg.hops {
			perK *= 2
		}
		return total + 4*n*perK
	}
	type access struct {
		i, j, plane int
		write       bool
	}
	nb := int(np) / tile
	count := func(set map[access]bool) int64 { return int64(len(set)) * int64(tile*tile) * 4 }
	update := func(set map[access]bool, i, j, ai, aj, bi, bj int) {
		for _, pl := range planes {
			set[access{i, j, pl, false}], set[access{i, j, pl, true}] = true, true
			set[access{bi, bj, pl, false}] = true
		}
		for _, pl := range aPlanes {
			set[access{ai, aj, pl, false}] = true
		}
	}
	for b := range nb {
		one := map[access]bool{}
		update(one, b, b, b, b, b, b)
		total += count(one)
		if nb == 1 {
			continue
		}
		two, three := map[access]bool{}, map[access]bool{}
		for x := range nb {
			if x == b {
				continue
			}
			update(two, b, x, b, b, b, x) // row b: diagonal ⊗ itself
			update(two, x, b, x, b, b, b) // column b: itself ⊗ diagonal
			for y := range nb {
				if y != b {
					update(three, x, y, x, b, b, y)
				}
			}
		}
		total += count(two) + count(three)
	}
	return total
}

// rebuildCountBytes is the bytes of a traced run's CSR and rebuild
// launches counted from d, 0 when p does not rebuild: the CSR kernels
// read the padded distance plane (twice: count, fill) and its 8 counts
// per column (count writes them, scan reads them twice, fill once), scan
// writes and fill reads the np+1 offsets, fill writes the arcs (tail and
// weight); fw_rebuild reads the plane and writes the predecessors, reads
// the offsets and arcs once and looks up a distance per row and arc;
// the staged kernels the same but the lookups (in shared memory).
func rebuildCountBytes(p *Prepared, d *graph.Dense) int64 {
	if !p.rebuild {
		return 0
	}
	np, m, n := int64(p.np), hostArcs(d), int64(d.N)
	plane, counts, offsets, arcs := 4*np*np, 4*8*np, 8*(np+1), 8*m
	csr := 2*plane + 4*counts + 2*offsets + arcs
	rebuild := 2*plane + offsets + arcs
	if p.rebuildPlan.rows == 0 {
		rebuild += 4 * n * m
	}
	return csr + rebuild
}

// rebuildKernelName is the rebuild kernel p launches, without the
// element type's suffix.
func rebuildKernelName(p *Prepared) string {
	switch p.rebuildPlan.kernel {
	case rebuildRows:
		return "fw_rebuild_rows"
	case rebuildWarp:
		return "fw_rebuild_warp"
	}
	return "fw_rebuild"
}

// TestLaunchBytes checks launchBytes against sums worked by hand for 40
// vertices in tiles of 16 (np = 48, 3×3 tiles of 256 entries, 1 KiB a
// plane), with predecessors: fw_init reads 40²·4 = 6400 bytes and writes
// 2 planes of 48²·4 = 18432; a round's fw_phase1 reads and writes the 2
// planes of the diagonal tile, 4096; fw_phase2 reads and writes 2
// planes of 4 tiles, 16384, and reads the diagonal as A (distances) and
// as B (distances and predecessors), 2 planes once, 2048; fw_phase3 reads and writes 2 planes of 4 tiles, 16384, and
// reads its 2 A tiles (1 plane) and 2 B tiles (2 planes), 6144. With hop
// counts A has 2 planes and the others 3.
func TestLaunchBytes(t *testing.T) {
	for _, c := range []struct {
		cfg                          config
		init, one, two, three, plain int64
	}{
		{config{tile: 16, pred: true}, 6400 + 18432, 4096, 16384 + 2048, 16384 + 6144, (1600 + 80) * 4},
		{config{tile: 16}, 6400 + 9216, 2048, 8192 + 1024, 8192 + 4096, (1600 + 80) * 4},
		{config{tile: 16, pred: true, hops: true}, 6400 + 27648, 6144, 24576 + 3072, 24576 + 10240, (1600 + 80) * 8},
	} {
		p := &Prepared{info: matrixInfo{n: 40}, np: 48, cfg: c.cfg, opts: Options{Method: BlockedGPU}}
		for name, want := range map[string]int64{"fw_init_i32": c.init, "fw_phase1_f32": c.one, "fw_phase2_i32": c.two, "fw_phase3_f32": c.three, "fw_plain_i32": c.plain, "fw_copy": 0} {
			if got, g := p.launchBytes(name); got != want || g != 0 {
				t.Errorf("%+v: %s: %d bytes, %d gathered; want %d, 0", c.cfg, name, got, g, want)
			}
		}
		if got, want := c.init+3*(c.one+c.two+c.three), tileCountBytes(p); got != want {
			t.Errorf("%+v: a run's launches by hand %d bytes, by tile count %d", c.cfg, got, want)
		}
	}
}

// checkTraceOn traces every variant on every matrix on dev, twice per
// preparation (the second run reuses the launch log's ring in core, the
// events out of core), beside an untraced preparation: the results are
// identical, the untraced one has no trace, the traced ones agree with
// their runs (checkRunTrace).
func checkTraceOn(t *testing.T, dev *gpu.Device, cases []gpuCase, variants []traceVariant) {
	for _, c := range cases {
		for _, v := range variants {
			t.Run(c.name+"/"+v.name, func(t *testing.T) {
				if v.force[0] > 0 {
					defer forcePlan(v.force[0], v.force[1])()
				}
				plain, err := Prepare(dev, c.d, v.opts)
				if err != nil {
					t.Fatal(err)
				}
				defer plain.Close()
				want, err := plain.Run()
				if err != nil {
					t.Fatal(err)
				}
				if want.Trace != nil {
					t.Fatalf("an untraced run has a trace: %v", want.Trace)
				}
				o := v.opts
				o.Trace = true
				p, err := Prepare(dev, c.d, o)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if streamed, _, _, _ := p.OutOfCore(); !dev.IsHost() && streamed != (v.force[0] > 0) {
					t.Fatalf("streamed %v, forced plan %v", streamed, v.force)
				}
				for run := range 2 {
					r, err := p.Run()
					if err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("%s, run %d", r.Algorithm, run+1)
					sameResult(t, what, r, want)
					checkRunTrace(t, what, p, c.d, r)
				}
			})
		}
	}
}

// TestTraceHost traces the host device's runs (the CPU's FloydWarshall
// for PlainGPU, Blocked for the others), with the CPU's default tile and
// a tile of 16; the public CPU functions never trace.
func TestTraceHost(t *testing.T) {
	cases := traceMatrices(true)
	checkTraceOn(t, gpu.Host(), cases, traceVariants(0))
	checkTraceOn(t, gpu.Host(), cases[:1], traceVariants(16)[:2])
	for _, c := range cases {
		for _, f := range []func(*graph.Dense) (*Result, error){FloydWarshall, func(d *graph.Dense) (*Result, error) { return Blocked(d, 0) }} {
			if r, err := f(c.d); err != nil || r.Trace != nil {
				t.Fatalf("%s: the CPU's functions: trace %v, %v", c.name, r.Trace, err)
			}
		}
	}
}

// TestTraceHostNegativeCycle: a traced run that finds a negative cycle
// fails as an untraced one does.
func TestTraceHostNegativeCycle(t *testing.T) {
	d := graph.NewDenseI32(5)
	for i := range 5 {
		for j := range 5 {
			if i != j {
				d.I32[i*5+j] = graph.InfI32
			}
		}
	}
	d.I32[0*5+1], d.I32[1*5+2], d.I32[2*5+0] = 1, 1, -3
	for _, m := range []Method{PlainGPU, BlockedGPU} {
		r, err := Run(gpu.Host(), d, Options{Method: m, Trace: true})
		var nc *NegativeCycleError
		if r != nil || err == nil || !errors.As(err, &nc) {
			t.Fatalf("%v: %v, %v; want a negative cycle", m, r, err)
		}
	}
}

// TestGPUTrace traces every method on the GPU (full trace.Check: real
// times, the launch log's in core and events out of core), the plain
// one at the k-blocks' edges too (plainBlockMatrices), and logs the
// out-of-core overlap of a 4096-vertex matrix under a cap of a quarter
// of its in-core memory.
func TestGPUTrace(t *testing.T) {
	dev := requireGPU(t)
	checkTraceOn(t, dev, traceMatrices(false), traceVariants(32))
	checkTraceOn(t, dev, plainBlockMatrices(), traceVariants(32)[:1])
	const n = 4096
	d := gpuBenchMatrix(n)
	capBytes := inCoreBytes(n, roundUp(n, DefaultGPUTile), 2) / 4
	p, err := Prepare(dev, d, Options{Method: OutOfCoreGPU, MemoryCap: capBytes, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r, err := p.Run()
	if err == nil {
		r, err = p.Run() // warm
	}
	if err != nil {
		t.Fatal(err)
	}
	checkRunTrace(t, "out of core n=4096", p, d, r)
	var cp, ex time.Duration
	for _, s := range r.Trace.Steps {
		cp += s.Copy
		ex += s.Exposed
	}
	_, k, q, g := p.OutOfCore()
	t.Logf("%s on %s: %d rounds of %d×%d blocks of %d (%d per copy): kernels %v, rounds %v; copies %v, exposed %v (%.0f%% hidden)",
		r.Algorithm, dev.Name(), len(r.Trace.Steps), q, q, k, g, r.Time.Round(time.Microsecond), r.Trace.StepTime().Round(time.Microsecond),
		cp.Round(time.Microsecond), ex.Round(time.Microsecond), 100*(1-ex.Seconds()/cp.Seconds()))
}
