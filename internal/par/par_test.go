package par

import (
	"fmt"
	"sync/atomic"
	"testing"
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
