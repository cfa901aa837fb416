package gpu

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/graphnb/graphnb/internal/card"
)

// Ceilings are a device's measured limits: how fast it copies memory,
// gathers random elements in and beyond its L2 cache, and launches
// kernels. They are the lines of a roofline chart and the yardstick of a
// run's bandwidth ("this level read its arcs at 40% of the gather
// ceiling"). Bandwidths are in bytes per second (decimal: 1 TB/s is
// 1e12 B/s).
//
// Device.Ceilings measures them once per device and caches them, in the
// process and on disk; the figures are the best of a few repetitions on
// an otherwise idle device (see Device.Ceilings for the method).
type Ceilings struct {
	// Device is the device's name ("NVIDIA H100 80GB HBM3"); PCIBusID its
	// PCI address ("0000:1b:00", "" where the driver does not tell);
	// DriverVersion the CUDA driver's version ("13.0"). With the
	// measurement method, they key the cache file.
	Device, PCIBusID, DriverVersion string

	// PeakBandwidth is the theoretical DRAM bandwidth from the memory
	// clock and bus width (Info.PeakBandwidth), for comparison; it is not
	// measured.
	PeakBandwidth float64

	// CopyBandwidth is a device-to-device cuMemcpyDtoD of CopyBytes:
	// bytes read plus bytes written (2·CopyBytes) per second.
	CopyBandwidth float64
	CopyBytes     int64

	// Gather4InL2, Gather4Beyond, Gather8InL2 and Gather8Beyond are random
	// gathers of 4- and 8-byte elements from a table of InL2Bytes (a
	// quarter of the L2 cache: it stays cached) and of BeyondL2Bytes (16
	// times the L2 size, at most 1 GiB: almost every lookup goes to DRAM).
	// The bandwidth counts the useful bytes only, elements × element size
	// per second, for Lookups lookups: not the 4-byte index each lookup
	// reads first (sequentially), nor the rest of the 32-byte sector a
	// lookup moves. Beyond L2 a 4-byte gather can thus reach at most an
	// eighth of the DRAM bandwidth, an 8-byte gather a quarter. (On an
	// H100 both sizes make the same lookups per second, 127 G in L2 and
	// 31 G beyond, so the 8-byte figures are twice the 4-byte ones.)
	Gather4InL2, Gather4Beyond, Gather8InL2, Gather8Beyond float64
	InL2Bytes, BeyondL2Bytes, L2Bytes                      int64
	Lookups                                                int64

	// LaunchLatency is the GPU time per launch of an empty kernel, launched
	// back to back (queued behind a spinning kernel, then timed between two
	// events): the least a kernel launch costs the GPU.
	LaunchLatency time.Duration
	// LaunchHostCost is the host's time per launch call (Thread.Launch,
	// queueing only) in that burst.
	LaunchHostCost time.Duration
	// LaunchRoundTrip is the wall time of one launch of the empty kernel
	// followed by a synchronize (the median of several): what a loop that
	// waits for every kernel, such as a level-synchronous search reading
	// each level's frontier size, pays per step at least.
	LaunchRoundTrip time.Duration

	// Measured is when the measurement was made; MeasureTime how long it
	// took, compiling its kernels included (a cached compile costs well
	// under a millisecond; NVRTC's first compile about 0.1–0.3 s).
	Measured    time.Time
	MeasureTime time.Duration

	// Cached reports that the figures were read from the cache file, not
	// measured by this process.
	Cached bool `json:"-"`
}

// Roof is one horizontal line of a roofline chart: a bandwidth ceiling
// in bytes per second, with its name.
type Roof struct {
	Name           string
	BytesPerSecond float64
}

