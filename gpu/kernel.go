package gpu

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/internal/card"
)

// Dim is a grid or block shape: X·Y·Z blocks, or threads per block. A
// zero Y or Z counts as 1.
type Dim struct{ X, Y, Z int }

// D1 returns the one-dimensional shape x.
func D1(x int) Dim { return Dim{x, 1, 1} }

// D2 returns the shape x·y.
func D2(x, y int) Dim { return Dim{x, y, 1} }

// D3 returns the shape x·y·z.
func D3(x, y, z int) Dim { return Dim{x, y, z} }

// Blocks returns the one-dimensional grid covering n threads with blocks
// of block threads: ceil(n/block) blocks (0 when n ≤ 0, and a launch with
// a zero grid does nothing). It panics if block ≤ 0.
func Blocks(n, block int) Dim {
	if block <= 0 {
		panic("gpu: Blocks: the block size must be positive")
	}
	if n <= 0 {
		return D1(0)
	}
	return D1((n + block - 1) / block)
}

func (d Dim) String() string {
	y, z := max(d.Y, 1), max(d.Z, 1)
	switch {
	case z > 1:
		return fmt.Sprintf("%d×%d×%d", d.X, y, z)
	case y > 1:
		return fmt.Sprintf("%d×%d", d.X, y)
	}
	return strconv.Itoa(d.X)
}

// dims checks a shape and returns it as the driver takes it.
func (d Dim) dims(what string) ([3]uint32, error) {
	v := [3]int{d.X, d.Y, d.Z}
	for i := 1; i < 3; i++ {
		if v[i] == 0 {
			v[i] = 1
		}
	}
	var out [3]uint32
	for i, x := range v {
		if x < 0 || x > math.MaxUint32 {
			return out, fmt.Errorf("%s %v is out of range", what, d)
		}
		out[i] = uint32(x)
	}
	return out, nil
}

// Module is compiled CUDA code loaded on a device: the kernels of one
// source. After a GPU reset it reloads itself from its image on next use.
type Module struct {
	d        *Device
	name     string
	arch     string
	options  []string
	image    []byte
	ptx      bool // image is PTX, JIT-compiled at load
	log      string
	cached   bool
	declared []string // kernel names declared in the source

	st *modState

	mu      sync.Mutex
	funcs   map[string]*Function
	kernels []string // declared names the module resolves
	hidden  []string // declared names it does not (not extern "C")
}

// modState is the loaded handle, shared with the module's cleanup.
type modState struct {
	d      *Device
	h      uintptr
	gen    uint64
	closed atomic.Bool
}

func releaseModule(st *modState) {
	if !st.closed.CompareAndSwap(false, true) {
		return
	}
	st.d.release(func(t *Thread) { st.unload() })
}

// unload unloads the module if it belongs to the live context.
func (st *modState) unload() {
	if st.h != 0 && st.gen == st.d.generation() {
		cuModuleUnload(st.h)
	}
	st.h = 0
}

// handle returns the loaded module, loading it (again, after a reset)
// when needed. Device thread only.
func (m *Module) handle(t *Thread) (uintptr, error) {
	st := m.st
	if st.closed.Load() {
		return 0, fmt.Errorf("gpu: module %q was closed", m.name)
	}
	if st.h != 0 && st.gen == t.d.generation() {
		return st.h, nil
	}
	var h uintptr
	var code int
	var jitLog string
	if m.ptx {
		h, jitLog, code = cuModuleLoadEx(m.image)
	} else {
		h, code = cuModuleLoad(m.image)
	}
	if code != 0 {
		err := t.check(fmt.Sprintf("cuModuleLoadData(%s, %s)", m.name, m.format()), code)
		var e *Error
		if jitLog = strings.TrimSpace(jitLog); jitLog != "" && errors.As(err, &e) {
			e.Detail = "JIT log: " + jitLog
		}
		return 0, err
	}
	st.h, st.gen = h, t.d.generation()
	return h, nil
}

func (m *Module) format() string {
	if m.ptx {
		return "PTX " + card.Bytes(int64(len(m.image)))
	}
	return "CUBIN " + card.Bytes(int64(len(m.image)))
}

