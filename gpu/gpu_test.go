package gpu

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/card/cardtest"
)

// The TestGPU* tests need a real CUDA device; without one they skip with
// DefaultReason. They run on the GPU machine from the test binary:
//
//	go test -c -o gpu.test ./gpu          (on the build machine)
//	./gpu.test -test.v -test.run 'GPU'    (on the GPU machine)

// requireGPU returns the default device, or skips the test.
func requireGPU(t testing.TB) *Device {
	t.Helper()
	d := Default()
	if d.IsHost() {
		t.Skip(DefaultReason())
	}
	return d
}

const testKernels = `
typedef long long i64;
typedef unsigned long long u64;

extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) c[i] = a[i] + b[i];
}

// sum64 adds x[0..n) into *out; blockDim.x must be a power of two and
// the launch must give blockDim.x * 8 bytes of dynamic shared memory.
extern "C" __global__ void sum64(const i64 *x, i64 n, u64 *out) {
	extern __shared__ i64 part[];
	i64 acc = 0;
	for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) acc += x[i];
	part[threadIdx.x] = acc;
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0) atomicAdd(out, (u64)part[0]);
}

extern "C" __global__ void bad_write(int *p) { p[threadIdx.x] = 42; }

extern "C" __global__ void empty() {}

extern "C" __global__ void allargs(int *oi, unsigned *ou, i64 *oll, u64 *oull, float *of, double *od, unsigned char *ob,
		int a, int a2, i64 b, unsigned c, u64 d, float e, double f, bool g, unsigned char h, short k, i64 goint) {
	if (threadIdx.x != 0 || blockIdx.x != 0) return;
	oi[0] = a; oi[1] = a2; oi[2] = k;
	oll[0] = b; oll[1] = goint;
	ou[0] = c; oull[0] = d; of[0] = e; od[0] = f;
	ob[0] = g ? 1 : 0; ob[1] = h;
}
`

const dpKernels = `
extern "C" __global__ void child(int *out, int base) {
	int i = base + threadIdx.x;
	out[i] = 2 * i;
}

extern "C" __global__ void parent(int *out) {
	if (threadIdx.x == 0) child<<<1, blockDim.x>>>(out, blockIdx.x * blockDim.x);
}
`

func testModule(t testing.TB, d *Device) *Module {
	t.Helper()
	m, err := d.Compile("gpu_test", testKernels)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGPUInfo(t *testing.T) {
	d := requireGPU(t)
	in, err := d.Info()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s\n%s", in, Status())
	if in.SMs <= 0 || in.WarpSize != 32 || in.MaxThreadsPerBlock < 512 || in.L2Bytes <= 0 {
		t.Errorf("implausible Info %+v", in)
	}
	if !regexp.MustCompile(`^sm_\d+$`).MatchString(in.Arch) || in.Arch != fmt.Sprintf("sm_%d%d", in.ComputeMajor, in.ComputeMinor) {
		t.Errorf("Arch %q", in.Arch)
	}
	if in.TotalMemory <= 0 || in.FreeMemory <= 0 || in.FreeMemory > in.TotalMemory {
		t.Errorf("memory %d of %d", in.FreeMemory, in.TotalMemory)
	}
	if in.DriverVersion == "" || strings.HasPrefix(in.NVRTCVersion, "not found") {
		t.Errorf("driver %q NVRTC %q", in.DriverVersion, in.NVRTCVersion)
	}
	if in.MemoryClockKHz > 0 && in.PeakBandwidth != 2*float64(in.MemoryClockKHz)*1000*float64(in.MemoryBusWidth)/8 {
		t.Errorf("PeakBandwidth %g", in.PeakBandwidth)
	}
	cardtest.CheckHTML(t, d.HTML())
	if !strings.Contains(Status(), in.Name) || !strings.Contains(DefaultReason(), in.Name) {
		t.Errorf("Status / DefaultReason lack the device name")
	}
}

func TestGPUBuffersAndGraphs(t *testing.T) {
	d := requireGPU(t)
	checkBuffers(t, d)
	checkGraphs(t, d)
	checkGraphRoots(t, d)
	// 8-byte fills with unequal halves go through doubling copies.
	n := 1_000_003
	b := must[*Float64s](t)(d.AllocFloat64s(n))
	defer b.Free()
	if err := b.Fill(math.Pi); err != nil {
		t.Fatal(err)
	}
	for i, v := range must[[]float64](t)(b.ToHost()) {
		if v != math.Pi {
			t.Fatalf("element %d = %v", i, v)
		}
	}
}

func TestGPUVectorAdd(t *testing.T) {
	d := requireGPU(t)
	m := testModule(t, d)
	vadd := must[*Function](t)(m.Function("vadd"))
	n := 1<<20 + 3
	r := rand.New(rand.NewPCG(1, 2))
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = r.Float32()*100-50, r.Float32()
	}
	da, db := must[*Float32s](t)(d.Float32sFrom(a)), must[*Float32s](t)(d.Float32sFrom(b))
	dc := must[*Float32s](t)(d.AllocFloat32s(n))
	defer da.Free()
	defer db.Free()
	defer dc.Free()
	block := must[int](t)(vadd.BlockSizeFor(0))
	if err := vadd.Launch(Blocks(n, block), D1(block), 0, da, db, dc, n); err != nil {
		t.Fatal(err)
	}
	c := must[[]float32](t)(dc.ToHost())
	for i := range c {
		if c[i] != a[i]+b[i] {
			t.Fatalf("c[%d] = %v, want %v", i, c[i], a[i]+b[i])
		}
	}
	if !slices.Contains(m.Kernels(), "vadd") || !strings.Contains(m.String(), "vadd") {
		t.Errorf("module listing: %v", m)
	}
	cardtest.CheckHTML(t, m.HTML())
}

