package bfs

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/trace"
)

// DeviceResult is one BFS whose levels and parents stay on the device
// that computed them (Prepared.RunOnDevice): its exported fields are the
// Result's bookkeeping, read without a copy; Result copies the levels and
// parents back, once; Prepared.CheckDevice validates it where it is.
// Close frees its buffers (handing them to the next run of its Prepared);
// a DeviceResult dropped without Close is freed when collected. On the
// host device it wraps the CPU search's Result. Its methods are safe for
// concurrent use.
type DeviceResult struct {
	// Algorithm, Source, FrontierSizes, Directions, Iterations, Reached,
	// ComponentEdges, Time, PrepTime, TEPS, Launches, EdgeScans,
	// ChildGrids, Note and Trace are the Result's fields of the same
	// names.
	Algorithm      string
	Source         int32
	FrontierSizes  []int64
	Directions     []Direction
	Iterations     int
	Reached        int64
	ComponentEdges int64
	Time           time.Duration
	PrepTime       time.Duration
	TEPS           graph.TEPS
	Launches       int
	EdgeScans      int
	ChildGrids     int64
	Note           string
	Trace          *trace.Trace
	// N is the number of vertices: the length of the levels and parents.
	N int
	// HasParents says whether the result holds parents (Options.Parents,
	// always on the host device).
	HasParents bool

	host    bool // computed on the host device: res holds it
	mu      sync.Mutex
	bufs    *resultBuffers // nil on the host device and after Close
	cleanup runtime.Cleanup
	res     *Result // the download (or the host device's result), once made
	closed  bool
}

// resultBuffers are a DeviceResult's device buffers and the pool they
// return to; the DeviceResult's cleanup holds them (not the result).
type resultBuffers struct {
	levels, parents *gpu.Int32s // parents nil without Options.Parents
	pool            *resultPool
}

// newDeviceResult wraps the buffers of a run whose bookkeeping is in s.
func newDeviceResult(s *Result, n int, levels, parents *gpu.Int32s, pool *resultPool) *DeviceResult {
	r := summaryOf(s, n)
	r.HasParents = parents != nil
	r.bufs = &resultBuffers{levels: levels, parents: parents, pool: pool}
	r.cleanup = runtime.AddCleanup(r, (*resultBuffers).release, r.bufs)
	return r
}

// hostDeviceResult wraps a result computed on the host.
func hostDeviceResult(res *Result) *DeviceResult {
	r := summaryOf(res, len(res.Levels))
	r.HasParents = res.Parents != nil
	r.res, r.host = res, true
	return r
}

// summaryOf copies the bookkeeping of s.
func summaryOf(s *Result, n int) *DeviceResult {
	return &DeviceResult{
		Algorithm: s.Algorithm, Source: s.Source, FrontierSizes: s.FrontierSizes, Directions: s.Directions,
		Iterations: s.Iterations, Reached: s.Reached, ComponentEdges: s.ComponentEdges, Time: s.Time,
		PrepTime: s.PrepTime, TEPS: s.TEPS, Launches: s.Launches, EdgeScans: s.EdgeScans, ChildGrids: s.ChildGrids,
		Note: s.Note, Trace: s.Trace, N: n,
	}
}

// summary returns the bookkeeping as a Result without levels or parents.
func (r *DeviceResult) summary() *Result {
	return &Result{
		Algorithm: r.Algorithm, Source: r.Source, FrontierSizes: r.FrontierSizes, Directions: r.Directions,
		Iterations: r.Iterations, Reached: r.Reached, ComponentEdges: r.ComponentEdges, Time: r.Time,
		PrepTime: r.PrepTime, TEPS: r.TEPS, Launches: r.Launches, EdgeScans: r.EdgeScans, ChildGrids: r.ChildGrids,
		Note: r.Note, Trace: r.Trace,
	}
}

// Result copies the levels and parents back (8 bytes per vertex, 4
// without parents) into a Result with the bookkeeping, on the first call;
// later calls return the same Result, after Close too. Treat it as
// read-only, or clone it: it is shared. It returns an error when the
// DeviceResult was closed before any call, and the device's errors.
func (r *DeviceResult) Result() (*Result, error) {
	if r == nil {
		return nil, errors.New("bfs: DeviceResult.Result: nil result")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.res != nil {
		return r.res, nil
	}
	if r.closed {
		return nil, fmt.Errorf("bfs: DeviceResult.Result of the BFS from %d after Close: its levels were freed (call Result before Close)", r.Source)
	}
	res := r.summary()
	var err error
	if res.Levels, err = r.bufs.levels.ToHost(); err != nil {
		return nil, fmt.Errorf("bfs: copying the levels of the BFS from %d: %w", r.Source, err)
	}
	if r.bufs.parents != nil {
		if res.Parents, err = r.bufs.parents.ToHost(); err != nil {
			return nil, fmt.Errorf("bfs: copying the parents of the BFS from %d: %w", r.Source, err)
		}
	}
	r.res = res
	return res, nil
}

// Close frees the device buffers: they serve the next run of the
// Prepared that made them while it is open (it keeps two sets), or are
// freed. A copy made by Result stays readable. Close is idempotent and
// accepts a nil DeviceResult.
func (r *DeviceResult) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	b := r.bufs
	r.bufs = nil
	if b == nil {
		return nil
	}
	r.cleanup.Stop()
	return b.pool.give(b.levels, b.parents)
}