// Roofs returns the bandwidth ceilings as a roofline's lines, highest
// kind of access first: the theoretical peak, the device copy, then the
// four gathers. Lines whose figure is unknown (zero) are left out.
func (c Ceilings) Roofs() []Roof {
	var out []Roof
	for _, r := range []Roof{
		{"peak (theoretical)", c.PeakBandwidth},
		{"device copy", c.CopyBandwidth},
		{"gather 4 B in L2", c.Gather4InL2},
		{"gather 8 B in L2", c.Gather8InL2},
		{"gather 8 B beyond L2", c.Gather8Beyond},
		{"gather 4 B beyond L2", c.Gather4Beyond},
	} {
		if r.BytesPerSecond > 0 {
			out = append(out, r)
		}
	}
	return out
}

// GatherCeiling returns the gather ceiling for random reads of elemBytes
// elements (4 or less: the 4-byte figures, else the 8-byte ones) from a
// table of tableBytes: the in-L2 figure when the table fits the L2 cache,
// else the beyond-L2 one. Between a quarter of the L2 and 16 times it the
// true rate lies between the two; this picks the nearer regime.
func (c Ceilings) GatherCeiling(elemBytes int, tableBytes int64) float64 {
	inL2 := c.L2Bytes > 0 && tableBytes <= c.L2Bytes
	switch {
	case elemBytes <= 4 && inL2:
		return c.Gather4InL2
	case elemBytes <= 4:
		return c.Gather4Beyond
	case inL2:
		return c.Gather8InL2
	}
	return c.Gather8Beyond
}

// String renders the ceilings on a few lines.
func (c Ceilings) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ceilings of %s: %s\n", c.Device, c.provenance())
	fmt.Fprintf(&b, "  device copy  %s\n", c.copyText())
	fmt.Fprintf(&b, "  gather 4 B   %s\n", c.gatherText(c.Gather4InL2, c.Gather4Beyond))
	fmt.Fprintf(&b, "  gather 8 B   %s\n", c.gatherText(c.Gather8InL2, c.Gather8Beyond))
	fmt.Fprintf(&b, "  launch       %s", c.launchText())
	return b.String()
}

// HTML renders the ceilings as a card.
func (c Ceilings) HTML() string {
	return card.New("ceilings: "+c.Device).
		Row("device copy", c.copyText()).
		Row("gather 4 B", c.gatherText(c.Gather4InL2, c.Gather4Beyond)).
		Row("gather 8 B", c.gatherText(c.Gather8InL2, c.Gather8Beyond)).
		Row("launch", c.launchText()).
		Row("measured", c.provenance()).
		HTML()
}

func (c Ceilings) copyText() string {
	s := bandwidth(c.CopyBandwidth) + " read + written (" + card.Bytes(c.CopyBytes) + " copied)"
	if c.PeakBandwidth > 0 && c.CopyBandwidth > 0 {
		s += fmt.Sprintf(", %.0f%% of the %s peak", 100*c.CopyBandwidth/c.PeakBandwidth, bandwidth(c.PeakBandwidth))
	}
	return s
}

func (c Ceilings) gatherText(inL2, beyond float64) string {
	return fmt.Sprintf("%s from %s (in L2), %s from %s (beyond L2)",
		bandwidth(inL2), card.Bytes(c.InL2Bytes), bandwidth(beyond), card.Bytes(c.BeyondL2Bytes))
}

func (c Ceilings) launchText() string {
	return fmt.Sprintf("%s a launch back to back (GPU), %s per launch call (host), %s launch + synchronize",
		micros(c.LaunchLatency), micros(c.LaunchHostCost), micros(c.LaunchRoundTrip))
}

func (c Ceilings) provenance() string {
	s := "measured " + c.Measured.Local().Format("2006-01-02 15:04") + fmt.Sprintf(" in %.2f s", c.MeasureTime.Seconds())
	if c.Cached {
		s += ", read from the cache; " + ceilingsEnv + "=remeasure measures again"
	}
	return s
}

// micros renders a duration in microseconds: "2.13 µs".
func micros(d time.Duration) string {
	if d <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.3g µs", float64(d)/float64(time.Microsecond))
}

// ---- the measurement ----

//go:embed ceilings.cu
var ceilingsSource string

var ceilingsKernels = ModuleCache{Name: "ceilings.cu", Source: ceilingsSource}

