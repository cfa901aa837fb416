package densebf

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
)

var inf = math.Inf(1)

// reweight applies potentials: w'(i,j) = w(i,j) + h[i] − h[j]. Cycle
// weights are unchanged, so no negative cycle appears, but entries may
// turn negative.
func reweight(rng *rand.Rand, d *graph.Dense, spread int) {
	n := d.N
	h := make([]int, n)
	for i := range h {
		h[i] = rng.IntN(spread + 1)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			switch {
			case i == j:
			case d.I32 != nil && d.I32[i*n+j] < graph.InfI32:
				d.I32[i*n+j] += int32(h[i] - h[j])
			case d.F32 != nil && !math.IsInf(float64(d.F32[i*n+j]), 1):
				d.F32[i*n+j] += float32(h[i] - h[j])
			}
		}
	}
}

func mustRandom(t testing.TB, n int, p float64, maxW int, seed uint64, integer bool) *graph.Dense {
	t.Helper()
	d, err := RandomDense(n, p, maxW, seed, integer)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// runChecked runs Run, checks the result and that the input is unchanged.
func runChecked(t *testing.T, d *graph.Dense, src int32) *Result {
	t.Helper()
	before := d.Clone()
	r, err := Run(d, src)
	if err != nil {
		t.Fatalf("Run(%d): %v", src, err)
	}
	if !slices.Equal(before.I32, d.I32) || !slices.Equal(before.F32, d.F32) {
		t.Fatal("Run modified its input")
	}
	if err := Check(d, src, r); err != nil {
		t.Fatalf("Check: %v", err)
	}
	return r
}

func TestTable(t *testing.T) {
	I := graph.InfI32
	tests := []struct {
		name  string
		n     int
		w     []int32
		src   int32
		dist  []float64
		pred  []int32
		iters int
	}{
		{name: "single vertex", n: 1, w: []int32{0}, dist: []float64{0}, pred: []int32{0}, iters: 1},
		{name: "edgeless", n: 3, src: 1, dist: []float64{inf, 0, inf}, pred: []int32{-1, 1, -1}, iters: 1},
		{name: "line", n: 3, w: []int32{0, 2, I, I, 0, 3, I, I, 0}, dist: []float64{0, 2, 5}, pred: []int32{0, 0, 1}, iters: 3},
		{name: "shortcut loses", n: 3, w: []int32{0, 1, 9, I, 0, 1, I, I, 0}, dist: []float64{0, 1, 2}, pred: []int32{0, 0, 1}, iters: 3},
		// ties: 0→1→3 and 0→2→3 both weigh 2; the smaller j (1) wins.
		{name: "tie to smaller j", n: 4, w: []int32{0, 1, 1, I, I, 0, I, 1, I, I, 0, 1, I, I, I, 0},
			dist: []float64{0, 1, 1, 2}, pred: []int32{0, 0, 0, 1}, iters: 3},
		{name: "disconnected", n: 4, w: []int32{0, 4, I, I, I, 0, I, I, I, I, 0, 1, I, I, 1, 0}, src: 2,
			dist: []float64{inf, inf, 0, 1}, pred: []int32{-1, -1, 2, 2}, iters: 2},
		{name: "negative arc", n: 3, w: []int32{0, 4, 1, I, 0, I, I, -2, 0}, dist: []float64{0, -1, 1}, pred: []int32{0, 2, 0}, iters: 3},
		{name: "positive diagonal ignored", n: 2, w: []int32{7, 1, 1, 3}, dist: []float64{0, 1}, pred: []int32{0, 0}, iters: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, integer := range []bool{true, false} {
				d := graph.NewDenseI32(tc.n)
				if tc.w != nil {
					copy(d.I32, tc.w)
				}
				if !integer {
					f := graph.NewDenseF32(tc.n)
					for k, w := range d.I32 {
						if w < I {
							f.F32[k] = float32(w)
						}
					}
					d = f
				}
				r := runChecked(t, d, tc.src)
				if !slices.Equal(r.Dist, tc.dist) || !slices.Equal(r.Parents, tc.pred) || r.Iterations != tc.iters {
					t.Errorf("int %v: Dist %v Parents %v after %d iterations, want %v %v %d",
						integer, r.Dist, r.Parents, r.Iterations, tc.dist, tc.pred, tc.iters)
				}
			}
		})
	}
}

