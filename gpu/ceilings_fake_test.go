//go:build cgo

package gpu

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The ceilings on the fake driver, scenarios run by TestFakeDriver each
// in a child process (`go test -run 'TestFakeDriver/ceilings'`). The fake
// runs no kernel (its launches
// only log) and times every pair of events at 2.5 ms, so a measurement
// there checks the method's calls, sizes, arithmetic and clean-up; the
// caching scenario stands in for the measurement with a function of its
// own.

// fakeFree600 is the fake device's free memory in the measuring
// scenarios: half of it takes a 200 MiB table (4 × the fake's 50 MiB L2)
// and 2^24 lookups, so the fake's host-memory copies stay small.
const fakeFree600 = "FAKE_CUDA_FREE=629145600"

// The scenarios run as TestFakeDriver's (fake_test.go), each in a child
// process with the fake driver.
func init() {
	for _, sc := range ceilingsScenarios {
		addScenario(sc.name, sc.env, sc.run)
	}
}

var ceilingsScenarios = []scenario{
	{name: "ceilings_measure", env: func(fakeLibs) []string { return []string{fakeFree600} }, run: fakeCeilingsMeasure},
	{name: "ceilings_alloc_shrinks", env: func(fakeLibs) []string {
		return []string{fakeFree600, "FAKE_CUDA_FAIL=cuMemAlloc_v2=2:1"}
	}, run: fakeCeilingsAllocShrinks},
	{name: "ceilings_no_memory", env: func(fakeLibs) []string { return []string{"FAKE_CUDA_FREE=314572800"} }, run: fakeCeilingsNoMemory},
	{name: "ceilings_copy_fails", env: func(fakeLibs) []string {
		return []string{fakeFree600, "FAKE_CUDA_FAIL=cuMemcpyDtoD_v2=1:1"}
	}, run: fakeCeilingsCopyFails},
	{name: "ceilings_cache", run: fakeCeilingsCache},
}

// freeMemory returns the fake device's free memory.
func freeMemory(t *testing.T, d *Device) int64 {
	t.Helper()
	return must[Info](t)(d.Info()).FreeMemory
}

// checkAllFreed checks that every allocation logged was freed.
func checkAllFreed(t *testing.T, d *Device, free int64) {
	t.Helper()
	if got := freeMemory(t, d); got != free {
		t.Errorf("free memory %d after the measurement, %d before: it did not free all it allocated", got, free)
	}
	allocs := strings.Count(grepLog(t, "cuMemAlloc_v2 bytes="), " ptr=") // the successful ones
	if frees := countLog(t, "cuMemFree_v2 ptr="); allocs != frees {
		t.Errorf("%d allocations, %d frees", allocs, frees)
	}
	if d.MemoryUsed() != 0 {
		t.Errorf("MemoryUsed %d after the measurement, want 0", d.MemoryUsed())
	}
}

// Every event pair of the fake lasts 2.5 ms (fakeElapsed).
func perFakeElapsed(bytes int64) float64 { return float64(bytes) / fakeElapsed.Seconds() }

func near(a, b float64) bool { return a == b || (a-b)/b < 1e-9 && (b-a)/b < 1e-9 }

