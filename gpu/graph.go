package gpu

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/card"
)

// Graph is a CSR graph resident on a device (on the host: in Go slices
// the device owns), kept across cells until Close or until the program
// drops it (its buffers are then freed when collected).
type Graph struct {
	// N is the number of vertices; Arcs the number of stored arcs.
	N    int
	Arcs int64
	// Directed is copied from the CSR.
	Directed bool
	// Offsets (N+1 entries) and Adj (Arcs entries) are the CSR arrays;
	// Weights or Weights64 hold the arc weights, nil where absent.
	Offsets   *Int64s
	Adj       *Int32s
	Weights   *Float32s
	Weights64 *Float64s

	dev    *Device
	closed atomic.Bool

	hostMu sync.Mutex
	host   *graph.CSR // the host copy, once made by Upload or Host
}

// NewGraph wraps CSR arrays already on d (made by a device generator or
// transform) as a Graph that owns them: Close frees them. offsets must
// hold n+1 entries and adj the arcs; at most one of w32 and w64 is
// non-nil and then has one weight per arc. The host copy is made only
// when Host or Download asks for it.
func (d *Device) NewGraph(n int, directed bool, offsets *Int64s, adj *Int32s, w32 *Float32s, w64 *Float64s) (*Graph, error) {
	switch {
	case n < 0 || offsets.Len() != n+1:
		return nil, fmt.Errorf("gpu: NewGraph: %d offsets for %d vertices, want n+1", offsets.Len(), n)
	case w32 != nil && w64 != nil:
		return nil, errors.New("gpu: NewGraph: both float32 and float64 weights; keep one")
	case w32 != nil && w32.Len() != adj.Len(), w64 != nil && w64.Len() != adj.Len():
		return nil, fmt.Errorf("gpu: NewGraph: %d weights for %d arcs", max(w32.Len(), w64.Len()), adj.Len())
	}
	return &Graph{N: n, Arcs: int64(adj.Len()), Directed: directed, Offsets: offsets, Adj: adj, Weights: w32, Weights64: w64, dev: d}, nil
}

// Upload copies g to the device. The result stays there until Close.
func (d *Device) Upload(g *graph.CSR) (*Graph, error) {
	if g == nil || len(g.Offsets) == 0 {
		return nil, errors.New("gpu: Upload: empty graph (no offsets)")
	}
	if g.Weights != nil && g.Weights64 != nil {
		return nil, errors.New("gpu: Upload: the graph has both float32 and float64 weights; keep one")
	}
	dg := &Graph{N: g.NumVertices(), Arcs: g.NumArcs(), Directed: g.Directed, dev: d, host: g}
	var err error
	if dg.Offsets, err = d.Int64sFrom(g.Offsets); err == nil {
		if dg.Adj, err = d.Int32sFrom(g.Adj); err == nil {
			switch {
			case g.Weights != nil:
				dg.Weights, err = d.Float32sFrom(g.Weights)
			case g.Weights64 != nil:
				dg.Weights64, err = d.Float64sFrom(g.Weights64)
			}
		}
	}
	if err != nil {
		dg.Close()
		return nil, fmt.Errorf("gpu: uploading a graph of %s: %w", card.Bytes(g.MemoryBytes()), err)
	}
	return dg, nil
}

// Device returns the device holding the graph.
func (g *Graph) Device() *Device { return g.dev }

// Bytes returns the device memory the graph's arrays use.
func (g *Graph) Bytes() int64 {
	return g.Offsets.Bytes() + g.Adj.Bytes() + g.Weights.Bytes() + g.Weights64.Bytes()
}

// Close frees the graph's device memory; idempotent.
func (g *Graph) Close() error {
	if !g.closed.CompareAndSwap(false, true) {
		return nil
	}
	return errors.Join(g.Offsets.Free(), g.Adj.Free(), g.Weights.Free(), g.Weights64.Free())
}

// Host returns the graph's host copy: the CSR it was uploaded from, or,
// for a graph made on the device, a download made on the first call and
// kept (bit-exact). The CSR is shared: treat it as read-only.
func (g *Graph) Host() (*graph.CSR, error) {
	g.hostMu.Lock()
	defer g.hostMu.Unlock()
	if g.host != nil {
		return g.host, nil
	}
	h, err := g.Download()
	if err != nil {
		return nil, err
	}
	g.host = h
	return h, nil
}

// HasHost reports whether the host copy exists already (Host would not
// copy).
func (g *Graph) HasHost() bool {
	g.hostMu.Lock()
	defer g.hostMu.Unlock()
	return g.host != nil
}

