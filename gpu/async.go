package gpu

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/graphnb/graphnb/internal/card"
)

// Asynchronous copies.
//
// The typed methods (Int32s.UploadAsync, …, Pinned.Int32s, …) are
// generated into buffers.go by gen_buffers.go.
//
// Upload and Download copy a whole buffer and return when the copy is
// done. To overlap copies with kernels (streaming data that does not fit
// on the device, double buffering), queue copies of parts of a buffer on
// a Stream with UploadAsync and DownloadAsync, launch kernels on another
// stream with LaunchOn, and order the two with events: Record an Event on
// the stream whose work must come first and Synchronize it on the host
// before queueing the work that depends on it. (The host waits, not the
// GPU: queue the next independent work first, so that the GPU stays busy
// while the host waits.) The host side of an asynchronous copy must be
// page-locked memory from AllocPinned: the DMA engines read and write it
// while the host goes on.

// Pinned is page-locked ("pinned") host memory registered with a CUDA
// device: the host side of UploadAsync and DownloadAsync, which the GPU's
// copy engines reach directly. It is Go memory (the garbage collector
// keeps it alive while any view of it is referenced) pinned for the
// driver with cuMemHostRegister; the views Int32s, Float32s, … alias it.
// On the host device it is ordinary memory. Free unpins it (views stay
// valid Go memory but can no longer take part in asynchronous copies);
// so does the collection of the Pinned. Pinning costs about a second per
// few GiB; reuse a Pinned rather than allocating one per copy. Methods
// are safe for concurrent use; the contents are not synchronised for you.
type Pinned struct {
	st *pinnedState
}

// pinnedState is a Pinned's memory and registration, shared with its
// cleanup.
type pinnedState struct {
	d     *Device
	mem   []uint64 // the memory, 8-byte aligned
	bytes int64
	base  uintptr // address of mem[0]
	pin   runtime.Pinner
	reg   bool   // cuMemHostRegister succeeded
	gen   uint64 // context generation of the registration
	freed atomic.Bool
}

// pinnedSet holds the live Pinned memory, so that an asynchronous copy
// can check that its host slice lies in it.
var pinnedSet struct {
	sync.Mutex
	live map[*pinnedState]struct{}
}