func TestGPUReduction(t *testing.T) {
	d := requireGPU(t)
	sum := must[*Function](t)(testModule(t, d).Function("sum64"))
	n := 3<<20 + 17
	x := make([]int64, n)
	var want int64
	for i := range x {
		x[i] = int64(i%1000) - 300
		want += x[i]
	}
	dx := must[*Int64s](t)(d.Int64sFrom(x))
	out := must[*Uint64s](t)(d.AllocUint64s(1))
	defer dx.Free()
	defer out.Free()
	const block = 256
	err := d.Exec(func(th *Thread) error {
		return th.Launch(sum, D1(min(Blocks(n, block).X, 1024)), D1(block), block*8, dx, int64(n), out)
	})
	if err != nil {
		t.Fatal(err)
	}
	got := must[[]uint64](t)(out.ToHost())
	if int64(got[0]) != want {
		t.Errorf("sum %d, want %d", int64(got[0]), want)
	}
}

func TestGPUCompileError(t *testing.T) {
	d := requireGPU(t)
	src := "extern \"C\" __global__ void k(int *x) {\n\tint y = 1;\n\tx[0] = undefined_thing + y;\n}\n"
	_, err := d.Compile("broken", src, NoCache())
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *CompileError", err)
	}
	t.Logf("%v", err)
	diags := ce.Diagnostics()
	if len(diags) == 0 || diags[0].Line != 3 || diags[0].Severity != "error" || !strings.Contains(diags[0].Message, "undefined_thing") {
		t.Errorf("Diagnostics %+v\nlog:\n%s", diags, ce.Log)
	}
	if !strings.Contains(err.Error(), "broken(3): error") {
		t.Errorf("error lacks the log line: %v", err)
	}
}

func TestGPUCompileCache(t *testing.T) {
	d := requireGPU(t)
	t.Setenv("GRAPHNB_CACHE", t.TempDir())
	src := fmt.Sprintf("// unique %d\n%s", time.Now().UnixNano(), testKernels)
	before := compileCount.Load()
	m1 := must[*Module](t)(d.Compile("cache_test", src))
	m2 := must[*Module](t)(d.Compile("cache_test", src))
	memCache.Lock()
	memCache.m = nil
	memCache.Unlock()
	m3 := must[*Module](t)(d.Compile("cache_test", src))
	if n := compileCount.Load() - before; n != 1 || m1.FromCache() || !m2.FromCache() || !m3.FromCache() {
		t.Errorf("%d NVRTC compilations (want 1); FromCache %v %v %v", n, m1.FromCache(), m2.FromCache(), m3.FromCache())
	}
	if len(cacheFiles()) != 1 {
		t.Errorf("cache files %v", cacheFiles())
	}
	if _, err := m3.Function("vadd"); err != nil {
		t.Fatal(err)
	}
}

