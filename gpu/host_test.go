package gpu

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/internal/card/cardtest"
)

// Tests of the host device and of the pure-Go parts; they run everywhere,
// with or without cgo and a GPU.

func TestHostDevice(t *testing.T) {
	h := Host()
	if !h.IsHost() || h.Ordinal() != -1 || h.Name() != "host CPU" || Host() != h {
		t.Errorf("Host() = %v (ordinal %d, name %q)", h, h.Ordinal(), h.Name())
	}
	if want := fmt.Sprintf("host CPU (%d cores)", runtime.NumCPU()); h.String() != want {
		t.Errorf("String %q, want %q", h, want)
	}
	in, err := h.Info()
	if err != nil {
		t.Fatal(err)
	}
	if in.Ordinal != -1 || in.SMs != runtime.NumCPU() || in.Arch != "host" || in.Name == "" {
		t.Errorf("Info %+v", in)
	}
	if in.TotalMemory <= 0 || in.FreeMemory <= 0 || in.FreeMemory > in.TotalMemory {
		t.Errorf("host memory %d of %d", in.FreeMemory, in.TotalMemory)
	}
	if !strings.HasPrefix(in.String(), "host: ") {
		t.Errorf("Info.String %q", in)
	}
	html := h.HTML()
	cardtest.CheckHTML(t, html)
	for _, s := range []string{"host device (CPU)", "cores", "memory"} {
		if !strings.Contains(html, s) {
			t.Errorf("HTML lacks %q", s)
		}
	}
	if err := h.Synchronize(); err != nil {
		t.Error(err)
	}
	if err := h.Reset(); err != nil {
		t.Error(err)
	}
}

func TestHostBuffers(t *testing.T) {
	checkBuffers(t, Host())
	b := must[*Int32s](t)(Host().Int32sFrom([]int32{1, 2, 3}))
	hd := b.HostData()
	hd[1] = 20 // HostData is the buffer
	if got := must[[]int32](t)(b.ToHost()); got[1] != 20 {
		t.Errorf("HostData does not alias the buffer: %v", got)
	}
	b.Free()
}

func TestHostGraphs(t *testing.T) { checkGraphs(t, Host()) }

func TestHostCUDAOnlyOperations(t *testing.T) {
	h := Host()
	_, err := h.Compile("k", `extern "C" __global__ void k() {}`)
	wantErr(t, err, ErrHost, "Compile(k) needs a CUDA device", "host")
	_, err = h.NewStream()
	wantErr(t, err, ErrHost, "NewStream")
	_, err = h.NewEvent()
	wantErr(t, err, ErrHost, "NewEvent", "time.Now")
	wantErr(t, h.Exec(func(*Thread) error { return nil }), ErrHost, "Exec")
	_, err = h.Time(func(*Thread) error { return nil })
	wantErr(t, err, ErrHost, "Time")
}

func TestDefaultNeverNil(t *testing.T) {
	d := Default()
	if d == nil || DefaultReason() == "" {
		t.Fatalf("Default() = %v, reason %q", d, DefaultReason())
	}
	if d.IsHost() != strings.Contains(DefaultReason(), "running on the CPU") {
		t.Errorf("Default %v does not match its reason %q", d, DefaultReason())
	}
	s := Status()
	if !strings.Contains(s, "default: "+DefaultReason()) || !strings.Contains(s, "host: ") {
		t.Errorf("Status() = %q", s)
	}
	if !cgoEnabled && !strings.Contains(DefaultReason(), "built without cgo") {
		t.Errorf("without cgo the reason should say so: %q", DefaultReason())
	}
}

