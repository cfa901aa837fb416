// Package fakegpu runs a package's GPU tests without a GPU: against
// package gpu's fake CUDA driver and fake NVRTC (gpu/testdata), built with
// the host's C compilers, whose cuLaunchKernel is replaced by one that
// runs the package's kernels on a CPU emulator of CUDA: the emulator
// (testdata/cuda_emu.h here) and the launcher (testdata/fake_launch.cpp
// here) are shared, and a package adds only the table of its kernels
// (testdata/fake_kernels.cpp in each of algo/*; see
// testdata/fake_launch.h). The tests then run in a child process of the
// test binary, where gpu.Default() is the fake device, so the real Go GPU
// path (compile, uploads, argument packing, launch loops, copies, events)
// is exercised in CI.
//
// A package writes two tests:
//
//	func TestFakeGPU(t *testing.T) {
//		fakegpu.Run(t, "TestFakeGPUChild", 3*time.Minute, func(b *fakegpu.Builder) []string {
//			return []string{b.CXX("testdata/fake_kernels.cpp")}
//		})
//	}
//
//	func TestFakeGPUChild(t *testing.T) {
//		dev := fakegpu.Device(t) // skips unless this is the child
//		… the GPU checks on dev …
//	}
//
// # Several devices and NCCL
//
// RunN is Run with several fake devices (FAKE_CUDA_DEVICES) and package
// nccl's fake NCCL (gpu/nccl/testdata/fakenccl.c, built with gcc and
// loaded through GRAPHNB_NCCL), so that code over a gpu.Group runs in CI:
//
//	func TestFakeGPUGroup(t *testing.T) {
//		fakegpu.RunN(t, "TestFakeGPUGroupChild", 3*time.Minute, 2, func(b *fakegpu.Builder) []string {
//			return []string{b.CXX("testdata/fake_kernels.cpp")}
//		})
//	}
//
//	func TestFakeGPUGroupChild(t *testing.T) {
//		g := fakegpu.Group(t) // a group of every fake device; skips unless the child
//		… g.Run(func(r *gpu.Rank, th *gpu.Thread) error { … }) …
//	}
//
// The fake NCCL moves data through files in a directory under the
// child's TMPDIR (the test's scratch directory), so its ranks may also be
// processes, as with gpu.JoinGroup (one rank per process):
//
//	func TestFakeGPURanks(t *testing.T) {
//		fakegpu.RunN(t, "TestFakeGPURanksChild", 3*time.Minute, 2, build)
//	}
//
//	func TestFakeGPURanksChild(t *testing.T) {
//		fakegpu.RunRanks(t, "TestFakeGPURank", 2, 2*time.Minute) // 2 processes
//	}
//
//	func TestFakeGPURank(t *testing.T) {
//		g := fakegpu.JoinedGroup(t) // this process's rank; skips elsewhere
//		… g.Run(…) …
//	}
//
// Collectives time out after GRAPHNB_NCCL_TIMEOUT,
// which RunN sets to a minute (Group.SetTimeout changes it). They run on
// blocking communicators unless the test runs with
// GRAPHNB_NCCL_BLOCKING=0, which the child inherits. The fake's
// failure injection (FAKE_NCCL_FAIL="rank=R,op=K,mode=error|stall|exit",
// see fakenccl.c) can be set with os.Setenv in the child before the group
// is made.
package fakegpu

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/nccl"
)

// childEnv marks the child process.
const childEnv = "GRAPHNB_FAKE_GPU_CHILD"

// Builder compiles the objects a package links into the fake driver.
type Builder struct {
	// Dir is a scratch directory for objects and generated sources.
	Dir string
	// GCC and GXX are the C and C++ compilers' paths.
	GCC, GXX string

	mu   sync.Mutex
	errs []string
	n    int
}

// CXX compiles a C++ source (relative to the package directory) into an
// object in Dir with C++17, -O1, position-independent code, the package
// directory, Dir and the emulator's directory (IncludeDir) on the include
// path, and the extra flags; it returns the object's path. A failure is
// reported when Run links.
func (b *Builder) CXX(src string, flags ...string) string {
	b.mu.Lock()
	b.n++
	obj := filepath.Join(b.Dir, fmt.Sprintf("obj%d_%s.o", b.n, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))))
	b.mu.Unlock()
	args := append([]string{"-std=c++17", "-O1", "-fno-strict-aliasing", "-fPIC", "-c", "-I.", "-I" + b.Dir, "-I" + IncludeDir()}, flags...)
	b.exec(b.GXX, append(args, "-o", obj, src)...)
	return obj
}

