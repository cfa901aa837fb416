package apsp

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
)

var inf32 = float32(math.Inf(1))

// randDense returns an n×n matrix with edge probability p and weights
// drawn by weight(rng) (whole numbers for int32).
func randDense(rng *rand.Rand, n int, p float64, integer bool, weight func(*rand.Rand) float64) *graph.Dense {
	var d *graph.Dense
	if integer {
		d = graph.NewDenseI32(n)
	} else {
		d = graph.NewDenseF32(n)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j || rng.Float64() >= p {
				continue
			}
			w := weight(rng)
			if integer {
				d.I32[i*n+j] = int32(w)
			} else {
				d.F32[i*n+j] = float32(w)
			}
		}
	}
	return d
}

// ints draws whole weights in [lo, hi].
func ints(lo, hi int) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return float64(lo + r.IntN(hi-lo+1)) }
}

// reals draws real weights in [lo, hi).
func reals(lo, hi float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return lo + (hi-lo)*r.Float64() }
}

// reweight applies potentials h: w'(i,j) = w(i,j) + h[i] − h[j]. Cycle
// weights do not change, so a non-negative matrix stays free of negative
// cycles while getting negative entries.
func reweight(rng *rand.Rand, d *graph.Dense, spread int) {
	n := d.N
	h := make([]int, n)
	for i := range h {
		h[i] = rng.IntN(spread + 1)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			if d.I32 != nil && d.I32[i*n+j] < graph.InfI32 {
				d.I32[i*n+j] += int32(h[i] - h[j])
			}
			if d.F32 != nil && d.F32[i*n+j] != inf32 {
				d.F32[i*n+j] += float32(h[i] - h[j])
			}
		}
	}
}

// run runs both algorithms (blocked with the given tile), checks both on
// every row and returns them.
func run(t *testing.T, d *graph.Dense, tile int) (*Result, *Result) {
	t.Helper()
	before := d.Clone()
	fw, err := FloydWarshall(d)
	if err != nil {
		t.Fatalf("FloydWarshall: %v", err)
	}
	bl, err := Blocked(d, tile)
	if err != nil {
		t.Fatalf("Blocked(tile %d): %v", tile, err)
	}
	if !slices.Equal(before.I32, d.I32) || !slices.Equal(before.F32, d.F32) {
		t.Fatal("the input matrix was modified")
	}
	for _, r := range []*Result{fw, bl} {
		if err := Check(d, r, d.N, 1); err != nil {
			t.Fatalf("%s: Check: %v", r.Algorithm, err)
		}
	}
	return fw, bl
}

func TestTable(t *testing.T) {
	I := graph.InfI32
	tests := []struct {
		name string
		n    int
		w    []int32 // row-major weights, nil: no edges
		want []int32
	}{
		{name: "empty", n: 0},
		{name: "single vertex", n: 1, w: []int32{0}, want: []int32{0}},
		{name: "edgeless", n: 3, want: []int32{0, I, I, I, 0, I, I, I, 0}},
		{name: "line", n: 3, w: []int32{0, 2, I, I, 0, 3, I, I, 0}, want: []int32{0, 2, 5, I, 0, 3, I, I, 0}},
		{name: "shortcut loses", n: 3, w: []int32{0, 1, 9, I, 0, 1, I, I, 0}, want: []int32{0, 1, 2, I, 0, 1, I, I, 0}},
		{name: "disconnected", n: 4, w: []int32{0, 1, I, I, 1, 0, I, I, I, I, 0, 7, I, I, I, 0},
			want: []int32{0, 1, I, I, 1, 0, I, I, I, I, 0, 7, I, I, I, 0}},
		{name: "negative edge", n: 3, w: []int32{0, 4, 1, I, 0, I, I, -2, 0}, want: []int32{0, -1, 1, I, 0, I, I, -2, 0}},
		{name: "positive diagonal ignored", n: 2, w: []int32{5, 1, 1, 3}, want: []int32{0, 1, 1, 0}},
		{name: "entries above InfI32", n: 2, w: []int32{0, math.MaxInt32, 3, 0}, want: []int32{0, I, 3, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := graph.NewDenseI32(tc.n)
			if tc.w != nil {
				copy(d.I32, tc.w)
			}
			for _, tile := range []int{0, 1, 2} {
				fw, bl := run(t, d, tile)
				if !slices.Equal(fw.Dist.I32, tc.want) && len(tc.want)+len(fw.Dist.I32) > 0 {
					t.Fatalf("FloydWarshall Dist %v, want %v", fw.Dist.I32, tc.want)
				}
				if !slices.Equal(bl.Dist.I32, tc.want) && len(tc.want)+len(bl.Dist.I32) > 0 {
					t.Fatalf("Blocked(%d) Dist %v, want %v", tile, bl.Dist.I32, tc.want)
				}
			}
		})
	}
}

