package rawmem

import (
	"runtime"
	"testing"
)

// TestSliceIsUsable writes and reads back slices of several sizes and
// types, across garbage collections (the memory must stay valid while
// referenced and be reclaimed like any other).
func TestSliceIsUsable(t *testing.T) {
	for _, n := range []int{0, 1, 100, minRaw / 4, 1 << 20, 3<<20 + 7} {
		a := Slice[int32](n)
		b := Slice[float64](n)
		if len(a) != n || len(b) != n || cap(a) != n {
			t.Fatalf("n=%d: lengths %d, %d, cap %d", n, len(a), len(b), cap(a))
		}
		for i := range a {
			a[i], b[i] = int32(i), float64(i)/2
		}
		runtime.GC()
		for i := range a {
			if a[i] != int32(i) || b[i] != float64(i)/2 {
				t.Fatalf("n=%d: element %d reads %d, %g after a collection", n, i, a[i], b[i])
			}
		}
	}
}

// BenchmarkAlloc compares make (zeroed) with Slice for a 16 MiB slice.
func BenchmarkAlloc(b *testing.B) {
	const n = 4 << 20
	var sink []int32
	b.Run("make", func(b *testing.B) {
		for b.Loop() {
			sink = make([]int32, n)
		}
	})
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			sink = Slice[int32](n)
		}
	})
	_ = sink
}