func TestDim(t *testing.T) {
	cases := []struct {
		d    Dim
		want string
		dims [3]uint32
	}{
		{D1(5), "5", [3]uint32{5, 1, 1}},
		{D2(4, 3), "4×3", [3]uint32{4, 3, 1}},
		{D3(2, 3, 4), "2×3×4", [3]uint32{2, 3, 4}},
		{Dim{X: 7}, "7", [3]uint32{7, 1, 1}},
		{Blocks(1000, 256), "4", [3]uint32{4, 1, 1}},
		{Blocks(1024, 256), "4", [3]uint32{4, 1, 1}},
		{Blocks(1, 256), "1", [3]uint32{1, 1, 1}},
		{Blocks(0, 256), "0", [3]uint32{0, 1, 1}},
		{Blocks(-3, 256), "0", [3]uint32{0, 1, 1}},
	}
	for _, c := range cases {
		got, err := c.d.dims("grid")
		if c.d.String() != c.want || err != nil || got != c.dims {
			t.Errorf("%+v: String %q dims %v %v; want %q %v", c.d, c.d.String(), got, err, c.want, c.dims)
		}
	}
	if _, err := D1(-1).dims("grid"); err == nil {
		t.Error("negative dimension accepted")
	}
	if _, err := D1(1 << 33).dims("grid"); err == nil {
		t.Error("dimension above 2^32 accepted")
	}
	defer func() {
		if recover() == nil {
			t.Error("Blocks(10, 0) did not panic")
		}
	}()
	Blocks(10, 0)
}

func TestErrorFormatting(t *testing.T) {
	cases := []struct {
		name string
		err  *Error
		want string
		is   []error
		not  []error
	}{
		{"oom", &Error{Op: "cuMemAlloc_v2(8.0 GiB)", Code: 2, Name: "CUDA_ERROR_OUT_OF_MEMORY", Message: "out of memory"},
			"gpu: cuMemAlloc_v2(8.0 GiB): CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", []error{ErrOutOfMemory}, []error{ErrFault, ErrNoDevice}},
		{"fault", &Error{Op: "cuCtxSynchronize", Code: 700, Name: "CUDA_ERROR_ILLEGAL_ADDRESS", Message: "an illegal memory access was encountered", Kernel: "bfs", Detail: "reset"},
			`gpu: cuCtxSynchronize after kernel "bfs": CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered; reset`, []error{ErrFault}, []error{ErrOutOfMemory}},
		{"launch failed", &Error{Op: "x", Code: 719, Name: "CUDA_ERROR_LAUNCH_FAILED"}, "gpu: x: CUDA_ERROR_LAUNCH_FAILED (719)", []error{ErrFault}, nil},
		{"no device", &Error{Op: "cuInit", Code: 100, Name: "CUDA_ERROR_NO_DEVICE"}, "gpu: cuInit: CUDA_ERROR_NO_DEVICE (100)", []error{ErrNoDevice}, []error{ErrNoDriver}},
		{"stub", &Error{Op: "cuInit", Code: 34, Name: "CUDA_ERROR_STUB_LIBRARY"}, "gpu: cuInit: CUDA_ERROR_STUB_LIBRARY (34)", []error{ErrNoDriver}, nil},
		{"nvrtc", &Error{Op: "nvrtcCreateProgram", Code: 2, Name: "NVRTC_ERROR_PROGRAM_CREATION_FAILURE", NVRTC: true},
			"gpu: nvrtcCreateProgram: NVRTC_ERROR_PROGRAM_CREATION_FAILURE (2)", nil, []error{ErrOutOfMemory}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.err.Error(); got != c.want {
				t.Errorf("Error()\n got %q\nwant %q", got, c.want)
			}
			wrapped := fmt.Errorf("outer: %w", c.err)
			for _, target := range c.is {
				if !errors.Is(wrapped, target) {
					t.Errorf("not errors.Is %v", target)
				}
			}
			for _, target := range c.not {
				if errors.Is(wrapped, target) {
					t.Errorf("errors.Is %v", target)
				}
			}
		})
	}
	for code, want := range map[int]string{2: "CUDA_ERROR_OUT_OF_MEMORY", 700: "CUDA_ERROR_ILLEGAL_ADDRESS", 719: "CUDA_ERROR_LAUNCH_FAILED", 12345: "CUDA_ERROR_12345"} {
		if name, msg := builtinCUName(code); name != want || msg == "" {
			t.Errorf("builtinCUName(%d) = %q, %q", code, name, msg)
		}
	}
	for _, code := range []int{214, 700, 702, 710, 714, 715, 716, 717, 718, 719} {
		if !isSticky(code) {
			t.Errorf("%d not sticky", code)
		}
	}
	for _, code := range []int{1, 2, 200, 701, 712, 999} {
		if isSticky(code) {
			t.Errorf("%d sticky", code)
		}
	}
	if e := rtcError("nvrtcCompileProgram(x)", 6); e.Name != "NVRTC_ERROR_COMPILATION" {
		t.Errorf("rtcError name %q", e.Name)
	}
	le := &loadError{what: "libcuda.so.1", reason: "cannot open shared object file", sentinel: ErrNoDriver}
	if le.Error() != "gpu: libcuda.so.1 not found: cannot open shared object file" || !errors.Is(le, ErrNoDriver) || errors.Is(le, ErrNoNVRTC) {
		t.Errorf("loadError %q", le)
	}
	le = &loadError{what: "/x/libnvrtc.so", symbol: "nvrtcGetPTX", sentinel: ErrNoNVRTC, hint: "set GRAPHNB_NVRTC"}
	if le.Error() != "gpu: /x/libnvrtc.so lacks the symbol nvrtcGetPTX; set GRAPHNB_NVRTC" || !errors.Is(le, ErrNoNVRTC) {
		t.Errorf("loadError %q", le)
	}
	if got := trimDlerror("libcuda.so.1", "libcuda.so.1: cannot open shared object file"); got != "cannot open shared object file" {
		t.Errorf("trimDlerror: %q", got)
	}
}

