package gpu

import (
	"fmt"
	"strings"
	"sync"
)

// ModuleCache compiles one CUDA source once per device and process, for
// packages whose kernels live in an embedded .cu file:
//
//	var kernels = gpu.ModuleCache{Name: "sssp.cu", Source: kernelSource}
//	mod, err := kernels.For(dev)
//
// NVRTC's output is also cached on disk (see Compile), so a later process
// only loads it. The zero value with Name and Source set is ready to use;
// it is safe for concurrent use.
type ModuleCache struct {
	// Name names the module in errors and listings; Source is the CUDA C.
	Name, Source string
	// Options are passed to Compile.
	Options []CompileOption

	mu       sync.Mutex
	byDevice map[*Device]*Module
}

// For returns the module compiled for dev, compiling it on first use. A
// compile error is returned (and the next call tries again).
func (c *ModuleCache) For(dev *Device) (*Module, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.byDevice[dev]; m != nil {
		return m, nil
	}
	m, err := dev.Compile(c.Name, c.Source, c.Options...)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", c.Name, err)
	}
	if c.byDevice == nil {
		c.byDevice = map[*Device]*Module{}
	}
	c.byDevice[dev] = m
	return m, nil
}

// Functions returns the named kernels of the module compiled for dev
// (compiling it on first use), by name; the first missing name is an
// error.
func (c *ModuleCache) Functions(dev *Device, names []string) (map[string]*Function, error) {
	m, err := c.For(dev)
	if err != nil {
		return nil, err
	}
	fn := make(map[string]*Function, len(names))
	for _, name := range names {
		if fn[name], err = m.Function(name); err != nil {
			return nil, err
		}
	}
	return fn, nil
}

// TracedBuilds are the two builds of a kernel file whose traced runs
// launch kernels that log themselves (LaunchLog): Untraced, the source
// alone, which untraced runs launch, so that they carry no trace code;
// Traced, the source after the launch log's header (PrependLaunchLog)
// with -D<macro>=1. Each is compiled once per device and process, on
// first use.
type TracedBuilds struct {
	Untraced, Traced ModuleCache
}

// NewTracedBuilds returns the two builds of source, named name (the
// traced one "name (traced)"), the traced one compiled with macro
// defined to 1.
func NewTracedBuilds(name, source, macro string) *TracedBuilds {
	return &TracedBuilds{
		Untraced: ModuleCache{Name: name, Source: source},
		Traced: ModuleCache{Name: name + " (traced)", Source: PrependLaunchLog(source),
			Options: []CompileOption{Define(macro, "1")}},
	}
}

// Build returns the traced or the untraced build.
func (b *TracedBuilds) Build(traced bool) *ModuleCache {
	if traced {
		return &b.Traced
	}
	return &b.Untraced
}

// For returns the traced or the untraced build compiled for dev.
func (b *TracedBuilds) For(dev *Device, traced bool) (*Module, error) {
	return b.Build(traced).For(dev)
}

// Registers lists the registers a thread of each named kernel takes in
// the untraced and the traced build on dev, "name untraced/traced"
// joined by ", " (what a traced build's cost shows first: more
// registers, fewer blocks an SM). It compiles both builds if needed.
func (b *TracedBuilds) Registers(dev *Device, names []string) (string, error) {
	line := make([]string, 0, len(names))
	for _, name := range names {
		regs, err := b.RegisterCounts(dev, name)
		if err != nil {
			return "", err
		}
		line = append(line, fmt.Sprintf("%s %d/%d", name, regs[0], regs[1]))
	}
	return strings.Join(line, ", "), nil
}

// RegisterCounts returns the registers a thread of kernel name takes in
// the untraced build (index 0) and the traced build (index 1) on dev,
// compiling both builds if needed.
func (b *TracedBuilds) RegisterCounts(dev *Device, name string) ([2]int, error) {
	var regs [2]int
	for i, build := range []*ModuleCache{&b.Untraced, &b.Traced} {
		f, err := build.Functions(dev, []string{name})
		if err != nil {
			return regs, err
		}
		a, err := f[name].Attributes()
		if err != nil {
			return regs, err
		}
		regs[i] = a.Registers
	}
	return regs, nil
}
