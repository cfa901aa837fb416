package gpu

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ---- the driver library ----

var drv struct {
	once    sync.Once
	err     error
	path    string
	version int // cuDriverGetVersion, e.g. 13000
}

// drvLoadedFlag is set once the driver library is loaded and its symbols
// resolved, so error names can come from the driver.
var drvLoadedFlag atomic.Bool

func drvLoadedOK() bool { return drvLoadedFlag.Load() }

// libcudaPath is GRAPHNB_LIBCUDA or libcuda.so.1.
func libcudaPath() string {
	if p := os.Getenv("GRAPHNB_LIBCUDA"); p != "" {
		return p
	}
	return "libcuda.so.1"
}

// driverInit loads the driver and calls cuInit once per process.
func driverInit() error {
	drv.once.Do(func() {
		drv.path = libcudaPath()
		if err := drvLoad(drv.path); err != nil {
			drv.err = err
			return
		}
		// NVRTC (about 8 ms to load and ask its version, which every
		// Compile needs for its cache key) loads while the driver starts
		// (cuInit and the first context take about 0.2 s).
		go func() { _ = nvrtcInit() }()
		defaultConnections()
		if code := cuInit(); code != 0 {
			e := cuError("cuInit", code)
			switch code {
			case codeNoDevice:
				e.Detail = "the driver sees no GPU"
			case codeStubLibrary:
				e.Detail = drv.path + " is the CUDA toolkit's stub library; install the NVIDIA driver"
			}
			drv.err = e
			return
		}
		if v, code := cuDriverVersion(); code == 0 {
			drv.version = v
		}
	})
	return drv.err
}

// deviceConnections is the CUDA_DEVICE_MAX_CONNECTIONS graphnb asks for
// when the environment does not say: the hardware work queues a context
// opens to its device, each set up when the context is made. CUDA's
// default of 8 made opening an H100 take 200–260 ms, 1 took 160 ms and
// 32 took 600–690 ms (stop 28's note); graphnb never runs more than three
// streams at once (out-of-core APSP: the default stream, one for
// compute, one for transfers), so four queues keep them independent.
const deviceConnections = "4"

// defaultConnections sets CUDA_DEVICE_MAX_CONNECTIONS to
// deviceConnections unless the environment sets it (to any value): the
// driver reads it at cuInit. A build with cgo passes os.Setenv on to the
// C environment the driver reads; without cgo it has no effect.
func defaultConnections() {
	if _, set := os.LookupEnv("CUDA_DEVICE_MAX_CONNECTIONS"); !set {
		os.Setenv("CUDA_DEVICE_MAX_CONNECTIONS", deviceConnections)
	}
}

