package gpu

import (
	"errors"
	"fmt"
	"sync"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/card"
)

// Allocations is a set of device resources freed together: the buffers,
// graphs and COOs, pinned host memory, streams and events of one owner
// (an algorithm's prepared graph, say). Each of its allocating methods is
// the Device method of the same name (AllocInt32s, Int32sFrom, …, Upload,
// UploadCOO, AllocPinned, NewStream, NewEvent) on the set's device, and
// records what it returns, so that a resource is listed once, where it
// is made: Bytes sums the device memory recorded, Free releases it all.
//
// The set only records: a buffer from it is an ordinary buffer, used at
// the same cost as one from the Device. Freeing such a buffer directly is
// allowed (Free is idempotent) but it stays counted by Bytes until the
// set's Free. Methods are safe for concurrent use; an allocation that
// races with Free is freed at once and returns an error.
type Allocations struct {
	d *Device

	mu    sync.Mutex
	free  []func() error // releases, in allocation order
	bytes int64          // device memory recorded, subsets excluded
	subs  []*Allocations
	freed bool
}

// NewAllocations returns an empty set for allocations on d. A nil d gives
// a set whose allocations fail with the Device's nil-device error.
func NewAllocations(d *Device) *Allocations { return &Allocations{d: d} }

// Device returns the device the set allocates on.
func (a *Allocations) Device() *Device {
	if a == nil {
		return nil
	}
	return a.d
}

// Sub returns a new, empty set on the same device, recorded in a: a's
// Free frees it and a's Bytes counts it, but it can also be freed on its
// own first (a preparation that fails part way, inside a longer-lived
// owner). Once a is freed, the new set is freed too (its allocations
// fail).
func (a *Allocations) Sub() *Allocations {
	s := NewAllocations(a.Device())
	if a == nil {
		s.freed = true
		return s
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.freed {
		s.freed = true
		return s
	}
	a.free = append(a.free, s.Free)
	a.subs = append(a.subs, s)
	return s
}

// Bytes returns the device memory, in bytes, of the buffers, graphs and
// COOs recorded in the set and its subsets (pinned host memory is not
// counted); 0 after Free, and for a nil set.
func (a *Allocations) Bytes() int64 {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.bytes
	for _, s := range a.subs {
		b += s.Bytes()
	}
	return b
}

// Free releases everything recorded, the latest first (as deferred calls
// run), and returns the errors of the releases that failed, joined; every
// release is attempted. Free is idempotent: later calls, and calls on a
// nil set, return nil. Later allocations through the set fail.
func (a *Allocations) Free() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	free := a.free
	a.free, a.bytes, a.subs, a.freed = nil, 0, nil, true
	a.mu.Unlock()
	var errs []error
	for i := len(free) - 1; i >= 0; i-- {
		errs = append(errs, free[i]())
	}
	return errors.Join(errs...)
}

// String describes the set: "allocations on host CPU (16 cores): 3, 4.0 KiB".
func (a *Allocations) String() string {
	if a == nil {
		return "allocations (nil)"
	}
	a.mu.Lock()
	n, freed := len(a.free), a.freed
	a.mu.Unlock()
	if freed {
		return fmt.Sprintf("allocations on %v (freed)", a.d)
	}
	return fmt.Sprintf("allocations on %v: %d, %s", a.d, n, card.Bytes(a.Bytes()))
}

// Upload is Device.Upload, recorded in the set (Graph.Close releases it).
func (a *Allocations) Upload(g *graph.CSR) (*Graph, error) {
	return record(a, "Upload", func(d *Device) (*Graph, error) { return d.Upload(g) }, (*Graph).Close, (*Graph).Bytes)
}

// UploadCOO is Device.UploadCOO, recorded in the set (COO.Close releases
// it).
func (a *Allocations) UploadCOO(c *graph.COO) (*COO, error) {
	return record(a, "UploadCOO", func(d *Device) (*COO, error) { return d.UploadCOO(c) }, (*COO).Close, (*COO).Bytes)
}

// AllocPinned is Device.AllocPinned, recorded in the set (host memory:
// Bytes does not count it).
func (a *Allocations) AllocPinned(bytes int64) (*Pinned, error) {
	return record(a, "AllocPinned", func(d *Device) (*Pinned, error) { return d.AllocPinned(bytes) }, (*Pinned).Free, nil)
}

// NewStream is Device.NewStream, recorded in the set (Stream.Close
// releases it).
func (a *Allocations) NewStream() (*Stream, error) {
	return record(a, "NewStream", (*Device).NewStream, (*Stream).Close, nil)
}

// NewEvent is Device.NewEvent, recorded in the set (Event.Close releases
// it).
func (a *Allocations) NewEvent() (*Event, error) {
	return record(a, "NewEvent", (*Device).NewEvent, (*Event).Close, nil)
}

// Own records a resource made elsewhere on the set's device (by a
// device transform, say): Free calls free, Bytes counts bytes. A set
// already freed calls free at once and returns an error.
func (a *Allocations) Own(bytes int64, free func() error) error {
	_, err := record(a, "Own", func(*Device) (struct{}, error) { return struct{}{}, nil },
		func(struct{}) error { return free() }, func(struct{}) int64 { return bytes })
	if err != nil && a != nil && a.live("Own") != nil {
		return errors.Join(err, free())
	}
	return err
}

// record makes a resource with alloc on a's device and records its
// release and its device bytes (nil: none counted). The device call runs
// without a's lock; a resource made while a was being freed is released
// at once.
func record[T any](a *Allocations, op string, alloc func(*Device) (T, error), free func(T) error, bytes func(T) int64) (T, error) {
	var zero T
	if a == nil {
		return zero, fmt.Errorf("gpu: Allocations.%s: nil set (use gpu.NewAllocations)", op)
	}
	if err := a.live(op); err != nil {
		return zero, err
	}
	if a.d == nil {
		return zero, fmt.Errorf("gpu: Allocations.%s: nil device (use gpu.Default())", op)
	}
	x, err := alloc(a.d)
	if err != nil {
		return zero, err
	}
	a.mu.Lock()
	if err := a.freedError(op); err != nil {
		a.mu.Unlock()
		return zero, errors.Join(err, free(x))
	}
	a.free = append(a.free, func() error { return free(x) })
	if bytes != nil {
		a.bytes += bytes(x)
	}
	a.mu.Unlock()
	return x, nil
}

// live returns an error once the set is freed.
func (a *Allocations) live(op string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.freedError(op)
}

// freedError is live with a's lock held.
func (a *Allocations) freedError(op string) error {
	if a.freed {
		return fmt.Errorf("gpu: Allocations.%s: the set was freed; make a new one (gpu.NewAllocations)", op)
	}
	return nil
}