// String summarises the result in one line, as Result.String, and says
// where the levels are.
func (r *DeviceResult) String() string {
	if r == nil {
		return "bfs: <nil device result>"
	}
	r.mu.Lock()
	where := "on the device"
	switch {
	case r.bufs == nil && r.res != nil:
		where = "on the host"
	case r.bufs == nil:
		where = "closed"
	}
	r.mu.Unlock()
	return fmt.Sprintf("%s from %d: reached %d of %d vertices in %d levels, %v, %s (levels %s)",
		r.Algorithm, r.Source, r.Reached, r.N, len(r.FrontierSizes), r.Time.Round(time.Microsecond), r.TEPS, where)
}

// lockBuffers returns the device buffers for a check, with r locked (the
// caller unlocks), or an error when r is closed.
func (r *DeviceResult) lockBuffers() (*resultBuffers, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, fmt.Errorf("bfs: device check of the BFS from %d: the result was closed", r.Source)
	}
	return r.bufs, nil
}

// release is the cleanup of a DeviceResult dropped without Close: it
// hands the buffers to the pool when there is room without waiting for
// the device (cleanups must not block); otherwise it drops them, and
// their own cleanups free them.
func (b *resultBuffers) release() {
	b.pool.offer(b.levels, b.parents)
}

// resultPool keeps the buffers of closed DeviceResults for the next runs
// of a Prepared, so that a sweep (run, check, close) allocates nothing
// per run. The buffers are the device's, outside the Prepared's
// allocation set: a DeviceResult outlives its Prepared.
type resultPool struct {
	mu      sync.Mutex
	closed  bool
	levels  []*gpu.Int32s
	parents []*gpu.Int32s
}

// poolSize is the number of spare buffers of each kind a pool keeps.
const poolSize = 2

// take returns a levels buffer of n elements and, with parents, a parents
// buffer: spares, or new ones. Their contents are undefined.
func (q *resultPool) take(dev *gpu.Device, n int, parents bool) (lv, par *gpu.Int32s, err error) {
	q.mu.Lock()
	lv = q.pop(&q.levels)
	if parents {
		par = q.pop(&q.parents)
	}
	q.mu.Unlock()
	if lv == nil {
		if lv, err = dev.AllocInt32s(n); err != nil {
			return nil, nil, errors.Join(err, par.Free())
		}
	}
	if parents && par == nil {
		if par, err = dev.AllocInt32s(n); err != nil {
			return nil, nil, errors.Join(err, lv.Free())
		}
	}
	return lv, par, nil
}

func (q *resultPool) pop(s *[]*gpu.Int32s) *gpu.Int32s {
	if len(*s) == 0 {
		return nil
	}
	b := (*s)[len(*s)-1]
	*s = (*s)[:len(*s)-1]
	return b
}

// give keeps lv and par (either may be nil) for a later run, or frees
// them when the pool is closed or full.
func (q *resultPool) give(lv, par *gpu.Int32s) error {
	var free []*gpu.Int32s
	q.mu.Lock()
	for _, x := range []struct {
		b *gpu.Int32s
		s *[]*gpu.Int32s
	}{{lv, &q.levels}, {par, &q.parents}} {
		switch {
		case x.b == nil:
		case q.closed || len(*x.s) >= poolSize:
			free = append(free, x.b)
		default:
			*x.s = append(*x.s, x.b)
		}
	}
	q.mu.Unlock()
	return freeAll(free)
}

// offer is give without freeing: what does not fit is dropped (to the
// buffers' own cleanups).
func (q *resultPool) offer(lv, par *gpu.Int32s) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	if lv != nil && len(q.levels) < poolSize {
		q.levels = append(q.levels, lv)
	}
	if par != nil && len(q.parents) < poolSize {
		q.parents = append(q.parents, par)
	}
}

// close frees the spares; later gives free their buffers.
func (q *resultPool) close() error {
	q.mu.Lock()
	free := append(q.levels, q.parents...)
	q.levels, q.parents, q.closed = nil, nil, true
	q.mu.Unlock()
	return freeAll(free)
}

func freeAll(bs []*gpu.Int32s) error {
	var errs []error
	for _, b := range bs {
		errs = append(errs, b.Free())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bfs: freeing result buffers: %w", err)
	}
	return nil
}