const (
	kIndices = "ceilings_indices"
	kGather4 = "ceilings_gather4"
	kGather8 = "ceilings_gather8"
	kEmpty   = "ceilings_empty"
	kSpin    = "ceilings_spin"
)

var ceilingsKernelNames = []string{kIndices, kGather4, kGather8, kEmpty, kSpin}

// The measurement's sizes and repetitions. ceilingsMethod names the
// method in the cache key: change it (or ceilings.cu) and cached figures
// are measured again.
const (
	ceilingsMethod   = "v1: best of 3 after a warm-up; 2^25 lookups; L2/4 and 16·L2 tables; 256 launches"
	ceilingsReps     = 3
	ceilingsLookups  = 1 << 25 // lookups per gather (128 MiB of indices)
	ceilingsMinLooks = 1 << 20
	ceilingsMaxTable = 1 << 30   // largest beyond-L2 table
	ceilingsMinTable = 256 << 20 // smallest beyond-L2 table planned, memory allowing
	ceilingsBlock    = 256
	ceilingsBurst    = 256 // back-to-back launches timed
	ceilingsTrips    = 15  // launch + synchronize round trips (median)
	ceilingsSpin     = 2 * time.Millisecond
	// assumedL2 stands in for an L2 size the driver does not report.
	assumedL2 = 4 << 20
)

// ceilingsPlan is the sizes of one measurement.
type ceilingsPlan struct {
	l2, inL2, beyond int64 // bytes: the L2 and the two gather tables
	lookups          int64 // gathers per run (4-byte indices)
	grid, block      int   // of the gathers and the index fill
	minBeyond        int64 // the beyond-L2 table is not shrunk below this
}

// need returns the bytes of device memory the plan allocates: the table
// (also the copy's source and destination), the indices and one output
// element of 8 bytes per thread.
func (p ceilingsPlan) need() int64 {
	return p.beyond + 4*p.lookups + 8*int64(p.grid)*int64(p.block)
}

// shrink halves the beyond-L2 table, or else the lookups, for a device
// short of memory; false when neither can shrink.
func (p *ceilingsPlan) shrink() bool {
	switch {
	case p.beyond/2 >= p.minBeyond:
		p.beyond /= 2
	case p.lookups/2 >= ceilingsMinLooks:
		p.lookups /= 2
	default:
		return false
	}
	return true
}

// planCeilings sizes a measurement for a device with free bytes of free
// memory, an L2 cache of l2 bytes (0: unknown) and sms multiprocessors.
// It takes at most half the free memory, so that other work keeps room;
// when even the smallest plan (a beyond-L2 table of 4·L2, 2^20 lookups)
// does not fit, the error wraps ErrOutOfMemory.
func planCeilings(free, l2 int64, sms int) (ceilingsPlan, error) {
	if l2 <= 0 {
		l2 = assumedL2
	}
	if sms <= 0 {
		sms = 1
	}
	p := ceilingsPlan{
		l2:      l2,
		inL2:    max(l2/4, 64<<10) &^ 7,
		beyond:  min(max(16*l2, ceilingsMinTable), ceilingsMaxTable) &^ 7,
		lookups: ceilingsLookups,
		// 2048 threads per SM: a full H100 SM, and enough loads in flight
		// to cover DRAM's latency.
		grid:      sms * (2048 / ceilingsBlock),
		block:     ceilingsBlock,
		minBeyond: (4 * l2) &^ 7,
	}
	budget := free / 2
	for p.need() > budget {
		if !p.shrink() {
			return p, fmt.Errorf("%w: the measurement needs %s of device memory (a table of 4 × the %s L2, %s of indices) and takes at most half the free memory, but only %s is free; free buffers (Free, or Close device graphs) and ask again",
				ErrOutOfMemory, card.Bytes(p.need()), card.Bytes(l2), card.Bytes(4*p.lookups), card.Bytes(free))
		}
	}
	return p, nil
}

// measureCeilings measures a device's ceilings, caches aside. Tests stand
// in for it.
var measureCeilings = func(d *Device) (Ceilings, error) { return d.measureCeilings() }

