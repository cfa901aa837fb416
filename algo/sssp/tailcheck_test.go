package sssp

import (
	_ "embed"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
	"github.com/graphnb/graphnb/trace"
)

// The tail-stamp check: a traced edge sweep stamps its end from its last
// edgeStampBlocks blocks only (gpu.go says why, and what that could
// miss: an earlier block ending after them). The tests here run the
// sweeps of a test-only build of sssp.cu (testdata/tailcheck.cuh before
// it, -DSSSP_TAIL_CHECK=1) in which the blocks that do not stamp report
// their ends in check words, and compare, per sweep, the latest of those
// ends with the logged end (the sweep's logged start plus its Time).

//go:embed testdata/tailcheck.cuh
var tailCheckHeader string

// tailCheckKernels is sssp.cu's tail-check build: the production file,
// unchanged, after tailcheck.cuh (its hook sssp_tail_check and the
// kernel sssp_tail_set), with SSSP_TAIL_CHECK defined.
var tailCheckKernels = gpu.ModuleCache{
	Name:    "sssp.cu (tail check)",
	Source:  gpu.PrependLaunchLog(tailCheckHeader + "\n" + kernelSource),
	Options: []gpu.CompileOption{gpu.Define("SSSP_TAIL_CHECK", "1")},
}

const (
	tailWords = 32   // check words a sweep: tailcheck.cuh's SSSP_TAIL_WORDS
	tailRoom  = 1024 // sweeps the check words hold (R-MAT scale 20: about 30)
)

// tailTolerance is how far after a sweep's logged end a block that does
// not stamp may end before the test fails: 2 µs or 1% of the sweep,
// whichever is more. 2 µs is under one wave of blocks (about 3 µs at
// R-MAT scale 20 and 22 on an H100: gpu.go), so a late block within it
// is one of the last waves, dispatched beside the stamping blocks, not a
// block left behind; it is two ticks of a global timer that advances in
// microsecond steps on some GPUs; and a sweep short by at most 1% is
// below the variation of a traced run's cost between runs (±1.5 points,
// edgeStampBlocks's doc) and half the 2% budget of issue 17.
func tailTolerance(sweep time.Duration) time.Duration {
	return max(2*time.Microsecond, sweep/100)
}

// tailSweep is one sweep's comparison.
type tailSweep struct {
	blocks, stampFrom int
	time              time.Duration // the logged span
	// gap is the latest end of a block before stampFrom less the logged
	// end: negative when all of them ended before it. 0 (and late
	// false) when every block stamps.
	gap  time.Duration
	late bool // gap > tailTolerance(time)
}

// compareTail compares the check words of a traced run (tailWords a
// sweep, from sweep 1) with its launches (trace.Launches: the init,
// then a sweep a launch), with stampFrom giving a grid's first stamping
// block. It fails when the words are not what tailcheck.cuh writes:
// a sweep without its start, a sweep whose non-stamping blocks reported
// nothing (or ended before its start) or whose blocks all stamp but
// reported, a word written past the run's sweeps.
func compareTail(words []uint64, launches []trace.Launch, stampFrom func(blocks int) int) ([]tailSweep, error) {
	if len(launches) < 2 || len(launches)-1 > len(words)/tailWords {
		return nil, fmt.Errorf("%d launches for %d sweeps of check words: want the init and 1 to %d sweeps", len(launches), len(words)/tailWords, len(words)/tailWords)
	}
	sweeps := launches[1:]
	out := make([]tailSweep, len(sweeps))
	for i, l := range sweeps {
		w := words[i*tailWords : (i+1)*tailWords]
		s := tailSweep{blocks: l.Grid[0], stampFrom: stampFrom(l.Grid[0]), time: l.Time}
		start, last := w[0], slices.Max(w[1:])
		switch {
		case l.Step != i || l.Time <= 0:
			return nil, fmt.Errorf("sweep %d: launch %+v, want step %d with a span", i, l, i)
		case start == 0:
			return nil, fmt.Errorf("sweep %d: no start in its check words (block 0 did not report)", i)
		case s.stampFrom == 0 && last != 0:
			return nil, fmt.Errorf("sweep %d: every one of its %d blocks stamps, yet one reported an end (%d) as not stamping", i, s.blocks, last)
		case s.stampFrom > 0 && last < start:
			return nil, fmt.Errorf("sweep %d: blocks 0 to %d do not stamp; their latest end %d is before the sweep's start %d (they did not report)", i, s.stampFrom-1, last, start)
		}
		if s.stampFrom > 0 {
			s.gap = time.Duration(int64(last) - int64(start) - int64(l.Time))
			s.late = s.gap > tailTolerance(l.Time)
		}
		out[i] = s
	}
	if j := slices.IndexFunc(words[len(sweeps)*tailWords:], func(v uint64) bool { return v != 0 }); j >= 0 {
		return nil, fmt.Errorf("check word %d written, past the run's %d sweeps", len(sweeps)*tailWords+j, len(sweeps))
	}
	return out, nil
}

