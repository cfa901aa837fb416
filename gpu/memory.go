package gpu

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/internal/membudget"
)

// elem is the element types of the typed buffers.
type elem interface {
	int32 | uint32 | int64 | uint64 | float32 | float64 | uint8
}

func sizeOf[T elem]() int64 {
	var z T
	return int64(unsafe.Sizeof(z))
}

// alloc is one allocation's state, shared by its buffer and the buffer's
// cleanup (which must not reach the buffer itself).
type alloc struct {
	d     *Device
	ptr   uint64 // device address; 0 on the host or for 0 bytes
	bytes int64
	gen   uint64       // context generation it belongs to
	state atomic.Int32 // 0 live, 1 freed
}

// freeOn frees the allocation on the device thread. A stale one (from
// before a reset) is already gone with its context.
func (a *alloc) freeOn(t *Thread) error {
	if a.gen != a.d.generation() {
		return nil
	}
	a.d.used.Add(-a.bytes)
	if a.ptr == 0 {
		return nil
	}
	return t.check("cuMemFree_v2", cuMemFree(a.ptr))
}

// releaseAlloc is the cleanup of a buffer the program dropped without
// Free: it queues the free on the device thread (cleanups must not block).
func releaseAlloc(a *alloc) {
	if !a.state.CompareAndSwap(0, 1) {
		return
	}
	if a.d.host {
		a.d.used.Add(-a.bytes)
		return
	}
	a.d.release(func(t *Thread) { _ = a.freeOn(t) })
}

// buffer is the generic core of the typed buffers.
type buffer[T elem] struct {
	d       *Device
	n       int
	host    []T // the storage on the host device
	a       *alloc
	cleanup runtime.Cleanup
}