// measureCeilings compiles ceilings.cu (or takes it from the module
// cache) and runs the whole measurement in one visit to the device
// thread, freeing all it allocated.
func (d *Device) measureCeilings() (Ceilings, error) {
	start := time.Now()
	fn, err := ceilingsKernels.Functions(d, ceilingsKernelNames)
	if err != nil {
		return Ceilings{}, err
	}
	c := Ceilings{
		Device:        d.Name(),
		PCIBusID:      d.pciBusID(),
		DriverVersion: versionString(drv.version),
		PeakBandwidth: d.static.PeakBandwidth,
		L2Bytes:       d.static.L2Bytes,
	}
	err = d.exec(func(t *Thread) error { return t.measureCeilings(&c, fn) })
	if err != nil {
		return Ceilings{}, err
	}
	c.Measured = time.Now()
	c.MeasureTime = time.Since(start)
	return c, nil
}

// measureCeilings is the measurement, on the device thread.
func (t *Thread) measureCeilings(c *Ceilings, fn map[string]*Function) error {
	free, _, code := cuMemInfo()
	if err := t.check("cuMemGetInfo_v2", code); err != nil {
		return err
	}
	p, err := planCeilings(free, t.d.static.L2Bytes, t.d.static.SMs)
	if err != nil {
		return err
	}

	// Allocate, shrinking the plan when another allocation got there
	// first; everything is freed on the way out.
	var ptrs []uint64
	gen := t.d.generation()
	defer func() {
		if t.d.generation() != gen {
			return // a fault reset the device: the memory went with it
		}
		for _, ptr := range ptrs {
			_ = t.check("cuMemFree_v2", cuMemFree(ptr))
		}
	}()
	var table, idx, out uint64
	for {
		table, idx, out, err = t.allocCeilings(p, &ptrs)
		if err == nil {
			break
		}
		if !errors.Is(err, ErrOutOfMemory) || !p.shrink() {
			return err
		}
	}

	var ev [2]uintptr
	defer func() {
		for _, e := range ev {
			if e != 0 && t.d.generation() == gen {
				cuEventDestroy(e)
			}
		}
	}()
	for i := range ev {
		e, code := cuEventCreate()
		if err := t.check("cuEventCreate", code); err != nil {
			return err
		}
		ev[i] = e
	}
	// best times f between the two events: one warm-up, then the least
	// of ceilingsReps runs.
	best := func(f func() error) (time.Duration, error) {
		if err := f(); err != nil {
			return 0, err
		}
		least := time.Duration(math.MaxInt64)
		for range ceilingsReps {
			if err := t.check("cuEventRecord", cuEventRecord(ev[0], 0)); err != nil {
				return 0, err
			}
			if err := f(); err != nil {
				return 0, err
			}
			if err := t.check("cuEventRecord", cuEventRecord(ev[1], 0)); err != nil {
				return 0, err
			}
			el, err := t.elapsed(ev[0], ev[1])
			if err != nil {
				return 0, err
			}
			least = min(least, el)
		}
		return max(least, time.Nanosecond), nil
	}
	perSecond := func(bytes int64, d time.Duration) float64 { return float64(bytes) / d.Seconds() }

	// The copy: the table's first half onto its second.
	half := (p.beyond / 2) &^ 7
	el, err := best(func() error {
		return t.check("cuMemcpyDtoD_v2("+card.Bytes(half)+")", cuMemcpyDtoD(table+uint64(half), table, half))
	})
	if err != nil {
		return err
	}
	c.CopyBytes, c.CopyBandwidth = half, perSecond(2*half, el)

	// The gathers.
	grid, block := D1(p.grid), D1(p.block)
	for i, g := range []struct {
		size   int64
		bytes  int64
		kernel string
		into   *float64
	}{
		{4, p.inL2, kGather4, &c.Gather4InL2},
		{4, p.beyond, kGather4, &c.Gather4Beyond},
		{8, p.inL2, kGather8, &c.Gather8InL2},
		{8, p.beyond, kGather8, &c.Gather8Beyond},
	} {
		if err := t.Launch(fn[kIndices], grid, block, 0, idx, p.lookups, uint32(g.bytes/g.size), uint32(i+1)); err != nil {
			return err
		}
		el, err := best(func() error { return t.Launch(fn[g.kernel], grid, block, 0, idx, p.lookups, table, out) })
		if err != nil {
			return err
		}
		*g.into = perSecond(p.lookups*g.size, el)
	}
	c.InL2Bytes, c.BeyondL2Bytes, c.Lookups = p.inL2, p.beyond, p.lookups

	return t.measureLaunches(c, fn, ev)
}