// TestCompareTail requires compareTail to measure the gap from the logged
// end, to flag a block ending past the tolerance, and to reject check
// words tailcheck.cuh would not write.
func TestCompareTail(t *testing.T) {
	const us = uint64(time.Microsecond)
	stampFrom := func(blocks int) int { return max(0, blocks-4) }
	// Two sweeps of 8 blocks (4 stamp) and 200 µs, starting at 1000 µs
	// and 2000 µs; the init launch first.
	launches := []trace.Launch{{Step: -1, Grid: [3]int{1, 1, 1}, Time: time.Microsecond},
		{Step: 0, Grid: [3]int{8, 1, 1}, Time: 200 * time.Microsecond}, {Step: 1, Grid: [3]int{8, 1, 1}, Time: 200 * time.Microsecond}}
	words := func(ends ...uint64) []uint64 {
		w := make([]uint64, 3*tailWords)
		w[0], w[tailWords] = 1000*us, 2000*us
		copy(w[1:], ends[:1])
		copy(w[tailWords+1:], ends[1:])
		return w
	}
	for _, c := range []struct {
		name  string
		words []uint64
		gaps  []time.Duration
		late  []bool
		err   string
	}{
		{"before", words(1195*us, 2190*us), []time.Duration{-5 * time.Microsecond, -10 * time.Microsecond}, []bool{false, false}, ""},
		{"within_2us", words(1202*us, 2199*us), []time.Duration{2 * time.Microsecond, -time.Microsecond}, []bool{false, false}, ""},
		{"late", words(1195*us, 2203*us), []time.Duration{-5 * time.Microsecond, 3 * time.Microsecond}, []bool{false, true}, ""},
		{"no_start", func() []uint64 { w := words(1195*us, 2190*us); w[tailWords] = 0; return w }(), nil, nil, "no start"},
		{"no_report", words(1195*us, 0), nil, nil, "did not report"},
		{"stray", func() []uint64 { w := words(1195*us, 2190*us); w[2*tailWords+3] = 1; return w }(), nil, nil, "past the run's 2 sweeps"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := compareTail(c.words, launches, stampFrom)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range got {
				if s.gap != c.gaps[i] || s.late != c.late[i] || s.stampFrom != 4 {
					t.Errorf("sweep %d: %+v, want gap %v late %v from block 4", i, s, c.gaps[i], c.late[i])
				}
			}
		})
	}
	// Every block stamping: no report expected, and one is an error.
	all := func(int) int { return 0 }
	if got, err := compareTail(words(0, 0), launches, all); err != nil || got[0].gap != 0 || got[1].late {
		t.Errorf("every block stamping: %+v, %v", got, err)
	}
	if _, err := compareTail(words(1195*us, 0), launches, all); err == nil || !strings.Contains(err.Error(), "every one of its 8 blocks stamps") {
		t.Errorf("every block stamping, one reporting: %v", err)
	}
}

// TestTailCheckHeader: tailcheck.cuh's words a sweep are the Go side's.
func TestTailCheckHeader(t *testing.T) {
	cudasrc.CheckDefines(t, "tailcheck.cuh", tailCheckHeader, map[string]int64{"SSSP_TAIL_WORDS": tailWords})
}

// TestTailCheckBuilds requires sssp.cu's builds to hold the tail check
// only where the test defines SSSP_TAIL_CHECK: the production traced
// build (gpu.PrependLaunchLog(kernelSource)) has no trace of it after the
// preprocessor, and the check build calls the hook once, in the logged
// sweeps' wrapper.
func TestTailCheckBuilds(t *testing.T) {
	prod := fakegpu.Preprocess(t, "sssp.cu", gpu.PrependLaunchLog(kernelSource))
	if strings.Contains(prod, "sssp_tail") || strings.Contains(prod, "SSSP_TAIL") {
		t.Error("the production build of sssp.cu holds the tail check after the preprocessor: hook code outside #ifdef SSSP_TAIL_CHECK")
	}
	check := fakegpu.Preprocess(t, tailCheckKernels.Name, tailCheckKernels.Source, "-DSSSP_TAIL_CHECK=1")
	if n := strings.Count(check, "sssp_tail_check(ent, iter, stamp_from)"); n != 1 {
		t.Errorf("the tail-check build calls sssp_tail_check(ent, iter, stamp_from) %d times, want once (in bf_edge_logged)", n)
	}
}

