// Package rawmem allocates large slices of numbers without zeroing them.
//
// make zeroes a new slice on the allocating goroutine. For the arrays a
// CPU search allocates per call and then fills in parallel at once (a
// BFS's levels and parents, Δ-stepping's distances: 16 to 32 MiB each at
// R-MAT scale 22), that zeroing is a serial pass over memory the search
// is about to overwrite: 3.7 ms of a 21.6 ms DO-BFS on 16 cores (issue
// 18's profile). Slice skips it.
//
// The memory is ordinary garbage-collected memory; only its initial
// contents are arbitrary. Use it only for slices the caller overwrites
// entirely before reading them.
package rawmem

import "unsafe"

// Number is the element types Slice serves: types without pointers, for
// which arbitrary contents are harmless to the garbage collector.
type Number interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// minRaw is the size in bytes from which Slice skips the zeroing; smaller
// slices come from make (the runtime's small-object allocation zeroes
// cheaply).
const minRaw = 64 << 10

// mallocgc is the runtime's allocator; needzero false skips the clearing
// for an object without pointers (typ nil). The runtime keeps its
// signature stable for packages that link to it (its comment, "Do not
// remove or change the type signature", go.dev/issue/67401).
//
//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// Slice returns a slice of n elements whose contents are arbitrary (not
// zeroed), or nil for n ≤ 0. The caller must write every element before
// reading it.
func Slice[T Number](n int) []T {
	if n <= 0 {
		return nil
	}
	var zero T
	size := uintptr(n) * unsafe.Sizeof(zero)
	if size < minRaw || size/unsafe.Sizeof(zero) != uintptr(n) {
		return make([]T, n) // small, or make's overflow panic
	}
	return unsafe.Slice((*T)(mallocgc(size, nil, false)), n)
}
