//go:build cgo

package gpu

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/internal/card/cardtest"
)

// The fake-driver tests build a fake libcuda.so.1 and a fake NVRTC from C
// in testdata/ (they need gcc) and run each scenario in a child process
// (this test binary, re-executed): the driver is loaded once per process,
// so every scenario gets a fresh package state and its own environment.

const scenarioEnv = "GRAPHNB_FAKE_SCENARIO"

// The fakes' sources travel inside the test binary, which is copied to
// other machines to run.
var (
	//go:embed testdata/fakecuda.c
	fakeCudaSrc []byte
	//go:embed testdata/fakenvrtc.c
	fakeNVRTCSrc []byte
)

// fakeLibs are the built fake libraries.
type fakeLibs struct {
	dir                                 string
	cuda, cudaNoAlloc, cudaNoElapsedV2  string
	nvrtc, nvrtcNoCUBIN, cudadevrtDummy string
}

func buildFakes(t *testing.T) fakeLibs {
	t.Helper()
	cc := ""
	for _, c := range []string{os.Getenv("CC"), "gcc", "cc"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			cc = p
			break
		}
	}
	if cc == "" {
		t.Skip("no C compiler (gcc) on this machine: the fake-driver tests build their fake libcuda.so.1 with one; the GPU tests do not need it")
	}
	dir := t.TempDir()
	for name, src := range map[string][]byte{"fakecuda.c": fakeCudaSrc, "fakenvrtc.c": fakeNVRTCSrc} {
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := func(out, src string, defs ...string) string {
		path := filepath.Join(dir, out)
		args := append([]string{"-shared", "-fPIC", "-O1", "-o", path, filepath.Join(dir, src)}, defs...)
		args = append(args, "-lpthread")
		if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", out, err, b)
		}
		return path
	}
	f := fakeLibs{dir: dir}
	f.cuda = build("libcuda.so.1", "fakecuda.c")
	f.cudaNoAlloc = build("libcuda-noalloc.so.1", "fakecuda.c", "-DOMIT_MEMALLOC")
	f.cudaNoElapsedV2 = build("libcuda-oldelapsed.so.1", "fakecuda.c", "-DNO_ELAPSED_V2")
	f.nvrtc = build("libnvrtc.so.13", "fakenvrtc.c")
	f.nvrtcNoCUBIN = build("libnvrtc-nocubin.so.11.0", "fakenvrtc.c", "-DNO_CUBIN")
	f.cudadevrtDummy = filepath.Join(dir, "libcudadevrt.a")
	if err := os.WriteFile(f.cudadevrtDummy, []byte("!<arch>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// scenario is one child-process test: extra environment and the checks.
type scenario struct {
	name string
	env  func(f fakeLibs) []string
	run  func(t *testing.T)
}

var scenarios []scenario

func addScenario(name string, env func(f fakeLibs) []string, run func(t *testing.T)) {
	scenarios = append(scenarios, scenario{name, env, run})
}

// TestFakeDriver runs every scenario in a child process against the fake
// libraries.
func TestFakeDriver(t *testing.T) {
	if os.Getenv(scenarioEnv) != "" {
		t.Skip("parent test; this is a child process")
	}
	f := buildFakes(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var base []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GRAPHNB_") || strings.HasPrefix(kv, "FAKE_") || strings.HasPrefix(kv, "CUDA_HOME=") || strings.HasPrefix(kv, "GORACE=") {
			continue
		}
		base = append(base, kv)
	}
	// A race-enabled child would sleep a second at exit waiting for
	// reports; it has none to wait for once it is done.
	base = append(base, strings.TrimSpace("GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := append([]string(nil), base...)
			env = append(env,
				scenarioEnv+"="+sc.name,
				"GRAPHNB_LIBCUDA="+f.cuda,
				"GRAPHNB_NVRTC="+f.nvrtc,
				"GRAPHNB_CUDADEVRT="+f.cudadevrtDummy,
				"GRAPHNB_CACHE="+filepath.Join(dir, "cache"),
				"FAKE_CUDA_LOG="+filepath.Join(dir, "calls.log"),
				"FAKE_DIR="+dir,
			)
			if sc.env != nil {
				env = append(env, sc.env(f)...) // later entries win
			}
			cmd := exec.Command(exe, "-test.run=^TestFakeChild$", "-test.v", "-test.count=1")
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil || !bytes.Contains(out, []byte("--- PASS: TestFakeChild")) {
				log, _ := os.ReadFile(filepath.Join(dir, "calls.log"))
				t.Fatalf("scenario %s failed (%v):\n%s\n--- fake driver log (last lines):\n%s", sc.name, err, out, tail(string(log), 40))
			}
		})
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestFakeChild is the child side: it runs the scenario named in the
// environment.
func TestFakeChild(t *testing.T) {
	name := os.Getenv(scenarioEnv)
	if name == "" {
		t.Skip("runs only as a child of TestFakeDriver")
	}
	for _, sc := range scenarios {
		if sc.name == name {
			sc.run(t)
			if strings.Contains(readLog(t), "no-context") {
				t.Errorf("a driver call ran off the device thread (no current context):\n%s", grepLog(t, "no-context"))
			}
			return
		}
	}
	t.Fatalf("unknown scenario %q", name)
}

func readLog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(os.Getenv("FAKE_CUDA_LOG"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// grepLog returns the log lines starting with prefix.
func grepLog(t *testing.T, prefix string) string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(readLog(t), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func countLog(t *testing.T, prefix string) int {
	t.Helper()
	s := grepLog(t, prefix)
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

func fakeDevice(t *testing.T) *Device {
	t.Helper()
	d := Default()
	if d.IsHost() {
		t.Fatalf("Default is the host: %s", DefaultReason())
	}
	return d
}

const fakeKernels = `// kernels the fake driver knows
extern "C" __global__ void fake_iota(int *out, int n) { }
extern "C" __global__ void fake_fault_kernel(int *p) { }
extern "C" __global__ void plain(float *x) { }
extern "C" __global__ void big_regs(float *x) { }
extern "C" __global__ void every(int *a, int b, long long c, unsigned d, float e, double f, bool g,
                                 unsigned char h, unsigned long long i, float *j, short k, int l) { }
__global__ void mangled(int *x) { }
`

func fakeModule(t *testing.T, d *Device) *Module {
	t.Helper()
	return must[*Module](t)(d.Compile("fake", fakeKernels))
}

func fn(t *testing.T, m *Module, name string) *Function {
	t.Helper()
	return must[*Function](t)(m.Function(name))
}

var launchRE = regexp.MustCompile(`^cuLaunchKernel name=(\S+) grid=(\S+) block=(\S+) shared=(\d+) stream=(\S+) nargs=(\d+) args=(\S*)$`)

// lastLaunch parses the fake driver's log line of the last launch.
func lastLaunch(t *testing.T) (name, grid, block, shared, stream string, args [][8]byte) {
	t.Helper()
	lines := strings.Split(grepLog(t, "cuLaunchKernel "), "\n")
	m := launchRE.FindStringSubmatch(lines[len(lines)-1])
	if m == nil {
		t.Fatalf("no launch in the log: %q", lines)
	}
	if m[7] != "" {
		for _, h := range strings.Split(m[7], ",") {
			b, err := hex.DecodeString(h)
			if err != nil || len(b) != 8 {
				t.Fatalf("bad argument bytes %q", h)
			}
			args = append(args, [8]byte(b))
		}
	}
	if n, _ := strconv.Atoi(m[6]); n != len(args) {
		t.Fatalf("nargs %d, %d decoded", n, len(args))
	}
	return m[1], m[2], m[3], m[4], m[5], args
}

func le(v uint64) [8]byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return b
}

func init() {
	addScenario("load", nil, func(t *testing.T) {
		devs := must[[]*Device](t)(Devices())
		if len(devs) != 1 || devs[0].Name() != "Fake H100 80GB HBM3" || devs[0].Ordinal() != 0 {
			t.Fatalf("Devices() = %v", devs)
		}
		d := fakeDevice(t)
		if d != devs[0] || must[*Device](t)(Open(0)) != d {
			t.Error("Open(0), Devices()[0] and Default() are not the same device")
		}
		if got, want := DefaultReason(), "Fake H100 80GB HBM3 (device 0)"; got != want {
			t.Errorf("DefaultReason() = %q, want %q", got, want)
		}
		_, err := Open(1)
		wantErr(t, err, ErrNoDevice, "Open(1)", "1 device")
		in := must[Info](t)(d.Info())
		want := Info{Name: "Fake H100 80GB HBM3", Ordinal: 0, ComputeMajor: 9, ComputeMinor: 0, SMs: 132,
			TotalMemory: 80 << 30, FreeMemory: 79 << 30, L2Bytes: 50 << 20, ClockKHz: 1980000, MemoryClockKHz: 2619000,
			MemoryBusWidth: 5120, PeakBandwidth: 2 * 2619000e3 * 5120 / 8, MaxThreadsPerBlock: 1024, WarpSize: 32,
			MaxSharedPerBlockOptin: 232448, DriverVersion: "13.0", NVRTCVersion: "13.0", Arch: "sm_90"}
		if in != want {
			t.Errorf("Info() =\n%+v\nwant\n%+v", in, want)
		}
		for _, s := range []string{"Fake H100 80GB HBM3", "sm_90", "132 SMs", "80.0 GiB total", "3.35 TB/s", "driver 13.0, NVRTC 13.0"} {
			if !strings.Contains(in.String(), s) {
				t.Errorf("Info.String() lacks %q:\n%s", s, in)
			}
		}
		st := Status()
		for _, s := range []string{"1 CUDA device(s), driver 13.0", "device 0: Fake H100 80GB HBM3", "default: Fake H100 80GB HBM3 (device 0)", "host: "} {
			if !strings.Contains(st, s) {
				t.Errorf("Status() lacks %q:\n%s", s, st)
			}
		}
		h := d.HTML()
		cardtest.CheckHTML(t, h)
		if !strings.Contains(h, "Fake H100 80GB HBM3") || !strings.Contains(h, "sm_90") {
			t.Errorf("HTML lacks the name or arch: %s", h)
		}
		if drvElapsedSymbol() != "cuEventElapsedTime_v2" {
			t.Errorf("timing symbol %q, want cuEventElapsedTime_v2", drvElapsedSymbol())
		}
		for _, l := range []string{"cuInit flags=0", "cuDevicePrimaryCtxRetain dev=0 retains=1", "cuCtxSetCurrent"} {
			if !strings.Contains(readLog(t), l) {
				t.Errorf("log lacks %q", l)
			}
		}
	})

	addScenario("missing_symbol", func(f fakeLibs) []string { return []string{"GRAPHNB_LIBCUDA=" + f.cudaNoAlloc} }, func(t *testing.T) {
		_, err := Devices()
		wantErr(t, err, ErrNoDriver, "lacks the symbol cuMemAlloc_v2", "libcuda-noalloc.so.1")
		if !Default().IsHost() {
			t.Fatal("Default is not the host")
		}
		r := DefaultReason()
		if !strings.HasPrefix(r, "no GPU: ") || !strings.Contains(r, "cuMemAlloc_v2") || !strings.HasSuffix(r, "; running on the CPU") {
			t.Errorf("DefaultReason() = %q", r)
		}
	})

	addScenario("no_library", func(f fakeLibs) []string {
		return []string{"GRAPHNB_LIBCUDA=" + filepath.Join(f.dir, "nowhere", "libcuda.so.1")}
	}, func(t *testing.T) {
		if !Default().IsHost() {
			t.Fatal("Default is not the host")
		}
		r := DefaultReason()
		if !regexp.MustCompile(`^no GPU: .*nowhere/libcuda\.so\.1 not found: .*; running on the CPU$`).MatchString(r) {
			t.Errorf("DefaultReason() = %q", r)
		}
		_, err := Devices()
		wantErr(t, err, ErrNoDriver, "not found")
		if s := Status(); !strings.HasPrefix(s, "no GPU: ") || !strings.Contains(s, "default: no GPU") {
			t.Errorf("Status() = %q", s)
		}
		_, err = Open(0)
		wantErr(t, err, ErrNoDriver)
	})

	addScenario("no_device", func(f fakeLibs) []string { return []string{"FAKE_CUDA_FAIL=cuInit=100"} }, func(t *testing.T) {
		_, err := Devices()
		wantErr(t, err, ErrNoDevice, "cuInit", "CUDA_ERROR_NO_DEVICE (100)", "(fake driver)")
		if !Default().IsHost() || !strings.Contains(DefaultReason(), "CUDA_ERROR_NO_DEVICE") {
			t.Errorf("Default %v, reason %q", Default(), DefaultReason())
		}
	})

	addScenario("open_fails", func(f fakeLibs) []string { return []string{"FAKE_CUDA_FAIL=cuDevicePrimaryCtxRetain=2"} }, func(t *testing.T) {
		if !Default().IsHost() {
			t.Fatal("Default is not the host")
		}
		if r := DefaultReason(); !strings.Contains(r, "no device could be opened") || !strings.Contains(r, "cuDevicePrimaryCtxRetain") {
			t.Errorf("DefaultReason() = %q", r)
		}
		d := must[*Device](t)(Open(0))
		_, err := d.AllocInt32s(4)
		wantErr(t, err, ErrOutOfMemory, "cuDevicePrimaryCtxRetain")
	})

	addScenario("error_mapping", func(f fakeLibs) []string { return []string{"FAKE_CUDA_FAIL=cuMemsetD32_v2=1:1"} }, func(t *testing.T) {
		d := fakeDevice(t)
		_, err := d.AllocInt32s(4)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v is not an *Error", err)
		}
		if e.Code != 1 || e.Name != "CUDA_ERROR_INVALID_VALUE" || e.Message != "invalid argument (fake driver)" {
			t.Errorf("error fields %+v", e)
		}
		if got, want := err.Error(), "gpu: AllocInt32s: cuMemsetD32_v2: CUDA_ERROR_INVALID_VALUE (1): invalid argument (fake driver)"; got != want {
			t.Errorf("error\n%q, want\n%q", got, want)
		}
		if d.MemoryUsed() != 0 {
			t.Errorf("MemoryUsed %d after a failed allocation, want 0", d.MemoryUsed())
		}
		b := must[*Int32s](t)(d.AllocInt32s(4))
		if d.MemoryUsed() != 16 {
			t.Errorf("MemoryUsed %d, want 16", d.MemoryUsed())
		}
		// A code the driver cannot name falls back to the built-in table.
		os.Setenv("FAKE_CUDA_FAIL", "cuMemcpyHtoD_v2=4242:1")
		err = b.Upload([]int32{1, 2, 3, 4})
		if !errors.As(err, &e) || e.Name != "CUDA_ERROR_4242" || e.Message != "unrecognised CUDA error code" {
			t.Errorf("unknown code: %v", err)
		}
		if !strings.HasPrefix(err.Error(), "gpu: Int32s.Upload: cuMemcpyHtoD_v2(16 B): CUDA_ERROR_4242 (4242)") {
			t.Errorf("unknown code: %q", err)
		}
		// Not sticky: the next call works.
		if err := b.Upload([]int32{1, 2, 3, 4}); err != nil {
			t.Fatal(err)
		}
	})

	addScenario("launch_args", nil, func(t *testing.T) {
		d := fakeDevice(t)
		m := fakeModule(t, d)
		buf := must[*Int32s](t)(d.AllocInt32s(16))
		every := fn(t, m, "every")
		args := []any{buf, int(-2), int64(1 << 40), uint32(7), float32(1.5), float64(-2.25), true,
			uint8(200), uint64(1<<63 + 5), (*Float32s)(nil), int16(-3), int32(-123456)}
		want := [][8]byte{le(buf.Ptr()), le(math.MaxUint64 - 1), le(1 << 40), le(7), le(uint64(math.Float32bits(1.5))),
			le(math.Float64bits(-2.25)), le(1), le(200), le(1<<63 + 5), le(0), le(uint64(math.MaxUint64 - 2)), le(uint64(0xFFFFFFFFFFFE1DC0))}
		if buf.Ptr() == 0 {
			t.Fatal("device buffer has address 0")
		}
		if err := every.Launch(D1(3), D2(32, 4), 64, args...); err != nil {
			t.Fatal(err)
		}
		name, grid, block, shared, stream, got := lastLaunch(t)
		if name != "every" || grid != "3,1,1" || block != "32,4,1" || shared != "64" || stream != "(nil)" {
			t.Errorf("launch name=%s grid=%s block=%s shared=%s stream=%s", name, grid, block, shared, stream)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("argument slots\n got %x\nwant %x", got, want)
		}
		// The same through Exec and Thread.Launch, with D3.
		err := d.Exec(func(th *Thread) error {
			if th.Device() != d {
				t.Error("Thread.Device")
			}
			return th.Launch(every, D3(1, 2, 3), D1(1), 0, args...)
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, grid, _, _, _, got := lastLaunch(t); grid != "1,2,3" || !reflect.DeepEqual(got, want) {
			t.Errorf("Thread.Launch: grid %s args %x", grid, got)
		}
		// The device address really reaches the kernel: fake_iota writes it.
		iota := fn(t, m, "fake_iota")
		if err := iota.Launch(Blocks(16, 8), D1(8), 0, buf, 16); err != nil {
			t.Fatal(err)
		}
		host := must[[]int32](t)(buf.ToHost())
		for i, v := range host {
			if v != int32(i) {
				t.Fatalf("fake_iota wrote %v", host)
			}
		}
	})

	addScenario("launch_errors", nil, func(t *testing.T) {
		d := fakeDevice(t)
		m := fakeModule(t, d)
		plain := fn(t, m, "plain")
		err := plain.Launch(D1(1), D1(32), 0, 1, "oops")
		wantErr(t, err, nil, "argument 2 of 2 has type string", "plain")
		err = plain.Launch(D1(1), D1(32), 0, struct{}{})
		wantErr(t, err, nil, "argument 1 of 1 has type struct {}")
		err = plain.Launch(D1(1), D1(32), 0, make([]any, maxArgs+1)...)
		wantErr(t, err, nil, "65 arguments")
		err = plain.Launch(D1(1), Dim{}, 0)
		wantErr(t, err, nil, "at least one thread")
		err = plain.Launch(D1(-1), D1(1), 0)
		wantErr(t, err, nil, "out of range")
		err = plain.Launch(D1(1), D1(1), -5)
		wantErr(t, err, nil, "shared memory -5")
		if err := plain.Launch(Blocks(0, 128), D1(128), 0); err != nil {
			t.Errorf("empty grid: %v", err)
		}
		if n := countLog(t, "cuLaunchKernel "); n != 0 {
			t.Errorf("%d launches reached the driver, want 0", n)
		}
		// A buffer from another device is refused.
		hb := must[*Int32s](t)(Host().AllocInt32s(4))
		err = plain.Launch(D1(1), D1(1), 0, hb)
		wantErr(t, err, nil, "argument 1 of 1", "host CPU")
		// A freed buffer is refused.
		b := must[*Int32s](t)(d.AllocInt32s(4))
		b.Free()
		wantErr(t, plain.Launch(D1(1), D1(1), 0, b), nil, "freed")
	})

	addScenario("cancel", nil, func(t *testing.T) {
		d := fakeDevice(t)
		plain := fn(t, fakeModule(t, d), "plain")
		cancel.Request()
		defer cancel.Clear()
		wantErr(t, plain.Launch(D1(1), D1(32), 0), cancel.ErrInterrupted, "plain")
		err := d.Exec(func(th *Thread) error {
			for i := 0; i < 10; i++ {
				if err := th.Launch(plain, D1(1), D1(32), 0); err != nil {
					return err
				}
			}
			return nil
		})
		wantErr(t, err, cancel.ErrInterrupted)
		if n := countLog(t, "cuLaunchKernel "); n != 0 {
			t.Errorf("%d launches after the interrupt", n)
		}
		cancel.Clear()
		if err := plain.Launch(D1(1), D1(32), 0); err != nil {
			t.Fatal(err)
		}
	})

	addScenario("events", nil, func(t *testing.T) {
		d := fakeDevice(t)
		a, b := must[*Event](t)(d.NewEvent()), must[*Event](t)(d.NewEvent())
		if err := a.Record(nil); err != nil {
			t.Fatal(err)
		}
		if err := b.Record(nil); err != nil {
			t.Fatal(err)
		}
		if err := b.Synchronize(); err != nil {
			t.Fatal(err)
		}
		if el := must[time.Duration](t)(Elapsed(a, b)); el != 2500*time.Microsecond {
			t.Errorf("Elapsed %v, want 2.5ms (cuEventElapsedTime_v2)", el)
		}
		plain := fn(t, fakeModule(t, d), "plain")
		el, err := d.Time(func(th *Thread) error { return th.Launch(plain, D1(1), D1(32), 0) })
		if err != nil || el != 2500*time.Microsecond {
			t.Errorf("Time = %v, %v", el, err)
		}
		boom := errors.New("boom")
		if _, err := d.Time(func(*Thread) error { return boom }); err != boom {
			t.Errorf("Time passes f's error: %v", err)
		}
		a.Close()
		a.Close()
		_, err = Elapsed(a, b)
		wantErr(t, err, nil, "closed")
	})

	addScenario("elapsed_fallback", func(f fakeLibs) []string { return []string{"GRAPHNB_LIBCUDA=" + f.cudaNoElapsedV2} }, func(t *testing.T) {
		d := fakeDevice(t)
		if drvElapsedSymbol() != "cuEventElapsedTime" {
			t.Errorf("timing symbol %q", drvElapsedSymbol())
		}
		el, err := d.Time(func(*Thread) error { return nil })
		if err != nil || el != 1500*time.Microsecond {
			t.Errorf("Time = %v, %v; want 1.5ms from cuEventElapsedTime", el, err)
		}
	})

	addScenario("streams", nil, func(t *testing.T) {
		d := fakeDevice(t)
		plain := fn(t, fakeModule(t, d), "plain")
		s := must[*Stream](t)(d.NewStream())
		if s.Device() != d {
			t.Error("Stream.Device")
		}
		if err := plain.LaunchOn(s, D1(2), D1(64), 0); err != nil {
			t.Fatal(err)
		}
		created := strings.TrimPrefix(grepLog(t, "cuStreamCreate "), "cuStreamCreate stream=")
		if _, _, _, _, stream, _ := lastLaunch(t); stream != created || stream == "(nil)" {
			t.Errorf("launch on stream %s, created %s", stream, created)
		}
		e := must[*Event](t)(d.NewEvent())
		if err := e.Record(s); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		if err := d.Exec(func(th *Thread) error { return th.StreamSynchronize(s) }); err != nil {
			t.Fatal(err)
		}
		if n := countLog(t, "cuStreamSynchronize stream="+created); n != 2 {
			t.Errorf("%d stream synchronisations, want 2", n)
		}
		if err := s.Close(); err != nil || s.Close() != nil {
			t.Errorf("Close: %v", err)
		}
		wantErr(t, plain.LaunchOn(s, D1(1), D1(1), 0), nil, "stream was closed")
		wantErr(t, s.Synchronize(), nil, "closed")
	})

	addScenario("occupancy", nil, func(t *testing.T) {
		d := fakeDevice(t)
		m := fakeModule(t, d)
		plain, big := fn(t, m, "plain"), fn(t, m, "big_regs")
		cases := []struct {
			f      *Function
			shared int
			want   int
		}{
			{plain, 0, 1024},       // 2×1024 = 4×512 = … = 2048 threads: ties go to the larger block
			{big, 0, 512},          // at most 640 threads: 4×512 = 2048 beats 5×384 = 1920
			{plain, 100_000, 1024}, // shared memory allows 2 blocks: 2×1024 threads beat the rest
		}
		for _, c := range cases {
			got, err := c.f.BlockSizeFor(c.shared)
			if err != nil || got != c.want {
				t.Errorf("%s.BlockSizeFor(%d) = %d, %v; want %d", c.f.Name(), c.shared, got, err, c.want)
			}
		}
		_, err := plain.BlockSizeFor(300_000)
		wantErr(t, err, nil, "cannot run with")
		if n := must[int](t)(big.MaxBlockSize()); n != 640 {
			t.Errorf("MaxBlockSize %d, want 640", n)
		}
		if err := plain.SetMaxDynamicShared(100_000); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(readLog(t), "cuFuncSetAttribute name=plain attr=8 value=100000") {
			t.Error("SetMaxDynamicShared did not reach cuFuncSetAttribute")
		}
		a := must[FuncAttributes](t)(plain.Attributes())
		if a.MaxDynamicShared != 100_000 || a.Registers != 32 || a.MaxThreadsPerBlock != 1024 {
			t.Errorf("Attributes %+v", a)
		}
	})

	addScenario("out_of_memory", func(f fakeLibs) []string { return []string{"FAKE_CUDA_FREE=1073741824"} }, func(t *testing.T) {
		d := fakeDevice(t)
		keep := must[*Uint8s](t)(d.AllocUint8s(1 << 20))
		_, err := d.AllocFloat32s(1 << 30)
		wantErr(t, err, ErrOutOfMemory, "cuMemAlloc_v2(4.0 GiB): CUDA_ERROR_OUT_OF_MEMORY (2)",
			"asked for 4.0 GiB, but only 1023.0 MiB of 80.0 GiB is free on Fake H100 80GB HBM3 (device 0)",
			"holds 1.0 MiB in live buffers", "free buffers with Free")
		if errors.Is(err, ErrFault) {
			t.Error("out of memory counted as a fault")
		}
		if d.MemoryUsed() != 1<<20 {
			t.Errorf("MemoryUsed %d", d.MemoryUsed())
		}
		b := must[*Float32s](t)(d.AllocFloat32s(1024))
		if err := b.Fill(3); err != nil {
			t.Fatal(err)
		}
		if n := countLog(t, "cuDevicePrimaryCtxReset_v2"); n != 0 {
			t.Error("out of memory reset the device")
		}
		keep.Free()
	})

	addScenario("fault_and_recover", nil, func(t *testing.T) {
		d := fakeDevice(t)
		m := fakeModule(t, d)
		old := must[*Int32s](t)(d.Int32sFrom([]int32{1, 2, 3}))
		s := must[*Stream](t)(d.NewStream())
		host := []int32{7, 8, 9}
		if err := fn(t, m, "fake_fault_kernel").Launch(D1(1), D1(1), 0, old); err != nil {
			t.Fatalf("the launch itself should succeed (faults are asynchronous): %v", err)
		}
		err := d.Synchronize()
		wantErr(t, err, ErrFault, `cuCtxSynchronize after kernel "fake_fault_kernel"`, "CUDA_ERROR_ILLEGAL_ADDRESS (700)",
			"the GPU was reset", "host data is intact")
		var e *Error
		if !errors.As(err, &e) || e.Kernel != "fake_fault_kernel" {
			t.Errorf("Error.Kernel: %+v", e)
		}
		if countLog(t, "cuDevicePrimaryCtxReset_v2 dev=0") != 1 {
			t.Error("no context reset")
		}
		if host[0] != 7 {
			t.Error("host data changed")
		}
		wantErr(t, old.Upload(host), ErrInvalidated, "Int32s.Upload", "allocate it again")
		_, err = old.ToHost()
		wantErr(t, err, ErrInvalidated)
		wantErr(t, fn(t, m, "fake_iota").Launch(D1(1), D1(3), 0, old, 3), ErrInvalidated)
		wantErr(t, s.Synchronize(), ErrInvalidated)
		if !strings.Contains(old.String(), "lost in a GPU reset") {
			t.Errorf("String %q", old)
		}
		if err := old.Free(); err != nil {
			t.Errorf("Free of a lost buffer: %v", err)
		}
		if d.MemoryUsed() != 0 {
			t.Errorf("MemoryUsed %d after reset", d.MemoryUsed())
		}
		// The device works again; the module reloads itself.
		fresh := must[*Int32s](t)(d.AllocInt32s(5))
		if err := fn(t, m, "fake_iota").Launch(D1(1), D1(5), 0, fresh, 5); err != nil {
			t.Fatal(err)
		}
		if err := d.Synchronize(); err != nil {
			t.Fatal(err)
		}
		if got := must[[]int32](t)(fresh.ToHost()); !reflect.DeepEqual(got, []int32{0, 1, 2, 3, 4}) {
			t.Errorf("after recovery: %v", got)
		}
		if n := countLog(t, "cuModuleLoadData "); n != 2 {
			t.Errorf("module loaded %d times, want 2 (again after the reset)", n)
		}
		// Retains stay balanced: one reference to the primary context.
		if !strings.Contains(grepLog(t, "cuDevicePrimaryCtxRelease_v2"), "retains=1") {
			t.Errorf("retain count after reset: %s", grepLog(t, "cuDevicePrimaryCtxRe"))
		}
	})

	addScenario("explicit_reset", nil, func(t *testing.T) {
		d := fakeDevice(t)
		b := must[*Float64s](t)(d.AllocFloat64s(3))
		if err := d.Reset(); err != nil {
			t.Fatal(err)
		}
		wantErr(t, b.Fill(1), ErrInvalidated)
		c := must[*Float64s](t)(d.Float64sFrom([]float64{1, 2}))
		if got := must[[]float64](t)(c.ToHost()); !reflect.DeepEqual(got, []float64{1, 2}) {
			t.Error(got)
		}
	})

	addScenario("module_cache", nil, func(t *testing.T) {
		d := fakeDevice(t)
		c := ModuleCache{Name: "cached", Source: "extern \"C\" __global__ void k() {}"}
		m1 := must[*Module](t)(c.For(d))
		m2 := must[*Module](t)(c.For(d))
		if m1 != m2 || countLog(t, "nvrtcCompileProgram name=cached") != 1 {
			t.Errorf("the second For compiled again (%p, %p, %d compilations)", m1, m2, countLog(t, "nvrtcCompileProgram name=cached"))
		}
		bad := ModuleCache{Name: "bad", Source: "extern \"C\" __global__ void k() { syntax_error; }"}
		_, err := bad.For(d)
		wantErr(t, err, nil, "compiling bad:")
		if _, err2 := bad.For(d); err2 == nil {
			t.Error("a failed compilation was cached as a module")
		}
		_, err = c.For(Host())
		wantErr(t, err, nil, "compiling cached:")
	})

	addScenario("traced_builds", nil, func(t *testing.T) {
		d := fakeDevice(t)
		b := NewTracedBuilds("k.cu", "extern \"C\" __global__ void k() {}", "K_TRACED")
		if b.Untraced.Name != "k.cu" || b.Traced.Name != "k.cu (traced)" || b.Traced.Source != PrependLaunchLog(b.Untraced.Source) ||
			len(b.Untraced.Options) != 0 || len(b.Traced.Options) != 1 || b.Build(false) != &b.Untraced || b.Build(true) != &b.Traced {
			t.Fatalf("builds %+v", b)
		}
		mu, mt := must[*Module](t)(b.For(d, false)), must[*Module](t)(b.For(d, true))
		if mu == mt || mu != must[*Module](t)(b.Untraced.For(d)) || mt != must[*Module](t)(b.Traced.For(d)) {
			t.Errorf("For(false) %p, For(true) %p: not the two builds' modules", mu, mt)
		}
		regs, err := b.Registers(d, []string{"k"})
		if err != nil || !strings.HasPrefix(regs, "k ") || !strings.Contains(regs, "/") {
			t.Errorf("Registers: %q, %v", regs, err)
		}
		if _, err := b.Registers(d, []string{"missing"}); err == nil {
			t.Error("Registers of a kernel no build declares: no error")
		}
		if counts, err := b.RegisterCounts(d, "k"); err != nil || regs != "k "+strconv.Itoa(counts[0])+"/"+strconv.Itoa(counts[1]) {
			t.Errorf("RegisterCounts: %v, %v; Registers %q", counts, err, regs)
		}
	})

	addScenario("compile_error", nil, func(t *testing.T) {
		d := fakeDevice(t)
		src := "extern \"C\" __global__ void k(int *x) {\n  int y = 1;\n  x[0] = syntax_error;\n}\n"
		_, err := d.Compile("broken", src)
		var ce *CompileError
		if !errors.As(err, &ce) {
			t.Fatalf("error %v is not a *CompileError", err)
		}
		if ce.Source != "broken" || ce.Arch != "sm_90" || ce.Err == nil || ce.Err.Name != "NVRTC_ERROR_COMPILATION" || ce.Err.Code != 6 {
			t.Errorf("CompileError %+v", ce)
		}
		diags := ce.Diagnostics()
		if len(diags) != 1 || diags[0].Line != 3 || diags[0].Severity != "error" || !strings.Contains(diags[0].Message, "syntax_error") {
			t.Errorf("Diagnostics %+v", diags)
		}
		wantErr(t, err, nil, `compiling "broken" for sm_90 failed (NVRTC_ERROR_COMPILATION):`, "broken(3): error: identifier")
		_, err = d.Compile("opts", "extern \"C\" __global__ void k() {}", Flag("--bogus-option"))
		wantErr(t, err, nil, "unrecognized option --bogus-option")
		m := must[*Module](t)(d.Compile("warn", "extern \"C\" __global__ void k() { int fake_warning; }"))
		if !strings.Contains(m.Log(), "warning #177-D") {
			t.Errorf("Log() = %q", m.Log())
		}
		h := m.HTML()
		cardtest.CheckHTML(t, h)
		if !strings.Contains(h, "1 message(s)") {
			t.Errorf("HTML lacks the log row: %s", h)
		}
		opts := grepLog(t, "nvrtcCompileProgram name=warn")
		if !strings.Contains(opts, "opts=--gpu-architecture=sm_90|-lineinfo|--std=c++17") {
			t.Errorf("NVRTC options: %s", opts)
		}
	})

	addScenario("compile_cache", nil, func(t *testing.T) {
		d := fakeDevice(t)
		src := fakeKernels
		compiles := func() int { return countLog(t, "nvrtcCompileProgram ") }
		m1 := must[*Module](t)(d.Compile("cached", src, Define("N", "4")))
		m2 := must[*Module](t)(d.Compile("cached", src, Define("N", "4")))
		if compiles() != 1 || m1.FromCache() || !m2.FromCache() {
			t.Fatalf("%d compilations (want 1), FromCache %v %v", compiles(), m1.FromCache(), m2.FromCache())
		}
		files := cacheFiles()
		if len(files) != 1 || !strings.HasPrefix(files[0], os.Getenv("GRAPHNB_CACHE")) {
			t.Fatalf("cache files %v", files)
		}
		// From disk, as in a new process.
		memCache.Lock()
		memCache.m = nil
		memCache.Unlock()
		m3 := must[*Module](t)(d.Compile("cached", src, Define("N", "4")))
		if compiles() != 1 || !m3.FromCache() {
			t.Errorf("disk cache missed: %d compilations", compiles())
		}
		fn(t, m3, "fake_iota")
		// A corrupt file is ignored and rewritten.
		memCache.Lock()
		memCache.m = nil
		memCache.Unlock()
		if err := os.WriteFile(files[0], []byte("GNBK\x01garbage"), 0o644); err != nil {
			t.Fatal(err)
		}
		m4 := must[*Module](t)(d.Compile("cached", src, Define("N", "4")))
		if compiles() != 2 || m4.FromCache() {
			t.Errorf("corrupt cache file: %d compilations, FromCache %v", compiles(), m4.FromCache())
		}
		if b, _ := os.ReadFile(files[0]); !func() bool { _, _, ok := decodeCache(b); return ok }() {
			t.Error("the corrupt cache file was not rewritten")
		}
		// NoCache compiles and stores nothing; other options are another key.
		must[*Module](t)(d.Compile("cached", src, Define("N", "4"), NoCache()))
		must[*Module](t)(d.Compile("cached", src, Define("N", "5")))
		if compiles() != 4 || len(cacheFiles()) != 2 {
			t.Errorf("%d compilations (want 4), %d files (want 2)", compiles(), len(cacheFiles()))
		}
		if !strings.Contains(grepLog(t, "nvrtcCompileProgram"), "|-DN=5") {
			t.Error("Define did not reach NVRTC")
		}
	})

	addScenario("ptx_fallback", func(f fakeLibs) []string { return []string{"GRAPHNB_NVRTC=" + f.nvrtcNoCUBIN} }, func(t *testing.T) {
		d := fakeDevice(t)
		m := fakeModule(t, d)
		if !strings.Contains(grepLog(t, "nvrtcCompileProgram"), "--gpu-architecture=compute_90") {
			t.Errorf("PTX target not used: %s", grepLog(t, "nvrtcCompileProgram"))
		}
		if !strings.Contains(readLog(t), "cuModuleLoadDataEx kind=ptx") {
			t.Error("PTX not loaded with cuModuleLoadDataEx")
		}
		if !strings.Contains(m.String(), "compute_90 PTX") {
			t.Errorf("String %q", m)
		}
		iota := fn(t, m, "fake_iota")
		b := must[*Int32s](t)(d.AllocInt32s(2))
		if err := iota.Launch(D1(1), D1(2), 0, b, 2); err != nil {
			t.Fatal(err)
		}
		_, err := d.Compile("jit", "extern \"C\" __global__ void k() {} // JIT_FAIL")
		wantErr(t, err, nil, "CUDA_ERROR_INVALID_PTX (218)", "JIT log: ptxas fatal: fake JIT failure")
	})

	addScenario("dynamic_parallelism", nil, func(t *testing.T) {
		d := fakeDevice(t)
		m := must[*Module](t)(d.Compile("dp", fakeKernels, DynamicParallelism()))
		if !strings.Contains(grepLog(t, "nvrtcCompileProgram"), "--relocatable-device-code=true") {
			t.Error("-rdc not passed")
		}
		log := readLog(t)
		for _, s := range []string{"cuLinkCreate_v2 nopts=4", "cuLinkAddFile_v2 type=4 path=" + os.Getenv("GRAPHNB_CUDADEVRT"),
			"cuLinkAddData_v2 type=0 name=dp.cubin", "cuLinkComplete", "cuLinkDestroy"} {
			if !strings.Contains(log, s) {
				t.Errorf("log lacks %q", s)
			}
		}
		fn(t, m, "fake_iota")
		// The driver's linker refuses CUBIN: the PTX goes in instead.
		os.Setenv("FAKE_LINK_REJECT_CUBIN", "1")
		must[*Module](t)(d.Compile("dp", fakeKernels, DynamicParallelism(), NoCache()))
		if !strings.Contains(readLog(t), "cuLinkAddData_v2 type=1 name=dp.ptx") {
			t.Error("no PTX fallback in the link")
		}
		os.Setenv("GRAPHNB_CUDADEVRT", filepath.Join(os.Getenv("FAKE_DIR"), "missing", "libcudadevrt.a"))
		_, err := d.Compile("dp2", fakeKernels, DynamicParallelism())
		wantErr(t, err, nil, "DynamicParallelism needs libcudadevrt.a", "GRAPHNB_CUDADEVRT")
	})

	addScenario("module_listing", nil, func(t *testing.T) {
		d := fakeDevice(t)
		m := fakeModule(t, d)
		if got, want := m.Kernels(), []string{"fake_iota", "fake_fault_kernel", "plain", "big_regs", "every"}; !reflect.DeepEqual(got, want) {
			t.Errorf("Kernels() = %v, want %v", got, want)
		}
		if s := m.String(); !strings.Contains(s, `module "fake" on Fake H100 80GB HBM3 (device 0) (sm_90 CUBIN`) ||
			!strings.Contains(s, "not callable by name (declare them extern \"C\"): mangled") {
			t.Errorf("String %q", s)
		}
		_, err := m.Function("mangled")
		wantErr(t, err, nil, `module "fake" has no kernel "mangled"`, `extern "C" __global__`)
		h := m.HTML()
		cardtest.CheckHTML(t, h)
		for _, s := range []string{"fake_iota", "big_regs", "registers", "mangled"} {
			if !strings.Contains(h, s) {
				t.Errorf("HTML lacks %q", s)
			}
		}
		f := fn(t, m, "plain")
		if f.Name() != "plain" || f.Module() != m || !strings.Contains(f.String(), "kernel plain") {
			t.Error("Function accessors")
		}
		if g := fn(t, m, "plain"); g != f {
			t.Error("Function is not memoised")
		}
		if err := m.Close(); err != nil || m.Close() != nil {
			t.Fatal(err)
		}
		wantErr(t, f.Launch(D1(1), D1(1), 0), nil, "was closed")
		if countLog(t, "cuModuleUnload") != 1 {
			t.Error("module not unloaded once")
		}
	})

	addScenario("buffers", nil, func(t *testing.T) {
		d := fakeDevice(t)
		checkBuffers(t, d)
		if d.MemoryUsed() != 0 {
			t.Errorf("MemoryUsed %d after freeing everything", d.MemoryUsed())
		}
		// 8-byte fills: equal halves → one cuMemsetD32; else doubling copies.
		b := must[*Int64s](t)(d.AllocInt64s(1000))
		if err := b.Fill(-1); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(readLog(t), "cuMemsetD32_v2 n=2000 value=4294967295") {
			t.Error("Fill(-1) did not use cuMemsetD32 over 2n words")
		}
		copies := countLog(t, "cuMemcpyDtoD_v2 ")
		if err := b.Fill(0x0102030405060708); err != nil {
			t.Fatal(err)
		}
		for _, v := range must[[]int64](t)(b.ToHost()) {
			if v != 0x0102030405060708 {
				t.Fatalf("Fill wrote %x", v)
			}
		}
		if n := countLog(t, "cuMemcpyDtoD_v2 ") - copies; n != 10 { // 1, 2, 4, …, 256, then 488: ceil(log2 1000) copies
			t.Errorf("%d doubling copies, want 10", n)
		}
	})

	addScenario("pinned_copies", func(f fakeLibs) []string { return []string{"GRAPHNB_COPY=register"} }, func(t *testing.T) {
		d := fakeDevice(t)
		big := make([]float32, 1<<19) // 2 MiB
		for i := range big {
			big[i] = float32(i) * 0.5
		}
		b := must[*Float32s](t)(d.Float32sFrom(big))
		if !strings.Contains(readLog(t), "cuMemHostRegister_v2 bytes=2097152") || countLog(t, "cuMemHostUnregister") != 1 {
			t.Errorf("2 MiB upload not pinned:\n%s", grepLog(t, "cuMemHost"))
		}
		if got := must[[]float32](t)(b.ToHost()); !reflect.DeepEqual(got, big) {
			t.Error("round trip differs")
		}
		if countLog(t, "cuMemHostUnregister") != 2 {
			t.Error("download not pinned")
		}
		small := must[*Float32s](t)(d.Float32sFrom(make([]float32, 1000)))
		small.Free()
		if countLog(t, "cuMemHostRegister_v2") != 2 {
			t.Error("a small copy was pinned")
		}
		// Registration fails: the copy goes pageable and still works.
		os.Setenv("FAKE_CUDA_FAIL", "cuMemHostRegister_v2=712")
		big[7] = 42
		if err := b.Upload(big); err != nil {
			t.Fatal(err)
		}
		if got := must[[]float32](t)(b.ToHost()); got[7] != 42 {
			t.Error("fallback copy lost data")
		}
		if countLog(t, "cuMemHostRegister_v2 fail=712") != 2 {
			t.Error("registration was not attempted")
		}
	})

	addScenario("staged_copies", func(f fakeLibs) []string { return []string{"GRAPHNB_COPY=staged"} }, func(t *testing.T) {
		d := fakeDevice(t)
		stageBytes = 1 << 20
		n := (5 << 18) / 8 // 1.25 MiB: one full 1 MiB chunk and a partial one
		host := make([]uint64, n)
		for i := range host {
			host[i] = uint64(i) * 0x9E3779B97F4A7C15
		}
		b := must[*Uint64s](t)(d.Uint64sFrom(host))
		got := must[[]uint64](t)(b.ToHost())
		if !reflect.DeepEqual(got, host) {
			t.Fatal("staged round trip differs")
		}
		if a, b := countLog(t, "cuMemcpyHtoDAsync_v2 "), countLog(t, "cuMemcpyDtoHAsync_v2 "); a != 2 || b != 2 {
			t.Errorf("%d H2D and %d D2H chunks, want 2 each", a, b)
		}
		if countLog(t, "cuMemHostRegister_v2 bytes=1048576") != 2 {
			t.Error("the two staging buffers were not registered once")
		}
	})

	addScenario("pageable_copies", func(f fakeLibs) []string { return []string{"GRAPHNB_COPY=pageable"} }, func(t *testing.T) {
		d := fakeDevice(t)
		b := must[*Uint8s](t)(d.Uint8sFrom(make([]uint8, 4<<20)))
		if _, err := b.ToHost(); err != nil {
			t.Fatal(err)
		}
		if countLog(t, "cuMemHostRegister_v2") != 0 {
			t.Error("pageable mode registered memory")
		}
	})

	addScenario("graphs", nil, func(t *testing.T) {
		d := fakeDevice(t)
		checkGraphs(t, d)
		if d.MemoryUsed() != 0 {
			t.Errorf("MemoryUsed %d after Close", d.MemoryUsed())
		}
	})

	addScenario("exec_and_threads", nil, func(t *testing.T) {
		d := fakeDevice(t)
		m := fakeModule(t, d)
		iota := fn(t, m, "fake_iota")
		b := must[*Int32s](t)(d.AllocInt32s(4))
		// Everything works inside Exec: nested Exec, buffer methods,
		// Function.Launch, Synchronize, Info.
		err := d.Exec(func(th *Thread) error {
			return d.Exec(func(th2 *Thread) error {
				if th2 != th {
					t.Error("nested Exec got another Thread")
				}
				if err := b.Upload([]int32{9, 9, 9, 9}); err != nil {
					return err
				}
				if err := iota.Launch(D1(1), D1(4), 0, b, 4); err != nil {
					return err
				}
				if err := d.Synchronize(); err != nil {
					return err
				}
				if _, err := d.Info(); err != nil {
					return err
				}
				return th.Synchronize()
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := must[[]int32](t)(b.ToHost()); !reflect.DeepEqual(got, []int32{0, 1, 2, 3}) {
			t.Errorf("got %v", got)
		}
		// A panic on the device thread reaches the caller; the device lives on.
		func() {
			defer func() {
				if p := recover(); p != "kaboom" {
					t.Errorf("recovered %v", p)
				}
			}()
			d.Exec(func(*Thread) error { panic("kaboom") })
		}()
		// Many goroutines at once (run with -race).
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; i < 20; i++ {
					x, err := d.Int32sFrom([]int32{int32(g), int32(i)})
					if err != nil {
						t.Error(err)
						return
					}
					if got, err := x.ToHost(); err != nil || got[0] != int32(g) || got[1] != int32(i) {
						t.Errorf("goroutine %d: %v %v", g, got, err)
					}
					x.Free()
				}
			}(g)
		}
		wg.Wait()
		if d.MemoryUsed() != 16 {
			t.Errorf("MemoryUsed %d, want 16", d.MemoryUsed())
		}
	})

	addScenario("cleanup_frees", nil, func(t *testing.T) {
		d := fakeDevice(t)
		func() {
			b := must[*Int32s](t)(d.AllocInt32s(1 << 18))
			_ = b
		}()
		before := d.MemoryUsed()
		if before != 1<<20 {
			t.Fatalf("MemoryUsed %d", before)
		}
		for i := 0; i < 200 && d.MemoryUsed() != 0; i++ {
			runtime.GC()
			time.Sleep(5 * time.Millisecond)
		}
		if d.MemoryUsed() != 0 || countLog(t, "cuMemFree_v2 ") != 1 {
			t.Errorf("a dropped buffer was not freed: MemoryUsed %d, log:\n%s", d.MemoryUsed(), grepLog(t, "cuMemFree"))
		}
	})

	addScenario("device_env_host", func(f fakeLibs) []string { return []string{"GRAPHNB_DEVICE=host"} }, func(t *testing.T) {
		if !Default().IsHost() || DefaultReason() != "GRAPHNB_DEVICE=host: running on the CPU" {
			t.Errorf("Default %v, reason %q", Default(), DefaultReason())
		}
	})

	addScenario("device_env_n", func(f fakeLibs) []string { return []string{"GRAPHNB_DEVICE=1", "FAKE_CUDA_DEVICES=2"} }, func(t *testing.T) {
		d := Default()
		if d.Ordinal() != 1 || d.Name() != "Fake H100 80GB HBM3 #1" {
			t.Errorf("Default %v", d)
		}
		if r := DefaultReason(); r != "Fake H100 80GB HBM3 #1 (device 1) (GRAPHNB_DEVICE=1)" {
			t.Errorf("reason %q", r)
		}
		if devs := must[[]*Device](t)(Devices()); len(devs) != 2 {
			t.Errorf("%d devices", len(devs))
		}
	})

	addScenario("device_env_bad", func(f fakeLibs) []string { return []string{"GRAPHNB_DEVICE=7"} }, func(t *testing.T) {
		if !Default().IsHost() || !strings.Contains(DefaultReason(), "GRAPHNB_DEVICE=7") {
			t.Errorf("Default %v, reason %q", Default(), DefaultReason())
		}
	})
}