func fakeCeilingsMeasure(t *testing.T) {
	d := fakeDevice(t)
	free := freeMemory(t, d)
	const MiB = 1 << 20
	c := must[Ceilings](t)(d.Ceilings())
	t.Logf("%s", c)
	if c.Cached || c.Device != "Fake H100 80GB HBM3" || c.DriverVersion != "13.0" || c.PCIBusID != "" {
		t.Errorf("identity: %q, driver %q, PCI %q, cached %v", c.Device, c.DriverVersion, c.PCIBusID, c.Cached)
	}
	if c.L2Bytes != 50*MiB || c.InL2Bytes != 50*MiB/4 || c.BeyondL2Bytes != 200*MiB || c.Lookups != 1<<24 || c.CopyBytes != 100*MiB {
		t.Errorf("sizes: L2 %d, tables %d and %d, %d lookups, copy %d; want 50 MiB, 12.5 and 200 MiB, 2^24, 100 MiB",
			c.L2Bytes, c.InL2Bytes, c.BeyondL2Bytes, c.Lookups, c.CopyBytes)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"copy", c.CopyBandwidth, perFakeElapsed(2 * 100 * MiB)},
		{"gather 4 in L2", c.Gather4InL2, perFakeElapsed(4 << 24)},
		{"gather 4 beyond", c.Gather4Beyond, perFakeElapsed(4 << 24)},
		{"gather 8 in L2", c.Gather8InL2, perFakeElapsed(8 << 24)},
		{"gather 8 beyond", c.Gather8Beyond, perFakeElapsed(8 << 24)},
		{"peak", c.PeakBandwidth, 2 * 2619000e3 * 5120 / 8},
	} {
		if !near(f.got, f.want) {
			t.Errorf("%s: %g B/s, want %g", f.name, f.got, f.want)
		}
	}
	if c.LaunchLatency != fakeElapsed/ceilingsBurst || c.LaunchHostCost <= 0 || c.LaunchRoundTrip <= 0 {
		t.Errorf("launch: %v back to back (want %v), %v host, %v round trip", c.LaunchLatency, fakeElapsed/ceilingsBurst, c.LaunchHostCost, c.LaunchRoundTrip)
	}
	if c.MeasureTime <= 0 || time.Since(c.Measured) > time.Minute {
		t.Errorf("measured %v, in %v", c.Measured, c.MeasureTime)
	}
	checkAllFreed(t, d, free)

	// The calls: a warm-up and three timed runs of each copy and gather,
	// the index fills with the table's length and a seed each, the spin
	// (once, or twice when the burst outlasted it) and the empty kernels.
	if n := countLog(t, "cuMemcpyDtoD_v2 bytes=104857600"); n != 1+ceilingsReps {
		t.Errorf("%d copies of 100 MiB, want %d", n, 1+ceilingsReps)
	}
	launches := map[string]int{}
	var fills []string
	for _, l := range strings.Split(grepLog(t, "cuLaunchKernel "), "\n") {
		name, _, _, _, _, args := parseLaunch(t, l)
		launches[name]++
		if name == kIndices {
			fills = append(fills, fmt.Sprintf("%d/%d", leU64(args[2][:4]), leU64(args[3][:4])))
		}
		if name == kGather4 || name == kGather8 {
			if _, grid, block, _, _, _ := parseLaunch(t, l); grid != "1056,1,1" || block != "256,1,1" {
				t.Errorf("gather launched on grid %s, block %s; want 1056 blocks (8 per SM) of 256", grid, block)
			}
		}
	}
	spins := launches[kSpin]
	if spins < 1 || spins > 2 || launches[kGather4] != 2*(1+ceilingsReps) || launches[kGather8] != 2*(1+ceilingsReps) ||
		launches[kEmpty] != 8+spins*ceilingsBurst+ceilingsTrips {
		t.Errorf("launches %v", launches)
	}
	// Index ranges: 12.5 MiB and 200 MiB of 4-byte, then of 8-byte elements.
	if got, want := strings.Join(fills, " "), "3276800/1 52428800/2 1638400/3 26214400/4"; got != want {
		t.Errorf("index fills (range/seed) %s, want %s", got, want)
	}

	// The file was written; a second call measures nothing.
	if _, ok := readCeilings(d.ceilingsKey(), d.Name()); !ok {
		t.Error("no cache file after the measurement")
	}
	before := countLog(t, "cuLaunchKernel ")
	again := must[Ceilings](t)(d.Ceilings())
	if n := countLog(t, "cuLaunchKernel "); n != before || again.CopyBandwidth != c.CopyBandwidth || again.Cached {
		t.Errorf("second call: %d launches (want %d), copy %g (want %g), cached %v", n, before, again.CopyBandwidth, c.CopyBandwidth, again.Cached)
	}
}

// parseLaunch parses one cuLaunchKernel log line.
func parseLaunch(t *testing.T, line string) (name, grid, block, shared, stream string, args [][8]byte) {
	t.Helper()
	m := launchRE.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("not a launch line: %q", line)
	}
	for _, h := range strings.Split(m[7], ",") {
		if h == "" {
			continue
		}
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 8 {
			t.Fatalf("bad argument bytes %q in %q", h, line)
		}
		args = append(args, [8]byte(b))
	}
	return m[1], m[2], m[3], m[4], m[5], args
}

