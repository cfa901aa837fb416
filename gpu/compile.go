package gpu

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ---- NVRTC loading ----

var rtc struct {
	once         sync.Once
	err          error
	path         string
	major, minor int
}

// nvrtcNames are NVRTC's sonames, newest first (12.x and later:
// libnvrtc.so.MAJOR; 11.3–11.8: libnvrtc.so.11.2).
var nvrtcNames = []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"}

// nvrtcCandidates lists where NVRTC is looked for, in order: the loader's
// search path, $CUDA_HOME/lib64, /usr/local/cuda/lib64, then the lib
// folders of NVIDIA's Python wheels where they exist.
func nvrtcCandidates() []string {
	out := append([]string(nil), nvrtcNames...)
	var dirs []string
	if h := os.Getenv("CUDA_HOME"); h != "" {
		dirs = append(dirs, filepath.Join(h, "lib64"))
	}
	dirs = append(dirs, "/usr/local/cuda/lib64")
	dirs = append(dirs, wheelLibDirs()...)
	for _, d := range dirs {
		for _, n := range nvrtcNames {
			p := filepath.Join(d, n)
			if _, err := os.Stat(p); err == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// wheelLibDirs returns existing nvidia/cu13/lib and nvidia/cuda_nvrtc/lib
// folders of Python site-packages (pip's CUDA wheels).
func wheelLibDirs() []string {
	var roots []string
	if v := os.Getenv("VIRTUAL_ENV"); v != "" {
		roots = append(roots, filepath.Join(v, "lib", "python3*", "site-packages"))
	}
	if h, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(h, ".local", "lib", "python3*", "site-packages"))
	}
	roots = append(roots,
		"/usr/local/lib/python3*/dist-packages", "/usr/local/lib/python3*/site-packages",
		"/usr/lib/python3/dist-packages", "/usr/lib/python3*/site-packages")
	var out []string
	for _, r := range roots {
		for _, sub := range []string{"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"} {
			m, _ := filepath.Glob(filepath.Join(r, sub))
			out = append(out, m...)
		}
	}
	return out
}

// nvrtcInit loads NVRTC once: GRAPHNB_NVRTC if set, else the first
// candidate that loads.
func nvrtcInit() error {
	rtc.once.Do(func() {
		if p := os.Getenv("GRAPHNB_NVRTC"); p != "" {
			if err := rtcLoad(p); err != nil {
				rtc.err = err
				return
			}
			rtc.path = p
		} else {
			var first error
			tried := nvrtcCandidates()
			for _, p := range tried {
				err := rtcLoad(p)
				if err == nil {
					rtc.path = p
					break
				}
				var le *loadError
				if first == nil || (errors.As(err, &le) && le.symbol != "") {
					first = err
				}
			}
			if rtc.path == "" {
				le := &loadError{what: "NVRTC", reason: "tried " + strings.Join(tried, ", "), sentinel: ErrNoNVRTC,
					hint: "install the CUDA toolkit's NVRTC (or pip install nvidia-cuda-nvrtc), or set GRAPHNB_NVRTC to its path"}
				var fe *loadError
				if errors.As(first, &fe) && fe.symbol != "" {
					le = fe
				}
				rtc.err = le
				return
			}
		}
		major, minor, code := rtcVersion()
		if code != 0 {
			rtc.err = rtcError("nvrtcVersion", code)
			return
		}
		rtc.major, rtc.minor = major, minor
	})
	return rtc.err
}

// ---- options ----

// CompileOption adjusts a Compile.
type CompileOption func(*compileConfig)

type compileConfig struct {
	defines [][2]string
	flags   []string
	dp      bool
	noCache bool
}

// Define adds -Dname=value (value "" gives -Dname).
func Define(name, value string) CompileOption {
	return func(c *compileConfig) { c.defines = append(c.defines, [2]string{name, value}) }
}

// Flag adds a raw NVRTC option, such as "--use_fast_math" or
// "--maxrregcount=64".
func Flag(option string) CompileOption {
	return func(c *compileConfig) { c.flags = append(c.flags, option) }
}

// DynamicParallelism compiles relocatable device code and links it with
// the CUDA device runtime (libcudadevrt.a) through the driver's linker, so
// kernels may launch kernels. libcudadevrt.a is looked for at
// GRAPHNB_CUDADEVRT, in $CUDA_HOME/lib64 and in /usr/local/cuda/lib64.
func DynamicParallelism() CompileOption { return func(c *compileConfig) { c.dp = true } }

// NoCache compiles even when the cache holds the image, and does not
// store the result.
func NoCache() CompileOption { return func(c *compileConfig) { c.noCache = true } }

// compileCount counts NVRTC compilations (tests check cache hits).
var compileCount atomic.Int64

// Compile compiles CUDA C source with NVRTC for the device's own
// architecture and loads it. Kernels must be declared
// extern "C" __global__ so they are found by name; the source may not
// #include CUDA headers (none exist at run time) and is built with
// --std=c++17 and -lineinfo. The image is CUBIN (PTX when the NVRTC is
// older than 11.1) and is cached on disk, keyed by name, source, options,
// architecture and the NVRTC and driver versions, so compiling the same
// code again costs a file read and a module load. A compile error is a
// *CompileError carrying NVRTC's log; the host returns ErrHost.
func (d *Device) Compile(name, src string, opts ...CompileOption) (*Module, error) {
	if d.host {
		return nil, errHost("Compile("+name+")", "CUDA C runs only on a GPU; on the host use the package's Go implementation")
	}
	if err := d.open(); err != nil {
		return nil, err
	}
	var cfg compileConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if err := nvrtcInit(); err != nil {
		return nil, err
	}
	useCUBIN := rtcHasCUBIN()
	target := d.static.Arch
	if !useCUBIN {
		target = strings.Replace(target, "sm_", "compute_", 1)
	}
	options := []string{"--gpu-architecture=" + target, "-lineinfo", "--std=c++17"}
	if cfg.dp {
		options = append(options, "--relocatable-device-code=true")
	}
	for _, def := range cfg.defines {
		if def[1] == "" {
			options = append(options, "-D"+def[0])
		} else {
			options = append(options, "-D"+def[0]+"="+def[1])
		}
	}
	options = append(options, cfg.flags...)
	var devrt, devrtStamp string
	if cfg.dp {
		var err error
		if devrt, devrtStamp, err = findCudadevrt(); err != nil {
			return nil, err
		}
	}
	m := &Module{d: d, name: name, arch: target, options: options, declared: declaredKernels(src)}
	m.st = &modState{d: d}
	key := cacheKey(name, src, options, target, devrtStamp)
	if !cfg.noCache {
		if img, ptx, ok := cacheGet(key); ok {
			m.image, m.ptx, m.cached = img, ptx, true
			if err := m.load(); err == nil {
				return m, nil
			}
			cacheDrop(key) // an image that no longer loads: compile afresh
			m.cached = false
		}
	}
	compileCount.Add(1)
	cubin, ptx, log, op, code := rtcCompile(src, name, options, useCUBIN)
	m.log = log
	if code != 0 {
		e := rtcError(op+"("+name+")", code)
		if op == "nvrtcCompileProgram" {
			return nil, &CompileError{Source: name, Arch: target, Options: options, Log: log, Err: e}
		}
		e.Detail = strings.TrimSpace(log)
		return nil, e
	}
	switch {
	case cfg.dp:
		img, err := d.link(name, cubin, ptx, devrt)
		if err != nil {
			return nil, err
		}
		m.image = img
	case cubin != nil:
		m.image = cubin
	default:
		m.image, m.ptx = ptx, true
	}
	if err := m.load(); err != nil {
		return nil, err
	}
	if !cfg.noCache {
		cachePut(key, m.image, m.ptx)
	}
	return m, nil
}

// load loads the image on the device and sorts out its kernels.
func (m *Module) load() error {
	err := m.d.exec(func(t *Thread) error { return m.resolveKernels(t) })
	if err != nil {
		return err
	}
	runtime.AddCleanup(m, releaseModule, m.st)
	return nil
}

// link links relocatable device code with libcudadevrt.a: the CUBIN
// first, the PTX (JIT-compiled by the driver) if that fails.
func (d *Device) link(name string, cubin, ptx []byte, devrt string) ([]byte, error) {
	var img []byte
	err := d.exec(func(t *Thread) error {
		var errs []error
		for _, in := range []struct {
			kind int
			data []byte
			ext  string
		}{{jitInputCUBIN, cubin, ".cubin"}, {jitInputPTX, ptx, ".ptx"}} {
			if in.data == nil {
				continue
			}
			out, op, log, code := cuLinkImage([]linkInput{
				{kind: jitInputLibrary, name: "libcudadevrt.a", path: devrt},
				{kind: in.kind, name: name + in.ext, data: in.data},
			})
			if code == 0 {
				img = out
				return nil
			}
			err := t.check(op, code)
			var e *Error
			if errors.As(err, &e) && log != "" {
				e.Detail = "linker log: " + log
			}
			errs = append(errs, err)
		}
		if len(errs) == 0 {
			return fmt.Errorf("gpu: linking %s: NVRTC produced no code", name)
		}
		return fmt.Errorf("gpu: linking %s with %s for dynamic parallelism failed: %w", name, devrt, errors.Join(errs...))
	})
	return img, err
}

// findCudadevrt locates libcudadevrt.a; the stamp (path, size, time)
// goes into the cache key.
func findCudadevrt() (path, stamp string, err error) {
	var tried []string
	if p := os.Getenv("GRAPHNB_CUDADEVRT"); p != "" {
		tried = append(tried, p)
	} else {
		if h := os.Getenv("CUDA_HOME"); h != "" {
			tried = append(tried, filepath.Join(h, "lib64", "libcudadevrt.a"))
		}
		tried = append(tried, "/usr/local/cuda/lib64/libcudadevrt.a")
		if filepath.IsAbs(rtc.path) {
			tried = append(tried, filepath.Join(filepath.Dir(rtc.path), "libcudadevrt.a"))
		}
	}
	for _, p := range tried {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, fmt.Sprintf("%s:%d:%d", p, fi.Size(), fi.ModTime().UnixNano()), nil
		}
	}
	return "", "", fmt.Errorf("gpu: DynamicParallelism needs libcudadevrt.a (the CUDA device runtime), not found at %s; install the CUDA toolkit or set GRAPHNB_CUDADEVRT to the file", strings.Join(tried, ", "))
}