// resolveKernels sorts the declared kernel names into those the module
// exports by name and those it does not. Device thread only.
func (m *Module) resolveKernels(t *Thread) error {
	h, err := m.handle(t)
	if err != nil {
		return err
	}
	var found, hidden []string
	for _, name := range m.declared {
		if _, code := cuModuleFunction(h, name); code == 0 {
			found = append(found, name)
		} else {
			hidden = append(hidden, name)
		}
	}
	m.mu.Lock()
	m.kernels, m.hidden = found, hidden
	m.mu.Unlock()
	return nil
}

// Name returns the name the module was compiled under.
func (m *Module) Name() string { return m.name }

// Device returns the device the module is loaded on.
func (m *Module) Device() *Device { return m.d }

// Kernels returns the kernels of the source that can be launched by name
// (declared extern "C" __global__).
func (m *Module) Kernels() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.kernels...)
}

// Log returns NVRTC's log of the compilation (warnings), if any.
func (m *Module) Log() string { return m.log }

// FromCache reports whether the image came from the compile cache.
func (m *Module) FromCache() bool { return m.cached }

// Function returns the kernel called name. It must be declared
// extern "C" __global__ in the source.
func (m *Module) Function(name string) (*Function, error) {
	if m == nil {
		return nil, fmt.Errorf("gpu: Function(%q) on a nil *Module: nothing was compiled (a %%%%cuda cell binds nil on a machine without a GPU)", name)
	}
	m.mu.Lock()
	if f := m.funcs[name]; f != nil {
		m.mu.Unlock()
		return f, nil
	}
	m.mu.Unlock()
	f := &Function{m: m, name: name}
	if err := m.d.exec(func(t *Thread) error { _, err := f.handle(t); return err }); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.funcs == nil {
		m.funcs = map[string]*Function{}
	}
	if g := m.funcs[name]; g != nil {
		return g, nil
	}
	m.funcs[name] = f
	return f, nil
}

// Close unloads the module; its Functions stop working. Close is
// idempotent; a module the program drops is unloaded when collected.
func (m *Module) Close() error {
	if m.st.closed.Load() {
		return nil
	}
	return m.d.exec(func(t *Thread) error {
		if m.st.closed.CompareAndSwap(false, true) {
			m.st.unload()
		}
		return nil
	})
}

// String lists the module's kernels.
func (m *Module) String() string {
	ks := m.Kernels()
	m.mu.Lock()
	hidden := m.hidden
	m.mu.Unlock()
	s := fmt.Sprintf("module %q on %v (%s %s", m.name, m.d, m.arch, m.format())
	if m.cached {
		s += ", from cache"
	}
	s += "): "
	if len(ks) == 0 {
		s += "no kernels"
	} else {
		s += strings.Join(ks, ", ")
	}
	if len(hidden) > 0 {
		s += fmt.Sprintf("; not callable by name (declare them extern \"C\"): %s", strings.Join(hidden, ", "))
	}
	return s
}

// HTML renders the module as a card with a row per kernel: registers,
// the largest block it can launch, static shared and local memory.
func (m *Module) HTML() string {
	c := card.New(fmt.Sprintf("CUDA module %q", m.name)).
		Row("device", m.d.String()).
		Row("image", m.arch+" "+m.format()).
		Row("compiled", map[bool]string{true: "from cache", false: "now, by NVRTC"}[m.cached])
	if n := len(parseDiagnostics(m.log)); n > 0 {
		c.Row("compile log", fmt.Sprintf("%d message(s); see Log()", n))
	}
	var rows [][]string
	for _, k := range m.Kernels() {
		f, err := m.Function(k)
		if err != nil {
			rows = append(rows, []string{k, "error: " + err.Error()})
			continue
		}
		a, err := f.Attributes()
		if err != nil {
			rows = append(rows, []string{k, "error: " + err.Error()})
			continue
		}
		rows = append(rows, []string{k, strconv.Itoa(a.Registers), strconv.Itoa(a.MaxThreadsPerBlock),
			card.Bytes(int64(a.SharedBytes)), card.Bytes(int64(a.LocalBytes))})
	}
	if len(rows) > 0 {
		c.Table("kernels", []string{"kernel", "registers", "max block", "static shared", "local"}, rows)
	}
	m.mu.Lock()
	hidden := m.hidden
	m.mu.Unlock()
	if len(hidden) > 0 {
		c.Row("not callable by name", strings.Join(hidden, ", ")+` (declare extern "C")`)
	}
	return c.HTML()
}

// Function is one kernel of a module.
type Function struct {
	m    *Module
	name string
	// device thread state
	h         uintptr
	gen       uint64
	dynShared int // SetMaxDynamicShared, reapplied after a reload
}