// leU64 reads little-endian bytes.
func leU64(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// An allocation that runs out of memory (another process took it) shrinks
// the plan and tries again.
func fakeCeilingsAllocShrinks(t *testing.T) {
	d := fakeDevice(t)
	free := freeMemory(t, d)
	c := must[Ceilings](t)(d.Ceilings())
	if c.BeyondL2Bytes != 200<<20 || c.Lookups != 1<<23 {
		t.Errorf("after an allocation ran out of memory: table %d, %d lookups; want 200 MiB (4 × L2) and 2^23", c.BeyondL2Bytes, c.Lookups)
	}
	if n := countLog(t, "cuMemAlloc_v2 fail=2"); n != 1 {
		t.Errorf("%d failed allocations, want the 1 injected", n)
	}
	checkAllFreed(t, d, free)
}

// Too little free memory: an error that says how much is needed, nothing
// allocated, nothing cached.
func fakeCeilingsNoMemory(t *testing.T) {
	d := fakeDevice(t)
	_, err := d.Ceilings()
	wantErr(t, err, ErrOutOfMemory, "gpu: measuring the ceilings of Fake H100 80GB HBM3 (device 0): out of device memory: the measurement needs",
		"only 300.0 MiB is free", "free buffers")
	if n := countLog(t, "cuMemAlloc_v2"); n != 0 {
		t.Errorf("%d allocations, want none", n)
	}
	if _, ok := readCeilings(d.ceilingsKey(), d.Name()); ok {
		t.Error("a failed measurement wrote the cache file")
	}
	// Not cached: with memory freed, the next call measures.
	t.Setenv("FAKE_CUDA_FREE", strings.TrimPrefix(fakeFree600, "FAKE_CUDA_FREE="))
	if c := must[Ceilings](t)(d.Ceilings()); c.BeyondL2Bytes != 200<<20 {
		t.Errorf("after memory was freed: table %d, want 200 MiB", c.BeyondL2Bytes)
	}
}

// A failing driver call: its error, wrapped, everything freed; the next
// call measures again and succeeds.
func fakeCeilingsCopyFails(t *testing.T) {
	d := fakeDevice(t)
	free := freeMemory(t, d)
	_, err := d.Ceilings()
	wantErr(t, err, nil, "gpu: measuring the ceilings of Fake H100 80GB HBM3 (device 0): cuMemcpyDtoD_v2(100.0 MiB): CUDA_ERROR_INVALID_VALUE")
	var e *Error
	if !errors.As(err, &e) || e.Code != 1 {
		t.Errorf("error %v does not carry the driver's *Error", err)
	}
	checkAllFreed(t, d, free)
	c := must[Ceilings](t)(d.Ceilings())
	if c.CopyBandwidth <= 0 {
		t.Errorf("after the failure: %+v", c)
	}
	checkAllFreed(t, d, free)
}

// The caches, with a measurement function standing in for the fake's.
func fakeCeilingsCache(t *testing.T) {
	d := fakeDevice(t)
	var calls atomic.Int32
	var fail error
	defer func(m func(*Device) (Ceilings, error)) { measureCeilings = m }(measureCeilings)
	measureCeilings = func(dev *Device) (Ceilings, error) {
		if dev != d {
			t.Errorf("measured %v, want %v", dev, d)
		}
		calls.Add(1)
		time.Sleep(10 * time.Millisecond) // let concurrent callers pile up
		if fail != nil {
			return Ceilings{}, fail
		}
		c := sampleCeilings(dev.Name())
		c.CopyBandwidth += float64(calls.Load()) // tells measurements apart
		c.Measured = time.Now()
		return c, nil
	}
	expect := func(what string, c Ceilings, n int32, cached bool) {
		t.Helper()
		if got := calls.Load(); got != n || c.Cached != cached {
			t.Errorf("%s: %d measurements (want %d), cached %v (want %v)", what, got, n, c.Cached, cached)
		}
	}
	path := ceilingsPath(d.ceilingsKey())

	// Concurrent first calls: one measurement, all get its figures.
	var wg sync.WaitGroup
	got := make([]Ceilings, 8)
	for i := range got {
		wg.Go(func() { got[i] = must[Ceilings](t)(d.Ceilings()) })
	}
	wg.Wait()
	for i := range got {
		if got[i].CopyBandwidth != got[0].CopyBandwidth {
			t.Errorf("concurrent callers got different figures: %g and %g", got[i].CopyBandwidth, got[0].CopyBandwidth)
		}
	}
	expect("first calls", got[0], 1, false)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no cache file: %v", err)
	}
	expect("second call", must[Ceilings](t)(d.Ceilings()), 1, false)

	// A new process reads the file.
	forgetCeilings()
	c := must[Ceilings](t)(d.Ceilings())
	expect("new process", c, 1, true)
	if c.CopyBandwidth != got[0].CopyBandwidth || !c.Measured.Equal(got[0].Measured) {
		t.Errorf("figures read back: copy %g measured %v; want %g, %v", c.CopyBandwidth, c.Measured, got[0].CopyBandwidth, got[0].Measured)
	}

	// A corrupt or foreign file is measured again, and rewritten.
	good := must[[]byte](t)(os.ReadFile(path))
	for i, b := range [][]byte{
		[]byte("not json"),
		good[:len(good)/3],
		bytes.Replace(good, []byte("graphnb ceilings|Fake H100"), []byte("graphnb ceilings|Other GPU"), 1),
		bytes.Replace(good, []byte(`"Device": "Fake H100 80GB HBM3"`), []byte(`"Device": "Other GPU"`), 1),
	} {
		if bytes.Equal(b, good) {
			t.Fatalf("case %d: the file is unchanged", i)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		forgetCeilings()
		expect(fmt.Sprintf("bad file %d", i), must[Ceilings](t)(d.Ceilings()), int32(2+i), false)
		if _, ok := readCeilings(d.ceilingsKey(), d.Name()); !ok {
			t.Errorf("bad file %d was not rewritten", i)
		}
	}
	n := calls.Load()

	// GRAPHNB_CEILINGS=remeasure: measured once per process, file ignored.
	t.Setenv(ceilingsEnv, "remeasure")
	forgetCeilings()
	expect("remeasure", must[Ceilings](t)(d.Ceilings()), n+1, false)
	expect("remeasure, again", must[Ceilings](t)(d.Ceilings()), n+1, false)
	t.Setenv(ceilingsEnv, "sometimes")
	_, err := d.Ceilings()
	wantErr(t, err, nil, `GRAPHNB_CEILINGS="sometimes" is not understood`)
	t.Setenv(ceilingsEnv, "")

	// MeasureCeilings measures whatever is cached, and replaces it.
	m := must[Ceilings](t)(d.MeasureCeilings())
	expect("MeasureCeilings", m, n+2, false)
	if c := must[Ceilings](t)(d.Ceilings()); c.CopyBandwidth != m.CopyBandwidth {
		t.Errorf("Ceilings after MeasureCeilings: copy %g, want %g", c.CopyBandwidth, m.CopyBandwidth)
	}
	forgetCeilings()
	if c := must[Ceilings](t)(d.Ceilings()); c.CopyBandwidth != m.CopyBandwidth || !c.Cached {
		t.Errorf("file after MeasureCeilings: copy %g, cached %v; want %g, cached", c.CopyBandwidth, c.Cached, m.CopyBandwidth)
	}

	// A failed measurement is an error, caches nothing, writes nothing,
	// and the next call tries again.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	forgetCeilings()
	fail = errors.New("gpu: the fake says no")
	_, err = d.Ceilings()
	wantErr(t, err, nil, "gpu: measuring the ceilings of Fake H100 80GB HBM3 (device 0): the fake says no")
	if _, err := os.Stat(path); err == nil {
		t.Error("a failed measurement wrote the cache file")
	}
	fail = nil
	expect("after a failure", must[Ceilings](t)(d.Ceilings()), n+4, false)

	// An unwritable cache directory: measured, not written, no error.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GRAPHNB_CACHE", file)
	forgetCeilings()
	expect("unwritable cache", must[Ceilings](t)(d.Ceilings()), n+5, false)
}