// TestTileEdgeCases runs Blocked for sizes around multiples of the tile:
// int32 Dist must be bit-identical to FloydWarshall's, and float32 too
// when the weights are whole numbers (every sum exact).
func TestTileEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tile := range []int{1, 2, 3, 4, 8, 16} {
		sizes := []int{1, tile - 1, tile, tile + 1, 2*tile - 1, 2 * tile, 2*tile + 1, 3*tile + 2, 7, 13, 31, 37}
		for _, n := range sizes {
			if n < 1 {
				continue
			}
			for _, integer := range []bool{true, false} {
				d := randDense(rng, n, 0.3, integer, ints(0, 20))
				fw, bl := run(t, d, tile)
				if !slices.Equal(fw.Dist.I32, bl.Dist.I32) || !slices.Equal(fw.Dist.F32, bl.Dist.F32) {
					t.Fatalf("tile %d, n %d, int %v: Blocked Dist differs from FloydWarshall", tile, n, integer)
				}
				if bl.Tile != min(tile, n) {
					t.Errorf("tile %d, n %d: Result.Tile = %d", tile, n, bl.Tile)
				}
			}
		}
	}
}

func TestNegativeWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 40; iter++ {
		n := 1 + rng.IntN(30)
		integer := iter%2 == 0
		d := randDense(rng, n, 0.25, integer, ints(0, 10))
		reweight(rng, d, 15)
		fw, bl := run(t, d, 1+rng.IntN(9))
		if integer && !slices.Equal(fw.Dist.I32, bl.Dist.I32) {
			t.Fatalf("graph %d: Blocked int32 Dist differs from FloydWarshall", iter)
		}
	}
}

// TestFloatTolerance uses real weights: Blocked's float32 sums group
// differently from FloydWarshall's, so the two may differ in the last
// bits; both must pass Check, and agree within its tolerance.
func TestFloatTolerance(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	differ := 0
	for iter := 0; iter < 20; iter++ {
		n := 20 + rng.IntN(60)
		d := randDense(rng, n, 0.2, false, reals(0.001, 1))
		fw, bl := run(t, d, 1+rng.IntN(16))
		c := &checker{d: d, n: n}
		for k := range fw.Dist.F32 {
			a, b := float64(fw.Dist.F32[k]), float64(bl.Dist.F32[k])
			if a != b {
				differ++
			}
			if !c.agree(a, b) {
				t.Fatalf("entry %d: FloydWarshall %v, Blocked %v", k, a, b)
			}
		}
	}
	t.Logf("%d float32 entries differ in rounding between the plain and blocked algorithms", differ)
}

// gonumAPSP returns gonum's Floyd-Warshall distances, and false when it
// finds a negative cycle.
func gonumAPSP(d *graph.Dense) ([]float64, bool) {
	n := d.N
	g := simple.NewWeightedDirectedGraph(0, math.Inf(1))
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
	paths, ok := path.FloydWarshall(g)
	if !ok {
		return nil, false
	}
	out := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			out[i*n+j] = paths.Weight(int64(i), int64(j))
		}
	}
	return out, true
}

