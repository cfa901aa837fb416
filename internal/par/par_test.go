package par

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
)

func TestForCoversEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 100, minChunk, minChunk + 1, 1 << 20} {
		seen := make([]int32, n)
		For(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
		})
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, s)
			}
		}
	}
}

func TestForChunksBoundariesAreFixed(t *testing.T) {
	const n, size = 10_001, 1000
	got := make([][2]int, (n+size-1)/size)
	ForChunks(n, size, func(c, lo, hi int) { got[c] = [2]int{lo, hi} })
	for c, r := range got {
		want := [2]int{c * size, min((c+1)*size, n)}
		if r != want {
			t.Fatalf("chunk %d = %v, want %v", c, r, want)
		}
	}
}

func TestForWeightedCoversSkewedRanges(t *testing.T) {
	// one huge vertex followed by many small ones
	n := 50_000
	offsets := make([]int64, n+1)
	offsets[1] = 1_000_000
	for v := 2; v <= n; v++ {
		offsets[v] = offsets[v-1] + 3
	}
	seen := make([]int32, n)
	ForWeighted(offsets, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			atomic.AddInt32(&seen[i], 1)
		}
	})
	for i, s := range seen {
		if s != 1 {
			t.Fatalf("vertex %d visited %d times", i, s)
		}
	}
}

func TestRunCallsEveryWorkerOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 7} {
		calls := make([]int32, max(workers, 1))
		Run(workers, func(w int) { atomic.AddInt32(&calls[w], 1) })
		for w, c := range calls {
			if c != 1 {
				t.Fatalf("workers=%d: worker %d ran %d times", workers, w, c)
			}
		}
	}
}

func TestFirstErrorKeepsTheLowestIndex(t *testing.T) {
	var f FirstError
	if f.Err() != nil {
		t.Fatal("the zero value has an error")
	}
	For(100000, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if i%997 == 5 {
				f.Report(int64(i), fmt.Errorf("bad %d", i))
			}
		}
	})
	if f.Err() == nil || f.Err().Error() != "bad 5" {
		t.Fatalf("Err() = %v, want bad 5", f.Err())
	}
}

// TestLoopsStopOnCancel requests cancellation while each loop runs and
// checks that it returns cancel's error without running the pieces not
// yet started, and that no worker outlives it.
func TestLoopsStopOnCancel(t *testing.T) {
	const n = 1 << 22
	offsets := make([]int64, n/16+1)
	for v := range offsets {
		offsets[v] = int64(v) * 15
	}
	loops := []struct {
		name string
		run  func(body func()) error
	}{
		{"For", func(body func()) error { return For(n, func(lo, hi int) { body() }) }},
		{"ForChunks", func(body func()) error { return ForChunks(n, 1<<12, func(_, lo, hi int) { body() }) }},
		{"ForWeighted", func(body func()) error { return ForWeighted(offsets, func(lo, hi int) { body() }) }},
	}
	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			defer cancel.Clear()
			before := runtime.NumGoroutine()
			var calls atomic.Int64
			err := l.run(func() {
				if calls.Add(1) == 3 {
					cancel.Request()
				}
			})
			if !errors.Is(err, cancel.ErrInterrupted) {
				t.Fatalf("error %v, want cancel.ErrInterrupted", err)
			}
			// Each worker may have started one piece after the request.
			if c := calls.Load(); c > int64(3+Workers()) {
				t.Errorf("%d pieces ran, want at most %d: pieces after the request were not skipped", c, 3+Workers())
			}
			// A worker that has signalled its end may take a moment to
			// return: wait for it (a worker still running would not end).
			after := runtime.NumGoroutine()
			for deadline := time.Now().Add(2 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
				time.Sleep(time.Millisecond)
			}
			if after > before {
				t.Errorf("%d goroutines 2 s after the loop, %d before", after, before)
			}
			cancel.Clear()
			if err := l.run(func() {}); err != nil {
				t.Errorf("after Clear: %v", err)
			}
		})
	}
}

// TestPiecesAreSmall checks that For and ForWeighted split long loops
// into pieces of bounded work, whatever the core count, so that a
// cancellation request is seen soon.
func TestPiecesAreSmall(t *testing.T) {
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		var most atomic.Int64
		record := func(k int64) {
			for {
				m := most.Load()
				if k <= m || most.CompareAndSwap(m, k) {
					return
				}
			}
		}
		if err := For(1<<22, func(lo, hi int) { record(int64(hi - lo)) }); err != nil {
			t.Fatal(err)
		}
		if m := most.Load(); m > maxPiece {
			t.Errorf("GOMAXPROCS=%d: For ran a piece of %d iterations, want at most %d", procs, m, maxPiece)
		}
		most.Store(0)
		offsets := make([]int64, 1<<18+1)
		for v := range offsets {
			offsets[v] = int64(v) * 31
		}
		if err := ForWeighted(offsets, func(lo, hi int) { record(offsets[hi] - offsets[lo] + int64(hi-lo)) }); err != nil {
			t.Fatal(err)
		}
		if m := most.Load(); m > 2*maxWork {
			t.Errorf("GOMAXPROCS=%d: ForWeighted ran a piece of %d units, want about %d at most", procs, m, maxWork)
		}
		runtime.GOMAXPROCS(old)
	}
}
