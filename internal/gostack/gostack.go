// Package gostack tells how large the stack of a goroutine is, from any
// goroutine, at no cost to the goroutine watched: a watchdog can stop a
// runaway recursion before Go's stack limit ends the process ("fatal
// error: stack overflow", which no recover stops).
//
// It reads the runtime's descriptor of a goroutine (runtime.g), whose first
// field is the bounds of the goroutine's stack, [lo, hi): an offset that
// runtime/cgo and the linker rely on. The runtime moves a stack to one
// twice as large when it fills up, so the size is a power of two and the
// goroutine uses between half of it and all of it.
package gostack

import "unsafe"

// Supported reports whether this platform is measured. Elsewhere Current
// returns nil and Size 0.
const Supported = supported

// A G identifies a goroutine, for Size.
type G struct{ g unsafe.Pointer }

// Current returns the calling goroutine.
func Current() G { return G{current()} }

// Size returns the size in bytes of the stack g has now. g must be running
// (not ended): call it from the goroutine itself, or while the goroutine
// cannot end (it unregisters under a lock the caller holds). A stack being
// moved may be read half old, half new: the result is then not a power of
// two, and can be discarded.
func Size(g G) uintptr {
	if g.g == nil {
		return 0
	}
	b := (*[2]uintptr)(g.g)
	return b[1] - b[0]
}