// TestGonumOracle compares with gonum's FloydWarshall on 150 random
// matrices: sparse and dense, int32 and float32, zero weights (zero-weight
// cycles), negative weights without negative cycles.
func TestGonumOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for iter := 0; iter < 150; iter++ {
		n := 1 + rng.IntN(25)
		integer := iter%3 != 0
		p := []float64{0.05, 0.2, 0.6}[iter%3]
		weight := ints(0, 5)
		if !integer {
			weight = reals(0, 4)
		}
		d := randDense(rng, n, p, integer, weight)
		if iter%4 == 0 {
			reweight(rng, d, 8)
		}
		want, ok := gonumAPSP(d)
		if !ok {
			t.Fatalf("graph %d: gonum found a negative cycle in a matrix without one", iter)
		}
		fw, bl := run(t, d, 1+rng.IntN(8))
		c := &checker{d: d, n: n}
		for _, r := range []*Result{fw, bl} {
			for k, w := range want {
				if got := r.Dist.At(k/n, k%n); !c.agree(got, w) || (integer && got != w) {
					t.Fatalf("graph %d, %s: Dist[%d][%d] = %v, gonum %v", iter, r.Algorithm, k/n, k%n, got, w)
				}
			}
		}
	}
}

// TestNegativeCycle plants one negative cycle in a graph whose other
// edges are heavy enough that no other cycle is negative, and checks that
// the error names one of its vertices (gonum agrees there is one).
func TestNegativeCycle(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 60; iter++ {
		n := 2 + rng.IntN(30)
		integer := iter%2 == 0
		d := randDense(rng, n, 0.2, integer, ints(100, 120))
		perm := rng.Perm(n)
		cyc := perm[:1+rng.IntN(min(n, 6))]
		onCycle := map[int]bool{}
		for k, v := range cyc {
			onCycle[v] = true
			u := cyc[(k+1)%len(cyc)]
			w := -1 - rng.IntN(5)
			if integer {
				d.I32[v*n+u] = int32(w)
			} else {
				d.F32[v*n+u] = float32(w)
			}
		}
		if _, ok := gonumAPSP(d); ok && len(cyc) > 1 {
			t.Fatalf("graph %d: gonum found no negative cycle", iter)
		}
		for name, f := range map[string]func() (*Result, error){
			"FloydWarshall": func() (*Result, error) { return FloydWarshall(d) },
			"Blocked":       func() (*Result, error) { return Blocked(d, 1+rng.IntN(6)) },
		} {
			_, err := f()
			var nc *NegativeCycleError
			if !errors.As(err, &nc) || !errors.Is(err, ErrNegativeCycle) {
				t.Fatalf("graph %d, %s: err = %v, want a NegativeCycleError", iter, name, err)
			}
			if !onCycle[nc.Vertex] {
				t.Fatalf("graph %d, %s: vertex %d is not on the cycle %v", iter, name, nc.Vertex, cyc)
			}
		}
	}
}

func TestPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	d := randDense(rng, 40, 0.1, true, ints(0, 9))
	reweight(rng, d, 5)
	_, bl := run(t, d, 7)
	n := d.N
	paths := 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			p, err := bl.Path(i, j)
			if bl.Dist.I32[i*n+j] >= graph.InfI32 {
				if err == nil {
					t.Fatalf("Path(%d, %d) to an unreachable vertex succeeded", i, j)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if p[0] != int32(i) || p[len(p)-1] != int32(j) {
				t.Fatalf("Path(%d, %d) = %v", i, j, p)
			}
			var sum int32
			for k := 1; k < len(p); k++ {
				w := d.I32[int(p[k-1])*n+int(p[k])]
				if w >= graph.InfI32 {
					t.Fatalf("Path(%d, %d) = %v uses a missing edge", i, j, p)
				}
				sum += w
			}
			if sum != bl.Dist.I32[i*n+j] {
				t.Fatalf("Path(%d, %d) = %v weighs %d, Dist says %d", i, j, p, sum, bl.Dist.I32[i*n+j])
			}
			paths++
		}
	}
	if paths < n {
		t.Fatalf("only %d paths", paths)
	}
	for _, ij := range [][2]int{{-1, 0}, {0, n}, {n, 0}} {
		if _, err := bl.Path(ij[0], ij[1]); err == nil {
			t.Errorf("Path(%d, %d) succeeded", ij[0], ij[1])
		}
	}
	if p, err := bl.Path(3, 3); err != nil || !slices.Equal(p, []int32{3}) {
		t.Errorf("Path(3, 3) = %v, %v", p, err)
	}
}

