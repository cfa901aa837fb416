package bfs

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

// The TestGPU* tests need a CUDA device and skip without one; the other
// tests here run everywhere (the host-device path, options, labels, the
// CUDA sources' shape). On the GPU machine:
//
//	go test -c -o bfs.test ./algo/bfs      (build machine)
//	./bfs.test -test.v -test.run 'GPU'     (GPU machine)

func allVariants() []Variant { return append(SeedVariants(), ModernVariants()...) }

func TestMethodString(t *testing.T) {
	for m, want := range map[Method]string{EdgeScan: "edge scan", DynamicParallelism: "dynamic parallelism",
		DirectionOptimizingGPU: "direction-optimizing", Method(7): "Method(7)"} {
		if got := m.String(); got != want {
			t.Errorf("Method(%d).String() = %q, want %q", int(m), got, want)
		}
	}
}

func TestOptionsCheck(t *testing.T) {
	cases := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"zero", Options{}, ""},
		{"all set", Options{Method: DynamicParallelism, TextureCache: true, Permute: true, SegmentSize: 4096,
			DPThreshold: 77, Parents: true, Alpha: 3, Beta: 4, TopDownOnly: true}, ""},
		{"unknown method", Options{Method: Method(9)}, "unknown GPU method 9"},
		{"negative method", Options{Method: Method(-1)}, "unknown GPU method"},
		{"negative segment", Options{SegmentSize: -2}, "segment size -2"},
		{"negative threshold", Options{DPThreshold: -1}, "DP threshold -1"},
		{"negative alpha", Options{Alpha: -1}, "Alpha -1"},
		{"negative beta", Options{Method: DirectionOptimizingGPU, Beta: -3}, "Beta -3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.opts.check()
			if c.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("err = %v, want one mentioning %q", err, c.wantErr)
			}
		})
	}
}

func TestVariantLabels(t *testing.T) {
	var seed, modern []string
	for _, v := range SeedVariants() {
		seed = append(seed, v.Label)
	}
	for _, v := range ModernVariants() {
		modern = append(modern, v.Label)
	}
	wantSeed := []string{"dynamic parallelism", "cache && restrict on", "cache off", "restrict off", "cache && restrict off"}
	if !slices.Equal(seed, wantSeed) {
		t.Errorf("SeedVariants labels %q, want %q", seed, wantSeed)
	}
	if !slices.Equal(modern, []string{"direction-optimizing (GPU)"}) {
		t.Errorf("ModernVariants labels %q", modern)
	}
	// Each variant's options produce its label, and the switches are the
	// study's: "cache" is Permute, "restrict" is TextureCache.
	g := tg.Build(t, 5, false, tg.Unweighted, tg.Path(5, nil)...)
	for _, v := range allVariants() {
		p, err := Prepare(gpu.Host(), g, v.Options)
		if err != nil {
			t.Fatalf("%s: %v", v.Label, err)
		}
		if p.Label() != v.Label {
			t.Errorf("variant %q prepares as %q", v.Label, p.Label())
		}
		o := p.Options()
		if o.Method == EdgeScan {
			cacheOn := !strings.Contains(v.Label, "cache off") && !strings.Contains(v.Label, "cache && restrict off")
			restrictOn := !strings.Contains(v.Label, "restrict off")
			if o.Permute != cacheOn || o.TextureCache != restrictOn {
				t.Errorf("variant %q: Permute %v, TextureCache %v", v.Label, o.Permute, o.TextureCache)
			}
		}
	}
	// Non-default switches on dynamic parallelism are named.
	if got := (Options{Method: DynamicParallelism, TextureCache: true}).Label(); got != "dynamic parallelism, cache off" {
		t.Errorf("DP with restrict only: label %q", got)
	}
	// So are the direction-optimizing parameters; the scan's switches do
	// not apply to it.
	o := Options{Method: DirectionOptimizingGPU, Alpha: 4, Beta: 24, TopDownOnly: true, Permute: true}
	if got := o.Label(); got != "direction-optimizing (GPU), α=4, β=24, top-down only" {
		t.Errorf("direction-optimizing with parameters: label %q", got)
	}
}