// gonumBF returns gonum's Bellman-Ford distances from src, false on a
// negative cycle.
func gonumBF(d *graph.Dense, src int) ([]float64, bool) {
	n := d.N
	g := simple.NewWeightedDirectedGraph(0, inf)
	for i := 0; i < n; i++ {
		g.AddNode(simple.Node(i))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if w := d.At(i, j); i != j && !math.IsInf(w, 1) {
				g.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(i), T: simple.Node(j), W: w})
			}
		}
	}
	sp, ok := path.BellmanFordFrom(simple.Node(src), g)
	if !ok {
		return nil, false
	}
	out := make([]float64, n)
	for v := range out {
		out[v] = sp.WeightTo(int64(v))
	}
	return out, true
}

// TestGonumOracle compares with gonum's BellmanFordFrom on 200 random
// matrices: sparse and dense, int32 and float32, negative weights without
// negative cycles.
func TestGonumOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		n := 1 + rng.IntN(40)
		integer := iter%2 == 0
		p := []float64{0.03, 0.1, 0.3, 0.8}[iter%4]
		d := mustRandom(t, n, p, 1+rng.IntN(20), uint64(iter), integer)
		if iter%3 == 0 {
			reweight(rng, d, 10)
		}
		src := int32(rng.IntN(n))
		want, ok := gonumBF(d, int(src))
		if !ok {
			t.Fatalf("matrix %d: gonum found a negative cycle", iter)
		}
		r := runChecked(t, d, src)
		for v, w := range want {
			g := r.Dist[v]
			if integer && g != w || !integer && !(g == w || math.Abs(g-w) <= 1e-5*math.Max(1, math.Abs(w))) {
				t.Fatalf("matrix %d (n=%d, int %v): Dist[%d] = %v, gonum %v", iter, n, integer, v, g, w)
			}
		}
	}
}

// TestNegativeCycle plants one negative cycle (possibly a negative
// self-loop) among otherwise heavy arcs, so no other cycle is negative,
// and checks the error names a vertex on it when it is reachable, and that
// unreachable cycles do not matter. gonum (which has no self-loops)
// agrees on longer cycles.
func TestNegativeCycle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 80; iter++ {
		n := 1 + rng.IntN(30)
		integer := iter%2 == 0
		d := mustRandom(t, n, 0.15, 1, uint64(iter), integer)
		// heavy arcs: 100 each
		for k := range n * n {
			if d.I32 != nil && d.I32[k] == 1 {
				d.I32[k] = 100
			}
			if d.F32 != nil && d.F32[k] == 1 {
				d.F32[k] = 100
			}
		}
		cyc := rng.Perm(n)[:1+rng.IntN(min(n, 5))]
		on := map[int32]bool{}
		for k, v := range cyc {
			u := cyc[(k+1)%len(cyc)]
			on[int32(v)] = true
			w := -1 - rng.IntN(3)
			if integer {
				d.I32[v*n+u] = int32(w)
			} else {
				d.F32[v*n+u] = float32(w)
			}
		}
		src := int32(rng.IntN(n))
		reach := reachable(d, int(src))
		if _, gonumOK := gonumBF(d, int(src)); len(cyc) > 1 && gonumOK == reach[cyc[0]] {
			t.Fatalf("matrix %d: gonum disagrees on whether the cycle is reachable", iter)
		}
		r, err := Run(d, src)
		if !reach[cyc[0]] {
			if err != nil {
				t.Fatalf("matrix %d: cycle %v unreachable from %d, but Run: %v", iter, cyc, src, err)
			}
			if err := Check(d, src, r); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var nc *NegativeCycleError
		if !errors.As(err, &nc) || !errors.Is(err, ErrNegativeCycle) {
			t.Fatalf("matrix %d: err = %v, want a NegativeCycleError", iter, err)
		}
		if !on[nc.Vertex] || nc.Source != src {
			t.Fatalf("matrix %d: error names vertex %d (source %d), the cycle is %v", iter, nc.Vertex, nc.Source, cyc)
		}
		if err := Check(d, src, &Result{Source: src, Dist: make([]float64, n), Parents: make([]int32, n)}); err == nil || !strings.Contains(err.Error(), "negative cycle") {
			t.Fatalf("Check on a matrix with a reachable negative cycle: %v", err)
		}
	}
}