func TestCheckRejects(t *testing.T) {
	// 0→1→2 (1 each), 0→2 weighs 5, 3 isolated.
	I := graph.InfI32
	d := graph.NewDenseI32(4)
	copy(d.I32, []int32{0, 1, 5, I, I, 0, 1, I, I, I, 0, I, I, I, I, 0})
	good, err := Blocked(d, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(d, good, 4, 1); err != nil {
		t.Fatal(err)
	}
	clone := func() *Result {
		r := *good
		r.Dist = good.Dist.Clone()
		r.Parents = slices.Clone(good.Parents)
		return &r
	}
	tests := []struct {
		name    string
		corrupt func(r *Result)
		want    string
	}{
		{"wrong distance", func(r *Result) { r.Dist.I32[0*4+2] = 5 }, "Dist[0][2] = 5"},
		{"reachable shown unreachable", func(r *Result) { r.Dist.I32[0*4+1] = I }, "Dist[0][1]"},
		{"unreachable shown reachable", func(r *Result) { r.Dist.I32[0*4+3] = 9 }, "Dist[0][3]"},
		{"broken pred", func(r *Result) { r.Parents[0*4+2] = -1 }, "not a predecessor"},
		{"pred not on a shortest path", func(r *Result) { r.Parents[0*4+2] = 0 }, "≠ Dist[0][2]"},
		{"pred without edge", func(r *Result) { r.Parents[1*4+2] = 0; r.Parents[0*4+2] = 3 }, "no edge"},
		{"pred for unreachable", func(r *Result) { r.Parents[0*4+3] = 0 }, "unreachable"},
		{"pred of source", func(r *Result) { r.Parents[0] = 1 }, "Parents[0][0]"},
		{"short Parents", func(r *Result) { r.Parents = r.Parents[:5] }, "Parents holds"},
		{"wrong size", func(r *Result) { r.Dist = graph.NewDenseI32(3) }, "3 vertices"},
		{"wrong type", func(r *Result) { r.Dist = graph.NewDenseF32(4) }, "element type"},
		{"nil", func(r *Result) { r.Dist = nil }, "no result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := clone()
			tc.corrupt(r)
			err := Check(d, r, 4, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// a Parents cycle with consistent zero-weight edges: 1→2→1 both 0.
	z := graph.NewDenseI32(3)
	copy(z.I32, []int32{0, 1, I, I, 0, 0, I, 0, 0})
	r, err := FloydWarshall(z)
	if err != nil {
		t.Fatal(err)
	}
	r.Parents[0*3+1], r.Parents[0*3+2] = 2, 1
	if err := Check(z, r, 3, 1); err == nil || !strings.Contains(err.Error(), "loops") {
		t.Errorf("Check with a Parents cycle = %v", err)
	}
	// sampling: a corrupted row is found when it is sampled.
	big := randDense(rand.New(rand.NewPCG(1, 1)), 50, 0.2, true, ints(1, 9))
	rb, err := FloydWarshall(big)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 50 {
		rb.Dist.I32[k*50+(k+1)%50]--
	}
	if err := Check(big, rb, 3, 42); err == nil {
		t.Error("Check with 3 samples missed distances corrupted in every row")
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
	negDiag := graph.NewDenseI32(3)
	negDiag.I32[4] = -1
	tests := []struct {
		name string
		d    *graph.Dense
		want string
	}{
		{"nil", nil, "nil"},
		{"n mismatch", &graph.Dense{N: 3, I32: make([]int32, 8)}, "want N·N = 9"},
		{"both types", &graph.Dense{N: 1, I32: []int32{0}, F32: []float32{0}}, "exactly one"},
		{"neither type", &graph.Dense{N: 1}, "exactly one"},
		{"negative N", &graph.Dense{N: -1}, "outside"},
		{"NaN", nan, "NaN"},
		{"-Inf", minf, "-Inf"},
		{"below -InfI32", low, "below"},
		{"negative int32 range", wide, "float32"},
		{"negative diagonal", negDiag, "negative cycle through vertex 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, e1 := FloydWarshall(tc.d)
			_, e2 := Blocked(tc.d, 0)
			e3 := Check(tc.d, &Result{}, 1, 1)
			for _, err := range []error{e1, e2, e3} {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err = %v, want one containing %q", err, tc.want)
				}
			}
		})
	}
	if _, err := Blocked(graph.NewDenseI32(3), -1); err == nil || !strings.Contains(err.Error(), "tile") {
		t.Errorf("Blocked(tile -1) = %v", err)
	}
	r, err := Blocked(graph.NewDenseI32(3), 0)
	if err != nil || r.Tile != 3 {
		t.Errorf("Blocked(tile 0) on 3 vertices: tile %v, %v", r, err)
	}
	if r, err := Blocked(graph.NewDenseI32(200), 0); err != nil || r.Tile != DefaultTile {
		t.Errorf("Blocked(tile 0) on 200 vertices: %v, %v", r, err)
	}
	if err := Check(graph.NewDenseI32(3), r, 0, 1); err == nil {
		t.Error("Check with 0 samples succeeded")
	}
}

func TestFromGraph(t *testing.T) {
	// a small road-like grid through graph.CSR.Dense.
	el := graph.EdgeList{N: 9, Weights: []float32{}}
	for v := 0; v < 9; v++ {
		if v%3 < 2 {
			el.Src, el.Dst, el.Weights = append(el.Src, int32(v)), append(el.Dst, int32(v+1)), append(el.Weights, float32(1+v%4))
		}
		if v < 6 {
			el.Src, el.Dst, el.Weights = append(el.Src, int32(v)), append(el.Dst, int32(v+3)), append(el.Weights, float32(2+v%3))
		}
	}
	g, err := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, integer := range []bool{true, false} {
		d, err := g.Dense(integer)
		if err != nil {
			t.Fatal(err)
		}
		fw, bl := run(t, d, 2)
		if fw.Dist.At(0, 8) != bl.Dist.At(0, 8) || fw.Dist.At(0, 8) != fw.Dist.At(8, 0) {
			t.Errorf("grid: d(0,8) = %v / %v / %v", fw.Dist.At(0, 8), bl.Dist.At(0, 8), fw.Dist.At(8, 0))
		}
	}
}

func TestCancel(t *testing.T) {
	d := randDense(rand.New(rand.NewPCG(2, 2)), 30, 0.2, true, ints(1, 9))
	good, err := FloydWarshall(d)
	if err != nil {
		t.Fatal(err)
	}
	cancel.Request()
	defer cancel.Clear()
	_, e1 := FloydWarshall(d)
	_, e2 := Blocked(d, 8)
	for _, err := range []error{e1, e2} {
		if !errors.Is(err, cancel.ErrInterrupted) {
			t.Errorf("after Request: %v, want ErrInterrupted", err)
		}
	}
	cancel.Clear()
	if err := Check(d, good, 30, 1); err != nil {
		t.Error(err)
	}
}

func TestString(t *testing.T) {
	r, err := Blocked(graph.NewDenseF32(100), 16)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cpu blocked Floyd-Warshall", "100 vertices", "float32", "tile 16"} {
		if !strings.Contains(r.String(), want) {
			t.Errorf("String() = %q, missing %q", r.String(), want)
		}
	}
	if (*Result)(nil).String() == "" {
		t.Error("nil String is empty")
	}
}