func TestCompileErrorFormatting(t *testing.T) {
	var log strings.Builder
	log.WriteString("k(3): error: identifier \"x\" is undefined\n")
	log.WriteString("k(5): warning #177-D: variable \"y\" was declared but never referenced\n")
	log.WriteString("k(9): catastrophic error: cannot open source file \"cuda.h\"\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&log, "note %d\n", i)
	}
	ce := &CompileError{Source: "k", Arch: "sm_90", Log: log.String(), Err: &Error{Op: "nvrtcCompileProgram(k)", Code: 6, Name: "NVRTC_ERROR_COMPILATION", NVRTC: true}}
	msg := ce.Error()
	if !strings.HasPrefix(msg, `gpu: compiling "k" for sm_90 failed (NVRTC_ERROR_COMPILATION):`+"\nk(3): error: identifier") {
		t.Errorf("Error() = %q", msg)
	}
	if strings.Count(msg, "\n") != maxLogLines+1 || !strings.Contains(msg, "… 11 more lines (see CompileError.Log)") {
		t.Errorf("Error() shows %d lines:\n%s", strings.Count(msg, "\n"), msg)
	}
	want := []Diagnostic{{3, "error", `identifier "x" is undefined`}, {5, "warning", `variable "y" was declared but never referenced`},
		{9, "catastrophic error", `cannot open source file "cuda.h"`}}
	if got := ce.Diagnostics(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Diagnostics\n got %v\nwant %v", got, want)
	}
	var e *Error
	if !errors.As(ce, &e) || e.Code != 6 {
		t.Error("CompileError does not unwrap to its *Error")
	}
	empty := &CompileError{Source: "k", Arch: "sm_90"}
	if empty.Error() != `gpu: compiling "k" for sm_90 failed with an empty log` {
		t.Errorf("empty log: %q", empty.Error())
	}
}

func TestDeclaredKernels(t *testing.T) {
	src := `
// extern "C" __global__ void commented_out(int *x) {}
/* __global__ void also_commented(int *x) {} */
extern "C" __global__ void a(int *x) {}
extern "C" __global__ __launch_bounds__(256) void b(float *y, int n) {}
extern "C" {
__global__ void c ( int *z ) {}
}
template <typename T> __global__ void d(T *x) {}
extern "C" __global__ void a(int *x);
__device__ void helper(int *x) {}
`
	if got, want := fmt.Sprint(declaredKernels(src)), "[a b c d]"; got != want {
		t.Errorf("declaredKernels = %s, want %s", got, want)
	}
}

