// Package prepared is the lifecycle the algorithms' Prepared types share
// (sssp, bfs, mst, apsp, densebf): a label, a device, the preparation
// time, the device resources held (a gpu.Allocations) and Close. A
// Prepared type embeds a Base, set up by Init in its Prepare, and gets
// Bytes, PrepTime, Label and Device from it; it defines Close itself
// (a one-line call of Base.Close) so that Close accepts a nil Prepared.
//
// Runs and Close of one Prepared are serialised by the Base's lock, taken
// with Lock and Unlock (functions, not methods, so that they do not join
// the Prepared's exported method set); Open tells a Run whether the
// Prepared is closed.
package prepared

import (
	"fmt"
	"sync"
	"time"

	"github.com/graphnb/graphnb/gpu"
)

// Base is the shared part of a Prepared; Init sets it up.
type Base struct {
	pkg, label string
	dev        *gpu.Device
	mem        *gpu.Allocations
	prep       time.Duration

	mu     sync.Mutex // serialises Runs and Close
	closed bool
}

// Init sets b up for a Prepared of package pkg (the prefix of its
// errors) with the variant's label, on dev, and returns the allocation
// set every device resource of the Prepared must come from.
func Init(b *Base, pkg, label string, dev *gpu.Device) *gpu.Allocations {
	b.pkg, b.label, b.dev = pkg, label, dev
	b.mem = gpu.NewAllocations(dev)
	return b.mem
}

// InitSub sets b up for a Prepared nested in parent's (apsp's fallback):
// the same package, label and device, allocating in a subset of parent's
// set (gpu.Allocations.Sub), which parent's Close frees and parent's
// Bytes counts.
func InitSub(b, parent *Base) *gpu.Allocations {
	b.pkg, b.label, b.dev = parent.pkg, parent.label, parent.dev
	b.mem = parent.mem.Sub()
	return b.mem
}

// Done records the preparation time: the time since start.
func Done(b *Base, start time.Time) { b.prep = time.Since(start) }

// SetPrepTime records d as the preparation time (tests mark it this way).
func SetPrepTime(b *Base, d time.Duration) { b.prep = d }

// Lock takes b's lock, which serialises Runs and Close.
func Lock(b *Base) { b.mu.Lock() }

// Unlock releases b's lock.
func Unlock(b *Base) { b.mu.Unlock() }

// Open returns nil while b is not closed, else the error a Run on it
// returns: "sssp: Run on a closed Prepared (label); call Prepare again".
// Call it with b's lock held.
func Open(b *Base) error {
	if b.closed {
		return fmt.Errorf("%s: Run on a closed Prepared (%s); call Prepare again", b.pkg, b.label)
	}
	return nil
}

// Close frees the device resources (the compiled modules stay cached);
// later Runs fail. It waits for a Run in progress. Close is idempotent,
// and a nil Base is closed: both return nil. A failed free is returned,
// naming the Prepared (the rest is freed regardless).
func (b *Base) Close() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	if err := b.mem.Free(); err != nil {
		return fmt.Errorf("%s: freeing the device memory of %s on %v: %w", b.pkg, b.label, b.dev, err)
	}
	return nil
}

// Bytes returns the device memory the Prepared holds, in bytes: its
// buffers, graphs and COOs (0 on the host device, and after Close).
func (b *Base) Bytes() int64 { return b.mem.Bytes() }

// PrepTime returns the preparation time, spent once, in Prepare; Run's
// results do not repeat it. What it covers is the algorithm's (see its
// Prepare).
func (b *Base) PrepTime() time.Duration { return b.prep }

// Label returns the variant's label.
func (b *Base) Label() string { return b.label }

// Device returns the device the Prepared is on.
func (b *Base) Device() *gpu.Device { return b.dev }
