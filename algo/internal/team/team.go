// Package team keeps a set of worker goroutines for the length of one
// CPU search, so that its many short parallel phases (a BFS level, a
// Δ-stepping bucket round) start and end in about a microsecond instead
// of starting goroutines each time.
//
// par.Run starts its goroutines per call, and the Go scheduler wakes idle
// threads one after the other, each woken thread waking the next: on a
// 16-core virtual machine a phase reaches its sixteenth worker tens to
// hundreds of microseconds after it began, and a Δ-stepping run has
// hundreds of phases. A Team's workers instead wait for the next phase by
// spinning on a counter (for at most Spin, then they sleep until woken),
// the way OpenMP runtimes keep their threads between parallel loops.
package team

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Spin is how long an idle worker polls for the next phase before it
// sleeps. Phases of one search follow each other within microseconds to
// a few hundred (Δ-stepping gathers a large bucket on one goroutine), so
// workers sleep only when the caller does other work for longer.
const Spin = 500 * time.Microsecond

// checkEvery is how many polls a waiting goroutine makes between reads
// of the clock (for Spin); yieldEvery how many between yields to the
// scheduler (runtime.Gosched), so that other goroutines of the process
// get a thread within tens of microseconds.
const (
	checkEvery = 1 << 10
	yieldEvery = 1 << 14
)

// Team runs phases on a fixed set of goroutines: the caller of Run is
// worker 0 and Size()-1 goroutines, started by New, are the others. One
// goroutine at a time may call Run; Close ends the workers. The zero
// value is not usable; a Team of size 1 runs everything on the caller.
type Team struct {
	size int
	// phase is the current phase's number (upper bits) and worker count
	// (lower 16 bits); a worker takes part when its id is below the count.
	phase atomic.Uint64
	// left counts the workers of the current phase (the caller excepted)
	// that have not returned from work yet.
	left atomic.Int64
	// work is the current phase's function; written by Run before it
	// publishes the phase, read only by the phase's workers.
	work func(id int)

	mu       sync.Mutex
	wake     *sync.Cond
	sleepers int
}

// countBits is the width of the worker count in Team.phase; closed is the
// phase value of a closed team, which no Run publishes.
const (
	countBits = 16
	closed    = ^uint64(0)
)

// New starts a team of size workers (at least 1, at most 65535): the
// caller and size-1 goroutines, which wait for phases until Close.
func New(size int) *Team {
	size = max(1, min(size, 1<<countBits-1))
	t := &Team{size: size}
	t.wake = sync.NewCond(&t.mu)
	for id := 1; id < size; id++ {
		go t.worker(id)
	}
	return t
}

// Size is the number of workers, the caller of Run included.
func (t *Team) Size() int { return t.size }

// Run calls work(id) for id = 0..workers-1 (at most Size()) at once, id 0
// on the calling goroutine, and returns when all calls have returned. A
// phase of one worker runs inline. Like par.Run, it is no cancellation
// point: work polls cancel itself.
func (t *Team) Run(workers int, work func(id int)) {
	workers = min(workers, t.size)
	if workers <= 1 {
		work(0)
		return
	}
	t.work = work
	t.left.Store(int64(workers - 1))
	next := (t.phase.Load()>>countBits+1)<<countBits | uint64(workers)
	t.mu.Lock()
	t.phase.Store(next)
	if t.sleepers > 0 {
		t.wake.Broadcast()
	}
	t.mu.Unlock()
	work(0)
	for i := 1; t.left.Load() > 0; i++ {
		if i%yieldEvery == 0 {
			runtime.Gosched()
		}
	}
	t.work = nil
}

// For calls fn(lo, hi) on consecutive pieces of [0, n) of size piece (the
// last may be shorter), taken dynamically by all workers, and returns
// when all have returned. It is no cancellation point.
func (t *Team) For(n, piece int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	pieces := (n + piece - 1) / piece
	var next atomic.Int64
	t.Run(min(t.size, pieces), func(int) {
		for {
			p := int(next.Add(1) - 1)
			if p >= pieces {
				return
			}
			lo := p * piece
			fn(lo, min(lo+piece, n))
		}
	})
}

// Close ends the workers once they are idle (spinning ones at once,
// sleeping ones when woken). The team must not be used afterwards.
func (t *Team) Close() {
	t.mu.Lock()
	t.phase.Store(closed)
	t.wake.Broadcast()
	t.mu.Unlock()
}

// worker is the loop of worker id: wait for a phase that names it, run
// it, report.
func (t *Team) worker(id int) {
	seen := uint64(0)
	for {
		p, ok := t.await(seen)
		if !ok {
			return
		}
		seen = p
		if id < int(p&(1<<countBits-1)) {
			t.work(id)
			t.left.Add(-1)
		}
	}
}

// await returns the first phase other than seen, spinning for up to Spin
// and then sleeping; ok is false once the team is closed.
func (t *Team) await(seen uint64) (phase uint64, ok bool) {
	start := time.Now()
	for i := 1; ; i++ {
		if p := t.phase.Load(); p != seen {
			return p, p != closed
		}
		if i%checkEvery != 0 {
			continue
		}
		if time.Since(start) > Spin {
			break
		}
		if i%yieldEvery == 0 {
			runtime.Gosched()
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.phase.Load() == seen {
		t.sleepers++
		t.wake.Wait()
		t.sleepers--
	}
	p := t.phase.Load()
	return p, p != closed
}
