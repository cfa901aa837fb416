package gostack

import (
	"math/bits"
	"testing"
)

//go:noinline
func deep(n int, at func()) byte {
	var pad [128]byte
	if n == 0 {
		at()
		return pad[0]
	}
	return deep(n-1, at) + pad[n%128]
}

// Size follows a goroutine's stack as it grows, read from another
// goroutine, and is a power of two.
func TestSize(t *testing.T) {
	if !Supported {
		t.Skip("not measured on this platform")
	}
	if s := Size(Current()); s == 0 || s > 1<<20 || bits.OnesCount64(uint64(s)) != 1 {
		t.Fatalf("the test's stack is %d bytes, want a small power of two", s)
	}
	for _, depth := range []int{0, 10000, 100000} {
		g := make(chan G)
		release := make(chan bool)
		done := make(chan bool)
		go func() {
			defer close(done)
			deep(depth, func() { g <- Current(); <-release })
		}()
		s := Size(<-g)
		close(release)
		<-done
		min := uintptr(depth) * 128
		t.Logf("%d calls of a 128-byte frame: a stack of %d bytes", depth, s)
		if s < min || s > 16*min+64<<10 || bits.OnesCount64(uint64(s)) != 1 {
			t.Errorf("%d calls: a stack of %d bytes, want a power of two of at least %d", depth, s, min)
		}
	}
	if Size(G{}) != 0 {
		t.Error("Size of the zero G is not 0")
	}
}

func BenchmarkSize(b *testing.B) {
	g := Current()
	for b.Loop() {
		Size(g)
	}
}