// hostCases are small graphs for the host-device path.
func hostCases(t *testing.T) []struct {
	name string
	g    *graph.CSR
} {
	rmat, err := gen.RMAT(10, 16, gen.Seed(5), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 9))
	return []struct {
		name string
		g    *graph.CSR
	}{
		{"path 7", tg.Build(t, 7, false, tg.Unweighted, tg.Path(7, nil)...)},
		{"star 9", tg.Build(t, 9, false, tg.Unweighted, tg.Star(9, nil)...)},
		{"grid 4x5", tg.Build(t, 20, false, tg.Unweighted, tg.Grid(4, 5, 1, 1)...)},
		{"random 40", tg.Build(t, 40, false, tg.Unweighted, tg.Random(r, 40, 50, nil)...)},
		{"single vertex", tg.Build(t, 1, false, tg.Unweighted)},
		{"rmat s10", rmat},
	}
}

func TestGPUHostPath(t *testing.T) {
	for _, c := range hostCases(t) {
		for _, v := range allVariants() {
			t.Run(c.name+"/"+v.Label, func(t *testing.T) {
				p, err := Prepare(gpu.Host(), c.g, withParents(v.Options))
				if err != nil {
					t.Fatal(err)
				}
				if p.Bytes() != 0 || p.PrepTime() != 0 {
					t.Errorf("host Prepared holds %d bytes, prep %v; want 0, 0", p.Bytes(), p.PrepTime())
				}
				for _, src := range []int32{0, int32(c.g.NumVertices() - 1)} {
					r, err := p.Run(src)
					if err != nil {
						t.Fatal(err)
					}
					want, err := TopDown(c.g, src)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(r.Levels, want.Levels) {
						t.Fatalf("from %d: levels %v, want %v", src, r.Levels, want.Levels)
					}
					if err := Check(c.g, r); err != nil {
						t.Fatalf("from %d: %v", src, err)
					}
					if !strings.Contains(r.Note, "host device") || !strings.Contains(r.Note, v.Label) {
						t.Errorf("note %q does not say the host ran %q", r.Note, v.Label)
					}
				}
				if err := p.Close(); err != nil {
					t.Fatal(err)
				}
				if err := p.Close(); err != nil {
					t.Fatalf("second Close: %v", err)
				}
				if _, err := p.Run(0); err == nil || !strings.Contains(err.Error(), "closed") {
					t.Fatalf("Run after Close: err = %v", err)
				}
			})
		}
	}
	// The one-shot Run on the host.
	g := tg.Build(t, 6, false, tg.Unweighted, tg.Star(6, nil)...)
	r, err := Run(gpu.Host(), g, 3, Options{Method: DirectionOptimizingGPU})
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(g, r); err != nil {
		t.Fatal(err)
	}
}