// exec runs a compiler and records its failure.
func (b *Builder) exec(name string, args ...string) {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		b.mu.Lock()
		b.errs = append(b.errs, fmt.Sprintf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out))
		b.mu.Unlock()
	}
}

// Run builds the fake driver with the shared launcher and the objects
// compile returns (the package's kernel tables), and runs
// the test named child in a child process of this test binary against it,
// failing t with the child's output when the child fails or exceeds
// timeout. It skips in short mode (building and emulating take seconds),
// without gcc and g++, and in the child process itself.
func Run(t *testing.T, child string, timeout time.Duration, compile func(b *Builder) []string) {
	t.Helper()
	run(t, child, timeout, 0, compile)
}

// RunN is Run with devices fake GPUs in the child and the fake NCCL
// (GRAPHNB_NCCL), for tests of device groups (see the package doc).
func RunN(t *testing.T, child string, timeout time.Duration, devices int, compile func(b *Builder) []string) {
	t.Helper()
	if devices < 1 || devices > 8 {
		t.Fatalf("fakegpu.RunN: %d devices; the fake driver has 1 to 8", devices)
	}
	run(t, child, timeout, devices, compile)
}

// run is Run, and with devices > 0 RunN.
func run(t *testing.T, child string, timeout time.Duration, devices int, compile func(b *Builder) []string) {
	t.Helper()
	if os.Getenv(childEnv) != "" {
		t.Skip("the parent test; this is the child process")
	}
	if testing.Short() {
		t.Skip("builds a fake CUDA driver and emulates the kernels (seconds)")
	}
	gcc, err1 := exec.LookPath("gcc")
	gxx, err2 := exec.LookPath("g++")
	if err1 != nil || err2 != nil {
		t.Skip("gcc or g++ not found: the kernels are tested on the GPU machine only")
	}
	b := &Builder{Dir: t.TempDir(), GCC: gcc, GXX: gxx}
	fake := testdataDir()
	driver := filepath.Join(b.Dir, "fakecuda.o")
	b.exec(gcc, "-c", "-fPIC", "-O1", "-DcuLaunchKernel=fake_orig_cuLaunchKernel", "-o", driver, filepath.Join(fake, "fakecuda.c"))
	objs := append(compile(b), b.CXX(filepath.Join(IncludeDir(), "fake_launch.cpp")))
	// Dynamic parallelism links the device runtime: the fake linker only
	// needs a file there.
	devrt := filepath.Join(b.Dir, "libcudadevrt.a")
	if err := os.WriteFile(devrt, []byte("!<arch>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(b.errs) == 0 {
		b.exec(gxx, append(append([]string{"-shared", "-o", filepath.Join(b.Dir, "libcuda.so.1"), driver}, objs...), "-lpthread")...)
		b.exec(gcc, "-shared", "-fPIC", "-O1", "-o", filepath.Join(b.Dir, "libnvrtc.so.13"), filepath.Join(fake, "fakenvrtc.c"))
		if devices > 0 {
			b.exec(gcc, "-shared", "-fPIC", "-O1", "-o", filepath.Join(b.Dir, "libnccl.so.2"), FakeNCCLSource(), "-lpthread")
		}
	}
	if len(b.errs) > 0 {
		t.Fatalf("building the fake GPU:\n%s", strings.Join(b.errs, "\n"))
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		// GRAPHNB_NCCL_BLOCKING=0 passes: the group tests run in either
		// mode of the collectives (see gpu.Group).
		if !strings.HasPrefix(kv, "GRAPHNB_") && !strings.HasPrefix(kv, "FAKE_") || strings.HasPrefix(kv, "GRAPHNB_NCCL_BLOCKING=") {
			env = append(env, kv)
		}
	}
	env = append(env, childEnv+"=1",
		"GRAPHNB_LIBCUDA="+filepath.Join(b.Dir, "libcuda.so.1"),
		"GRAPHNB_NVRTC="+filepath.Join(b.Dir, "libnvrtc.so.13"),
		"GRAPHNB_CUDADEVRT="+devrt,
		"GRAPHNB_CACHE="+filepath.Join(b.Dir, "cache"),
		strings.TrimSpace("GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	if devices > 0 {
		env = append(env,
			fmt.Sprintf("FAKE_CUDA_DEVICES=%d", devices),
			"GRAPHNB_NCCL="+filepath.Join(b.Dir, "libnccl.so.2"),
			"GRAPHNB_NCCL_TIMEOUT=1m",
			"TMPDIR="+b.Dir)
	}
	ctx, stop := context.WithTimeout(context.Background(), timeout)
	defer stop()
	// FAKEGPU_SUBTESTS narrows the child to some subtests while developing
	// (e.g. FAKEGPU_SUBTESTS=group go test -run TestFakeGPU ./algo/bfs).
	cmd := exec.CommandContext(ctx, exe, "-test.run=^"+child+"$/"+os.Getenv("FAKEGPU_SUBTESTS"), "-test.v", "-test.count=1")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the child on the fake GPU ran past %v (a warp collective that not every lane reaches?):\n%s", timeout, out)
	}
	if err != nil || !bytes.Contains(out, []byte("--- PASS: "+child)) {
		t.Fatalf("the child on the fake GPU failed (%v):\n%s", err, out)
	}
}

// Device returns the fake GPU in the child process Run started, and skips
// t anywhere else. It fails t when the default device is not the fake
// one.
func Device(t *testing.T) *gpu.Device {
	t.Helper()
	if os.Getenv(childEnv) == "" {
		t.Skip("runs only as the child of a TestFakeGPU")
	}
	dev := gpu.Default()
	if dev.IsHost() || !strings.Contains(dev.Name(), "Fake") {
		t.Fatalf("gpu.Default() is %v, not the fake GPU: %s", dev, gpu.DefaultReason())
	}
	return dev
}

// Group returns a group of every fake GPU (gpu.NewGroup) in the child
// process RunN started, closed when t ends, and skips t anywhere else.
func Group(t *testing.T) *gpu.Group {
	t.Helper()
	Device(t)
	devs, err := gpu.Devices()
	if err != nil {
		t.Fatal(err)
	}
	g, err := gpu.NewGroup(devs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Close(); err != nil {
			t.Errorf("closing the %s: %v", g, err)
		}
	})
	return g
}