// versionString renders a CUDA version number (13000 → "13.0").
func versionString(v int) string {
	if v <= 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

// ---- devices ----

var registry struct {
	mu       sync.Mutex
	counted  bool
	count    int
	countErr error
	devs     map[int]*Device
}

// deviceCount returns how many CUDA devices the driver sees.
func deviceCount() (int, error) {
	if err := driverInit(); err != nil {
		return 0, err
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if !registry.counted {
		n, code := cuDeviceCount()
		if code != 0 {
			registry.countErr = cuError("cuDeviceGetCount", code)
		}
		registry.count, registry.counted = n, true
	}
	return registry.count, registry.countErr
}

// Device is a CUDA device, or the host (the CPU) standing in for one.
// Algorithms take a *Device and run their CUDA kernels on a GPU or their
// Go code on the host, so a notebook runs unchanged without a GPU.
//
// A CUDA device is opened on first use: a goroutine locked to its own OS
// thread retains the device's primary context and makes every driver call
// that needs it (see Exec). Devices are singletons per ordinal, safe for
// concurrent use; calls are serialised on the device thread.
type Device struct {
	ordinal int
	host    bool
	cuDev   int32
	static  Info // what the driver tells without a context

	openOnce sync.Once
	openErr  error
	work     chan *request
	wake     chan struct{}
	tid      atomic.Uintptr // OS thread of the device goroutine
	thread   *Thread
	gen      atomic.Uint64 // bumped by every context reset
	used     atomic.Int64  // bytes of live allocations

	pendMu  sync.Mutex
	pending []func(*Thread) // releases queued by cleanups

	// broken is written on the device goroutine under brokenMu (Err reads
	// it from others).
	brokenMu sync.Mutex

	// Owned by the device goroutine.
	ctx        uintptr
	lastKernel string
	broken     error
	timing     [2]uintptr // events for Time
	timingGen  uint64
	stage      *staging
}

var hostDevice = &Device{ordinal: -1, host: true}

// Host returns the host device: the CPU, standing in for a GPU. Its
// buffers are Go slices; CUDA-only operations return ErrHost.
func Host() *Device { return hostDevice }

// Devices returns every CUDA device the driver sees, in ordinal order.
// Each is opened (its context created) on first use. Without a driver it
// returns an error wrapping ErrNoDriver (or ErrNoDevice).
func Devices() ([]*Device, error) {
	n, err := deviceCount()
	if err != nil {
		return nil, err
	}
	out := make([]*Device, 0, n)
	for i := 0; i < n; i++ {
		d, err := Open(i)
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

// Open returns CUDA device ordinal (0-based). The device's context is
// created on first use; Open itself only queries the device's name and
// attributes. Opening the same ordinal twice returns the same *Device.
func Open(ordinal int) (*Device, error) {
	n, err := deviceCount()
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("gpu: Open(%d): %w: the driver sees %d device(s), numbered from 0", ordinal, ErrNoDevice, n)
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if d := registry.devs[ordinal]; d != nil {
		return d, nil
	}
	d, err := newCUDADevice(ordinal)
	if err != nil {
		return nil, err
	}
	if registry.devs == nil {
		registry.devs = map[int]*Device{}
	}
	registry.devs[ordinal] = d
	return d, nil
}

var defaults struct {
	once   sync.Once
	dev    *Device
	reason string
}

// Default returns the device algorithms use unless told otherwise: the
// first CUDA device that opens, else the host. It never returns nil.
// GRAPHNB_DEVICE=host forces the host; GRAPHNB_DEVICE=N picks device N.
// The choice is made once per process; DefaultReason says why.
func Default() *Device {
	defaults.once.Do(chooseDefault)
	return defaults.dev
}

// DefaultReason explains Default's choice: "NVIDIA H100 80GB HBM3 (device
// 0)", or "no GPU: libcuda.so.1 not found: …; running on the CPU".
func DefaultReason() string {
	Default()
	return defaults.reason
}

func chooseDefault() {
	set := func(d *Device, reason string) { defaults.dev, defaults.reason = d, reason }
	host := func(why string) { set(hostDevice, "no GPU: "+why+"; running on the CPU") }
	if v := strings.TrimSpace(os.Getenv("GRAPHNB_DEVICE")); v != "" {
		if strings.EqualFold(v, "host") || strings.EqualFold(v, "cpu") {
			set(hostDevice, "GRAPHNB_DEVICE="+v+": running on the CPU")
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			host(fmt.Sprintf("GRAPHNB_DEVICE=%q is neither \"host\" nor a device number", v))
			return
		}
		d, err := Open(n)
		if err == nil {
			err = d.open()
		}
		if err != nil {
			host("GRAPHNB_DEVICE=" + v + ": " + trimPkg(err))
			return
		}
		set(d, d.String()+" (GRAPHNB_DEVICE="+v+")")
		return
	}
	devs, err := Devices()
	if err != nil {
		host(trimPkg(err))
		return
	}
	if len(devs) == 0 {
		host("the driver sees no CUDA device")
		return
	}
	var why []string
	for _, d := range devs {
		if err := d.open(); err != nil {
			why = append(why, d.String()+": "+trimPkg(err))
			continue
		}
		set(d, d.String())
		return
	}
	host("no device could be opened: " + strings.Join(why, "; "))
}

// trimPkg drops the "gpu: " prefix of an error for use inside a sentence.
func trimPkg(err error) string { return strings.TrimPrefix(err.Error(), "gpu: ") }

// IsHost reports whether d is the host device.
func (d *Device) IsHost() bool { return d.host }

// Ordinal returns the CUDA device number, or -1 for the host.
func (d *Device) Ordinal() int { return d.ordinal }

// Name returns the device's name ("NVIDIA H100 80GB HBM3"), or "host CPU".
func (d *Device) Name() string {
	if d.host {
		return "host CPU"
	}
	return d.static.Name
}

// String returns the name with the ordinal, "NVIDIA H100 80GB HBM3
// (device 0)", or "host CPU (16 cores)".
func (d *Device) String() string {
	if d.host {
		return fmt.Sprintf("host CPU (%d cores)", runtime.NumCPU())
	}
	return fmt.Sprintf("%s (device %d)", d.static.Name, d.ordinal)
}

// MemoryUsed returns the bytes of live buffers allocated through d (for
// the host, of host buffers made through it). A GPU reset sets it to 0.
func (d *Device) MemoryUsed() int64 { return d.used.Load() }

// ---- the device goroutine ----

// request is one function for the device goroutine. The caller spins
// briefly for the result before parking, and the device goroutine spins
// briefly for the next request before blocking: a launch loop that calls
// Function.Launch (a hop per launch) then avoids two thread wake-ups per
// call. state goes pending → done, or pending → parked → done.
type request struct {
	f     func(*Thread) error
	res   result
	state atomic.Int32
	ch    chan struct{} // signalled when the caller parked
}

const (
	reqPending = iota
	reqDone
	reqParked
)

type result struct {
	err      error
	panicked bool
	value    any
}

var requestPool = sync.Pool{New: func() any { return &request{ch: make(chan struct{}, 1)} }}

// Spin budgets of the hand-off between callers and a device goroutine.
const (
	callerSpin = 50 * time.Microsecond
	deviceSpin = 50 * time.Microsecond
)

// open starts the device goroutine once; it reports why the device
// cannot be used.
func (d *Device) open() error {
	if d.host {
		return nil
	}
	d.openOnce.Do(func() {
		ready := make(chan error)
		d.work = make(chan *request, 64)
		d.wake = make(chan struct{}, 1)
		go d.loop(ready)
		d.openErr = <-ready
	})
	return d.openErr
}

// loop is the device goroutine: locked to one OS thread, it makes the
// primary context current there and runs requests until the process ends.
func (d *Device) loop(ready chan<- error) {
	runtime.LockOSThread()
	d.thread = &Thread{d: d}
	ctx, code := cuCtxRetain(d.cuDev)
	if code != 0 {
		e := cuError("cuDevicePrimaryCtxRetain", code)
		e.Detail = "could not create the context of " + d.String()
		ready <- e
		return // the goroutine ends; its locked thread with it
	}
	if code := cuCtxSetCurrent(ctx); code != 0 {
		cuCtxRelease(d.cuDev)
		ready <- cuError("cuCtxSetCurrent", code)
		return
	}
	d.ctx = ctx
	d.tid.Store(threadSelf())
	ready <- nil
	t := d.thread
	for {
		select {
		case r := <-d.work:
			d.serve(t, r)
			// Stay awake a moment for the next request of a loop (not with
			// one P, which the caller needs to make that request).
			spin := deviceSpin
			if runtime.GOMAXPROCS(0) == 1 {
				spin = 0
			}
			for start := time.Now(); time.Since(start) < spin; {
				select {
				case r := <-d.work:
					d.serve(t, r)
					start = time.Now()
				default:
				}
			}
		case <-d.wake:
			d.drain(t)
		}
	}
}

func (d *Device) serve(t *Thread, r *request) {
	d.drain(t)
	r.res = d.run(t, r.f)
	if !r.state.CompareAndSwap(reqPending, reqDone) {
		r.state.Store(reqDone)
		r.ch <- struct{}{} // the caller parked
	}
}

// run calls f on the device thread, turning a panic into a result that
// exec re-raises on the caller's goroutine.
func (d *Device) run(t *Thread, f func(*Thread) error) (res result) {
	defer func() {
		if p := recover(); p != nil {
			res = result{panicked: true, value: p}
		}
	}()
	if d.broken != nil {
		return result{err: d.broken}
	}
	return result{err: f(t)}
}

// onThread reports whether the caller is the device goroutine (the only
// goroutine that can run on its locked thread).
func (d *Device) onThread() bool {
	id := d.tid.Load()
	return id != 0 && threadSelf() == id
}

// exec runs f on the device thread: inline when already there (so nested
// calls cannot deadlock), else by handing it to the device goroutine and
// waiting. A panic in f is re-raised in the caller.
func (d *Device) exec(f func(*Thread) error) error {
	if d.host {
		return errHost("this operation", "")
	}
	if err := d.open(); err != nil {
		return err
	}
	if d.onThread() {
		if d.broken != nil {
			return d.broken
		}
		return f(d.thread)
	}
	r := requestPool.Get().(*request)
	r.f = f
	r.state.Store(reqPending)
	d.work <- r
	for start := time.Now(); r.state.Load() == reqPending; {
		if time.Since(start) > callerSpin {
			if r.state.CompareAndSwap(reqPending, reqParked) {
				<-r.ch
			}
			break
		}
		runtime.Gosched()
	}
	res := r.res
	r.f, r.res = nil, result{}
	requestPool.Put(r)
	if res.panicked {
		panic(res.value)
	}
	return res.err
}

// Exec runs f on the device's own thread, where the CUDA context is
// current, and returns f's error. Put a whole launch loop in one Exec:
// the Thread's methods call the driver directly, with no goroutine hop.
// Everything else in this package may be called inside f too (buffer
// methods, Function.Launch, even Exec): on the device thread they run
// inline. f must not block on other goroutines that use the same device.
// A panic in f is re-raised in the caller. On the host Exec returns
// ErrHost: host code needs no device thread.
func (d *Device) Exec(f func(t *Thread) error) error {
	if d.host {
		return errHost("Exec", "host code needs no device thread; call the Go code directly")
	}
	return d.exec(f)
}

// release queues fn to run on the device thread (used by cleanups, which
// must not block).
func (d *Device) release(fn func(*Thread)) {
	d.pendMu.Lock()
	d.pending = append(d.pending, fn)
	d.pendMu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *Device) drain(t *Thread) {
	d.pendMu.Lock()
	p := d.pending
	d.pending = nil
	d.pendMu.Unlock()
	for _, fn := range p {
		fn(t)
	}
}

// Synchronize waits for all work queued on the device. A kernel fault
// surfaces here as an error wrapping ErrFault that names the kernel (and
// the device is reset). On the host it returns nil.
func (d *Device) Synchronize() error {
	if d.host {
		return nil
	}
	return d.exec(func(t *Thread) error { return t.Synchronize() })
}

// Reset destroys the device's context and starts a fresh one: every
// buffer, stream and event allocated before returns ErrInvalidated from
// then on (modules reload themselves). The package does this by itself
// after a kernel fault. On the host it does nothing.
func (d *Device) Reset() error {
	if d.host {
		return nil
	}
	return d.exec(func(t *Thread) error { return d.resetContext() })
}

// resetContext resets the primary context (device thread only).
func (d *Device) resetContext() error {
	if code := cuCtxReset(d.cuDev); code != 0 {
		return cuError("cuDevicePrimaryCtxReset_v2", code)
	}
	// Reset keeps our retain; retain the fresh context, then drop the old
	// reference, so the count never touches zero.
	ctx, code := cuCtxRetain(d.cuDev)
	if code != 0 {
		return cuError("cuDevicePrimaryCtxRetain", code)
	}
	cuCtxRelease(d.cuDev)
	if code := cuCtxSetCurrent(ctx); code != 0 {
		return cuError("cuCtxSetCurrent", code)
	}
	d.ctx = ctx
	d.gen.Add(1)
	d.used.Store(0)
	d.lastKernel = ""
	if d.stage != nil { // its registration and events died with the context
		for _, p := range d.stage.buf {
			if p != nil {
				hostFree(p)
			}
		}
		d.stage = nil
	}
	return nil
}

// unusableError is what every call on a device returns once a fault left
// it unusable for the rest of the process. It matches ErrFault and
// ErrInvalidated.
type unusableError struct{ dev, kernel, cause string }

func (e *unusableError) Error() string {
	k := "a kernel"
	if e.kernel != "" {
		k = fmt.Sprintf("kernel %q", e.kernel)
	}
	return fmt.Sprintf("gpu: %s is unusable: %s faulted and the CUDA driver does not let this process use the GPU again (%s); "+
		"device buffers are lost, variables and host data are intact, CPU work goes on; restart the kernel to use the GPU again", e.dev, k, e.cause)
}

func (e *unusableError) Unwrap() []error { return []error{ErrFault, ErrInvalidated} }

// Err reports why the device cannot be used any more (a fault the driver
// does not recover from), or nil. The host device is always usable.
func (d *Device) Err() error {
	if d == nil || d.host {
		return nil
	}
	d.brokenMu.Lock()
	defer d.brokenMu.Unlock()
	return d.broken
}

// fault handles a sticky error: name the kernel, reset the device.
func (d *Device) fault(e *Error) {
	e.Kernel = d.lastKernel
	if err := d.resetContext(); err != nil {
		// With the drivers seen so far (580, CUDA 13) this is the normal
		// outcome: after an illegal address the driver refuses this
		// process every context, primary or created (ops/gpuref/faultprobe.c).
		d.brokenMu.Lock()
		d.broken = &unusableError{dev: d.String(), kernel: e.Kernel, cause: trimPkg(err)}
		d.brokenMu.Unlock()
		e.Detail = "the CUDA driver does not let this process use the GPU again (" + trimPkg(err) +
			"); variables and host data are intact and CPU work goes on; restart the kernel to use the GPU again"
		return
	}
	e.Detail = "the GPU was reset: device buffers allocated before are lost (ErrInvalidated), host data is intact; the next cell can use the GPU"
}

// Thread is the device thread, handed to the function given to Exec. Its
// methods call the CUDA driver directly. It is valid only inside that
// function, on that goroutine.
type Thread struct {
	d     *Device
	slots [maxArgs]uint64 // kernel argument values
}

// Device returns the device the thread belongs to.
func (t *Thread) Device() *Device { return t.d }

// check turns a CUresult into an error; a sticky one resets the device.
func (t *Thread) check(op string, code int) error {
	if code == codeSuccess {
		return nil
	}
	e := cuError(op, code)
	if isSticky(code) {
		t.d.fault(e)
	}
	return e
}

// Synchronize waits for all work queued on the device (cuCtxSynchronize).
func (t *Thread) Synchronize() error { return t.check("cuCtxSynchronize", cuCtxSync()) }

// generation returns the current context generation.
func (d *Device) generation() uint64 { return d.gen.Load() }

// errClosed reports a use after Close/Free.
func errClosed(what string) error {
	return errors.New("gpu: " + what + " was already freed or closed")
}