func TestGPUOutOfMemory(t *testing.T) {
	d := requireGPU(t)
	in := must[Info](t)(d.Info())
	_, err := d.AllocUint8s(int(in.FreeMemory + 4<<30))
	if !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "free") || !strings.Contains(err.Error(), "Free") {
		t.Fatalf("allocating more than is free: %v", err)
	}
	t.Logf("%v", err)
	b := must[*Uint8s](t)(d.AllocUint8s(1 << 20))
	defer b.Free()
	if err := b.Fill(7); err != nil {
		t.Fatal(err)
	}
	vadd := must[*Function](t)(testModule(t, d).Function("vadd"))
	x := must[*Float32s](t)(d.Float32sFrom([]float32{1, 2}))
	if err := vadd.Launch(D1(1), D1(32), 0, x, x, x, 2); err != nil {
		t.Fatal(err)
	}
	if got := must[[]float32](t)(x.ToHost()); got[1] != 4 {
		t.Errorf("after OOM: %v", got)
	}
}

func TestGPUFaultAndRecover(t *testing.T) {
	d := requireGPU(t)
	m := testModule(t, d)
	old := must[*Int32s](t)(d.Int32sFrom([]int32{1, 2, 3}))
	host := []int32{4, 5, 6}
	bad := must[*Function](t)(m.Function("bad_write"))
	err := bad.Launch(D1(1), D1(32), 0, uint64(8)) // writes through address 8
	if err == nil {
		err = d.Synchronize()
	}
	t.Logf("fault: %v", err)
	if !errors.Is(err, ErrFault) || !strings.Contains(err.Error(), `"bad_write"`) {
		t.Fatalf("error %v does not report a fault in bad_write", err)
	}
	if err := old.Upload(host); !errors.Is(err, ErrInvalidated) {
		t.Errorf("old buffer after the fault: %v", err)
	}
	if host[0] != 4 {
		t.Error("host data changed")
	}
	if err := d.Err(); err != nil {
		// The driver refuses this process the GPU for good (drivers 580 /
		// CUDA 13 do): every call must say so at once, and the host device
		// must keep working.
		t.Logf("unrecoverable, as the driver documents: %v", err)
		if !strings.Contains(err.Error(), "restart the kernel") || !errors.Is(err, ErrFault) {
			t.Errorf("Err() = %v, want a fault telling to restart the kernel", err)
		}
		start := time.Now()
		if _, err := d.AllocInt32s(4); !errors.Is(err, ErrInvalidated) || !strings.Contains(err.Error(), "restart the kernel") {
			t.Errorf("allocation on the unusable device: %v", err)
		}
		if _, err := m.Function("vadd"); err == nil {
			if err := must[*Function](t)(m.Function("vadd")).Launch(D1(1), D1(32), 0, old, old, old, 3); !errors.Is(err, ErrFault) {
				t.Errorf("launch on the unusable device: %v", err)
			}
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("calls on the unusable device took %v; they should fail at once", time.Since(start))
		}
		hb := must[*Int32s](t)(Host().Int32sFrom(host))
		if got := must[[]int32](t)(hb.ToHost()); !slices.Equal(got, host) {
			t.Errorf("host device after the fault: %v", got)
		}
		return
	}
	// A driver that lets the process recover: the device and module work.
	vadd := must[*Function](t)(m.Function("vadd"))
	x := must[*Float32s](t)(d.Float32sFrom([]float32{1, 2, 3}))
	defer x.Free()
	if err := vadd.Launch(D1(1), D1(32), 0, x, x, x, 3); err != nil {
		t.Fatal(err)
	}
	if got := must[[]float32](t)(x.ToHost()); !slices.Equal(got, []float32{2, 4, 6}) {
		t.Errorf("after recovery: %v", got)
	}
}

