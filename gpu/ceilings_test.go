package gpu

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/internal/card/cardtest"
)

// The ceilings' host tests: the plan, the rendering, the cache file and
// the environment. ceilings_fake_test.go measures on the fake driver;
// TestGPUCeilings here on a real GPU (it skips without one).

// sampleCeilings are H100-like figures for the rendering and cache tests.
func sampleCeilings(device string) Ceilings {
	return Ceilings{
		Device: device, PCIBusID: "0000:1b:00", DriverVersion: "13.0",
		PeakBandwidth: 3.35e12, CopyBandwidth: 2.6e12, CopyBytes: 400 << 20,
		Gather4InL2: 1.1e12, Gather4Beyond: 0.3e12, Gather8InL2: 1.9e12, Gather8Beyond: 0.55e12,
		InL2Bytes: 12800 << 10, BeyondL2Bytes: 800 << 20, L2Bytes: 50 << 20, Lookups: 1 << 25,
		LaunchLatency: 2100 * time.Nanosecond, LaunchHostCost: 3 * time.Microsecond, LaunchRoundTrip: 9500 * time.Nanosecond,
		Measured:    time.Date(2025, 6, 1, 12, 30, 0, 0, time.UTC),
		MeasureTime: 310 * time.Millisecond,
	}
}

// forgetCeilings drops the figures cached in this process, as a new
// process would start.
func forgetCeilings() {
	ceilingsCache.mu.Lock()
	ceilingsCache.byDevice = nil
	ceilingsCache.mu.Unlock()
}

func TestCeilingsHost(t *testing.T) {
	for name, f := range map[string]func() (Ceilings, error){"Ceilings": Host().Ceilings, "MeasureCeilings": Host().MeasureCeilings} {
		c, err := f()
		wantErr(t, err, ErrHost, "gpu: Ceilings needs a CUDA device", "no GPU to measure")
		if !reflect.DeepEqual(c, Ceilings{}) {
			t.Errorf("%s on the host returned figures %+v with its error", name, c)
		}
	}
	var nilDev *Device
	_, err := nilDev.Ceilings()
	wantErr(t, err, nil, "nil *Device")
}

func TestPlanCeilings(t *testing.T) {
	const MiB = 1 << 20
	// An H100: 50 MiB of L2, 132 SMs, 79 GiB free.
	p := must[ceilingsPlan](t)(planCeilings(79<<30, 50*MiB, 132))
	want := ceilingsPlan{l2: 50 * MiB, inL2: 50 * MiB / 4, beyond: 800 * MiB, lookups: 1 << 25, grid: 132 * 8, block: 256, minBeyond: 200 * MiB}
	if p != want {
		t.Errorf("H100 plan %+v, want %+v", p, want)
	}
	if p.need() != 800*MiB+128*MiB+8*132*2048 {
		t.Errorf("H100 plan needs %d bytes", p.need())
	}
	// 600 MiB free: half of it holds a 200 MiB table (4 × L2) and 2^24
	// lookups.
	p = must[ceilingsPlan](t)(planCeilings(600*MiB, 50*MiB, 132))
	if p.beyond != 200*MiB || p.lookups != 1<<24 || p.need() > 300*MiB {
		t.Errorf("600 MiB free: plan %+v (needs %d), want a 200 MiB table and 2^24 lookups", p, p.need())
	}
	// Shrinking goes on to 2^20 lookups, then stops.
	for p.shrink() {
	}
	if p.beyond != 200*MiB || p.lookups != 1<<20 {
		t.Errorf("fully shrunk plan %+v, want a 200 MiB table and 2^20 lookups", p)
	}
	// Too little memory.
	_, err := planCeilings(300*MiB, 50*MiB, 132)
	wantErr(t, err, ErrOutOfMemory, "the measurement needs", "at most half the free memory", "only 300.0 MiB is free", "free buffers")
	// Unknown L2 (4 MiB assumed), no SM count; a huge L2 (the table is
	// capped at 1 GiB).
	p = must[ceilingsPlan](t)(planCeilings(16<<30, 0, 0))
	if p.l2 != 4*MiB || p.inL2 != MiB || p.beyond != 256*MiB || p.grid != 8 {
		t.Errorf("unknown L2: plan %+v, want 4 MiB assumed, 1 MiB and 256 MiB tables, 8 blocks", p)
	}
	p = must[ceilingsPlan](t)(planCeilings(64<<30, 128*MiB, 10))
	if p.beyond != 1<<30 || p.inL2 != 32*MiB {
		t.Errorf("128 MiB L2: plan %+v, want a 1 GiB table beyond L2", p)
	}
	// A tiny L2 keeps the in-L2 table at 64 KiB or more.
	p = must[ceilingsPlan](t)(planCeilings(16<<30, 128<<10, 1))
	if p.inL2 != 64<<10 {
		t.Errorf("128 KiB L2: in-L2 table %d, want 64 KiB", p.inL2)
	}
}