// AllocPinned allocates bytes of page-locked host memory for
// asynchronous copies with d, zeroed. On the host device it is ordinary
// Go memory. It returns an error for a negative size, a nil device or a
// registration the driver refuses (the system's limit on locked memory;
// the error says so).
func (d *Device) AllocPinned(bytes int64) (*Pinned, error) {
	if d == nil {
		return nil, fmt.Errorf("gpu: AllocPinned: nil device (use gpu.Default())")
	}
	if bytes < 0 {
		return nil, fmt.Errorf("gpu: AllocPinned(%d): negative size", bytes)
	}
	st := &pinnedState{d: d, bytes: bytes}
	if bytes > 0 {
		st.mem = make([]uint64, (bytes+7)/8)
		st.base = uintptr(unsafe.Pointer(&st.mem[0]))
	}
	if !d.host && bytes > 0 {
		err := d.exec(func(t *Thread) error {
			p := unsafe.Pointer(&st.mem[0])
			st.pin.Pin(p)
			code := cuHostRegister(p, bytes)
			if code != codeSuccess {
				st.pin.Unpin()
				e := t.check("AllocPinned: cuMemHostRegister_v2("+card.Bytes(bytes)+")", code)
				return fmt.Errorf("%w (pinning needs the memory lock limit of the process to allow it: see ulimit -l)", e)
			}
			st.reg, st.gen = true, t.d.generation()
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	pinnedSet.Lock()
	if pinnedSet.live == nil {
		pinnedSet.live = map[*pinnedState]struct{}{}
	}
	pinnedSet.live[st] = struct{}{}
	pinnedSet.Unlock()
	p := &Pinned{st: st}
	runtime.AddCleanup(p, releasePinned, st)
	return p, nil
}

// releasePinned is the cleanup of a Pinned the program dropped.
func releasePinned(st *pinnedState) {
	if !st.freed.CompareAndSwap(false, true) {
		return
	}
	forgetPinned(st)
	if !st.reg {
		return
	}
	st.d.release(func(t *Thread) { st.unregister() })
}

func forgetPinned(st *pinnedState) {
	pinnedSet.Lock()
	delete(pinnedSet.live, st)
	pinnedSet.Unlock()
}

// unregister undoes the registration (device thread). A registration
// from before a context reset went with its context.
func (st *pinnedState) unregister() int {
	code := 0
	if st.gen == st.d.generation() {
		code = cuHostUnregister(unsafe.Pointer(&st.mem[0]))
	}
	st.pin.Unpin()
	st.reg = false
	return code
}

// Free unpins the memory; later asynchronous copies from or into it
// fail. Free is idempotent. It waits for nothing: finish the copies that
// use the memory first (synchronize their streams).
func (p *Pinned) Free() error {
	if p == nil || !p.st.freed.CompareAndSwap(false, true) {
		return nil
	}
	st := p.st
	forgetPinned(st)
	if !st.reg {
		return nil
	}
	return st.d.exec(func(t *Thread) error {
		return t.check("cuMemHostUnregister", st.unregister())
	})
}

// Bytes returns the size in bytes (0 for a nil Pinned).
func (p *Pinned) Bytes() int64 {
	if p == nil {
		return 0
	}
	return p.st.bytes
}

// Device returns the device the memory is registered with.
func (p *Pinned) Device() *Device { return p.st.d }

// String describes the memory: "Pinned 64.0 MiB for NVIDIA H100 … (device 0)".
func (p *Pinned) String() string {
	if p == nil {
		return "Pinned (nil)"
	}
	s := "Pinned " + card.Bytes(p.st.bytes) + " for " + p.st.d.String()
	if p.st.freed.Load() {
		s += " (freed)"
	}
	return s
}

// view returns the memory as a slice of T (length Bytes()/sizeof(T)).
func pinnedView[T elem](p *Pinned) []T {
	if p == nil || p.st.bytes == 0 {
		return nil
	}
	n := p.st.bytes / sizeOf[T]()
	return unsafe.Slice((*T)(unsafe.Pointer(&p.st.mem[0])), n)
}

// isPinned reports whether [addr, addr+n) lies in live pinned memory of d.
func isPinned(d *Device, addr uintptr, n int64) bool {
	pinnedSet.Lock()
	defer pinnedSet.Unlock()
	for st := range pinnedSet.live {
		if st.d == d && st.bytes > 0 && addr >= st.base && uint64(addr-st.base)+uint64(n) <= uint64(st.bytes) {
			return true
		}
	}
	return false
}

// copyAsync queues a copy between host and elements [off, off+len(host))
// of b on stream s (nil: the default stream).
func copyAsync[T elem](b *buffer[T], op string, s *Stream, off int, host []T, up bool) error {
	if b == nil || b.a == nil || b.d == nil {
		return fmt.Errorf("gpu: %s: the buffer was never allocated (use the Device's Alloc… or …From methods)", op)
	}
	if off < 0 || off > b.n || len(host) > b.n-off {
		return fmt.Errorf("gpu: %s: elements [%d, %d) lie outside the buffer of %d", op, off, off+len(host), b.n)
	}
	if len(host) == 0 {
		if b.d.host {
			return b.live(op)
		}
		return b.d.exec(func(*Thread) error { return b.live(op) })
	}
	size := sizeOf[T]()
	bytes := int64(len(host)) * size
	hp := unsafe.Pointer(&host[0])
	if !isPinned(b.d, uintptr(hp), bytes) {
		return fmt.Errorf("gpu: %s: the host slice is not pinned memory of %v: take it from a Pinned (Device.AllocPinned), or copy with Upload/Download", op, b.d)
	}
	if b.d.host {
		if s != nil {
			return fmt.Errorf("gpu: %s: the host device has no streams (pass nil)", op)
		}
		if err := b.live(op); err != nil {
			return err
		}
		if up {
			copy(b.host[off:], host)
		} else {
			copy(host, b.host[off:off+len(host)])
		}
		return nil
	}
	return b.d.exec(func(t *Thread) error {
		if err := b.live(op); err != nil {
			return err
		}
		var sh uintptr
		if s != nil {
			var err error
			if sh, err = s.handleOn(t, op); err != nil {
				return err
			}
		}
		dev := b.a.ptr + uint64(off)*uint64(size)
		if up {
			return t.check(op+": cuMemcpyHtoDAsync_v2("+card.Bytes(bytes)+")", cuMemcpyHtoDAsync(dev, hp, bytes, sh))
		}
		return t.check(op+": cuMemcpyDtoHAsync_v2("+card.Bytes(bytes)+")", cuMemcpyDtoHAsync(hp, dev, bytes, sh))
	})
}
