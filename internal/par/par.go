// Package par runs loops across the machine's cores.
//
// Work is split into contiguous pieces so each goroutine touches its own
// part of the arrays; the split depends only on the input sizes and
// runtime.GOMAXPROCS, never on timing.
//
// The loops are cancellation points. A piece is small (For: at most
// maxPiece iterations, ForWeighted: about maxWork units of work), and a
// worker polls cancel.Check before each piece it takes: after a
// cancellation request the pieces not yet started are skipped and every
// worker ends. A loop returns the error of cancel.Check when a request
// is pending as it ends: the work may then be incomplete and the caller
// must not use it — it returns the error. nil means every piece ran.
// ForChunks polls before each of the caller's chunks, so a chunk that may
// run long (more than a few milliseconds) polls itself with Cancelled and
// returns early; the loop then reports the error. Run does not poll: its
// work function must.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/graphnb/graphnb/cancel"
)

// Workers is the number of goroutines the loops in this package use:
// runtime.GOMAXPROCS(0).
func Workers() int { return runtime.GOMAXPROCS(0) }

// minChunk is the smallest number of iterations worth a goroutine.
const minChunk = 4096

// maxPiece is the most iterations For hands a worker at once: at the
// nanoseconds to microseconds an iteration of the project's loops costs,
// a piece takes well under the 50 ms within which an interrupt must be
// seen.
const maxPiece = 1 << 14

// maxWork is the most units of work (arcs plus vertices) ForWeighted puts
// in one piece, for the same reason.
const maxWork = 1 << 18

// spread runs task(0), …, task(tasks-1) on min(workers, tasks) goroutines
// (inline when that is one), each taking the next task in order, and
// polls cancel.Check before every task. After a request it skips the
// tasks not yet started. It returns cancel.Check's error at the end.
func spread(tasks, workers int, task func(i int)) error {
	if tasks <= 0 {
		return nil
	}
	workers = min(workers, tasks)
	if workers <= 1 {
		for i := range tasks {
			if err := cancel.Check(); err != nil {
				return err
			}
			task(i)
		}
		return cancel.Check()
	}
	var next atomic.Int64
	var stopped atomic.Pointer[error]
	var wg sync.WaitGroup
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			for stopped.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= tasks {
					return
				}
				if err := cancel.Check(); err != nil {
					stopped.CompareAndSwap(nil, &err)
					return
				}
				task(i)
			}
		}()
	}
	wg.Wait()
	if err := stopped.Load(); err != nil {
		return *err
	}
	return cancel.Check()
}

// pollEvery is how often Cancelled looks at the request: every 4096
// iterations costs nothing measurable and, at up to a few microseconds
// an iteration, sees a request within milliseconds.
const pollEvery = 1 << 12

// Cancelled reports, at every 4096th i, whether a cancellation request is
// pending (cancel.Requested). A loop body that may run for more than a few
// milliseconds calls it with its iteration counter and returns early when
// it holds; the par loop around it then returns cancel's error.
func Cancelled(i int) bool {
	return i&(pollEvery-1) == 0 && cancel.Requested()
}

// For calls fn(lo, hi) on disjoint ranges that together cover [0, n), in
// parallel, and returns when all calls have returned. Small n runs
// inline. It returns nil, or the error of cancel.Check when a
// cancellation request came (see the package comment).
func For(n int, fn func(lo, hi int)) error {
	if n <= 0 {
		return nil
	}
	w := Workers()
	pieces := (n + maxPiece - 1) / maxPiece
	if n > minChunk && w > 1 {
		pieces = max(pieces, min(w, (n+minChunk-1)/minChunk))
	}
	return spread(pieces, w, func(p int) {
		fn(n*p/pieces, n*(p+1)/pieces)
	})
}

// ForChunks calls fn(chunk, lo, hi) for chunks = ceil(n/size) fixed-size
// ranges of [0, n) (the last may be shorter), spread over the workers. The
// chunk boundaries depend only on n and size, so work that seeds a random
// generator per chunk is deterministic whatever the core count. It polls
// cancel.Check before each chunk and returns nil, or its error when a
// cancellation request came.
func ForChunks(n, size int, fn func(chunk, lo, hi int)) error {
	if n <= 0 {
		return nil
	}
	if size <= 0 {
		panic("par: chunk size must be positive")
	}
	chunks := (n + size - 1) / size
	return spread(chunks, Workers(), func(c int) {
		lo := c * size
		fn(c, lo, min(lo+size, n))
	})
}

// ForWeighted calls fn(lo, hi) on disjoint vertex ranges covering [0, n)
// where offsets (length n+1, non-decreasing, as in a CSR) gives the work of
// vertex v as offsets[v+1]-offsets[v] plus one. Ranges are chosen so each
// carries about the same work, which keeps skewed (power-law) graphs
// balanced; a range holds about maxWork units at most, except that one
// vertex is never split. It returns nil, or the error of cancel.Check
// when a cancellation request came.
func ForWeighted(offsets []int64, fn func(lo, hi int)) error {
	n := len(offsets) - 1
	if n <= 0 {
		return nil
	}
	w := Workers()
	total := offsets[n] - offsets[0] + int64(n)
	parts := int((total + maxWork - 1) / maxWork)
	if w > 1 && total > minChunk {
		parts = max(parts, min(4*w, int((total+minChunk-1)/minChunk)))
	}
	if parts <= 1 {
		return spread(1, 1, func(int) { fn(0, n) })
	}
	bounds := make([]int, 0, parts+1)
	bounds = append(bounds, 0)
	for p := 1; p < parts; p++ {
		target := offsets[0] + total*int64(p)/int64(parts)
		// first v with offsets[v]+v >= target
		lo, hi := bounds[len(bounds)-1], n
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if offsets[mid]+int64(mid) < target {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo > bounds[len(bounds)-1] {
			bounds = append(bounds, lo)
		}
	}
	bounds = append(bounds, n)
	return spread(len(bounds)-1, w, func(i int) {
		fn(bounds[i], bounds[i+1])
	})
}

// Run calls work(w) for w = 0..workers-1 on that many goroutines (on the
// calling goroutine when workers ≤ 1) and returns when all have returned.
// Use it for loops that share work through their own queue or atomics.
// Run is no cancellation point: work polls cancel.Check itself, at least
// every few milliseconds, and stops at a request.
func Run(workers int, work func(w int)) {
	if workers <= 1 {
		work(0)
		return
	}
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := range workers {
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	wg.Wait()
}

// FirstError collects the errors parallel workers find and keeps the one
// found at the lowest index, so that what a parallel check reports does
// not depend on scheduling. The zero value is ready to use; it is safe
// for concurrent use.
type FirstError struct {
	mu  sync.Mutex
	at  int64
	err error
}

// Report records err, found at index i.
func (f *FirstError) Report(i int64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil || i < f.at {
		f.at, f.err = i, err
	}
}

// Err returns the error reported at the lowest index, or nil.
func (f *FirstError) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}