// reachable returns which vertices a path from src reaches.
func reachable(d *graph.Dense, src int) []bool {
	seen := make([]bool, d.N)
	seen[src] = true
	for stack := []int{src}; len(stack) > 0; {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for v := 0; v < d.N; v++ {
			if !seen[v] && !math.IsInf(d.At(u, v), 1) {
				seen[v] = true
				stack = append(stack, v)
			}
		}
	}
	return seen
}

func TestDeterministic(t *testing.T) {
	d := mustRandom(t, 700, 0.05, 3, 5, true) // many ties
	a := runChecked(t, d, 3)
	prev := runtime.GOMAXPROCS(1)
	b, err := Run(d, 3)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Dist, b.Dist) || !slices.Equal(a.Parents, b.Parents) || a.Iterations != b.Iterations {
		t.Error("results differ between 1 core and many")
	}
}

func TestFloat32Exact(t *testing.T) {
	// real weights: Run's float32 sums must equal the float32 Dijkstra
	// reference exactly (Check compares exactly for non-negative F32).
	for seed := uint64(0); seed < 10; seed++ {
		d := mustRandom(t, 300, 0.02, 1000, seed, false)
		r := runChecked(t, d, int32(seed))
		want, err := reference(d, int(seed), false)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Dist, want) {
			t.Fatalf("seed %d: float32 distances differ from float32 Dijkstra", seed)
		}
	}
}

func TestRandomDense(t *testing.T) {
	a := mustRandom(t, 300, 0.1, 50, 7, true)
	prev := runtime.GOMAXPROCS(1)
	b := mustRandom(t, 300, 0.1, 50, 7, true)
	runtime.GOMAXPROCS(prev)
	if !slices.Equal(a.I32, b.I32) {
		t.Error("RandomDense depends on the core count")
	}
	if c := mustRandom(t, 300, 0.1, 50, 8, true); slices.Equal(a.I32, c.I32) {
		t.Error("seeds 7 and 8 give the same matrix")
	}
	arcs := 0
	for i := 0; i < 300; i++ {
		for j := 0; j < 300; j++ {
			w := a.I32[i*300+j]
			switch {
			case i == j && w != 0:
				t.Fatalf("diagonal (%d,%d) = %d", i, j, w)
			case i != j && w < graph.InfI32:
				arcs++
				if w < 1 || w > 50 {
					t.Fatalf("weight %d outside 1..50", w)
				}
			}
		}
	}
	if exp := 0.1 * 300 * 299; math.Abs(float64(arcs)-exp) > 0.1*exp {
		t.Errorf("%d arcs, expected about %.0f", arcs, exp)
	}
	f := mustRandom(t, 50, 1, 4, 1, false)
	for k, w := range f.F32 {
		if k%51 != 0 && (w < 1 || w > 4) {
			t.Fatalf("float weight %v outside [1, 4]", w)
		}
	}
	for _, bad := range []struct {
		n    int
		p    float64
		maxW int
	}{{-1, 0.5, 1}, {graph.MaxDenseVertices + 1, 0.5, 1}, {10, -0.1, 1}, {10, 1.5, 1}, {10, math.NaN(), 1}, {10, 0.5, 0}, {40000, 0.5, 1 << 20}} {
		if _, err := RandomDense(bad.n, bad.p, bad.maxW, 1, true); err == nil {
			t.Errorf("RandomDense(%d, %v, %d) succeeded", bad.n, bad.p, bad.maxW)
		}
	}
}