// allocCeilings allocates the plan's table, indices and output, appending
// each to ptrs (which the caller frees); on an error it frees what it
// allocated.
func (t *Thread) allocCeilings(p ceilingsPlan, ptrs *[]uint64) (table, idx, out uint64, err error) {
	n := len(*ptrs)
	var got [3]uint64
	for i, bytes := range []int64{p.beyond, 4 * p.lookups, 8 * int64(p.grid) * int64(p.block)} {
		got[i], err = t.memAlloc("Ceilings", bytes)
		if err != nil {
			for _, ptr := range (*ptrs)[n:] {
				_ = t.check("cuMemFree_v2", cuMemFree(ptr))
			}
			*ptrs = (*ptrs)[:n]
			return 0, 0, 0, err
		}
		*ptrs = append(*ptrs, got[i])
	}
	return got[0], got[1], got[2], nil
}

// measureLaunches times empty launches: a burst queued behind a spinning
// kernel (GPU time per launch and host time per call), then round trips.
func (t *Thread) measureLaunches(c *Ceilings, fn map[string]*Function, ev [2]uintptr) error {
	one, warp := D1(1), D1(32)
	for range 8 { // warm-up: the function handle, the launch path
		if err := t.Launch(fn[kEmpty], one, warp, 0); err != nil {
			return err
		}
	}
	if err := t.Synchronize(); err != nil {
		return err
	}
	spin := ceilingsSpin
	for attempt := 0; ; attempt++ {
		if err := t.Launch(fn[kSpin], one, one, 0, int64(spin)); err != nil {
			return err
		}
		if err := t.check("cuEventRecord", cuEventRecord(ev[0], 0)); err != nil {
			return err
		}
		h := time.Now()
		for range ceilingsBurst {
			if err := t.Launch(fn[kEmpty], one, warp, 0); err != nil {
				return err
			}
		}
		host := time.Since(h)
		if err := t.check("cuEventRecord", cuEventRecord(ev[1], 0)); err != nil {
			return err
		}
		el, err := t.elapsed(ev[0], ev[1])
		if err != nil {
			return err
		}
		c.LaunchLatency, c.LaunchHostCost = el/ceilingsBurst, host/ceilingsBurst
		// The burst must be queued before the spin ends, or the GPU ran
		// it at the host's pace: then spin longer, once.
		if host < spin*3/4 || attempt == 1 {
			break
		}
		spin = 2 * host
	}
	trips := make([]time.Duration, ceilingsTrips)
	for i := range trips {
		h := time.Now()
		if err := t.Launch(fn[kEmpty], one, warp, 0); err != nil {
			return err
		}
		if err := t.Synchronize(); err != nil {
			return err
		}
		trips[i] = time.Since(h)
	}
	slices.Sort(trips)
	c.LaunchRoundTrip = trips[len(trips)/2]
	return nil
}

// CUdevice_attribute values of the PCI address.
const (
	attrPCIBus    = 33
	attrPCIDevice = 34
	attrPCIDomain = 50
)

// pciBusID returns the device's PCI address, "0000:1b:00", or "" when
// the driver does not tell.
func (d *Device) pciBusID() string {
	var v [3]int
	for i, a := range []int{attrPCIDomain, attrPCIBus, attrPCIDevice} {
		x, code := cuDeviceAttr(a, d.cuDev)
		if code != 0 {
			return ""
		}
		v[i] = x
	}
	return fmt.Sprintf("%04x:%02x:%02x", v[0], v[1], v[2])
}