func TestCeilingsRender(t *testing.T) {
	c := sampleCeilings("NVIDIA H100 80GB HBM3")
	s := c.String()
	for _, want := range []string{
		"ceilings of NVIDIA H100 80GB HBM3: measured ", " in 0.31 s\n",
		"device copy  2.6 TB/s read + written (400.0 MiB copied), 78% of the 3.35 TB/s peak",
		"gather 4 B   1.1 TB/s from 12.5 MiB (in L2), 300 GB/s from 800.0 MiB (beyond L2)",
		"gather 8 B   1.9 TB/s from 12.5 MiB (in L2), 550 GB/s from 800.0 MiB (beyond L2)",
		"launch       2.1 µs a launch back to back (GPU), 3 µs per launch call (host), 9.5 µs launch + synchronize",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "cache") {
		t.Errorf("String() of measured figures mentions the cache:\n%s", s)
	}
	c.Cached = true
	if s := c.String(); !strings.Contains(s, "read from the cache; GRAPHNB_CEILINGS=remeasure measures again") {
		t.Errorf("String() of cached figures does not say so:\n%s", s)
	}
	h := c.HTML()
	cardtest.CheckHTML(t, h)
	for _, want := range []string{"ceilings: NVIDIA H100 80GB HBM3", "device copy", "gather 8 B", "550 GB/s", "launch + synchronize", "read from the cache"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML() lacks %q", want)
		}
	}
	// Unknown figures render as "?", not as zeros or NaN.
	if s := (Ceilings{Device: "x"}).String(); strings.Contains(s, "NaN") || !strings.Contains(s, "? a launch") {
		t.Errorf("String() of empty figures:\n%s", s)
	}
}

func TestCeilingsRoofs(t *testing.T) {
	c := sampleCeilings("d")
	var names []string
	for _, r := range c.Roofs() {
		names = append(names, r.Name)
	}
	want := []string{"peak (theoretical)", "device copy", "gather 4 B in L2", "gather 8 B in L2", "gather 8 B beyond L2", "gather 4 B beyond L2"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("Roofs %q, want %q", names, want)
	}
	c.PeakBandwidth = 0
	if r := c.Roofs(); len(r) != 5 || r[0].Name != "device copy" || r[0].BytesPerSecond != 2.6e12 {
		t.Errorf("Roofs without a peak: %+v", r)
	}
	for _, tc := range []struct {
		elem  int
		table int64
		want  float64
	}{
		{4, 1 << 20, c.Gather4InL2}, {4, 50 << 20, c.Gather4InL2}, {4, 51 << 20, c.Gather4Beyond},
		{8, 1 << 20, c.Gather8InL2}, {8, 1 << 30, c.Gather8Beyond}, {1, 1 << 10, c.Gather4InL2}, {16, 1 << 30, c.Gather8Beyond},
	} {
		if got := c.GatherCeiling(tc.elem, tc.table); got != tc.want {
			t.Errorf("GatherCeiling(%d, %d) = %g, want %g", tc.elem, tc.table, got, tc.want)
		}
	}
	c.L2Bytes = 0 // unknown L2: beyond
	if got := c.GatherCeiling(4, 1<<10); got != c.Gather4Beyond {
		t.Errorf("GatherCeiling with an unknown L2 = %g, want the beyond-L2 figure", got)
	}
}

func TestCeilingsFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GRAPHNB_CACHE", dir)
	const key, dev = "graphnb ceilings|dev|pci 0000:01:00|driver 13000|sm_90|method x", "dev"
	c := sampleCeilings(dev)
	if _, ok := readCeilings(key, dev); ok {
		t.Fatal("readCeilings found figures in an empty cache")
	}
	writeCeilings(key, c)
	path := ceilingsPath(key)
	if filepath.Dir(path) != dir || !strings.HasPrefix(filepath.Base(path), "ceilings-") || !strings.HasSuffix(path, ".json") {
		t.Errorf("cache file %s, want ceilings-*.json in %s", path, dir)
	}
	got, ok := readCeilings(key, dev)
	if !ok || !got.Cached || !got.Measured.Equal(c.Measured) {
		t.Fatalf("readCeilings = %+v, %v; want the written figures, Cached", got, ok)
	}
	got.Cached, got.Measured = false, c.Measured
	if !reflect.DeepEqual(got, c) {
		t.Errorf("figures changed through the file:\n got %+v\nwant %+v", got, c)
	}
	if ceilingsPath(key+"x") == path {
		t.Error("two keys share a cache file")
	}
	good := must[[]byte](t)(os.ReadFile(path))
	foreign := func(f func(*ceilingsFile)) []byte {
		v := ceilingsFile{Key: key, Ceilings: c}
		f(&v)
		return must[[]byte](t)(json.Marshal(v))
	}
	for name, b := range map[string][]byte{
		"corrupt":          []byte("{\"Key\": \x00"),
		"truncated":        good[:len(good)/2],
		"empty":            nil,
		"another key":      foreign(func(v *ceilingsFile) { v.Key = "graphnb ceilings|other" }),
		"another device":   foreign(func(v *ceilingsFile) { v.Ceilings.Device = "other" }),
		"zero gather":      foreign(func(v *ceilingsFile) { v.Ceilings.Gather8Beyond = 0 }),
		"no launch figure": foreign(func(v *ceilingsFile) { v.Ceilings.LaunchRoundTrip = 0 }),
		"no date":          foreign(func(v *ceilingsFile) { v.Ceilings.Measured = time.Time{} }),
	} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if c, ok := readCeilings(key, dev); ok {
			t.Errorf("%s file: readCeilings accepted %+v", name, c)
		}
	}
	if !plausible(c) {
		t.Error("the sample figures are not plausible")
	}
	c.CopyBandwidth = math.Inf(1)
	if plausible(c) {
		t.Error("an infinite bandwidth is plausible")
	}
	// An unwritable cache directory: nothing is written, nothing fails.
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GRAPHNB_CACHE", file)
	writeCeilings(key, sampleCeilings(dev))
	if _, ok := readCeilings(key, dev); ok {
		t.Error("figures read back from an unwritable cache directory")
	}
	t.Setenv("GRAPHNB_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if p := ceilingsPath(key); p != "" {
		t.Errorf("ceilingsPath without any cache directory = %q, want \"\"", p)
	}
}

func TestCeilingsEnv(t *testing.T) {
	for v, want := range map[string]bool{"": false, "remeasure": true, " remeasure ": true} {
		t.Setenv(ceilingsEnv, v)
		if got, err := ceilingsRemeasure(); got != want || err != nil {
			t.Errorf("GRAPHNB_CEILINGS=%q: %v, %v; want %v", v, got, err, want)
		}
	}
	t.Setenv(ceilingsEnv, "always")
	_, err := ceilingsRemeasure()
	wantErr(t, err, nil, `GRAPHNB_CEILINGS="always" is not understood`, "set it to remeasure")
}

