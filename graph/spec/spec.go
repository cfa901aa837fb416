// Package spec names a graph in one short string, so the command line, the
// benchmark harness and notebooks all say "rmat:20" or "rome99.gr" the same
// way.
//
// Grammar (case-insensitive kinds):
//
//	rmat:SCALE[:EDGEFACTOR]   R-MAT, 2^SCALE vertices, edge factor 16 by default
//	ssca2:SCALE               SSCA#2, 2^SCALE vertices
//	path:N  star:N  complete:N
//	grid:ROWSxCOLS
//	er:N:P                    Erdős–Rényi G(N, P)
//	anything else             a file; its extension picks the format (graph/graphio)
package spec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/gen/gpugen"
	"github.com/graphnb/graphnb/graph/graphio"
)

// Spec is a parsed graph description.
type Spec struct {
	// Kind is "rmat", "ssca2", "path", "star", "complete", "grid", "er" or
	// "file".
	Kind string
	// Scale is log2 of the vertex count (rmat, ssca2).
	Scale int
	// EdgeFactor is edges per vertex before deduplication (rmat).
	EdgeFactor int
	// N is the vertex count (path, star, complete, er).
	N int
	// Rows and Cols size a grid.
	Rows, Cols int
	// P is the edge probability (er).
	P float64
	// Path names the file (file).
	Path string
}

// Options are the knobs a spec string does not carry. The zero value gives
// seed 1, uniform [0,1) weights, no vertex permutation and files read as
// they are.
type Options struct {
	// Seed drives the generators (0 means 1).
	Seed uint64
	// Weights is "uniform" (default), "int:MAX" (whole numbers 1..MAX) or
	// "none". Files keep their own weights.
	Weights string
	// PermuteVertices relabels R-MAT vertices randomly, as Graph500 does.
	PermuteVertices bool
	// Symmetrize makes a directed file graph undirected.
	Symmetrize bool
	// Float64 stores weights as float64.
	Float64 bool
}

// Parse reads a spec string. It checks the syntax and the ranges, not
// whether a file exists.
func Parse(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Spec{}, fmt.Errorf("spec: empty graph description; try rmat:16, ssca2:16, grid:8x8 or a file name")
	}
	kind, rest, found := strings.Cut(s, ":")
	if !found {
		return Spec{Kind: "file", Path: s}, nil
	}
	kind = strings.ToLower(kind)
	fields := strings.Split(rest, ":")
	atoi := func(what, v string, lo, hi int) (int, error) {
		x, err := strconv.Atoi(v)
		if err != nil || x < lo || x > hi {
			return 0, fmt.Errorf("spec: %q: %s must be a whole number in %d..%d, not %q", s, what, lo, hi, v)
		}
		return x, nil
	}
	want := func(k int) error {
		if len(fields) != k {
			return fmt.Errorf("spec: %q: %s takes %d field(s) after the colon, got %d", s, kind, k, len(fields))
		}
		return nil
	}
	var sp Spec
	var err error
	switch kind {
	case "rmat":
		if len(fields) < 1 || len(fields) > 2 {
			return Spec{}, fmt.Errorf("spec: %q: write rmat:SCALE or rmat:SCALE:EDGEFACTOR", s)
		}
		sp = Spec{Kind: kind, EdgeFactor: 16}
		if sp.Scale, err = atoi("the scale", fields[0], 1, 30); err != nil {
			return Spec{}, err
		}
		if len(fields) == 2 {
			if sp.EdgeFactor, err = atoi("the edge factor", fields[1], 1, 1<<10); err != nil {
				return Spec{}, err
			}
		}
	case "ssca2":
		if err := want(1); err != nil {
			return Spec{}, err
		}
		sp = Spec{Kind: kind}
		if sp.Scale, err = atoi("the scale", fields[0], 1, 30); err != nil {
			return Spec{}, err
		}
	case "path", "star", "complete":
		if err := want(1); err != nil {
			return Spec{}, err
		}
		sp = Spec{Kind: kind}
		if sp.N, err = atoi("the vertex count", fields[0], 1, 1<<30); err != nil {
			return Spec{}, err
		}
	case "grid":
		if err := want(1); err != nil {
			return Spec{}, err
		}
		r, c, ok := strings.Cut(strings.ToLower(fields[0]), "x")
		if !ok {
			return Spec{}, fmt.Errorf("spec: %q: write grid:ROWSxCOLS, e.g. grid:8x8", s)
		}
		sp = Spec{Kind: kind}
		if sp.Rows, err = atoi("the row count", r, 1, 1<<16); err != nil {
			return Spec{}, err
		}
		if sp.Cols, err = atoi("the column count", c, 1, 1<<16); err != nil {
			return Spec{}, err
		}
	case "er":
		if err := want(2); err != nil {
			return Spec{}, err
		}
		sp = Spec{Kind: kind}
		if sp.N, err = atoi("the vertex count", fields[0], 1, 1<<30); err != nil {
			return Spec{}, err
		}
		p, perr := strconv.ParseFloat(fields[1], 64)
		if perr != nil || p < 0 || p > 1 {
			return Spec{}, fmt.Errorf("spec: %q: the edge probability must be a number in [0,1], not %q", s, fields[1])
		}
		sp.P = p
	default:
		if len(kind) == 1 { // a Windows drive letter: C:\graphs\x.gr
			return Spec{Kind: "file", Path: s}, nil
		}
		return Spec{}, fmt.Errorf("spec: %q: unknown graph kind %q; use rmat, ssca2, path, star, complete, grid, er or a file name", s, kind)
	}
	return sp, nil
}