func TestGPURMATRoundTrip(t *testing.T) {
	d := requireGPU(t)
	scale := 20
	if testing.Short() {
		scale = 16
	}
	g := must[*graph.CSR](t)(gen.RMAT(scale, 16, gen.Seed(7)))
	dg := must[*Graph](t)(d.Upload(g))
	defer dg.Close()
	t.Logf("%v", dg)
	back := must[*graph.CSR](t)(dg.Download())
	if !slices.Equal(back.Offsets, g.Offsets) || !slices.Equal(back.Adj, g.Adj) || back.Directed != g.Directed {
		t.Fatal("CSR structure differs after the round trip")
	}
	if len(back.Weights) != len(g.Weights) {
		t.Fatal("weights lost")
	}
	for i := range g.Weights {
		if math.Float32bits(back.Weights[i]) != math.Float32bits(g.Weights[i]) {
			t.Fatalf("weight %d differs", i)
		}
	}
	coo := must[*graph.COO](t)(g.UndirectedCOO())
	dc := must[*COO](t)(d.UploadCOO(coo))
	defer dc.Close()
	cb := must[*graph.COO](t)(dc.Download())
	if !slices.Equal(cb.Start, coo.Start) || !slices.Equal(cb.End, coo.End) || len(cb.Weights) != len(coo.Weights) {
		t.Fatal("COO differs after the round trip")
	}
	for i := range coo.Weights {
		if math.Float32bits(cb.Weights[i]) != math.Float32bits(coo.Weights[i]) {
			t.Fatalf("COO weight %d differs", i)
		}
	}
}

func TestGPUDynamicParallelism(t *testing.T) {
	d := requireGPU(t)
	m, err := d.Compile("dp_test", dpKernels, DynamicParallelism())
	if err != nil {
		t.Fatal(err)
	}
	parent := must[*Function](t)(m.Function("parent"))
	const blocks, block = 40, 64
	out := must[*Int32s](t)(d.AllocInt32s(blocks * block))
	defer out.Free()
	if err := parent.Launch(D1(blocks), D1(block), 0, out); err != nil {
		t.Fatal(err)
	}
	got := must[[]int32](t)(out.ToHost())
	for i, v := range got {
		if v != int32(2*i) {
			t.Fatalf("out[%d] = %d, want %d", i, v, 2*i)
		}
	}
}

func TestGPUUserKernelArguments(t *testing.T) {
	d := requireGPU(t)
	f := must[*Function](t)(testModule(t, d).Function("allargs"))
	oi, ou := must[*Int32s](t)(d.AllocInt32s(3)), must[*Uint32s](t)(d.AllocUint32s(1))
	oll, oull := must[*Int64s](t)(d.AllocInt64s(2)), must[*Uint64s](t)(d.AllocUint64s(1))
	of, od, ob := must[*Float32s](t)(d.AllocFloat32s(1)), must[*Float64s](t)(d.AllocFloat64s(1)), must[*Uint8s](t)(d.AllocUint8s(2))
	err := f.Launch(D1(1), D1(32), 0, oi, ou, oll, oull, of, od, ob,
		int32(-7), -8, int64(-1<<40), uint32(0xFFFFFFF0), uint64(1<<63+9), float32(3.25), -1e300, true, uint8(250), int16(-300), 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want any) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("int outputs", must[[]int32](t)(oi.ToHost()), []int32{-7, -8, -300})
	check("long long outputs", must[[]int64](t)(oll.ToHost()), []int64{-1 << 40, 1 << 40})
	check("unsigned", must[[]uint32](t)(ou.ToHost()), []uint32{0xFFFFFFF0})
	check("unsigned long long", must[[]uint64](t)(oull.ToHost()), []uint64{1<<63 + 9})
	check("float", must[[]float32](t)(of.ToHost()), []float32{3.25})
	check("double", must[[]float64](t)(od.ToHost()), []float64{-1e300})
	check("bool, unsigned char", must[[]uint8](t)(ob.ToHost()), []uint8{1, 250})
	for _, b := range []interface{ Free() error }{oi, ou, oll, oull, of, od, ob} {
		b.Free()
	}
}

