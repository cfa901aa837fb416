package bfs

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// sameBookkeeping reports the fields in which a and b differ, besides
// levels, parents, times and rates.
func sameBookkeeping(t *testing.T, what string, a, b *Result) {
	t.Helper()
	if a.Algorithm != b.Algorithm || a.Source != b.Source || !slices.Equal(a.FrontierSizes, b.FrontierSizes) ||
		!slices.Equal(a.Directions, b.Directions) || a.Iterations != b.Iterations || a.Reached != b.Reached ||
		a.ComponentEdges != b.ComponentEdges || a.Launches != b.Launches || a.EdgeScans != b.EdgeScans ||
		a.ChildGrids != b.ChildGrids || a.Note != b.Note {
		t.Errorf("%s: the bookkeeping differs:\n%+v\n%+v", what, *a, *b)
	}
}

// deviceMade returns g on dev as a graph made there: no host copy until
// something asks for one.
func deviceMade(t *testing.T, dev *gpu.Device, g *graph.CSR) *gpu.Graph {
	t.Helper()
	off, err := dev.Int64sFrom(g.Offsets)
	if err != nil {
		t.Fatal(err)
	}
	adj, err := dev.Int32sFrom(g.Adj)
	if err != nil {
		t.Fatal(err)
	}
	dg, err := dev.NewGraph(g.NumVertices(), g.Directed, off, adj, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dg
}

// checkResident runs every variant prepared by Prepare and by
// PrepareResident (from an uploaded graph and from one made on the
// device) from every root and requires the same results: levels and
// bookkeeping equal, parents equal where they are derived from the levels
// and valid everywhere, each result accepted by CheckDevice of either
// Prepared. No method may make a host copy of a graph made on the device
// (the COO and its permutation are made there).
func checkResident(t *testing.T, dev *gpu.Device, cases []gpuCase) {
	for _, c := range cases {
		for _, v := range allVariants() {
			if c.g.Directed && v.Options.Method != DirectionOptimizingGPU {
				continue
			}
			o := withParents(v.Options)
			p, err := Prepare(dev, c.g, o)
			if err != nil {
				t.Fatal(err)
			}
			up, err := dev.Upload(c.g)
			if err != nil {
				t.Fatal(err)
			}
			made := deviceMade(t, dev, c.g)
			for _, dg := range []*gpu.Graph{up, made} {
				pr, err := PrepareResident(dg, o)
				if err != nil {
					t.Fatalf("%s, %s: PrepareResident: %v", c.name, v.Label, err)
				}
				if pr.Options() != p.Options() || pr.Label() != p.Label() || pr.Checker() != p.Checker() {
					t.Errorf("%s: PrepareResident gives %v, Prepare %v", v.Label, pr, p)
				}
				for _, src := range c.roots {
					what := v.Label + " on " + c.name
					want, err := p.Run(src)
					if err != nil {
						t.Fatal(err)
					}
					dr, err := pr.RunOnDevice(src)
					if err != nil {
						t.Fatalf("%s from %d: %v", what, src, err)
					}
					if err := pr.CheckDevice(dr); err != nil {
						t.Errorf("%s from %d: CheckDevice of the resident Prepared: %v", what, src, err)
					}
					if err := p.CheckDevice(dr); err != nil {
						t.Errorf("%s from %d: CheckDevice of Prepare's: %v", what, src, err)
					}
					got, err := dr.Result()
					if err != nil {
						t.Fatal(err)
					}
					sameBookkeeping(t, what, got, want)
					if !slices.Equal(got.Levels, want.Levels) {
						t.Errorf("%s from %d: levels differ", what, src)
					}
					if v.Options.Method != DirectionOptimizingGPU && !slices.Equal(got.Parents, want.Parents) {
						t.Errorf("%s from %d: parents differ", what, src)
					}
					if err := Check(c.g, got); err != nil {
						t.Errorf("%s from %d: %v", what, src, err)
					}
					if err := dr.Close(); err != nil {
						t.Fatal(err)
					}
				}
				if err := pr.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if made.HasHost() {
				t.Errorf("%s on %s: PrepareResident, RunOnDevice and CheckDevice made a host copy of the graph", v.Label, c.name)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			up.Close()
			made.Close()
		}
	}
}

// checkDeviceResultLifecycle runs a DeviceResult through its life: the
// bookkeeping without a copy, Result cached, Close idempotent, use after
// Close, results that outlive their Prepared, a result without parents.
func checkDeviceResultLifecycle(t *testing.T, dev *gpu.Device, g *graph.CSR) {
	roots := g.Roots(3, 1) // vertices with an arc
	for _, v := range allVariants() {
		p, err := Prepare(dev, g, withParents(v.Options))
		if err != nil {
			t.Fatal(err)
		}
		dr, err := p.RunOnDevice(roots[0])
		if err != nil {
			t.Fatal(err)
		}
		if dr.N != g.NumVertices() || !dr.HasParents || dr.Reached <= 1 || dr.Time <= 0 || len(dr.FrontierSizes) != dr.Iterations {
			t.Errorf("%s: device result %v: N %d, parents %v, reached %d, time %v, %d levels in %d iterations", v.Label, dr, dr.N, dr.HasParents, dr.Reached, dr.Time, len(dr.FrontierSizes), dr.Iterations)
		}
		if !strings.Contains(dr.String(), "on the device") {
			t.Errorf("%s: String() = %q", v.Label, dr)
		}
		res, err := dr.Result()
		if err != nil {
			t.Fatal(err)
		}
		if again, err := dr.Result(); again != res || err != nil {
			t.Errorf("%s: a second Result gives %p, %v; want the first, %p", v.Label, again, err, res)
		}
		if err := Check(g, res); err != nil {
			t.Errorf("%s: %v", v.Label, err)
		}
		if res.Reached != dr.Reached || res.ComponentEdges != dr.ComponentEdges || res.TEPS != dr.TEPS {
			t.Errorf("%s: Result %v, device result %v", v.Label, res, dr)
		}
		if err := dr.Close(); err != nil {
			t.Fatal(err)
		}
		if err := dr.Close(); err != nil {
			t.Errorf("%s: second Close: %v", v.Label, err)
		}
		if again, err := dr.Result(); again != res || err != nil {
			t.Errorf("%s: Result after Close gives %v, %v; want the copy made before", v.Label, again, err)
		}
		if err := p.CheckDevice(dr); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("%s: CheckDevice after Close: %v", v.Label, err)
		}
		// Closed before any Result: nothing to read.
		early, err := p.RunOnDevice(roots[1])
		if err != nil {
			t.Fatal(err)
		}
		if len(p.pool.levels) != 0 || len(p.pool.parents) != 0 {
			t.Errorf("%s: the run did not reuse the closed result's buffers (%d and %d spares)", v.Label, len(p.pool.levels), len(p.pool.parents))
		}
		early.Close()
		if r, err := early.Result(); r != nil || err == nil || !strings.Contains(err.Error(), "after Close") {
			t.Errorf("%s: Result after an early Close: %v, %v", v.Label, r, err)
		}
		// A result outlives its Prepared.
		kept, err := p.RunOnDevice(roots[2])
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := p.RunOnDevice(roots[2]); err == nil || !strings.Contains(err.Error(), "closed Prepared") {
			t.Errorf("%s: RunOnDevice after the Prepared's Close: %v", v.Label, err)
		}
		if err := p.CheckDevice(kept); err == nil || !strings.Contains(err.Error(), "closed Prepared") {
			t.Errorf("%s: CheckDevice after the Prepared's Close: %v", v.Label, err)
		}
		if res, err := kept.Result(); err != nil || Check(g, res) != nil {
			t.Errorf("%s: a result kept past its Prepared's Close: %v", v.Label, err)
		}
		if err := kept.Close(); err != nil {
			t.Errorf("%s: closing a result after its Prepared: %v", v.Label, err)
		}
	}
	// Without parents: levels only, and no device check.
	p, err := Prepare(dev, g, Options{Method: DirectionOptimizingGPU})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dr, err := p.RunOnDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dr.Close()
	if err := p.CheckDevice(dr); dr.HasParents || err == nil || !strings.Contains(err.Error(), "parents need Options.Parents") {
		t.Errorf("no parents: HasParents %v, CheckDevice %v", dr.HasParents, err)
	}
	if res, err := dr.Result(); err != nil || res.Parents != nil || len(res.Levels) != g.NumVertices() {
		t.Errorf("no parents: Result %v, %v", res, err)
	}
	if err := p.CheckDevice(nil); err == nil {
		t.Error("CheckDevice(nil): no error")
	}
}

// On the host device the device-result API runs the CPU search.
func TestHostDeviceResult(t *testing.T) {
	g, err := gen.RMAT(7, 8, gen.Seed(2), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	dev := gpu.Host()
	dg, err := dev.Upload(g)
	if err != nil {
		t.Fatal(err)
	}
	defer dg.Close()
	for _, o := range []Options{{}, {Method: DirectionOptimizingGPU, Parents: true}} {
		p, err := Prepare(dev, g, o)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := PrepareResident(dg, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []*Prepared{p, pr} {
			dr, err := q.RunOnDevice(5)
			if err != nil {
				t.Fatal(err)
			}
			if err := q.CheckDevice(dr); err != nil {
				t.Error(err)
			}
			res, err := dr.Result()
			if err != nil {
				t.Fatal(err)
			}
			want, err := q.Run(5)
			if err != nil {
				t.Fatal(err)
			}
			sameBookkeeping(t, "host device", res, want)
			if !slices.Equal(res.Levels, want.Levels) || !dr.HasParents || !strings.Contains(dr.String(), "on the host") {
				t.Errorf("host device: %v, parents %v", dr, dr.HasParents)
			}
			if err := errors.Join(dr.Close(), dr.Close()); err != nil {
				t.Error(err)
			}
			if again, err := dr.Result(); again != res || err != nil {
				t.Errorf("Result after Close on the host: %v", err)
			}
			q.Close()
		}
	}
	if _, err := PrepareResident(nil, Options{}); err == nil || !strings.Contains(err.Error(), "no graph") {
		t.Errorf("PrepareResident(nil): %v", err)
	}
	var dr *DeviceResult
	if _, err := dr.Result(); err == nil || dr.Close() != nil || dr.String() == "" {
		t.Errorf("nil DeviceResult: Result %v", err)
	}
}

// TestPreparedResidentErrors: the checks Prepare makes, from a resident
// graph.
func TestPreparedResidentErrors(t *testing.T) {
	dev := gpu.Host()
	d, err := dev.Upload(directedCopy(t, mustPath(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PrepareResident(d, Options{}); err == nil || !strings.Contains(err.Error(), "directed") {
		t.Errorf("directed edge scan: %v", err)
	}
	if _, err := PrepareResident(d, Options{Method: DirectionOptimizingGPU, Alpha: -1}); err == nil {
		t.Error("negative Alpha: no error")
	}
}

func mustPath(t *testing.T, n int) *graph.CSR {
	t.Helper()
	g, err := gen.Path(n)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGPUResident(t *testing.T) {
	dev := requireGPU(t)
	cases := gpuCases(t)
	g, err := gen.RMAT(10, 16, gen.Seed(8), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	checkResident(t, dev, append(cases, gpuCase{"directed", directedCopy(t, g), g.Roots(3, 1)}))
}

func TestGPUDeviceResult(t *testing.T) {
	dev := requireGPU(t)
	g, err := gen.RMAT(12, 16, gen.Seed(4), gen.Unweighted())
	if err != nil {
		t.Fatal(err)
	}
	checkDeviceResultLifecycle(t, dev, g)
}