// ---- the caches ----

// ceilingsEnv is the environment variable that forces a measurement.
const ceilingsEnv = "GRAPHNB_CEILINGS"

var ceilingsCache struct {
	mu       sync.Mutex
	byDevice map[*Device]*ceilingsEntry
}

// ceilingsEntry is one device's figures in this process; mu is held
// while they are read or measured, so one caller measures and the others
// wait for its figures.
type ceilingsEntry struct {
	mu sync.Mutex
	c  *Ceilings
}

func ceilingsEntryFor(d *Device) *ceilingsEntry {
	ceilingsCache.mu.Lock()
	defer ceilingsCache.mu.Unlock()
	if ceilingsCache.byDevice == nil {
		ceilingsCache.byDevice = map[*Device]*ceilingsEntry{}
	}
	e := ceilingsCache.byDevice[d]
	if e == nil {
		e = &ceilingsEntry{}
		ceilingsCache.byDevice[d] = e
	}
	return e
}

// Ceilings returns the device's measured ceilings: copy bandwidth,
// random-gather bandwidths in and beyond L2, and launch costs (see the
// Ceilings type for what each figure counts).
//
// The first call in a process reads them from the cache file, or, when
// there is none, measures them (17 ms on an H100, plus about 0.2 s when
// NVRTC compiles the kernels for the first time) and writes the file;
// later calls return the same figures at once. The file lives in the
// compile cache's directory (GRAPHNB_CACHE, else $XDG_CACHE_HOME/graphnb
// or ~/.cache/graphnb), keyed by the device's name, PCI address, the
// driver's version and the measurement method; a file that is corrupt or
// belongs to another device is ignored and measured again.
// GRAPHNB_CEILINGS=remeasure ignores the file: the ceilings are measured
// once in the process and the file rewritten. MeasureCeilings measures
// again on demand.
//
// The measurement:
//
//   - device copy: cuMemcpyDtoD of half a table onto its other half (400
//     MiB on an H100), read + written bytes per second;
//   - random gathers: a grid-stride kernel of 2048 threads per SM reads
//     2^25 precomputed random 4-byte indices sequentially and, for each,
//     a 4- or 8-byte element of a table of a quarter of the L2 size and
//     of 16 times it (at least 256 MiB, at most 1 GiB), summing into a
//     register written once per thread; useful bytes (lookups × element
//     size) per second;
//   - launches: 256 empty kernels queued behind a kernel that spins for
//     2 ms and timed between two events; the host's time per launch
//     call; the median of 15 launch + synchronize round trips.
//
// Each figure is the best of three runs after a warm-up. The measurement
// takes at most half the device's free memory, shrinking the tables and
// indices to fit (an error wrapping ErrOutOfMemory when even the
// smallest does not), frees all it allocated, and holds the device
// thread while it runs; figures taken while other work shared the GPU
// are low: MeasureCeilings once it is idle. On the host device it
// returns an error wrapping ErrHost.
func (d *Device) Ceilings() (Ceilings, error) {
	return d.ceilings(false)
}

// MeasureCeilings measures the device's ceilings now, whatever the caches
// hold, and replaces the cached figures (in the process and on disk)
// with the new ones. See Ceilings.
func (d *Device) MeasureCeilings() (Ceilings, error) {
	return d.ceilings(true)
}