// handle resolves the kernel (again, after a reload). Device thread only.
func (f *Function) handle(t *Thread) (uintptr, error) {
	m := f.m
	if f.h != 0 && f.gen == t.d.generation() && !m.st.closed.Load() {
		return f.h, nil
	}
	mh, err := m.handle(t)
	if err != nil {
		return 0, err
	}
	h, code := cuModuleFunction(mh, f.name)
	if code == codeNotFound {
		m.mu.Lock()
		ks := strings.Join(m.kernels, ", ")
		m.mu.Unlock()
		if ks == "" {
			ks = "none"
		}
		return 0, fmt.Errorf("gpu: module %q has no kernel %q (kernels: %s); a kernel is found by name only when declared extern \"C\" __global__", m.name, f.name, ks)
	}
	if err := t.check("cuModuleGetFunction("+f.name+")", code); err != nil {
		return 0, err
	}
	if f.dynShared > 0 {
		if err := t.check("cuFuncSetAttribute("+f.name+")", cuFuncSetAttr(h, funcAttrMaxDynamicShared, f.dynShared)); err != nil {
			return 0, err
		}
	}
	f.h, f.gen = h, t.d.generation()
	return h, nil
}

// CUfunction_attribute values.
const (
	funcAttrMaxThreadsPerBlock = 0
	funcAttrSharedSizeBytes    = 1
	funcAttrConstSizeBytes     = 2
	funcAttrLocalSizeBytes     = 3
	funcAttrNumRegs            = 4
	funcAttrMaxDynamicShared   = 8
)

// errNilFunction is the error of a method called on a nil *Function: the
// one Module.Function returns with its error, as on a machine without a
// GPU, where a %%cuda cell binds its module to nil.
func errNilFunction(method string) error {
	return fmt.Errorf("gpu: %s on a nil *Function: Module.Function failed, or there is no GPU (a %%%%cuda cell binds nil without one); check the error Module.Function returned", method)
}

// Name returns the kernel's name.
func (f *Function) Name() string { return f.name }

// Module returns the module the kernel belongs to.
func (f *Function) Module() *Module { return f.m }

func (f *Function) String() string {
	return fmt.Sprintf("kernel %s of module %q on %v", f.name, f.m.name, f.m.d)
}

// FuncAttributes are a compiled kernel's resource figures.
type FuncAttributes struct {
	// MaxThreadsPerBlock is the largest block the kernel can launch with.
	MaxThreadsPerBlock int
	// Registers per thread.
	Registers int
	// SharedBytes (static shared memory), ConstBytes and LocalBytes (per
	// thread), and MaxDynamicShared (bytes of dynamic shared memory a
	// launch may ask for).
	SharedBytes, ConstBytes, LocalBytes, MaxDynamicShared int
}

// Attributes queries the kernel's resource figures.
func (f *Function) Attributes() (FuncAttributes, error) {
	if f == nil {
		return FuncAttributes{}, errNilFunction("Attributes")
	}
	var a FuncAttributes
	err := f.m.d.exec(func(t *Thread) error {
		h, err := f.handle(t)
		if err != nil {
			return err
		}
		for _, q := range []struct {
			attr int
			dst  *int
		}{
			{funcAttrMaxThreadsPerBlock, &a.MaxThreadsPerBlock}, {funcAttrNumRegs, &a.Registers},
			{funcAttrSharedSizeBytes, &a.SharedBytes}, {funcAttrConstSizeBytes, &a.ConstBytes},
			{funcAttrLocalSizeBytes, &a.LocalBytes}, {funcAttrMaxDynamicShared, &a.MaxDynamicShared},
		} {
			v, code := cuFuncAttr(q.attr, h)
			if err := t.check("cuFuncGetAttribute("+f.name+")", code); err != nil {
				return err
			}
			*q.dst = v
		}
		return nil
	})
	return a, err
}

// MaxBlockSize returns the largest block (threads) the kernel can launch
// with, given its register use (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK).
func (f *Function) MaxBlockSize() (int, error) {
	if f == nil {
		return 0, errNilFunction("MaxBlockSize")
	}
	var n int
	err := f.m.d.exec(func(t *Thread) error {
		h, err := f.handle(t)
		if err != nil {
			return err
		}
		v, code := cuFuncAttr(funcAttrMaxThreadsPerBlock, h)
		n = v
		return t.check("cuFuncGetAttribute("+f.name+")", code)
	})
	return n, err
}

