package bench

import (
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// pointGraph is the graph of one sweep point. On a GPU, a generator that
// has a device form makes it there (dev), and the host copy is made only
// when a variant without PrepareResident or a CPU checker asks for it;
// otherwise it is made on the host (host) and each GPU variant uploads
// what it needs.
type pointGraph struct {
	host  *graph.CSR
	dev   *gpu.Graph
	parts *gpu.PartGraph // a group sweep's graph
	n     int
	arcs  int64
}

// roots draws k search roots (graph.CSR.Roots): from the host copy, or
// from the device graph's offsets of the vertices sampled only.
func (g *pointGraph) roots(k int, seed uint64) ([]int32, error) {
	switch {
	case g.host != nil:
		return g.host.Roots(k, seed), nil
	case g.parts != nil:
		return g.parts.Roots(k, seed)
	}
	return g.dev.Roots(k, seed)
}

// hostCSR returns the host copy, downloading it on first use; copied is
// the time the download took (0 when it was at hand).
func (g *pointGraph) hostCSR() (h *graph.CSR, copied time.Duration, err error) {
	if g.host != nil {
		return g.host, 0, nil
	}
	t0 := time.Now()
	if g.host, err = g.dev.Host(); err != nil {
		return nil, 0, err
	}
	return g.host, time.Since(t0), nil
}

// close frees the device copy.
func (g *pointGraph) close() error {
	if g.parts != nil {
		return g.parts.Close()
	}
	if g.dev == nil {
		return nil
	}
	return g.dev.Close()
}

// residentRunner runs a prepared GPU variant whose results stay on the
// device (R is the package's DeviceResult): the harness reads only the
// run's scalars, validates it on the device, and frees it before the next
// run. Nothing is downloaded.
type residentRunner[R any] struct {
	common
	run   func(src int32) (R, error)
	check func(R) error
	free  func(R) error
	// scalars reads a result's time, iterations and Graph500 numerator.
	scalars func(R) (t time.Duration, iterations int, componentEdges int64)
	last    R
	has     bool
}

func (r *residentRunner[R]) release() error {
	if !r.has {
		return nil
	}
	r.has = false
	return r.free(r.last)
}

func (r *residentRunner[R]) Run(root int32) (Run, error) {
	if err := r.release(); err != nil {
		return Run{}, err
	}
	res, err := r.run(root)
	if err != nil {
		return Run{}, err
	}
	r.last, r.has = res, true
	t, it, ce := r.scalars(res)
	return Run{Root: root, Time: t, Iterations: it, TEPS: graph.Rate(ce, r.size.arcs, t), ComponentEdges: ce}, nil
}

func (r *residentRunner[R]) Check() error {
	if !r.has {
		return noResult
	}
	return r.check(r.last)
}

func (r *residentRunner[R]) Close() error {
	err := r.release()
	if cerr := r.common.Close(); err == nil {
		err = cerr
	}
	return err
}