// Download copies the graph back into a new CSR (bit-exact).
func (g *Graph) Download() (*graph.CSR, error) {
	if g.closed.Load() {
		return nil, errors.New("gpu: Graph.Download: the graph was closed")
	}
	out := &graph.CSR{Directed: g.Directed}
	var err error
	if out.Offsets, err = g.Offsets.ToHost(); err != nil {
		return nil, err
	}
	if out.Adj, err = g.Adj.ToHost(); err != nil {
		return nil, err
	}
	if g.Weights != nil {
		if out.Weights, err = g.Weights.ToHost(); err != nil {
			return nil, err
		}
	}
	if g.Weights64 != nil {
		if out.Weights64, err = g.Weights64.ToHost(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rootsAskAll is the number of candidates above which Graph.Roots reads
// the whole offsets array rather than each candidate's pair of offsets
// (one small copy each, about 10 µs).
const rootsAskAll = 4096

// Roots is graph.CSR.Roots for the resident graph: the same roots as its
// host copy's for the same k and seed. It reads only the offsets of the
// vertices it samples (16 bytes each) — a sweep needs no copy of the
// offsets to choose its roots — unless the draws keep failing (a graph of
// mostly isolated vertices), when it reads them all; with a host copy at
// hand it reads that.
func (g *Graph) Roots(k int, seed uint64) ([]int32, error) {
	if g.closed.Load() {
		return nil, errors.New("gpu: Graph.Roots: the graph was closed")
	}
	var all []int64
	if g.HasHost() {
		h, err := g.Host()
		if err != nil {
			return nil, err
		}
		all = h.Offsets
	} else if g.dev.host {
		all = g.Offsets.HostData()
	}
	return graph.RootsWhere(g.N, k, seed, func(vs []int32) ([]bool, error) {
		if all == nil && len(vs) > rootsAskAll {
			var err error
			if all, err = g.Offsets.ToHost(); err != nil {
				return nil, fmt.Errorf("gpu: Graph.Roots: %w", err)
			}
		}
		has := make([]bool, len(vs))
		if all != nil {
			for i, v := range vs {
				has[i] = all[v+1] > all[v]
			}
			return has, nil
		}
		base, err := g.Offsets.devicePtr(g.dev)
		if err != nil {
			return nil, fmt.Errorf("gpu: Graph.Roots: %w", err)
		}
		var pair [2]int64
		err = g.dev.exec(func(t *Thread) error {
			for i, v := range vs {
				if err := t.dtoh("Graph.Roots", unsafe.Pointer(&pair[0]), base+uint64(v)*8, 16); err != nil {
					return err
				}
				has[i] = pair[1] > pair[0]
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("gpu: Graph.Roots: %w", err)
		}
		return has, nil
	})
}

func weightKind(w32, w64 bool) string {
	switch {
	case w32:
		return "float32 weights"
	case w64:
		return "float64 weights"
	}
	return "unweighted"
}

func (g *Graph) state() string {
	if g.closed.Load() {
		return " (closed)"
	}
	return ""
}

// String summarises the graph: device, sizes, weights, bytes.
func (g *Graph) String() string {
	kind := "undirected"
	if g.Directed {
		kind = "directed"
	}
	return fmt.Sprintf("device graph on %v: %s vertices, %s arcs, %s, %s, %s%s", g.dev, card.Count(int64(g.N)), card.Count(g.Arcs),
		kind, weightKind(g.Weights != nil, g.Weights64 != nil), card.Bytes(g.Bytes()), g.state())
}

// HTML renders the graph as a card.
func (g *Graph) HTML() string {
	kind := "undirected"
	if g.Directed {
		kind = "directed"
	}
	return card.New("device-resident CSR graph"+g.state()).
		Row("device", g.dev.String()).
		Row("vertices", card.Count(int64(g.N))).
		Row("arcs", card.Count(g.Arcs)).
		Row("kind", kind).
		Row("weights", weightKind(g.Weights != nil, g.Weights64 != nil)).
		Row("device memory", card.Bytes(g.Bytes())).
		HTML()
}

// COO is a COO graph (the SSSP study's startV/endV/weights, each
// undirected edge once) resident on a device.
type COO struct {
	// N is the number of vertices; Edges the number of edges.
	N     int
	Edges int64
	// Start and End are the edges' ends; Weights or Weights64 their
	// weights, nil where absent.
	Start, End *Int32s
	Weights    *Float32s
	Weights64  *Float64s

	dev    *Device
	closed atomic.Bool
}

// UploadCOO copies c to the device.
func (d *Device) UploadCOO(c *graph.COO) (*COO, error) {
	if c == nil {
		return nil, errors.New("gpu: UploadCOO: nil COO")
	}
	if len(c.Start) != len(c.End) {
		return nil, fmt.Errorf("gpu: UploadCOO: %d starts but %d ends", len(c.Start), len(c.End))
	}
	if c.Weights != nil && c.Weights64 != nil {
		return nil, errors.New("gpu: UploadCOO: the COO has both float32 and float64 weights; keep one")
	}
	dc := &COO{N: c.N, Edges: c.NumEdges(), dev: d}
	var err error
	if dc.Start, err = d.Int32sFrom(c.Start); err == nil {
		if dc.End, err = d.Int32sFrom(c.End); err == nil {
			switch {
			case c.Weights != nil:
				dc.Weights, err = d.Float32sFrom(c.Weights)
			case c.Weights64 != nil:
				dc.Weights64, err = d.Float64sFrom(c.Weights64)
			}
		}
	}
	if err != nil {
		dc.Close()
		return nil, fmt.Errorf("gpu: uploading a COO of %s: %w", card.Bytes(c.MemoryBytes()), err)
	}
	return dc, nil
}

// NewCOO wraps edge arrays already on d (made by a device transform) as a
// COO that owns them: Close frees them. start and end hold one entry per
// edge; at most one of w32 and w64 is non-nil and then has one weight per
// edge.
func (d *Device) NewCOO(n int, start, end *Int32s, w32 *Float32s, w64 *Float64s) (*COO, error) {
	switch {
	case n < 0 || start.Len() != end.Len():
		return nil, fmt.Errorf("gpu: NewCOO: %d starts and %d ends for %d vertices", start.Len(), end.Len(), n)
	case w32 != nil && w64 != nil:
		return nil, errors.New("gpu: NewCOO: both float32 and float64 weights; keep one")
	case w32 != nil && w32.Len() != start.Len(), w64 != nil && w64.Len() != start.Len():
		return nil, fmt.Errorf("gpu: NewCOO: %d weights for %d edges", max(w32.Len(), w64.Len()), start.Len())
	}
	return &COO{N: n, Edges: int64(start.Len()), Start: start, End: end, Weights: w32, Weights64: w64, dev: d}, nil
}

// Device returns the device holding the COO.
func (c *COO) Device() *Device { return c.dev }

// Bytes returns the device memory the COO's arrays use.
func (c *COO) Bytes() int64 {
	return c.Start.Bytes() + c.End.Bytes() + c.Weights.Bytes() + c.Weights64.Bytes()
}

// Close frees the COO's device memory; idempotent.
func (c *COO) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	return errors.Join(c.Start.Free(), c.End.Free(), c.Weights.Free(), c.Weights64.Free())
}

// Download copies the COO back (bit-exact).
func (c *COO) Download() (*graph.COO, error) {
	if c.closed.Load() {
		return nil, errors.New("gpu: COO.Download: the COO was closed")
	}
	out := &graph.COO{N: c.N}
	var err error
	if out.Start, err = c.Start.ToHost(); err != nil {
		return nil, err
	}
	if out.End, err = c.End.ToHost(); err != nil {
		return nil, err
	}
	if c.Weights != nil {
		if out.Weights, err = c.Weights.ToHost(); err != nil {
			return nil, err
		}
	}
	if c.Weights64 != nil {
		if out.Weights64, err = c.Weights64.ToHost(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// String summarises the COO.
func (c *COO) String() string {
	st := ""
	if c.closed.Load() {
		st = " (closed)"
	}
	return fmt.Sprintf("device COO on %v: %s vertices, %s edges, %s, %s%s", c.dev, card.Count(int64(c.N)), card.Count(c.Edges),
		weightKind(c.Weights != nil, c.Weights64 != nil), card.Bytes(c.Bytes()), st)
}

// HTML renders the COO as a card.
func (c *COO) HTML() string {
	return card.New("device-resident COO graph").
		Row("device", c.dev.String()).
		Row("vertices", card.Count(int64(c.N))).
		Row("edges", card.Count(c.Edges)).
		Row("weights", weightKind(c.Weights != nil, c.Weights64 != nil)).
		Row("device memory", card.Bytes(c.Bytes())).
		HTML()
}