// TestGPUCeilings measures a real GPU's ceilings into a fresh cache (so
// NVRTC compiles first), measures them again (the compile cached), reads
// them back as a new process would, and checks them against the device's
// theoretical peak.
func TestGPUCeilings(t *testing.T) {
	d := requireGPU(t)
	t.Setenv("GRAPHNB_CACHE", t.TempDir())
	t.Setenv(ceilingsEnv, "")
	forgetCeilings()
	defer forgetCeilings()
	used := d.MemoryUsed()
	in := must[Info](t)(d.Info())
	first := must[Ceilings](t)(d.Ceilings())
	t.Logf("first measurement (NVRTC compiles): %v\n%s", first.MeasureTime, first)
	c := must[Ceilings](t)(d.MeasureCeilings())
	t.Logf("second measurement (compile cached): %v\n%s", c.MeasureTime, c)
	if c.MeasureTime > time.Second {
		t.Errorf("a measurement with the kernels compiled took %v, want well under a second", c.MeasureTime)
	}
	last := c
	for i := range 3 { // how steady the figures are
		r := must[Ceilings](t)(d.MeasureCeilings())
		last = r
		t.Logf("again %d: copy %s; gather 4 B %s / %s, 8 B %s / %s; launch %v / %v / %v; in %v", i,
			bandwidth(r.CopyBandwidth), bandwidth(r.Gather4InL2), bandwidth(r.Gather4Beyond), bandwidth(r.Gather8InL2), bandwidth(r.Gather8Beyond),
			r.LaunchLatency, r.LaunchHostCost, r.LaunchRoundTrip, r.MeasureTime)
	}
	after := must[Info](t)(d.Info())
	if d.MemoryUsed() != used || after.FreeMemory < in.FreeMemory-(64<<20) {
		t.Errorf("memory: %d bytes used before, %d after; %d free before, %d after", used, d.MemoryUsed(), in.FreeMemory, after.FreeMemory)
	}
	forgetCeilings()
	start := time.Now()
	cached := must[Ceilings](t)(d.Ceilings())
	if el := time.Since(start); !cached.Cached || cached.CopyBandwidth != last.CopyBandwidth || el > 50*time.Millisecond {
		t.Errorf("a new process's read: Cached %v, copy %g (want the last measurement's %g), in %v", cached.Cached, cached.CopyBandwidth, last.CopyBandwidth, el)
	}
	t.Logf("read from the cache in %v", time.Since(start))

	peak := in.PeakBandwidth
	if c.CopyBandwidth < 0.3*peak || c.CopyBandwidth > 1.05*peak {
		t.Errorf("copy %s, outside 30%%–105%% of the %s peak", bandwidth(c.CopyBandwidth), bandwidth(peak))
	}
	for _, g := range [][2]float64{{c.Gather4InL2, c.Gather4Beyond}, {c.Gather8InL2, c.Gather8Beyond}} {
		if !(g[0] > g[1]) || g[1] > peak/2 || g[0] <= 0 {
			t.Errorf("gather in L2 %s, beyond %s: want in L2 faster, beyond below half the %s peak", bandwidth(g[0]), bandwidth(g[1]), bandwidth(peak))
		}
	}
	if c.LaunchLatency < 200*time.Nanosecond || c.LaunchLatency > 50*time.Microsecond ||
		c.LaunchRoundTrip < c.LaunchLatency || c.LaunchHostCost <= 0 {
		t.Errorf("launch: %v back to back, %v host, %v round trip", c.LaunchLatency, c.LaunchHostCost, c.LaunchRoundTrip)
	}
	if c.L2Bytes != in.L2Bytes || c.Device != in.Name || c.BeyondL2Bytes < 4*in.L2Bytes {
		t.Errorf("figures of %q with L2 %d and tables %d, %d; device %q, L2 %d", c.Device, c.L2Bytes, c.InL2Bytes, c.BeyondL2Bytes, in.Name, in.L2Bytes)
	}
}

// TestGPUCeilingsCached calls Ceilings with the cache as configured and
// reports where the figures came from and how long the call took: run it
// twice in two processes, and the second reads the first's file.
func TestGPUCeilingsCached(t *testing.T) {
	d := requireGPU(t)
	start := time.Now()
	c := must[Ceilings](t)(d.Ceilings())
	el := time.Since(start)
	t.Logf("Ceilings took %v (cached: %v; measurement %v)\n%s", el, c.Cached, c.MeasureTime, c)
	if c.Cached && el > 50*time.Millisecond {
		t.Errorf("reading cached ceilings took %v", el)
	}
}