// blockCandidates are the block sizes BlockSizeFor tries, largest first.
var blockCandidates = []int{1024, 768, 512, 384, 256, 128, 64, 32}

// BlockSizeFor returns the block size (threads) that keeps the most
// threads resident per SM when each block uses shared bytes of dynamic
// shared memory: of 1024, 768, 512, 384, 256, 128, 64 and 32 (those the
// kernel can launch with) the one with the largest blocks·size from
// cuOccupancyMaxActiveBlocksPerMultiprocessor, ties going to the larger
// block. It fails when no size fits.
func (f *Function) BlockSizeFor(shared int) (int, error) {
	if f == nil {
		return 0, errNilFunction("BlockSizeFor")
	}
	if shared < 0 {
		return 0, fmt.Errorf("gpu: BlockSizeFor(%d): negative shared memory", shared)
	}
	best := 0
	err := f.m.d.exec(func(t *Thread) error {
		h, err := f.handle(t)
		if err != nil {
			return err
		}
		limit, code := cuFuncAttr(funcAttrMaxThreadsPerBlock, h)
		if err := t.check("cuFuncGetAttribute("+f.name+")", code); err != nil {
			return err
		}
		bestThreads := 0
		for _, b := range blockCandidates {
			if b > limit {
				continue
			}
			n, code := cuOccupancy(h, b, shared)
			if err := t.check("cuOccupancyMaxActiveBlocksPerMultiprocessor("+f.name+")", code); err != nil {
				return err
			}
			if n*b > bestThreads {
				best, bestThreads = b, n*b
			}
		}
		if bestThreads == 0 {
			return fmt.Errorf("gpu: kernel %s cannot run with %s of dynamic shared memory per block at any block size (see SetMaxDynamicShared)", f.name, card.Bytes(int64(shared)))
		}
		return nil
	})
	return best, err
}

// SetMaxDynamicShared lets launches of the kernel ask for up to bytes of
// dynamic shared memory (needed above 48 KiB;
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
func (f *Function) SetMaxDynamicShared(bytes int) error {
	if f == nil {
		return errNilFunction("SetMaxDynamicShared")
	}
	if bytes < 0 {
		return fmt.Errorf("gpu: SetMaxDynamicShared(%d): negative size", bytes)
	}
	return f.m.d.exec(func(t *Thread) error {
		h, err := f.handle(t)
		if err != nil {
			return err
		}
		if err := t.check("cuFuncSetAttribute("+f.name+", max dynamic shared)", cuFuncSetAttr(h, funcAttrMaxDynamicShared, bytes)); err != nil {
			return err
		}
		f.dynShared = bytes
		return nil
	})
}

// Launch runs the kernel on the device's default stream with grid·block
// threads and shared bytes of dynamic shared memory. It returns when the
// launch is queued: a fault surfaces at the next synchronising call. See
// Thread.Launch for the arguments.
func (f *Function) Launch(grid, block Dim, shared int, args ...any) error {
	if f == nil {
		return errNilFunction("Launch")
	}
	if err := cancel.Check(); err != nil {
		return fmt.Errorf("gpu: launching %s: %w", f.name, err)
	}
	return f.m.d.exec(func(t *Thread) error { return t.launch(nil, f, grid, block, shared, args, nil) })
}

// LaunchOn is Launch on stream s (nil: the default stream).
func (f *Function) LaunchOn(s *Stream, grid, block Dim, shared int, args ...any) error {
	if f == nil {
		return errNilFunction("LaunchOn")
	}
	if err := cancel.Check(); err != nil {
		return fmt.Errorf("gpu: launching %s: %w", f.name, err)
	}
	return f.m.d.exec(func(t *Thread) error { return t.launch(s, f, grid, block, shared, args, nil) })
}

