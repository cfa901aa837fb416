package team

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestRunCallsEachWorkerOnce runs phases of every width on teams of
// several sizes, with pauses longer than Spin between some of them (so
// that the workers sleep and must be woken), and checks that each phase
// called work once for each id below its width and none above.
func TestRunCallsEachWorkerOnce(t *testing.T) {
	for _, size := range []int{1, 2, 5, 16} {
		tm := New(size)
		for round := range 50 {
			for workers := 1; workers <= size+1; workers++ {
				calls := make([]atomic.Int32, size+1)
				tm.Run(workers, func(id int) { calls[id].Add(1) })
				for id := range calls {
					want := int32(0)
					if id < min(workers, size) {
						want = 1
					}
					if got := calls[id].Load(); got != want {
						t.Fatalf("size %d, round %d, %d workers: worker %d ran %d times, want %d", size, round, workers, id, got, want)
					}
				}
			}
			if round%10 == 9 {
				time.Sleep(2 * Spin)
			}
		}
		tm.Close()
	}
}

// TestForCoversEachIndexOnce checks For's pieces against a count per
// index.
func TestForCoversEachIndexOnce(t *testing.T) {
	tm := New(4)
	defer tm.Close()
	for _, n := range []int{0, 1, 7, 64, 1000, 4097} {
		seen := make([]atomic.Int32, n)
		tm.For(n, 64, func(lo, hi int) {
			if hi-lo > 64 || lo >= hi {
				t.Errorf("n=%d: piece [%d, %d)", n, lo, hi)
			}
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d covered %d times", n, i, c)
			}
		}
	}
}

// BenchmarkPhase is the cost of an empty phase on all cores: a Team's
// against starting goroutines per phase (what par.Run does).
func BenchmarkPhase(b *testing.B) {
	b.Run("team", func(b *testing.B) {
		tm := New(maxProcs())
		defer tm.Close()
		for b.Loop() {
			tm.Run(tm.Size(), func(int) {})
		}
	})
	b.Run("spawn", func(b *testing.B) {
		for b.Loop() {
			spawn(maxProcs(), func(int) {})
		}
	})
}