func TestCheckRejects(t *testing.T) {
	I := graph.InfI32
	// 0→1→2 (1 each), 0→2 weighs 5, 3 unreachable.
	d := graph.NewDenseI32(4)
	copy(d.I32, []int32{0, 1, 5, I, I, 0, 1, I, I, I, 0, I, I, I, I, 0})
	good := runChecked(t, d, 0)
	tests := []struct {
		name    string
		corrupt func(r *Result)
		want    string
	}{
		{"wrong distance", func(r *Result) { r.Dist[2] = 3 }, "Dist[2] = 3"},
		{"unreachable made reachable", func(r *Result) { r.Dist[3] = 7 }, "Dist[3]"},
		{"reachable made unreachable", func(r *Result) { r.Dist[1] = inf }, "Dist[1]"},
		{"broken pred", func(r *Result) { r.Parents[2] = -1 }, "not a predecessor"},
		{"pred off the shortest path", func(r *Result) { r.Parents[2] = 0 }, "≠ Dist[2]"},
		{"pred without arc", func(r *Result) { r.Parents[2] = 3 }, "no arc"},
		{"pred for unreachable", func(r *Result) { r.Parents[3] = 0 }, "unreachable"},
		{"pred of source", func(r *Result) { r.Parents[0] = 1 }, "source itself"},
		{"wrong source", func(r *Result) { r.Source = 1 }, "source 1"},
		{"short", func(r *Result) { r.Dist = r.Dist[:3] }, "want 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := *good
			r.Dist, r.Parents = slices.Clone(good.Dist), slices.Clone(good.Parents)
			tc.corrupt(&r)
			err := Check(d, 0, &r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if err := Check(d, 0, nil); err == nil {
		t.Error("Check(nil) succeeded")
	}
	// a Parents cycle along zero-weight arcs 1⇄2 passes the local rule.
	z := graph.NewDenseI32(3)
	copy(z.I32, []int32{0, 1, I, I, 0, 0, I, 0, 0})
	r := runChecked(t, z, 0)
	r.Parents[1], r.Parents[2] = 2, 1
	if err := Check(z, 0, r); err == nil || !strings.Contains(err.Error(), "loops") {
		t.Errorf("Check with a Parents cycle = %v", err)
	}
	// float32: a distance off by one ulp is caught.
	f := mustRandom(t, 50, 0.2, 10, 2, false)
	rf := runChecked(t, f, 0)
	for v, x := range rf.Dist {
		if x > 0 && !math.IsInf(x, 1) {
			rf.Dist[v] = float64(math.Nextafter32(float32(x), float32(inf)))
			break
		}
	}
	if err := Check(f, 0, rf); err == nil {
		t.Error("Check missed a float32 distance one ulp off")
	}
}

func TestErrors(t *testing.T) {
	nan := graph.NewDenseF32(2)
	nan.F32[1] = float32(math.NaN())
	minf := graph.NewDenseF32(2)
	minf.F32[1] = float32(math.Inf(-1))
	low := graph.NewDenseI32(2)
	low.I32[1] = -graph.InfI32
	wide := graph.NewDenseI32(3)
	wide.I32[1], wide.I32[2] = -1, graph.InfI32/2+1
	tests := []struct {
		name string
		d    *graph.Dense
		src  int32
		want string
	}{
		{"nil", nil, 0, "nil"},
		{"n mismatch", &graph.Dense{N: 3, I32: make([]int32, 8)}, 0, "want N·N = 9"},
		{"both types", &graph.Dense{N: 1, I32: []int32{0}, F32: []float32{0}}, 0, "exactly one"},
		{"empty", graph.NewDenseF32(0), 0, "source 0"},
		{"src negative", graph.NewDenseI32(3), -1, "source -1"},
		{"src too large", graph.NewDenseI32(3), 3, "use 0..2"},
		{"NaN", nan, 0, "NaN"},
		{"-Inf", minf, 0, "-Inf"},
		{"below -InfI32", low, 0, "below"},
		{"negative int32 range", wide, 0, "float32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, e1 := Run(tc.d, tc.src)
			e2 := Check(tc.d, tc.src, &Result{})
			for _, err := range []error{e1, e2} {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err = %v, want one containing %q", err, tc.want)
				}
			}
		})
	}
	// a negative self-loop: an error when reachable, harmless otherwise.
	d := graph.NewDenseI32(3)
	d.I32[0*3+1] = 1
	d.I32[1*3+1] = -1
	if _, err := Run(d, 0); !errors.Is(err, ErrNegativeCycle) {
		t.Errorf("reachable negative self-loop: %v", err)
	}
	if _, err := Run(d, 2); err != nil {
		t.Errorf("unreachable negative self-loop: %v", err)
	}
}

func TestCancel(t *testing.T) {
	d := mustRandom(t, 100, 0.1, 9, 1, true)
	cancel.Request()
	defer cancel.Clear()
	if _, err := Run(d, 0); !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("Run after Request: %v", err)
	}
	cancel.Clear()
	runChecked(t, d, 0)
}

func TestString(t *testing.T) {
	d := mustRandom(t, 10, 0, 1, 1, true)
	r := runChecked(t, d, 4)
	for _, want := range []string{"cpu Bellman-Ford", "from 4", "reached 1 of 10", "1 iterations"} {
		if !strings.Contains(r.String(), want) {
			t.Errorf("String() = %q, missing %q", r.String(), want)
		}
	}
	if (*Result)(nil).String() == "" {
		t.Error("nil String is empty")
	}
}