// rankEnv tells a process RunRanks started its rank: "rank size id".
const rankEnv = "GRAPHNB_FAKE_GPU_RANK"

// RunRanks, in the child process RunN started (with at least size
// devices), runs the test named child in size processes of this test
// binary at once, one rank each of a group made with gpu.JoinGroup (the
// child gets its part with JoinedGroup), and fails t with their output
// unless every one passes within timeout. It skips t outside RunN's child
// and inside a rank process.
func RunRanks(t *testing.T, child string, size int, timeout time.Duration) {
	t.Helper()
	if os.Getenv(childEnv) == "" || os.Getenv(rankEnv) != "" {
		t.Skip("runs only in the child of a fakegpu.RunN")
	}
	id, err := nccl.NewUniqueID()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithTimeout(context.Background(), timeout)
	defer stop()
	outs := make([][]byte, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := 0; r < size; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, exe, "-test.run=^"+child+"$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %d %s", rankEnv, r, size, id))
			outs[r], errs[r] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for r := 0; r < size; r++ {
		switch {
		case ctx.Err() != nil:
			t.Errorf("rank %d of %d ran past %v:\n%s", r, size, timeout, outs[r])
		case errs[r] != nil || !bytes.Contains(outs[r], []byte("--- PASS: "+child)):
			t.Errorf("rank %d of %d failed (%v):\n%s", r, size, errs[r], outs[r])
		}
	}
}

// JoinedGroup is, in a process RunRanks started, this rank's part of the
// group (gpu.JoinGroup on fake device number rank), closed when t ends; it
// skips t anywhere else.
func JoinedGroup(t *testing.T) *gpu.Group {
	t.Helper()
	var rank, size int
	var hexID string
	if _, err := fmt.Sscanf(os.Getenv(rankEnv), "%d %d %s", &rank, &size, &hexID); err != nil {
		t.Skip("runs only in a process of fakegpu.RunRanks")
	}
	id, err := nccl.ParseUniqueID(hexID)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := gpu.Open(rank)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gpu.JoinGroup(dev, rank, size, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Close(); err != nil {
			t.Errorf("closing the %s: %v", g, err)
		}
	})
	return g
}

// FakeNCCLSource is the path of the fake NCCL's C source
// (gpu/nccl/testdata/fakenccl.c), for a test that builds it itself.
func FakeNCCLSource() string {
	return filepath.Join(testdataDir(), "..", "nccl", "testdata", "fakenccl.c")
}

// testdataDir is gpu/testdata, found from this file's place in the module.
func testdataDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "gpu", "testdata")
}

// IncludeDir is the directory of the CUDA emulator (cuda_emu.h) and the
// launcher's header (fake_launch.h), for a package that builds a program
// on the emulator itself.
func IncludeDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// IsChild reports whether this process is the child Run started (tests
// use it to trim work the emulator makes slow).
func IsChild() bool { return os.Getenv(childEnv) != "" }