func (d *Device) ceilings(force bool) (Ceilings, error) {
	if d == nil {
		return Ceilings{}, errors.New("gpu: Ceilings on a nil *Device (use gpu.Default())")
	}
	if d.host {
		return Ceilings{}, errHost("Ceilings", "there is no GPU to measure; the ceilings describe a CUDA device's memory and launches")
	}
	remeasure, err := ceilingsRemeasure()
	if err != nil {
		return Ceilings{}, err
	}
	e := ceilingsEntryFor(d)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.c != nil && !force {
		return *e.c, nil
	}
	if err := d.open(); err != nil {
		return Ceilings{}, fmt.Errorf("gpu: ceilings of %v: %w", d, err)
	}
	key := d.ceilingsKey()
	if !force && !remeasure {
		if c, ok := readCeilings(key, d.Name()); ok {
			e.c = &c
			return c, nil
		}
	}
	c, err := measureCeilings(d)
	if err != nil {
		return Ceilings{}, fmt.Errorf("gpu: measuring the ceilings of %v: %w", d, trimErr(err))
	}
	c.Cached = false
	writeCeilings(key, c)
	e.c = &c
	return c, nil
}

// trimErr drops the "gpu: " prefix of an error for wrapping inside a
// sentence, keeping it wrapped.
func trimErr(err error) error {
	if s := err.Error(); strings.HasPrefix(s, "gpu: ") {
		return &trimmedError{err}
	}
	return err
}

type trimmedError struct{ err error }

func (e *trimmedError) Error() string { return strings.TrimPrefix(e.err.Error(), "gpu: ") }
func (e *trimmedError) Unwrap() error { return e.err }

// ceilingsRemeasure reads GRAPHNB_CEILINGS: unset or empty, false;
// "remeasure", true; anything else is an error saying what it may be.
func ceilingsRemeasure() (bool, error) {
	switch v := strings.TrimSpace(os.Getenv(ceilingsEnv)); v {
	case "":
		return false, nil
	case "remeasure":
		return true, nil
	default:
		return false, fmt.Errorf("gpu: %s=%q is not understood: unset it to use the cached ceilings, or set it to remeasure to measure them again", ceilingsEnv, v)
	}
}

// ceilingsKey identifies a device's figures: its name and PCI address,
// the driver's version and the measurement method (the kernels' source
// included).
func (d *Device) ceilingsKey() string {
	method := sha256.Sum256([]byte(ceilingsMethod + "\x00" + ceilingsSource))
	return strings.Join([]string{"graphnb ceilings", d.Name(), "pci " + d.pciBusID(),
		fmt.Sprintf("driver %d", drv.version), d.static.Arch, "method " + hex.EncodeToString(method[:8])}, "|")
}

// ceilingsFile is the cache file's content.
type ceilingsFile struct {
	Key      string
	Ceilings Ceilings
}

// ceilingsPath returns the cache file of a key ("" without a cache
// directory).
func ceilingsPath(key string) string {
	dir := cacheDir()
	if dir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, "ceilings-"+hex.EncodeToString(sum[:8])+".json")
}

// readCeilings returns the cached figures of key, if the file holds
// plausible ones for that key and device.
func readCeilings(key, device string) (Ceilings, bool) {
	path := ceilingsPath(key)
	if path == "" {
		return Ceilings{}, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Ceilings{}, false
	}
	var f ceilingsFile
	if json.Unmarshal(b, &f) != nil || f.Key != key || f.Ceilings.Device != device || !plausible(f.Ceilings) {
		return Ceilings{}, false
	}
	f.Ceilings.Cached = true
	return f.Ceilings, true
}

// plausible reports whether every measured figure is positive and finite.
func plausible(c Ceilings) bool {
	for _, x := range []float64{c.CopyBandwidth, c.Gather4InL2, c.Gather4Beyond, c.Gather8InL2, c.Gather8Beyond} {
		if !(x > 0) || math.IsInf(x, 0) {
			return false
		}
	}
	return c.LaunchLatency > 0 && c.LaunchHostCost > 0 && c.LaunchRoundTrip > 0 && !c.Measured.IsZero()
}

// writeCeilings stores the figures of key, best effort (written to a
// temporary file, then renamed, so readers never see half a file).
func writeCeilings(key string, c Ceilings) {
	path := ceilingsPath(key)
	if path == "" {
		return
	}
	b, err := json.MarshalIndent(ceilingsFile{Key: key, Ceilings: c}, "", "\t")
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-ceilings-*")
	if err != nil {
		return
	}
	_, werr := f.Write(append(b, '\n'))
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}
