package gpu

import (
	"slices"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/graph"
)

// TestNewGraphHostCopy checks that a graph wrapped from device arrays is
// downloaded once, on the first Host, and that an uploaded graph's host
// copy is the CSR it came from.
func TestNewGraphHostCopy(t *testing.T) {
	d := Host()
	off, _ := d.Int64sFrom([]int64{0, 1, 2})
	adj, _ := d.Int32sFrom([]int32{1, 0})
	w, _ := d.Float32sFrom([]float32{0.5, 0.5})
	g, err := d.NewGraph(2, false, off, adj, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.HasHost() {
		t.Fatal("a graph made on the device claims a host copy before Host")
	}
	h, err := g.Host()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.Adj, []int32{1, 0}) || !slices.Equal(h.Weights, []float32{0.5, 0.5}) || h.NumVertices() != 2 {
		t.Fatalf("host copy %+v", h)
	}
	if h2, _ := g.Host(); h2 != h {
		t.Fatal("a second Host copied again")
	}

	src := &graph.CSR{Offsets: []int64{0, 0}, Adj: []int32{}}
	up, err := d.Upload(src)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	if h, _ := up.Host(); h != src {
		t.Fatal("an uploaded graph's host copy is not the CSR it came from")
	}
}

// TestNewGraphRefusesBadShapes checks the shape errors.
func TestNewGraphRefusesBadShapes(t *testing.T) {
	d := Host()
	off, _ := d.Int64sFrom([]int64{0, 1})
	adj, _ := d.Int32sFrom([]int32{0})
	w, _ := d.Float32sFrom([]float32{1, 2})
	// Freed here: a buffer left to the collector would change MemoryUsed
	// under another test's feet.
	defer func() { off.Free(); adj.Free(); w.Free() }()
	for _, c := range []struct {
		n    int
		w    *Float32s
		want string
	}{{2, nil, "offsets for 2 vertices"}, {1, w, "2 weights for 1 arcs"}} {
		if _, err := d.NewGraph(c.n, false, off, adj, c.w, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewGraph(n=%d): %v, want an error with %q", c.n, err, c.want)
		}
	}
}

// TestGraphRootsHost is checkGraphRoots on the host device.
func TestGraphRootsHost(t *testing.T) { checkGraphRoots(t, Host()) }

// checkGraphRoots checks that a graph made on d (no host copy) draws the
// roots its host copy draws, on graphs with few and with mostly isolated
// vertices (the fallback that reads every offset).
func checkGraphRoots(t *testing.T, d *Device) {
	for _, c := range []struct {
		n, every int // every: one vertex in `every` has an arc
		k        int
	}{{50, 1, 8}, {50, 3, 64}, {6000, 1, 64}, {6000, 200, 64}, {1, 1, 3}} {
		off := make([]int64, c.n+1)
		var adj []int32
		for v := range c.n {
			off[v+1] = off[v]
			if v%c.every == 0 && c.n > 1 {
				adj = append(adj, int32((v+1)%c.n))
				off[v+1]++
			}
		}
		doff, err := d.Int64sFrom(off)
		if err != nil {
			t.Fatal(err)
		}
		dadj, err := d.Int32sFrom(append(adj, 0)[:len(adj)])
		if err != nil {
			t.Fatal(err)
		}
		g, err := d.NewGraph(c.n, true, doff, dadj, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(3) {
			got, err := g.Roots(c.k, seed)
			want := graph.RootsFromOffsets(off, c.k, seed)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("n %d, one in %d with an arc, k %d, seed %d: Graph.Roots %v (%v), host %v", c.n, c.every, c.k, seed, got, err, want)
			}
		}
		if g.HasHost() {
			t.Errorf("n %d: Roots made a host copy", c.n)
		}
		g.Close()
		if _, err := g.Roots(1, 1); err == nil {
			t.Error("Roots on a closed graph succeeded")
		}
	}
}