func TestGPUTimingStreamsEvents(t *testing.T) {
	d := requireGPU(t)
	m := testModule(t, d)
	vadd := must[*Function](t)(m.Function("vadd"))
	n := 1 << 22
	x := must[*Float32s](t)(d.AllocFloat32s(n))
	defer x.Free()
	if err := x.Fill(1); err != nil {
		t.Fatal(err)
	}
	el, err := d.Time(func(th *Thread) error {
		for i := 0; i < 10; i++ {
			if err := th.Launch(vadd, Blocks(n, 256), D1(256), 0, x, x, x, n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || el <= 0 {
		t.Fatalf("Time = %v, %v", el, err)
	}
	t.Logf("10 vadd launches over %d floats: %v", n, el)
	s := must[*Stream](t)(d.NewStream())
	defer s.Close()
	e1, e2 := must[*Event](t)(d.NewEvent()), must[*Event](t)(d.NewEvent())
	defer e1.Close()
	defer e2.Close()
	if err := e1.Record(s); err != nil {
		t.Fatal(err)
	}
	if err := vadd.LaunchOn(s, Blocks(n, 256), D1(256), 0, x, x, x, n); err != nil {
		t.Fatal(err)
	}
	if err := e2.Record(s); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if el, err := Elapsed(e1, e2); err != nil || el <= 0 {
		t.Errorf("Elapsed = %v, %v", el, err)
	}
	got := must[[]float32](t)(x.ToHost())
	if got[0] != 2048 || got[n-1] != 2048 { // 1 doubled 11 times
		t.Errorf("x = %v … %v, want 2048", got[0], got[n-1])
	}
}

func TestGPUBlockSizeFor(t *testing.T) {
	d := requireGPU(t)
	m := testModule(t, d)
	for _, name := range []string{"vadd", "sum64", "allargs"} {
		f := must[*Function](t)(m.Function(name))
		limit := must[int](t)(f.MaxBlockSize())
		b, err := f.BlockSizeFor(0)
		if err != nil || b > limit || !slices.Contains(blockCandidates, b) {
			t.Errorf("%s: BlockSizeFor(0) = %d, %v (max %d)", name, b, err, limit)
		}
		t.Logf("%s: block %d (max %d)", name, b, limit)
	}
	sum := must[*Function](t)(m.Function("sum64"))
	if err := sum.SetMaxDynamicShared(96 << 10); err != nil {
		t.Fatal(err)
	}
	if b, err := sum.BlockSizeFor(96 << 10); err != nil || b == 0 {
		t.Errorf("BlockSizeFor(96 KiB) = %d, %v", b, err)
	}
}

func TestGPUCancel(t *testing.T) {
	d := requireGPU(t)
	vadd := must[*Function](t)(testModule(t, d).Function("vadd"))
	x := must[*Float32s](t)(d.Float32sFrom([]float32{1}))
	defer x.Free()
	t.Cleanup(cancel.Clear)
	cancel.Request()
	if err := vadd.Launch(D1(1), D1(32), 0, x, x, x, 1); !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("launch after an interrupt: %v", err)
	}
	cancel.Clear()
	if err := vadd.Launch(D1(1), D1(32), 0, x, x, x, 1); err != nil {
		t.Fatal(err)
	}
	if got := must[[]float32](t)(x.ToHost()); got[0] != 2 {
		t.Errorf("x = %v", got)
	}
}

func TestGPUCopyModes(t *testing.T) {
	d := requireGPU(t)
	n := (96 << 20) / 4
	host := make([]uint32, n)
	for i := range host {
		host[i] = uint32(i) * 2654435761
	}
	defer copyConfig.override.Store(0)
	for _, mode := range []struct {
		name string
		m    int
	}{{"register", copyRegister}, {"pageable", copyPageable}, {"staged", copyStaged}} {
		t.Run(mode.name, func(t *testing.T) {
			copyConfig.override.Store(int32(mode.m + 1))
			b := must[*Uint32s](t)(d.Uint32sFrom(host))
			defer b.Free()
			got := must[[]uint32](t)(b.ToHost())
			if !slices.Equal(got, host) {
				t.Fatal("round trip differs")
			}
		})
	}
}

// TestNilModuleAndFunction: what a %%cuda cell binds without a GPU (a nil
// module) gives errors that say so down the whole README example, never a
// nil dereference.
func TestNilModuleAndFunction(t *testing.T) {
	var m *Module
	f, err := m.Function("twice")
	if err == nil || f != nil || !strings.Contains(err.Error(), "nil *Module") {
		t.Fatalf("nil module: %v, %v", f, err)
	}
	for name, err := range map[string]error{
		"Launch":              f.Launch(Blocks(3, 128), D1(128), 0, 3),
		"LaunchOn":            f.LaunchOn(nil, Blocks(3, 128), D1(128), 0, 3),
		"BlockSizeFor":        func() error { _, err := f.BlockSizeFor(0); return err }(),
		"MaxBlockSize":        func() error { _, err := f.MaxBlockSize(); return err }(),
		"Attributes":          func() error { _, err := f.Attributes(); return err }(),
		"SetMaxDynamicShared": f.SetMaxDynamicShared(0),
	} {
		if err == nil || !strings.Contains(err.Error(), "gpu: "+name+" on a nil *Function") {
			t.Errorf("%s on a nil *Function: %v", name, err)
		}
	}
}