// tailRenames are the -D options that rename every kernel of sssp.cu in
// the fake GPU's tail-check build (testdata/fake_tailcheck.cpp).
func tailRenames() []string {
	var out []string
	for _, name := range kernelNames() {
		out = append(out, "-D"+name+"=tail_"+name)
	}
	return out
}

// tailCheck is the check words of the tail-check build on a device.
type tailCheck struct {
	kernels map[string]*gpu.Function
	words   *gpu.Uint64s
	host    []uint64
}

// newTailCheck compiles the tail-check build on dev and points its hook
// at check words of its own (tailRoom sweeps).
func newTailCheck(dev *gpu.Device) (*tailCheck, error) {
	mod, err := tailCheckKernels.For(dev)
	if err != nil {
		return nil, err
	}
	c := &tailCheck{kernels: map[string]*gpu.Function{}, host: make([]uint64, tailRoom*tailWords)}
	names := []string{"sssp_tail_set"}
	for _, name := range kernelNames() {
		if strings.HasSuffix(name, "_log") {
			names = append(names, name)
		}
	}
	for _, name := range names {
		if c.kernels[name], err = mod.Function(name); err != nil {
			return nil, err
		}
	}
	if c.words, err = dev.AllocUint64s(len(c.host)); err != nil {
		return nil, err
	}
	if err := c.set(dev, c.words, tailRoom); err != nil {
		c.words.Free()
		return nil, err
	}
	return c, nil
}

// set launches sssp_tail_set(words, sweeps) on dev.
func (c *tailCheck) set(dev *gpu.Device, words any, sweeps int) error {
	return dev.Exec(func(t *gpu.Thread) error {
		return t.Launch(c.kernels["sssp_tail_set"], gpu.D1(1), gpu.D1(32), 0, words, sweeps)
	})
}

// close turns the hook off and frees the words.
func (c *tailCheck) close(dev *gpu.Device) error {
	err := c.set(dev, uint64(0), 0)
	if ferr := c.words.Free(); err == nil {
		err = ferr
	}
	return err
}

// use makes p's traced edge sweeps launch the tail-check build's logged
// kernels (the same names, the same arguments).
func (c *tailCheck) use(p *Prepared) {
	p.kInitLog, p.kStepLog = c.kernels[p.kInitLog.Name()], c.kernels[p.kStepLog.Name()]
}

// run runs a traced edge sweep of p from src with the check words zeroed,
// checks the result, and returns its comparison per sweep.
func (c *tailCheck) run(p *Prepared, src int32) (*Result, []tailSweep, error) {
	if err := c.words.Fill(0); err != nil {
		return nil, nil, err
	}
	r, err := p.Run(src)
	if err != nil {
		return nil, nil, err
	}
	if err := p.Check(r); err != nil {
		return nil, nil, err
	}
	if err := c.words.Download(c.host); err != nil {
		return nil, nil, err
	}
	sweeps, err := compareTail(c.host, r.Trace.Launches, edgeStampFrom)
	return r, sweeps, err
}

// tailCount is a count of stamping blocks checkTailStamps runs with,
// and whether a late block fails the test there.
type tailCount struct {
	stamps int
	strict bool
}