func TestCacheFileFormat(t *testing.T) {
	img := []byte("\x7fELF some cubin bytes")
	for _, ptx := range []bool{false, true} {
		b := encodeCache(img, ptx)
		got, gotPTX, ok := decodeCache(b)
		if !ok || string(got) != string(img) || gotPTX != ptx {
			t.Errorf("round trip (ptx %v): %q %v %v", ptx, got, gotPTX, ok)
		}
		bad := append([]byte(nil), b...)
		bad[len(bad)-1] ^= 1
		if _, _, ok := decodeCache(bad); ok {
			t.Error("a flipped bit passed the checksum")
		}
		if _, _, ok := decodeCache(b[:len(cacheMagic)+5]); ok {
			t.Error("a truncated file was accepted")
		}
	}
	if _, _, ok := decodeCache([]byte("not a cache file at all, but long enough to have a header of 38 bytes")); ok {
		t.Error("a foreign file was accepted")
	}
	k := cacheKey("n", "src", []string{"-a"}, "sm_90", "")
	for _, other := range []string{
		cacheKey("m", "src", []string{"-a"}, "sm_90", ""),
		cacheKey("n", "src2", []string{"-a"}, "sm_90", ""),
		cacheKey("n", "src", []string{"-b"}, "sm_90", ""),
		cacheKey("n", "src", []string{"-a"}, "sm_80", ""),
		cacheKey("n", "src", []string{"-a"}, "sm_90", "devrt"),
		cacheKey("n", "src", []string{"-a", ""}, "sm_90", ""),
	} {
		if other == k {
			t.Error("two different compilations share a cache key")
		}
	}
	if len(k) != 64 {
		t.Errorf("key %q", k)
	}
}

func TestCacheDir(t *testing.T) {
	t.Setenv("GRAPHNB_CACHE", "/tmp/x")
	if cacheDir() != "/tmp/x" {
		t.Error(cacheDir())
	}
	t.Setenv("GRAPHNB_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg")
	if cacheDir() != "/tmp/xdg/graphnb" {
		t.Error(cacheDir())
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/someone")
	if cacheDir() != "/home/someone/.cache/graphnb" {
		t.Error(cacheDir())
	}
}

func TestNVRTCCandidates(t *testing.T) {
	t.Setenv("CUDA_HOME", t.TempDir())
	c := nvrtcCandidates()
	if fmt.Sprint(c[:4]) != "[libnvrtc.so.13 libnvrtc.so.12 libnvrtc.so.11.2 libnvrtc.so]" {
		t.Errorf("candidates start %v", c[:4])
	}
}

func TestVersionString(t *testing.T) {
	for v, want := range map[int]string{13000: "13.0", 12080: "12.8", 11020: "11.2", 0: ""} {
		if got := versionString(v); got != want {
			t.Errorf("versionString(%d) = %q, want %q", v, got, want)
		}
	}
}

// FuzzCacheFile checks that decoding never panics and that what encodes
// decodes to itself.
func FuzzCacheFile(f *testing.F) {
	f.Add([]byte("\x7fELF"), false)
	f.Add([]byte("//PTX\x00"), true)
	f.Add(encodeCache([]byte("x"), false), false)
	f.Fuzz(func(t *testing.T, b []byte, ptx bool) {
		decodeCache(b) // arbitrary bytes: must not panic
		if len(b) == 0 {
			return
		}
		img, gotPTX, ok := decodeCache(encodeCache(b, ptx))
		if !ok || string(img) != string(b) || gotPTX != ptx {
			t.Fatalf("round trip of %q (ptx %v) gave %q %v %v", b, ptx, img, gotPTX, ok)
		}
	})
}

// FuzzCompileLog checks the log and source parsers on arbitrary text.
func FuzzCompileLog(f *testing.F) {
	f.Add("k(3): error: x\nk(5): warning #177-D: y\n")
	f.Add("extern \"C\" __global__ void a(int *x) {} /* __global__ void b( */")
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range parseDiagnostics(s) {
			if d.Line < 0 || d.Severity == "" {
				t.Fatalf("bad diagnostic %+v from %q", d, s)
			}
		}
		for _, k := range declaredKernels(s) {
			if k == "" || strings.ContainsAny(k, " (") {
				t.Fatalf("bad kernel name %q from %q", k, s)
			}
		}
	})
}

// The driver is asked for deviceConnections work queues unless the
// environment names a number, which is kept.
func TestDefaultConnections(t *testing.T) {
	t.Setenv("CUDA_DEVICE_MAX_CONNECTIONS", "2")
	defaultConnections()
	if got := os.Getenv("CUDA_DEVICE_MAX_CONNECTIONS"); got != "2" {
		t.Fatalf("a set CUDA_DEVICE_MAX_CONNECTIONS became %q", got)
	}
	os.Unsetenv("CUDA_DEVICE_MAX_CONNECTIONS") // t.Setenv restores it
	defaultConnections()
	if got := os.Getenv("CUDA_DEVICE_MAX_CONNECTIONS"); got != deviceConnections {
		t.Fatalf("unset CUDA_DEVICE_MAX_CONNECTIONS became %q, want %s", got, deviceConnections)
	}
}