// String renders the spec back in the grammar's form.
func (sp Spec) String() string {
	switch sp.Kind {
	case "rmat":
		if sp.EdgeFactor != 16 {
			return fmt.Sprintf("rmat:%d:%d", sp.Scale, sp.EdgeFactor)
		}
		return fmt.Sprintf("rmat:%d", sp.Scale)
	case "ssca2":
		return fmt.Sprintf("ssca2:%d", sp.Scale)
	case "grid":
		return fmt.Sprintf("grid:%dx%d", sp.Rows, sp.Cols)
	case "er":
		return fmt.Sprintf("er:%d:%g", sp.N, sp.P)
	case "file":
		return sp.Path
	}
	return fmt.Sprintf("%s:%d", sp.Kind, sp.N)
}

// Validate reports malformed options (an unknown weight kind) without
// making anything.
func (o Options) Validate() error {
	_, err := o.genOptions()
	return err
}

// genOptions turns Options into generator options.
func (o Options) genOptions() ([]gen.Option, error) {
	seed := o.Seed
	if seed == 0 {
		seed = 1
	}
	opts := []gen.Option{gen.Seed(seed), gen.PermuteVertices(o.PermuteVertices)}
	switch w := strings.ToLower(o.Weights); {
	case w == "" || w == "uniform":
		opts = append(opts, gen.Uniform())
	case w == "none":
		opts = append(opts, gen.Unweighted())
	case strings.HasPrefix(w, "int:"):
		m, err := strconv.Atoi(w[len("int:"):])
		if err != nil || m < 1 {
			return nil, fmt.Errorf("spec: weights %q: write int:MAX with MAX ≥ 1, e.g. int:255", o.Weights)
		}
		opts = append(opts, gen.Integer(m))
	default:
		return nil, fmt.Errorf("spec: unknown weights %q; use uniform, int:MAX or none", o.Weights)
	}
	if o.Float64 {
		opts = append(opts, gen.Float64())
	}
	return opts, nil
}

// Make generates or loads the graph the spec names.
func (sp Spec) Make(o Options) (*graph.CSR, error) {
	if sp.Kind == "file" {
		return graphio.Load(sp.Path, graphio.ReadOptions{Symmetrize: o.Symmetrize, Float64: o.Float64})
	}
	opts, err := o.genOptions()
	if err != nil {
		return nil, err
	}
	switch sp.Kind {
	case "rmat":
		return gen.RMAT(sp.Scale, sp.EdgeFactor, opts...)
	case "ssca2":
		return gen.SSCA2(sp.Scale, opts...)
	case "path":
		return gen.Path(sp.N, opts...)
	case "star":
		return gen.Star(sp.N, opts...)
	case "complete":
		return gen.Complete(sp.N, opts...)
	case "grid":
		return gen.Grid(sp.Rows, sp.Cols, opts...)
	case "er":
		return gen.ErdosRenyi(sp.N, sp.P, opts...)
	}
	return nil, fmt.Errorf("spec: unknown graph kind %q", sp.Kind)
}

// Load parses s and makes the graph it names.
func Load(s string, o Options) (*graph.CSR, error) {
	sp, err := Parse(s)
	if err != nil {
		return nil, err
	}
	return sp.Make(o)
}

// MakeOnDevice makes the graph on dev's GPU when the spec's generator has
// a device form (R-MAT and SSCA#2: gpugen.RMAT and gpugen.SSCA2, the
// same graph edge for edge as Make's), returning ok = false, and nothing,
// for every other kind, on the host device, and for a graph too big for
// the device generator (gpugen.ErrTooBig); the caller then uses Make. The graph's host copy is
// made only when asked for (gpu.Graph.Host).
func (sp Spec) MakeOnDevice(dev *gpu.Device, o Options) (g *gpu.Graph, ok bool, err error) {
	if dev == nil || dev.IsHost() || (sp.Kind != "rmat" && sp.Kind != "ssca2") {
		return nil, false, nil
	}
	opts, err := o.genOptions()
	if err != nil {
		return nil, false, err
	}
	if sp.Kind == "rmat" {
		g, err = gpugen.RMAT(dev, sp.Scale, sp.EdgeFactor, opts...)
	} else {
		g, err = gpugen.SSCA2(dev, sp.Scale, opts...)
	}
	if errors.Is(err, gpugen.ErrTooBig) {
		return nil, false, nil // the host generator may still make it
	}
	if err != nil {
		return nil, false, err
	}
	return g, true, nil
}

// MakeParts makes the graph split over group g by vertex blocks
// (gpu.PartGraph). R-MAT and SSCA#2 are generated partitioned on the GPUs
// (gpugen.RMATParts, gpugen.SSCA2Parts): every rank draws a share of the
// edges and keeps the arcs of its block, so no host or GPU holds the whole
// graph. Other kinds (and files) are made on the host and split
// (gpu.UploadParts). Every process of the group calls it with the same
// spec and options (a collective). On a group of the host device the one
// part is Make's graph.
func (sp Spec) MakeParts(g *gpu.Group, o Options) (*gpu.PartGraph, error) {
	if g == nil {
		return nil, errors.New("spec: MakeParts: nil group")
	}
	if sp.Kind == "rmat" || sp.Kind == "ssca2" {
		opts, err := o.genOptions()
		if err != nil {
			return nil, err
		}
		if sp.Kind == "rmat" {
			return gpugen.RMATParts(g, sp.Scale, sp.EdgeFactor, opts...)
		}
		return gpugen.SSCA2Parts(g, sp.Scale, opts...)
	}
	h, err := sp.Make(o)
	if err != nil {
		return nil, err
	}
	return gpu.UploadParts(g, h)
}