// ---- kernel names ----

var (
	commentRE = regexp.MustCompile(`(?s)//[^\n]*|/\*.*?\*/`)
	kernelRE  = regexp.MustCompile(`__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
)

// declaredKernels returns the names of the __global__ functions in src,
// in order, without duplicates.
func declaredKernels(src string) []string {
	src = commentRE.ReplaceAllString(src, " ")
	var out []string
	seen := map[string]bool{}
	for _, m := range kernelRE.FindAllStringSubmatch(src, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// ---- the compile cache ----

// cacheDir is GRAPHNB_CACHE, else $XDG_CACHE_HOME/graphnb, else
// ~/.cache/graphnb ("" when none can be found).
func cacheDir() string {
	if d := os.Getenv("GRAPHNB_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "graphnb")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".cache", "graphnb")
	}
	return ""
}

const cacheMagic = "GNBK\x01"

func cacheKey(name, src string, options []string, target, extra string) string {
	h := sha256.New()
	for _, s := range []string{
		"graphnb gpu compile cache v1", name, src, strings.Join(options, "\x00"), target, extra,
		strconv.Itoa(rtc.major) + "." + strconv.Itoa(rtc.minor), strconv.Itoa(drv.version),
	} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

var memCache struct {
	sync.Mutex
	m map[string]cacheEntry
}

type cacheEntry struct {
	image []byte
	ptx   bool
}

func cacheFile(key string) string {
	d := cacheDir()
	if d == "" {
		return ""
	}
	return filepath.Join(d, key+".bin")
}

// cacheGet returns a cached image: from memory, else from its file (a
// file that fails its checksum is ignored).
func cacheGet(key string) ([]byte, bool, bool) {
	memCache.Lock()
	e, ok := memCache.m[key]
	memCache.Unlock()
	if ok {
		return e.image, e.ptx, true
	}
	path := cacheFile(key)
	if path == "" {
		return nil, false, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, false
	}
	img, ptx, ok := decodeCache(b)
	if !ok {
		return nil, false, false
	}
	memPut(key, img, ptx)
	return img, ptx, true
}

func memPut(key string, img []byte, ptx bool) {
	memCache.Lock()
	if memCache.m == nil {
		memCache.m = map[string]cacheEntry{}
	}
	memCache.m[key] = cacheEntry{img, ptx}
	memCache.Unlock()
}

// cachePut stores an image in memory and, best effort, on disk (written
// to a temporary file, then renamed, so readers never see half a file).
func cachePut(key string, img []byte, ptx bool) {
	memPut(key, img, ptx)
	path := cacheFile(key)
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(encodeCache(img, ptx))
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}

func cacheDrop(key string) {
	memCache.Lock()
	delete(memCache.m, key)
	memCache.Unlock()
	if path := cacheFile(key); path != "" {
		os.Remove(path)
	}
}

// The cache file: magic, a kind byte (0 CUBIN, 1 PTX), the SHA-256 of the
// image, the image.
func encodeCache(img []byte, ptx bool) []byte {
	sum := sha256.Sum256(img)
	out := make([]byte, 0, len(cacheMagic)+1+len(sum)+len(img))
	out = append(out, cacheMagic...)
	kind := byte(0)
	if ptx {
		kind = 1
	}
	out = append(out, kind)
	out = append(out, sum[:]...)
	return append(out, img...)
}

func decodeCache(b []byte) (img []byte, ptx, ok bool) {
	head := len(cacheMagic) + 1 + sha256.Size
	if len(b) <= head || string(b[:len(cacheMagic)]) != cacheMagic {
		return nil, false, false
	}
	kind := b[len(cacheMagic)]
	if kind > 1 {
		return nil, false, false
	}
	sum := b[len(cacheMagic)+1 : head]
	img = b[head:]
	got := sha256.Sum256(img)
	if !bytes.Equal(sum, got[:]) {
		return nil, false, false
	}
	return img, kind == 1, true
}

// cacheFiles lists the cache's image files (for tests and tools).
func cacheFiles() []string {
	d := cacheDir()
	if d == "" {
		return nil
	}
	m, _ := filepath.Glob(filepath.Join(d, "*.bin"))
	sort.Strings(m)
	return m
}