func TestGPUPrepareErrors(t *testing.T) {
	g := tg.Build(t, 4, false, tg.Unweighted, tg.Path(4, nil)...)
	dg := tg.Build(t, 4, true, tg.Unweighted, tg.Path(4, nil)...)
	cases := []struct {
		name string
		dev  *gpu.Device
		g    *graph.CSR
		opts Options
		want string
	}{
		{"nil device", nil, g, Options{}, "no device"},
		{"nil graph", gpu.Host(), nil, Options{}, "no graph"},
		{"no vertices", gpu.Host(), &graph.CSR{Offsets: []int64{0}}, Options{}, "no vertices"},
		{"bad option", gpu.Host(), g, Options{SegmentSize: -1}, "segment size"},
		{"directed edge scan", gpu.Host(), dg, Options{}, "directed"},
		{"directed dynamic parallelism", gpu.Host(), dg, Options{Method: DynamicParallelism}, "directed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Prepare(c.dev, c.g, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, c.want)
			}
		})
	}
	if _, err := Prepare(gpu.Host(), dg, Options{Method: DirectionOptimizingGPU}); err != nil {
		t.Errorf("directed graph, direction-optimizing: %v", err)
	}
	p, err := Prepare(gpu.Host(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []int32{-1, 4} {
		if _, err := p.Run(src); err == nil || !strings.Contains(err.Error(), "source") {
			t.Errorf("Run(%d): err = %v, want a source error", src, err)
		}
	}
}

func TestCUDASources(t *testing.T) {
	cudasrc.Check(t, "bfs.cu", bfsSource, 1, bfsKernelNames)
	cudasrc.Check(t, "dp.cu", dpSource, 1, append(slices.Clone(dpKernelNames), "dp_child_u8", "dp_child_i32"))
	defines := map[string]map[string]int64{"bfs.cu": cudasrc.Defines(bfsSource), "dp.cu": cudasrc.Defines(dpSource)}
	// The constants the Go side shares with the kernels.
	for _, c := range []struct {
		src, name string
		want      int64
	}{
		{bfsSource, "BFS_BLOCK", blockSize}, {bfsSource, "UNVISITED8", 255}, {bfsSource, "UNVISITED32", math.MaxInt32},
		{bfsSource, "CTL_COUNT", ctlCount}, {bfsSource, "CTL_TAIL", ctlTail}, {bfsSource, "CTL_MF", ctlMF},
		{bfsSource, "CTL_NBIG", ctlNBig}, {bfsSource, "CTL_QTAIL", ctlQTail}, {bfsSource, "CTL_READ", ctlRead},
		{bfsSource, "CTL_BIGARCS", ctlBigArcs},
		{bfsSource, "TD_WARP_DEG", tdWarpDeg}, {bfsSource, "TD_BIG_DEG", tdBigDeg}, {bfsSource, "TD_SMALL_FRONTIER", tdSmallFrontier},
		{bfsSource, "ST_DONE", stDone}, {bfsSource, "ST_DEPTH", stDepth}, {bfsSource, "ST_NF", stNF},
		{bfsSource, "ST_MF", stMF}, {bfsSource, "ST_MU", stMU}, {bfsSource, "ST_PREVNF", stPrevNF},
		{bfsSource, "ST_MODE", stMode}, {bfsSource, "ST_QP", stQP}, {bfsSource, "ST_BP", stBP}, {bfsSource, "ST_BLOCKS", stBlocks}, {bfsSource, "ST_HEAD", stHead},
		{bfsSource, "LV_NF", lvNF}, {bfsSource, "LV_MF", lvMF}, {bfsSource, "LV_MU", lvMU}, {bfsSource, "LV_PREVNF", lvPrevNF},
		{bfsSource, "LV_MODE", lvMode}, {bfsSource, "LV_TAIL", lvTail}, {bfsSource, "LV_READ", lvRead},
		{bfsSource, "LV_NBIG", lvNBig}, {bfsSource, "LV_BIGARCS", lvBigArcs}, {bfsSource, "LV_WORDS", lvWords},
		{bfsSource, "MODE_BU", modeBU}, {bfsSource, "MODE_DOWN", modeDown}, {bfsSource, "MODE_UP", modeUp},
		{dpSource, "CTL_TRIED", ctlTried}, {dpSource, "CTL_RAN", ctlRan}, {dpSource, "CTL_COUNT", ctlCount},
		{dpSource, "CTL_OVER", ctlOver}, {dpSource, "DP_MAX_CHILDREN", dpMaxChildren},
	} {
		file := "bfs.cu"
		if c.src == dpSource {
			file = "dp.cu"
		}
		got, ok := defines[file][c.name]
		if !ok {
			t.Fatalf("%s: #define %s not found", file, c.name)
		}
		if got != c.want {
			t.Errorf("#define %s %d, but the Go side uses %d", c.name, got, c.want)
		}
		if c.want >= ctlWords && strings.HasPrefix(c.name, "CTL_") {
			t.Errorf("%s = %d is outside the %d control words", c.name, c.want, ctlWords)
		}
		if c.want >= stHead && strings.HasPrefix(c.name, "ST_") && c.name != "ST_HEAD" || c.want >= lvWords && strings.HasPrefix(c.name, "LV_") && c.name != "LV_WORDS" {
			t.Errorf("%s = %d is outside its words", c.name, c.want)
		}
	}
	if !strings.Contains(dpSource, "<<<") {
		t.Error("dp.cu launches no child grid")
	}
	if dpMaxChildren >= 2048 || DefaultDPThreshold > dpMaxChildren {
		t.Errorf("child-grid cap %d and default threshold %d must stay under the 2048 pending launches", dpMaxChildren, DefaultDPThreshold)
	}
}

// lowestParents is the tree the edge-scan methods derive from the levels:
// every reached vertex but src takes the lowest-numbered vertex one level
// up with an arc to it.
func lowestParents(g *graph.CSR, levels []int32, src int32) []int32 {
	parents := make([]int32, len(levels))
	for v, l := range levels {
		parents[v] = -1
		if l >= 0 {
			parents[v] = math.MaxInt32
		}
	}
	parents[src] = src
	for u := range int32(g.NumVertices()) {
		for _, v := range g.Neighbors(u) {
			if levels[u] >= 0 && levels[v] == levels[u]+1 && v != src {
				parents[v] = min(parents[v], u)
			}
		}
	}
	return parents
}

func TestLevelList(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{{nil, "none"}, {[]int{0}, "0"}, {[]int{0, 1, 2, 5, 7, 8}, "0–2, 5, 7–8"}} {
		if got := levelList(c.in); got != c.want {
			t.Errorf("levelList(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func ExampleRun() {
	// 0 - 1 - 2     a 2×3 grid; on a GPU the study's edge scan with both
	// |   |   |     switches, on the host the CPU BFS in its place: the
	// 3 - 4 - 5     levels are the same.
	el := graph.EdgeList{N: 6,
		Src: []int32{0, 1, 0, 1, 2, 3, 4},
		Dst: []int32{1, 2, 3, 4, 5, 4, 5}}
	g, _ := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	r, err := Run(gpu.Default(), g, 0, Options{TextureCache: true, Permute: true, Parents: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("levels:", r.Levels)
	fmt.Println("frontiers:", r.FrontierSizes)
	fmt.Println("check:", Check(g, r))
	// Output:
	// levels: [0 1 2 1 2 3]
	// frontiers: [1 2 2 1]
	// check: <nil>
}

// ---- on a GPU ----

func requireGPU(t testing.TB) *gpu.Device {
	t.Helper()
	d := gpu.Default()
	if d.IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	return d
}

type gpuCase struct {
	name  string
	g     *graph.CSR
	roots []int32
}

// gpuCases are the graphs every GPU variant must get exactly right.
func gpuCases(t *testing.T) []gpuCase {
	t.Helper()
	must := func(g *graph.CSR, err error) *graph.CSR {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	rmat10 := must(gen.RMAT(10, 16, gen.Seed(1), gen.Unweighted()))
	rmat12 := must(gen.RMAT(12, 16, gen.Seed(2), gen.Unweighted()))
	ssca2 := must(gen.SSCA2(10, gen.Unweighted()))
	path200 := must(gen.Path(200))
	path600 := must(gen.Path(600))
	star := must(gen.Star(300))
	single := must(gen.Path(1))
	// Disconnected: two R-MAT components side by side and 10 isolated
	// vertices at the end.
	a, err := gen.RMATEdges(8, 8, gen.Seed(7), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	el := graph.EdgeList{N: 2*a.N + 10}
	for i := range a.Src {
		el.Src = append(el.Src, a.Src[i], a.Src[i]+int32(a.N))
		el.Dst = append(el.Dst, a.Dst[i], a.Dst[i]+int32(a.N))
	}
	disc := must(graph.Build(el, graph.BuildOptions{Symmetrize: true}))
	roots := func(g *graph.CSR, extra ...int32) []int32 { return append(g.Roots(3, 1), extra...) }
	return []gpuCase{
		{"rmat_s10", rmat10, roots(rmat10, 0)},
		{"rmat_s12", rmat12, roots(rmat12)},
		{"ssca2_s10", ssca2, roots(ssca2)},
		{"path_200", path200, []int32{0, 199, 100}},
		{"path_600", path600, []int32{0, 599, 300, 10}},
		{"star_300", star, []int32{0, 1, 299}},
		{"disconnected", disc, []int32{0, int32(a.N) + 1, int32(el.N - 1)}},
		{"single_vertex", single, []int32{0}},
	}
}

// checkGPU compares a GPU result with the CPU's and reports what differs.
func checkGPU(t *testing.T, g *graph.CSR, r *Result, what string) {
	t.Helper()
	ref, err := TopDown(g, r.Source)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Levels, ref.Levels) {
		bad, first := 0, -1
		for v := range ref.Levels {
			if v < len(r.Levels) && r.Levels[v] != ref.Levels[v] {
				bad++
				if first < 0 {
					first = v
				}
			}
		}
		msg := fmt.Sprintf("%s: %d of %d levels differ from the CPU's", what, bad, len(ref.Levels))
		if first >= 0 {
			msg += fmt.Sprintf("; first: vertex %d (degree %d) level %d, CPU %d", first, g.Degree(int32(first)),
				r.Levels[first], ref.Levels[first])
		}
		t.Fatalf("%s\nGPU frontiers %v\nCPU frontiers %v\nalgorithm %q, note %q", msg, r.FrontierSizes, ref.FrontierSizes, r.Algorithm, r.Note)
	}
	if err := Check(g, r); err != nil {
		t.Fatalf("%s: %v (algorithm %q, note %q)", what, err, r.Algorithm, r.Note)
	}
	if r.Iterations != len(r.FrontierSizes) {
		t.Errorf("%s: %d iterations for %d levels", what, r.Iterations, len(r.FrontierSizes))
	}
	if r.Time <= 0 || (r.ComponentEdges > 0 && r.TEPS.ArcsPerSecond <= 0) {
		t.Errorf("%s: time %v, rate %v", what, r.Time, r.TEPS)
	}
	if !strings.HasPrefix(r.Algorithm, "gpu BFS (") {
		t.Errorf("%s: algorithm %q", what, r.Algorithm)
	}
}

func TestGPUVariants(t *testing.T) { checkGPUVariants(t, requireGPU(t), gpuCases(t)) }

// checkGPUVariants runs every variant on every case, from each root.
func checkGPUVariants(t *testing.T, dev *gpu.Device, cases []gpuCase) {
	for _, v := range allVariants() {
		for _, c := range cases {
			t.Run(v.Label+"/"+c.name, func(t *testing.T) {
				p, err := Prepare(dev, c.g, withParents(v.Options))
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if p.Bytes() <= 0 {
					t.Errorf("Bytes = %d", p.Bytes())
				}
				o := p.Options()
				for _, src := range c.roots {
					r, err := p.Run(src)
					if err != nil {
						t.Fatalf("from %d: %v", src, err)
					}
					what := fmt.Sprintf("%s on %s from %d", v.Label, c.name, src)
					checkGPU(t, c.g, r, what)
					if want := lowestParents(c.g, r.Levels, src); o.Method != DirectionOptimizingGPU && !slices.Equal(r.Parents, want) {
						t.Errorf("%s: parents %v, want the lowest-numbered neighbours one level up %v", what, r.Parents, want)
					}
					deep := len(r.FrontierSizes) > maxLevel8
					switch o.Method {
					case EdgeScan, DynamicParallelism:
						if deep != strings.Contains(r.Algorithm, "int32 levels") {
							t.Errorf("%s: %d levels, algorithm %q (the int32 fallback is for levels past 253)", what, len(r.FrontierSizes), r.Algorithm)
						}
						if o.Method == EdgeScan && r.EdgeScans != r.Iterations {
							t.Errorf("%s: %d edge scans in %d iterations", what, r.EdgeScans, r.Iterations)
						}
						if o.Method == DynamicParallelism && !strings.Contains(r.Note, "child grids at levels") {
							t.Errorf("%s: note %q", what, r.Note)
						}
					case DirectionOptimizingGPU:
						if len(r.Directions) != len(r.FrontierSizes) {
							t.Errorf("%s: %d directions for %d levels", what, len(r.Directions), len(r.FrontierSizes))
						}
					}
				}
			})
		}
	}
}

func TestGPUDPThreshold(t *testing.T) {
	dev := requireGPU(t)
	g, err := gen.RMAT(12, 16, gen.Seed(4), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	checkGPUDPThreshold(t, dev, g)
}

// checkGPUDPThreshold runs dynamic parallelism on g with thresholds from
// "never a child grid" to "always".
func checkGPUDPThreshold(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	srcs := g.Roots(3, 2)
	for _, th := range []int{1, 2, 64, 1 << 30} {
		t.Run("threshold_"+strconv.Itoa(th), func(t *testing.T) {
			p, err := Prepare(dev, g, Options{Method: DynamicParallelism, TextureCache: true, DPThreshold: th, Parents: true})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			for _, src := range srcs {
				r, err := p.Run(src)
				if err != nil {
					t.Fatal(err)
				}
				checkGPU(t, g, r, fmt.Sprintf("threshold %d from %d", th, src))
				if th == 1 && (r.ChildGrids != 0 || r.EdgeScans != r.Iterations) {
					t.Errorf("threshold 1: %d child grids, %d scans in %d iterations; want only scans", r.ChildGrids, r.EdgeScans, r.Iterations)
				}
				if th == 1<<30 && r.EdgeScans != 0 && !strings.Contains(r.Note, "finished by the edge scan") {
					t.Errorf("threshold %d: %d scans but the note does not say why: %q", th, r.EdgeScans, r.Note)
				}
				t.Logf("threshold %d from %d: %d child grids, %d scans, note %q", th, src, r.ChildGrids, r.EdgeScans, r.Note)
			}
		})
	}
}

func TestGPUPermuteSegments(t *testing.T) {
	dev := requireGPU(t)
	g, err := gen.RMAT(12, 16, gen.Seed(6), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	for _, seg := range []int{1, 64, 1000} {
		for _, tc := range []bool{false, true} {
			p, err := Prepare(dev, g, Options{Permute: true, SegmentSize: seg, TextureCache: tc, Parents: true})
			if err != nil {
				t.Fatal(err)
			}
			r, err := p.Run(g.Roots(1, 3)[0])
			p.Close()
			if err != nil {
				t.Fatal(err)
			}
			checkGPU(t, g, r, fmt.Sprintf("segment %d, restrict %v", seg, tc))
		}
	}
}

func TestGPUDirected(t *testing.T) {
	dev := requireGPU(t)
	g, err := gen.RMAT(10, 16, gen.Seed(8), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	checkGPUDirected(t, dev, g)
}

// checkGPUDirected runs the direction-optimizing BFS on a directed copy
// of g, which takes only top-down steps.
func checkGPUDirected(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	dg := directedCopy(t, g)
	p, err := Prepare(dev, dg, Options{Method: DirectionOptimizingGPU, Parents: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, src := range dg.Roots(4, 1) {
		r, err := p.Run(src)
		if err != nil {
			t.Fatal(err)
		}
		checkGPU(t, dg, r, fmt.Sprintf("directed from %d", src))
		if slices.Contains(r.Directions, BottomUpStep) || !strings.Contains(r.Algorithm, "directed") {
			t.Errorf("directed graph: directions %v, algorithm %q", r.Directions, r.Algorithm)
		}
	}
	if _, err := Prepare(dev, dg, Options{}); err == nil {
		t.Error("edge scan on a directed graph: no error")
	}
}

func TestGPUCancel(t *testing.T) {
	dev := requireGPU(t)
	g, err := gen.RMAT(10, 16, gen.Seed(9), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	checkGPUCancel(t, dev, g)
}

// checkGPUCancel interrupts every variant on g and runs it again.
func checkGPUCancel(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	defer cancel.Clear()
	for _, v := range allVariants() {
		p, err := Prepare(dev, g, withParents(v.Options))
		if err != nil {
			t.Fatal(err)
		}
		cancel.Request()
		_, err = p.Run(0)
		cancel.Clear()
		if !errors.Is(err, cancel.ErrInterrupted) {
			t.Errorf("%s: err = %v, want cancel.ErrInterrupted", v.Label, err)
		}
		// The prepared graph still works.
		r, err := p.Run(0)
		if err != nil {
			t.Fatalf("%s after the interrupt: %v", v.Label, err)
		}
		checkGPU(t, g, r, v.Label+" after the interrupt")
		p.Close()
	}
}

func TestGPURunOneShot(t *testing.T) {
	dev := requireGPU(t)
	g, err := gen.RMAT(11, 16, gen.Seed(10), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	checkGPURunOneShot(t, dev, g)
}

// checkGPURunOneShot runs every variant once through Run.
func checkGPURunOneShot(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	for _, v := range allVariants() {
		r, err := Run(dev, g, 5, withParents(v.Options))
		if err != nil {
			t.Fatalf("%s: %v", v.Label, err)
		}
		checkGPU(t, g, r, v.Label+" one-shot")
		if r.PrepTime <= 0 {
			t.Errorf("%s: PrepTime %v", v.Label, r.PrepTime)
		}
		t.Logf("%s: %v", v.Label, r)
	}
}

// ---- the Go GPU path on a fake GPU ----

// TestFakeGPU runs the GPU tests' checks, on the smaller graphs, through
// the real Go GPU path (Prepare, Run: compile, uploads, argument packing,
// the level loops, dynamic parallelism's fallbacks, copies, events)
// against package gpu's fake CUDA driver and NVRTC (gpu/testdata), whose
// cuLaunchKernel is replaced by one that runs the named kernel of bfs.cu
// or dp.cu on the CPU emulator (testdata/fake_kernels.cpp,
// testdata/fake_dp.cpp, internal/fakegpu). It runs them in a child
// process, where gpu.Default() is the fake device. Needs gcc and g++.
func TestFakeGPU(t *testing.T) {
	fakegpu.RunN(t, "TestFakeGPUChild", 4*time.Minute, 3, func(b *fakegpu.Builder) []string {
		// C++ cannot parse a device-side launch: the emulator queues it.
		dp := regexp.MustCompile(`(\w+)<<<(.*?)>>>\((.*?)\);`).ReplaceAllString(dpSource, "emu::child($2, [=] { $1($3); });")
		if err := os.WriteFile(filepath.Join(b.Dir, "dp_emu.cu"), []byte(dp), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{b.CXX("testdata/fake_kernels.cpp"), b.CXX("testdata/fake_dp.cpp"), b.CXX("testdata/fake_check.cpp"),
			b.CXX("testdata/fake_multi.cpp"), b.CXX("../../gpu/transform/testdata/fake_kernels.cpp", "-I../../gpu/transform")}
	})
}

// TestFakeGPUChild is TestFakeGPU's child process.
func TestFakeGPUChild(t *testing.T) {
	dev := fakegpu.Device(t)
	var cases []gpuCase
	for _, c := range gpuCases(t) {
		if c.name != "rmat_s12" && c.name != "ssca2_s10" {
			cases = append(cases, c)
		}
	}
	g, err := gen.RMAT(9, 16, gen.Seed(4), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	t.Run("variants", func(t *testing.T) { checkGPUVariants(t, dev, cases) })
	t.Run("dp_threshold", func(t *testing.T) { checkGPUDPThreshold(t, dev, g) })
	t.Run("directed", func(t *testing.T) { checkGPUDirected(t, dev, g) })
	t.Run("cancel", func(t *testing.T) { checkGPUCancel(t, dev, g) })
	t.Run("one_shot", func(t *testing.T) { checkGPURunOneShot(t, dev, g) })
	t.Run("device_check", func(t *testing.T) { checkDeviceAgrees(t, dev, deviceCheckCases(t, 30)) })
	t.Run("device_check_deep", func(t *testing.T) { checkDeviceDeepLevels(t, dev) })
	t.Run("device_check_mutations", func(t *testing.T) {
		mg, src := mutationGraph(t, 8)
		checkDeviceMutations(t, dev, mg, src)
	})
	t.Run("resident", func(t *testing.T) {
		var small []gpuCase
		for _, c := range cases {
			if c.name == "disconnected" || c.name == "star_300" || c.name == "single_vertex" {
				small = append(small, c)
			}
		}
		small = append(small, gpuCase{"directed", directedCopy(t, g), []int32{0, 7}})
		checkResident(t, dev, small)
	})
	t.Run("device_result", func(t *testing.T) { checkDeviceResultLifecycle(t, dev, g) })
	t.Run("trace", func(t *testing.T) {
		checkGPUTrace(t, dev, g)
		checkGPUTraceDeep(t, dev)
		checkGPUScanTrace(t, dev, g)
		checkGPUScanTraceCap(t, dev)
	})
	t.Run("bench_trace", func(t *testing.T) {
		checkBenchTrace(t, dev, g, Options{Method: DirectionOptimizingGPU, Parents: true})
	})
	devs, err := gpu.Devices()
	if err != nil || len(devs) != 3 {
		t.Fatalf("the fake driver's devices: %v, %v; want 3", devs, err)
	}
	t.Run("group_of_one", func(t *testing.T) { checkGroup(t, devs[:1], cases) })
	t.Run("group_of_two", func(t *testing.T) { checkGroup(t, devs[:2], cases) })
	t.Run("group_of_three", func(t *testing.T) { checkGroup(t, devs, cases) })
	t.Run("group_big_vertices", func(t *testing.T) {
		// every vertex of more than 8 arcs takes the top-down path of hubs
		defer func(d int64) { groupBigDegree = d }(groupBigDegree)
		groupBigDegree = 8
		checkGroup(t, devs[:2], cases)
	})
	t.Run("group_check_catches", func(t *testing.T) { checkGroupCatches(t, devs) })
	checkOneShotFreeError(t, dev)
}

// checkOneShotFreeError checks that the one-shot Run reports a failed free
// of device memory (the first of its Close) instead of dropping it.
func checkOneShotFreeError(t *testing.T, dev *gpu.Device) {
	t.Run("one_shot_free_error", func(t *testing.T) {
		g, err := gen.Path(6)
		if err != nil {
			t.Fatal(err)
		}
		fakegpu.FailFrees(t, 1)
		r, err := Run(dev, g, 0, Options{})
		if r != nil || err == nil || !strings.Contains(err.Error(), "bfs: freeing the device memory of ") || !strings.Contains(err.Error(), "cuMemFree_v2") {
			t.Errorf("Run(dev, g, 0) with a failing free: %v, %v; want the free's error", r, err)
		}
	})
}

// withParents returns o asking for parents, which Check needs.
func withParents(o Options) Options {
	o.Parents = true
	return o
}

// On the host device a GPU Prepare runs the CPU search with the
// direction-optimizing fields of the same Options.
func TestHostDeviceHonoursSwitchParams(t *testing.T) {
	g, err := gen.RMAT(8, 16, gen.Seed(3), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(gpu.Host(), g, 0, Options{Method: DirectionOptimizingGPU, TopDownOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for l, d := range r.Directions {
		if d != TopDownStep {
			t.Fatalf("TopDownOnly: level %d went %v", l, d)
		}
	}
	if _, err := Run(gpu.Host(), g, 0, Options{Method: DirectionOptimizingGPU, Alpha: -1}); err == nil {
		t.Error("negative Alpha: no error")
	}
}