// Launch queues kernel f on the default stream, with no goroutine hop.
//
// It first polls the cancellation point (cancel.Check) and returns its
// error, so a launch loop stops between launches on a notebook interrupt.
// A grid with X = 0 launches nothing. Each argument is passed in an
// 8-byte slot, little-endian, and the kernel reads as many bytes as its
// parameter's C type has:
//
//	*Int32s, *Uint32s, *Int64s, *Uint64s,
//	*Float32s, *Float64s, *Uint8s   int*, unsigned*, long long*, unsigned long long*,
//	                                float*, double*, unsigned char* (the device
//	                                address; a nil buffer passes NULL)
//	int, int64                      long long, or int when the value fits
//	int32, int16, int8              int (sign-extended, so long long works too)
//	uint32, uint16, uint8           unsigned int (zero-extended)
//	uint64, uint                    unsigned long long
//	float32                         float
//	float64                         double
//	bool                            bool or int (1 or 0)
//
// Any other type is an error naming it and its position.
func (t *Thread) Launch(f *Function, grid, block Dim, shared int, args ...any) error {
	return t.launch(nil, f, grid, block, shared, args, nil)
}

// LaunchOn is Launch on stream s (nil: the default stream).
func (t *Thread) LaunchOn(s *Stream, f *Function, grid, block Dim, shared int, args ...any) error {
	return t.launch(s, f, grid, block, shared, args, nil)
}

// launch launches f with args, then tail, as its arguments (tail: the
// arguments a wrapper adds, LaunchLog's entries, without building a
// slice of them all: a launch allocates nothing).
func (t *Thread) launch(s *Stream, f *Function, grid, block Dim, shared int, args, tail []any) error {
	if f == nil {
		return errors.New("gpu: launch of a nil *Function")
	}
	if err := cancel.Check(); err != nil {
		return fmt.Errorf("gpu: launching %s: %w", f.name, err)
	}
	if f.m.d != t.d {
		return fmt.Errorf("gpu: kernel %s belongs to %v, not to %v", f.name, f.m.d, t.d)
	}
	g, err := grid.dims("grid")
	if err != nil {
		return fmt.Errorf("gpu: launching %s: %w", f.name, err)
	}
	if g[0] == 0 {
		return nil
	}
	b, err := block.dims("block")
	if err != nil || b[0] == 0 {
		return fmt.Errorf("gpu: launching %s: block %v must have at least one thread", f.name, block)
	}
	if shared < 0 || shared > math.MaxUint32 {
		return fmt.Errorf("gpu: launching %s: shared memory %d out of range", f.name, shared)
	}
	n := len(args) + len(tail)
	if n > maxArgs {
		return fmt.Errorf("gpu: launching %s: %d arguments, at most %d", f.name, n, maxArgs)
	}
	for i := range n {
		var v uint64
		var err error
		if i < len(args) {
			v, err = t.argValue(f, i, n, args[i])
		} else {
			v, err = t.argValue(f, i, n, tail[i-len(args)])
		}
		if err != nil {
			return err
		}
		t.slots[i] = v
	}
	h, err := f.handle(t)
	if err != nil {
		return err
	}
	var sh uintptr
	if s != nil {
		if sh, err = s.handleOn(t, "LaunchOn"); err != nil {
			return err
		}
	}
	t.d.lastKernel = f.name
	code := cuLaunch(h, g, b, uint32(shared), sh, &t.slots[0], n)
	runtime.KeepAlive(args)
	runtime.KeepAlive(tail)
	if code != 0 {
		return t.check(fmt.Sprintf("cuLaunchKernel(%s, grid %v, block %v, shared %d)", f.name, grid, block, shared), code)
	}
	return nil
}

// argValue packs kernel argument i into its 8-byte slot.
func (t *Thread) argValue(f *Function, i, n int, a any) (uint64, error) {
	switch v := a.(type) {
	case deviceBuffer:
		p, err := v.devicePtr(t.d)
		if err != nil {
			return 0, fmt.Errorf("gpu: launching %s: argument %d of %d: %w", f.name, i+1, n, err)
		}
		return p, nil
	case int:
		return uint64(int64(v)), nil
	case int64:
		return uint64(v), nil
	case int32:
		return uint64(int64(v)), nil
	case int16:
		return uint64(int64(v)), nil
	case int8:
		return uint64(int64(v)), nil
	case uint:
		return uint64(v), nil
	case uint64:
		return v, nil
	case uint32:
		return uint64(v), nil
	case uint16:
		return uint64(v), nil
	case uint8:
		return uint64(v), nil
	case float32:
		return uint64(math.Float32bits(v)), nil
	case float64:
		return math.Float64bits(v), nil
	case bool:
		if v {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("gpu: launching %s: argument %d of %d has type %T, which a kernel cannot take; pass a device buffer (*gpu.Int32s, *gpu.Float32s, …), an integer, a float or a bool", f.name, i+1, n, a)
}