// checkTailStamps traces edge sweeps of g from sources on dev, in the
// study's switches (one Prepared each), with the tail-check build's
// kernels, for each count of stamping blocks (edgeStampBlocks set to
// it), and logs per run how far each sweep's non-stamping blocks ended
// from the logged end. A strict count fails for a sweep where one ended
// past tailTolerance after it (on a GPU, edgeStampBlocks's own count; a
// smaller count shows how late blocks end where the assumption is
// stretched; the fake GPU's blocks are OS threads, whose order says
// nothing of a GPU's, so there only the check words' form is checked).
// It returns the largest gap seen per count (absent: no sweep with
// non-stamping blocks).
func checkTailStamps(t *testing.T, dev *gpu.Device, g *graph.CSR, counts []tailCount, sources []int32) map[int]time.Duration {
	t.Helper()
	defer func(old int) { edgeStampBlocks = old }(edgeStampBlocks)
	c, err := newTailCheck(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.close(dev); err != nil {
			t.Error(err)
		}
	}()
	largest := map[int]time.Duration{}
	for _, o := range []Options{{Parents: true}, {Parents: true, TextureCache: true, Permute: true}} {
		o.Trace = true
		p, err := Prepare(dev, g, o)
		if err != nil {
			t.Fatal(err)
		}
		c.use(p)
		for _, n := range counts {
			edgeStampBlocks = n.stamps
			for _, src := range sources {
				gap, ok, err := c.report(t, p, src, n.strict)
				if err != nil {
					p.Close()
					t.Fatalf("%s, source %d, %d blocks stamping: %v", o.Label(), src, n.stamps, err)
				}
				if was, seen := largest[n.stamps]; ok && (!seen || gap > was) {
					largest[n.stamps] = gap
				}
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return largest
}

// report runs c.run and logs its sweeps' gaps, the largest and the
// sweeps past the tolerance; with strict such a sweep fails t. It
// returns the largest gap, and false when every block stamps.
func (c *tailCheck) report(t *testing.T, p *Prepared, src int32, strict bool) (time.Duration, bool, error) {
	t.Helper()
	r, sweeps, err := c.run(p, src)
	if err != nil {
		return 0, false, err
	}
	what := fmt.Sprintf("%s, source %d, %d blocks stamping: %d sweeps of %d blocks, blocks from %d stamping",
		p.opts.Label(), src, edgeStampBlocks, r.Iterations, sweeps[0].blocks, sweeps[0].stampFrom)
	if sweeps[0].stampFrom == 0 {
		t.Logf("%s: every block stamps, nothing to compare", what)
		return 0, false, nil
	}
	worst, late := 0, 0
	gaps := make([]string, len(sweeps))
	for i, s := range sweeps {
		gaps[i] = strconv.FormatFloat(float64(s.gap)/1e3, 'f', 2, 64)
		if s.gap > sweeps[worst].gap {
			worst = i
		}
		if s.late {
			late++
		}
	}
	w := sweeps[worst]
	t.Logf("%s: latest non-stamping end less the logged end, µs per sweep: %s; the largest %+.2f µs (sweep %d of %.1f µs, %+.2f%%), %d sweeps past the tolerance",
		what, strings.Join(gaps, " "), float64(w.gap)/1e3, worst, float64(w.time)/1e3, 100*float64(w.gap)/float64(w.time), late)
	if strict && late > 0 {
		t.Errorf("%s: in %d sweeps a block that does not stamp ended more than tailTolerance (max(2 µs, 1%%)) after the logged end; sweep %d by %v of %v: its logged time is short by that (edgeStampBlocks's assumption fails)",
			what, late, worst, w.gap, w.time)
	}
	return w.gap, true, nil
}

// TestGPUTailStamp checks, on a GPU, the assumption behind
// edgeStampBlocks: in traced edge sweeps of R-MAT scale 20 (edge factor
// 16: 61,335 blocks a sweep, the last 4096 stamping;
// GRAPHNB_SSSP_TAIL_SCALE sets another scale), in either of the study's
// switch settings, from 4 sources, no block before the stamping ones
// ends more than tailTolerance after the logged end. It logs each run's
// gaps per sweep and the largest seen, and the same, without failing,
// with 1024 blocks and the last block alone stamping: how late the
// blocks the log would miss end when the assumption is stretched (and
// that the check sees them).
func TestGPUTailStamp(t *testing.T) {
	dev := gpuDevice(t)
	scale := 20
	if v := os.Getenv("GRAPHNB_SSSP_TAIL_SCALE"); v != "" {
		var err error
		if scale, err = strconv.Atoi(v); err != nil || scale < 1 || scale > 26 {
			t.Fatalf("GRAPHNB_SSSP_TAIL_SCALE=%q: want an R-MAT scale from 1 to 26", v)
		}
	}
	g, err := gen.RMAT(scale, 16, gen.Seed(5))
	if err != nil {
		t.Fatal(err)
	}
	counts := []tailCount{{edgeStampBlocks, true}, {1024, false}, {1, false}}
	largest := checkTailStamps(t, dev, g, counts, g.Roots(4, 1))
	for _, n := range counts {
		if gap, ok := largest[n.stamps]; ok {
			t.Logf("R-MAT scale %d, %d blocks stamping: the largest gap seen, latest non-stamping end less the logged end: %+.2f µs", scale, n.stamps, float64(gap)/1e3)
		}
	}
}

// checkFakeTailStamps is the tail check on the fake GPU (TestFakeGPU's
// child): the last block alone stamping, so that a small graph's sweeps
// have blocks that report, then every block stamping (none reports);
// the check words' form only (see checkTailStamps).
func checkFakeTailStamps(t *testing.T, dev *gpu.Device) {
	g := traceGraph(t, 7)
	checkTailStamps(t, dev, g, []tailCount{{1, false}, {1 << 20, false}}, g.Roots(2, 1))
}
