// Package par runs loops across the machine's cores.
//
// Work is split into contiguous chunks so each goroutine touches its own
// part of the arrays; the split depends only on the input sizes and
// runtime.GOMAXPROCS, never on timing.
package par

import (
	"runtime"
	"sync"
)

// Workers is the number of goroutines the loops in this package use:
// runtime.GOMAXPROCS(0).
func Workers() int { return runtime.GOMAXPROCS(0) }

// minChunk is the smallest number of iterations worth a goroutine.
const minChunk = 4096

// For calls fn(lo, hi) on disjoint ranges that together cover [0, n), in
// parallel, and returns when all calls have returned. Small n runs inline.
func For(n int, fn func(lo, hi int)) {
	w := Workers()
	if n <= minChunk || w == 1 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	chunks := min(w, (n+minChunk-1)/minChunk)
	var wg sync.WaitGroup
	for c := range chunks {
		lo, hi := n*c/chunks, n*(c+1)/chunks
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// ForChunks calls fn(chunk, lo, hi) for chunks = ceil(n/size) fixed-size
// ranges of [0, n) (the last may be shorter), spread over the workers. The
// chunk boundaries depend only on n and size, so work that seeds a random
// generator per chunk is deterministic whatever the core count.
func ForChunks(n, size int, fn func(chunk, lo, hi int)) {
	if n <= 0 {
		return
	}
	if size <= 0 {
		panic("par: chunk size must be positive")
	}
	chunks := (n + size - 1) / size
	next := make(chan int, chunks)
	for c := range chunks {
		next <- c
	}
	close(next)
	var wg sync.WaitGroup
	for range min(Workers(), chunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				lo := c * size
				fn(c, lo, min(lo+size, n))
			}
		}()
	}
	wg.Wait()
}

// ForWeighted calls fn(lo, hi) on disjoint vertex ranges covering [0, n)
// where offsets (length n+1, non-decreasing, as in a CSR) gives the work of
// vertex v as offsets[v+1]-offsets[v] plus one. Ranges are chosen so each
// carries about the same work, which keeps skewed (power-law) graphs
// balanced.
func ForWeighted(offsets []int64, fn func(lo, hi int)) {
	n := len(offsets) - 1
	if n <= 0 {
		return
	}
	w := Workers()
	total := offsets[n] - offsets[0] + int64(n)
	if w == 1 || total <= minChunk {
		fn(0, n)
		return
	}
	parts := min(4*w, int((total+minChunk-1)/minChunk))
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
	next := make(chan int, len(bounds)-1)
	for i := 0; i+1 < len(bounds); i++ {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(w, len(bounds)-1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(bounds[i], bounds[i+1])
			}
		}()
	}
	wg.Wait()
}

// Run calls work(w) for w = 0..workers-1 on that many goroutines (on the
// calling goroutine when workers ≤ 1) and returns when all have returned.
// Use it for loops that share work through their own queue or atomics.
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