// initBuffer allocates n elements on d for owner (whose cleanup frees them).
func initBuffer[O any, T elem](owner *O, b *buffer[T], d *Device, n int, op string) error {
	if d == nil {
		return fmt.Errorf("gpu: %s: nil device (use gpu.Default())", op)
	}
	if n < 0 {
		return fmt.Errorf("gpu: %s(%d): negative length", op, n)
	}
	size := sizeOf[T]()
	if int64(n) > math.MaxInt64/size {
		return fmt.Errorf("gpu: %s(%d): %d elements of %d bytes overflow", op, n, n, size)
	}
	bytes := int64(n) * size
	b.d, b.n = d, n
	a := &alloc{d: d, bytes: bytes}
	if d.host {
		// A host buffer is a Go slice: one that does not fit in the
		// memory available would crash the process (Go's fatal out of
		// memory), so it is refused first.
		what := fmt.Sprintf("gpu: %s(%d) on the host device (%d-byte elements)", op, n, size)
		if err := membudget.Check(what, bytes); err != nil {
			return fmt.Errorf("%w: %w", ErrOutOfMemory, err)
		}
		b.host = make([]T, n)
		d.used.Add(bytes)
	} else {
		err := d.exec(func(t *Thread) error {
			p, err := t.memAlloc(op, bytes)
			if err != nil {
				return err
			}
			a.ptr, a.gen = p, t.d.generation()
			t.d.used.Add(bytes)
			if bytes > 0 {
				code, call := 0, ": cuMemsetD32_v2"
				if bytes%4 == 0 {
					code = cuMemsetD32(p, 0, bytes/4)
				} else {
					code, call = cuMemsetD8(p, 0, bytes), ": cuMemsetD8_v2"
				}
				if err := t.check(op+call, code); err != nil {
					_ = a.freeOn(t)
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	b.a = a
	b.cleanup = runtime.AddCleanup(owner, releaseAlloc, a)
	return nil
}

// memAlloc allocates bytes of device memory (0 bytes: address 0). An
// allocation that does not fit says how much was asked and is free.
func (t *Thread) memAlloc(op string, bytes int64) (uint64, error) {
	if bytes == 0 {
		return 0, nil
	}
	p, code := cuMemAlloc(bytes)
	if code == codeOutOfMemory {
		return 0, t.oomError(bytes)
	}
	if err := t.check(op+": cuMemAlloc_v2("+card.Bytes(bytes)+")", code); err != nil {
		return 0, err
	}
	return p, nil
}

func (t *Thread) oomError(bytes int64) error {
	d := t.d
	e := cuError("cuMemAlloc_v2("+card.Bytes(bytes)+")", codeOutOfMemory)
	hint := "free buffers with Free (or Close device graphs), or use a smaller graph"
	if free, total, code := cuMemInfo(); code == 0 {
		e.Detail = fmt.Sprintf("asked for %s, but only %s of %s is free on %s (this process holds %s in live buffers): %s",
			card.Bytes(bytes), card.Bytes(free), card.Bytes(total), d, card.Bytes(d.used.Load()), hint)
	} else {
		e.Detail = fmt.Sprintf("asked for %s on %s: %s", card.Bytes(bytes), d, hint)
	}
	return e
}

func (b *buffer[T]) bytes() int64 { return int64(b.n) * sizeOf[T]() }

// live reports why the buffer cannot be used (on the device thread for a
// CUDA buffer).
func (b *buffer[T]) live(op string) error {
	if b.a == nil {
		return fmt.Errorf("gpu: %s: the buffer was never allocated (use the Device's Alloc… or …From methods)", op)
	}
	if b.a.state.Load() != 0 {
		return fmt.Errorf("gpu: %s: the buffer was freed", op)
	}
	if !b.d.host && b.a.gen != b.d.generation() {
		return fmt.Errorf("gpu: %s: %w", op, ErrInvalidated)
	}
	return nil
}

func (b *buffer[T]) checkLen(op string, host []T) error {
	if len(host) != b.n {
		return fmt.Errorf("gpu: %s: the host slice has %d elements but the buffer %d; pass a slice of length Len()", op, len(host), b.n)
	}
	return nil
}

func (b *buffer[T]) upload(op string, host []T) error {
	if b.a == nil || b.d == nil {
		return b.live(op)
	}
	if err := b.checkLen(op, host); err != nil {
		return err
	}
	if b.d.host {
		if err := b.live(op); err != nil {
			return err
		}
		copy(b.host, host)
		return nil
	}
	return b.d.exec(func(t *Thread) error {
		if err := b.live(op); err != nil || b.n == 0 {
			return err
		}
		return t.htod(op, b.a.ptr, unsafe.Pointer(&host[0]), b.bytes())
	})
}

func (b *buffer[T]) download(op string, host []T) error {
	if b.a == nil || b.d == nil {
		return b.live(op)
	}
	if err := b.checkLen(op, host); err != nil {
		return err
	}
	if b.d.host {
		if err := b.live(op); err != nil {
			return err
		}
		copy(host, b.host)
		return nil
	}
	return b.d.exec(func(t *Thread) error {
		if err := b.live(op); err != nil || b.n == 0 {
			return err
		}
		return t.dtoh(op, unsafe.Pointer(&host[0]), b.a.ptr, b.bytes())
	})
}

func (b *buffer[T]) toHost(op string) ([]T, error) {
	out := make([]T, b.n)
	if err := b.download(op, out); err != nil {
		return nil, err
	}
	return out, nil
}

func (b *buffer[T]) copyFrom(op string, src *buffer[T]) error {
	if b.a == nil || b.d == nil {
		return b.live(op)
	}
	if src.n != b.n {
		return fmt.Errorf("gpu: %s: the source has %d elements but the buffer %d", op, src.n, b.n)
	}
	if src.d != b.d {
		return fmt.Errorf("gpu: %s: the source lives on %v, the buffer on %v; copy through the host (ToHost, Upload)", op, src.d, b.d)
	}
	if b.d.host {
		if err := b.live(op); err != nil {
			return err
		}
		if err := src.live(op); err != nil {
			return err
		}
		copy(b.host, src.host)
		return nil
	}
	return b.d.exec(func(t *Thread) error {
		if err := b.live(op); err != nil {
			return err
		}
		if err := src.live(op); err != nil || b.n == 0 {
			return err
		}
		return t.check(op+": cuMemcpyDtoD_v2", cuMemcpyDtoD(b.a.ptr, src.a.ptr, b.bytes()))
	})
}

// fill sets every element to v: cuMemsetD8 / cuMemsetD32 for 1- and
// 4-byte types; for 8-byte types cuMemsetD32 when both halves of v's bit
// pattern are equal (0, -1, …), else one element is copied up and then
// doubled with device-to-device copies (log2(n) copies, n·8 bytes moved).
func (b *buffer[T]) fill(op string, v T) error {
	if b.a == nil || b.d == nil {
		return b.live(op)
	}
	if b.d.host {
		if err := b.live(op); err != nil {
			return err
		}
		for i := range b.host {
			b.host[i] = v
		}
		return nil
	}
	return b.d.exec(func(t *Thread) error {
		if err := b.live(op); err != nil || b.n == 0 {
			return err
		}
		p, n := b.a.ptr, int64(b.n)
		switch x := any(v).(type) {
		case uint8:
			return t.check(op+": cuMemsetD8_v2", cuMemsetD8(p, x, n))
		case int32:
			return t.check(op+": cuMemsetD32_v2", cuMemsetD32(p, uint32(x), n))
		case uint32:
			return t.check(op+": cuMemsetD32_v2", cuMemsetD32(p, x, n))
		case float32:
			return t.check(op+": cuMemsetD32_v2", cuMemsetD32(p, math.Float32bits(x), n))
		case int64:
			return t.fill64(op, p, uint64(x), n)
		case uint64:
			return t.fill64(op, p, x, n)
		case float64:
			return t.fill64(op, p, math.Float64bits(x), n)
		}
		panic("gpu: unreachable element type")
	})
}

func (t *Thread) fill64(op string, p, bits uint64, n int64) error {
	lo, hi := uint32(bits), uint32(bits>>32)
	if lo == hi {
		return t.check(op+": cuMemsetD32_v2", cuMemsetD32(p, lo, 2*n))
	}
	one := []uint64{bits}
	if err := t.check(op+": cuMemcpyHtoD_v2", cuMemcpyHtoD(p, unsafe.Pointer(&one[0]), 8)); err != nil {
		return err
	}
	for done := int64(1); done < n; {
		c := min(done, n-done)
		if err := t.check(op+": cuMemcpyDtoD_v2", cuMemcpyDtoD(p+uint64(done)*8, p, c*8)); err != nil {
			return err
		}
		done += c
	}
	return nil
}

func (b *buffer[T]) free() error {
	if b.a == nil {
		return nil
	}
	b.cleanup.Stop()
	if !b.a.state.CompareAndSwap(0, 1) {
		return nil
	}
	if b.d.host {
		b.d.used.Add(-b.a.bytes)
		b.host = nil
		return nil
	}
	return b.d.exec(func(t *Thread) error { return b.a.freeOn(t) })
}

func (b *buffer[T]) ptr() uint64 {
	if b.a == nil {
		return 0
	}
	return b.a.ptr
}

// devicePtr returns the address for a kernel argument (device thread);
// its errors are wrapped by the caller.
func (b *buffer[T]) devicePtr(d *Device) (uint64, error) {
	if b.d != d {
		return 0, fmt.Errorf("the buffer lives on %v, not on %v", b.d, d)
	}
	if b.a == nil || b.a.state.Load() != 0 {
		return 0, errors.New("the buffer was freed")
	}
	if b.a.gen != d.generation() {
		return 0, ErrInvalidated
	}
	return b.a.ptr, nil
}

func (b *buffer[T]) describe(kind string) string {
	if b.d == nil {
		return kind + " (not allocated)"
	}
	s := fmt.Sprintf("%s[%s] on %v, %s", kind, groupDigits(int64(b.n)), b.d, card.Bytes(b.bytes()))
	if b.a != nil && b.a.state.Load() != 0 {
		s += " (freed)"
	} else if !b.d.host && b.a != nil && b.a.gen != b.d.generation() {
		s += " (lost in a GPU reset)"
	}
	return s
}

func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func errNilSource(op string) error { return fmt.Errorf("gpu: %s: nil source buffer", op) }

// deviceBuffer is what a kernel argument of buffer type provides.
type deviceBuffer interface {
	devicePtr(d *Device) (uint64, error)
}

// ---- host↔device copies ----

// Copy strategies for large host↔device copies (GRAPHNB_COPY).
const (
	copyRegister = iota // pin the Go slice with cuMemHostRegister for the copy
	copyPageable        // plain cuMemcpy from pageable memory
	copyStaged          // pipelined through two pinned staging buffers
)

var copyConfig struct {
	once     sync.Once
	mode     int
	pinMin   int64
	override atomic.Int32 // tests and benchmarks: mode+1, 0 = none
}

// defaultPinMin is the copy size from which the register/staged paths
// are used; smaller copies are pageable (registration costs more).
const defaultPinMin = 1 << 20

func loadCopyConfig() {
	copyConfig.pinMin = defaultPinMin
	// The default was chosen on an H100 (BenchmarkCopyModes, 1 GiB):
	// staged 34.2 GB/s host→device and 19.2 GB/s device→host, against
	// 13.2/10.3 for registering the slice per copy and 8.3/14.0 pageable.
	switch strings.ToLower(strings.TrimSpace(os.Getenv("GRAPHNB_COPY"))) {
	case "pageable":
		copyConfig.mode = copyPageable
	case "register":
		copyConfig.mode = copyRegister
	default:
		copyConfig.mode = copyStaged
	}
	if v, err := strconv.ParseInt(os.Getenv("GRAPHNB_PIN_MIN"), 10, 64); err == nil && v >= 0 {
		copyConfig.pinMin = v
	}
}

// copyModeFor picks the strategy for an n-byte copy.
func copyModeFor(n int64) int {
	copyConfig.once.Do(loadCopyConfig)
	mode := copyConfig.mode
	if o := copyConfig.override.Load(); o > 0 {
		mode = int(o - 1)
	}
	if n < copyConfig.pinMin {
		return copyPageable
	}
	return mode
}

// registered runs copy with the Go memory [p, p+n) page-locked for it
// (pinned for the garbage collector too); it falls back to a pageable copy
// when registration fails.
func (t *Thread) registered(p unsafe.Pointer, n int64, copy func() int) int {
	var pin runtime.Pinner
	pin.Pin(p)
	defer pin.Unpin()
	code := cuHostRegister(p, n)
	if code != codeSuccess {
		if isSticky(code) {
			return code
		}
		return copy()
	}
	r := copy()
	cuHostUnregister(p)
	return r
}

func (t *Thread) htod(op string, dst uint64, src unsafe.Pointer, n int64) error {
	op = op + ": cuMemcpyHtoD_v2(" + card.Bytes(n) + ")"
	copyFn := func() int { return cuMemcpyHtoD(dst, src, n) }
	switch copyModeFor(n) {
	case copyRegister:
		return t.check(op, t.registered(src, n, copyFn))
	case copyStaged:
		return t.stagedHtoD(op, dst, src, n)
	}
	return t.check(op, copyFn())
}

func (t *Thread) dtoh(op string, dst unsafe.Pointer, src uint64, n int64) error {
	op = op + ": cuMemcpyDtoH_v2(" + card.Bytes(n) + ")"
	copyFn := func() int { return cuMemcpyDtoH(dst, src, n) }
	switch copyModeFor(n) {
	case copyRegister:
		return t.check(op, t.registered(dst, n, copyFn))
	case copyStaged:
		return t.stagedDtoH(op, dst, src, n)
	}
	return t.check(op, copyFn())
}

// staging is a device's pair of pinned host buffers for the staged copy
// path, with an event each and a copy stream.
type staging struct {
	buf    [2]unsafe.Pointer
	size   int64
	ev     [2]uintptr
	stream uintptr
}

// stageBytes is the size of each staging buffer (a variable for tests).
var stageBytes int64 = 32 << 20

func (t *Thread) staging() (*staging, error) {
	d := t.d
	if d.stage != nil {
		return d.stage, nil
	}
	s := &staging{size: stageBytes}
	fail := func(err error) (*staging, error) {
		for i, p := range s.buf {
			if p != nil {
				cuHostUnregister(p) // fails harmlessly if it was not registered
				hostFree(p)
			}
			if s.ev[i] != 0 {
				cuEventDestroy(s.ev[i])
			}
		}
		return nil, err
	}
	for i := range s.buf {
		p := hostAlloc(s.size)
		if p == nil {
			return fail(fmt.Errorf("gpu: staging buffer: cannot allocate %s of host memory", card.Bytes(s.size)))
		}
		s.buf[i] = p
		if err := t.check("cuMemHostRegister_v2(staging)", cuHostRegister(p, s.size)); err != nil {
			return fail(err)
		}
		e, code := cuEventCreate()
		if err := t.check("cuEventCreate", code); err != nil {
			return fail(err)
		}
		s.ev[i] = e
	}
	st, code := cuStreamCreate()
	if err := t.check("cuStreamCreate", code); err != nil {
		return fail(err)
	}
	s.stream = st
	d.stage = s
	return s, nil
}

// parallelCopy copies n bytes from src to dst with several goroutines.
func parallelCopy(dst, src unsafe.Pointer, n int64) {
	const piece = 4 << 20
	w := int64(runtime.GOMAXPROCS(0))
	if w > 8 {
		w = 8
	}
	if n < 2*piece || w < 2 {
		copy(unsafe.Slice((*byte)(dst), n), unsafe.Slice((*byte)(src), n))
		return
	}
	per := (n + w - 1) / w
	var wg sync.WaitGroup
	for off := int64(0); off < n; off += per {
		c := min(per, n-off)
		wg.Add(1)
		go func(off, c int64) {
			defer wg.Done()
			copy(unsafe.Slice((*byte)(unsafe.Add(dst, off)), c), unsafe.Slice((*byte)(unsafe.Add(src, off)), c))
		}(off, c)
	}
	wg.Wait()
}

// stagedHtoD copies through the staging buffers: the host copy of chunk
// i+1 overlaps the DMA of chunk i.
func (t *Thread) stagedHtoD(op string, dst uint64, src unsafe.Pointer, n int64) error {
	s, err := t.staging()
	if err != nil {
		return err
	}
	var pending [2]bool
	for off, i := int64(0), 0; off < n; off, i = off+s.size, i+1 {
		k := i & 1
		c := min(s.size, n-off)
		if pending[k] {
			if err := t.check(op+": cuEventSynchronize", cuEventSync(s.ev[k])); err != nil {
				return err
			}
		}
		parallelCopy(s.buf[k], unsafe.Add(src, off), c)
		if err := t.check(op+": cuMemcpyHtoDAsync_v2", cuMemcpyHtoDAsync(dst+uint64(off), s.buf[k], c, s.stream)); err != nil {
			return err
		}
		if err := t.check(op+": cuEventRecord", cuEventRecord(s.ev[k], s.stream)); err != nil {
			return err
		}
		pending[k] = true
	}
	return t.check(op+": cuStreamSynchronize", cuStreamSync(s.stream))
}

// stagedDtoH copies through the staging buffers: the DMA of chunk i+1
// overlaps the host copy of chunk i.
func (t *Thread) stagedDtoH(op string, dst unsafe.Pointer, src uint64, n int64) error {
	s, err := t.staging()
	if err != nil {
		return err
	}
	chunks := int((n + s.size - 1) / s.size)
	issue := func(i int) error {
		k := i & 1
		off := int64(i) * s.size
		c := min(s.size, n-off)
		if err := t.check(op+": cuMemcpyDtoHAsync_v2", cuMemcpyDtoHAsync(s.buf[k], src+uint64(off), c, s.stream)); err != nil {
			return err
		}
		return t.check(op+": cuEventRecord", cuEventRecord(s.ev[k], s.stream))
	}
	if err := issue(0); err != nil {
		return err
	}
	for i := 0; i < chunks; i++ {
		if i+1 < chunks {
			if err := issue(i + 1); err != nil {
				return err
			}
		}
		k := i & 1
		if err := t.check(op+": cuEventSynchronize", cuEventSync(s.ev[k])); err != nil {
			return err
		}
		off := int64(i) * s.size
		parallelCopy(unsafe.Add(dst, off), s.buf[k], min(s.size, n-off))
	}
	return nil
}
