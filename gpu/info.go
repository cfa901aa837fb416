package gpu

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/graphnb/graphnb/internal/card"
)

// Info describes a device. For the host, Name is the CPU model, SMs the
// number of logical CPUs and the memory figures come from /proc/meminfo;
// the CUDA-only fields are zero.
type Info struct {
	// Name is the product name; Ordinal the device number (-1: host).
	Name    string
	Ordinal int
	// ComputeMajor.ComputeMinor is the compute capability (9.0 for H100).
	ComputeMajor, ComputeMinor int
	// SMs is the number of streaming multiprocessors (host: CPUs).
	SMs int
	// TotalMemory and FreeMemory are bytes of device memory; L2Bytes the
	// L2 cache size in bytes.
	TotalMemory, FreeMemory, L2Bytes int64
	// ClockKHz and MemoryClockKHz are the peak SM and memory clocks in
	// kHz; MemoryBusWidth is in bits. Zero where the driver omits them.
	ClockKHz, MemoryClockKHz, MemoryBusWidth int
	// PeakBandwidth is the theoretical memory bandwidth in bytes/s:
	// 2 · MemoryClockKHz·1000 · MemoryBusWidth/8 (double data rate).
	PeakBandwidth float64
	// MaxThreadsPerBlock, WarpSize and MaxSharedPerBlockOptin (bytes of
	// shared memory a block may opt in to) are launch limits.
	MaxThreadsPerBlock, WarpSize, MaxSharedPerBlockOptin int
	// DriverVersion ("13.0") and NVRTCVersion ("13.0", or why NVRTC is
	// unavailable).
	DriverVersion, NVRTCVersion string
	// Arch is the NVRTC target of the device ("sm_90"); "host" for the CPU.
	Arch string
}

// CUdevice_attribute values (cuda.h).
const (
	attrMaxThreadsPerBlock   = 1
	attrWarpSize             = 10
	attrClockRate            = 13
	attrMultiprocessorCount  = 16
	attrMemoryClockRate      = 36
	attrGlobalMemoryBusWidth = 37
	attrL2CacheSize          = 38
	attrComputeMajor         = 75
	attrComputeMinor         = 76
	attrMaxSharedOptin       = 97
)

// newCUDADevice queries what the driver tells about a device without a
// context.
func newCUDADevice(ordinal int) (*Device, error) {
	dev, code := cuDeviceGet(ordinal)
	if code != 0 {
		return nil, cuError(fmt.Sprintf("cuDeviceGet(%d)", ordinal), code)
	}
	name, code := cuDeviceName(dev)
	if code != 0 {
		return nil, cuError("cuDeviceGetName", code)
	}
	attr := func(a int) int {
		v, code := cuDeviceAttr(a, dev)
		if code != 0 {
			return 0
		}
		return v
	}
	in := Info{
		Name:                   name,
		Ordinal:                ordinal,
		ComputeMajor:           attr(attrComputeMajor),
		ComputeMinor:           attr(attrComputeMinor),
		SMs:                    attr(attrMultiprocessorCount),
		L2Bytes:                int64(attr(attrL2CacheSize)),
		ClockKHz:               attr(attrClockRate),
		MemoryClockKHz:         attr(attrMemoryClockRate),
		MemoryBusWidth:         attr(attrGlobalMemoryBusWidth),
		MaxThreadsPerBlock:     attr(attrMaxThreadsPerBlock),
		WarpSize:               attr(attrWarpSize),
		MaxSharedPerBlockOptin: attr(attrMaxSharedOptin),
		DriverVersion:          versionString(drv.version),
	}
	in.PeakBandwidth = 2 * float64(in.MemoryClockKHz) * 1000 * float64(in.MemoryBusWidth) / 8
	in.Arch = fmt.Sprintf("sm_%d%d", in.ComputeMajor, in.ComputeMinor)
	if total, code := cuDeviceTotalMem(dev); code == 0 {
		in.TotalMemory = total
	}
	return &Device{ordinal: ordinal, cuDev: dev, static: in}, nil
}

// Info returns the device's description; for a CUDA device FreeMemory is
// measured now (on the device thread) and NVRTC is loaded if it can be.
func (d *Device) Info() (Info, error) {
	if d.host {
		return hostInfo(), nil
	}
	in := d.static
	err := d.exec(func(t *Thread) error {
		free, total, code := cuMemInfo()
		if code != 0 {
			return t.check("cuMemGetInfo_v2", code)
		}
		in.FreeMemory, in.TotalMemory = free, total
		return nil
	})
	if err != nil {
		return in, err
	}
	in.NVRTCVersion = nvrtcVersionString()
	return in, nil
}

// nvrtcVersionString returns "13.0", or why NVRTC is unavailable.
func nvrtcVersionString() string {
	if err := nvrtcInit(); err != nil {
		return "not found (" + trimPkg(err) + ")"
	}
	return fmt.Sprintf("%d.%d", rtc.major, rtc.minor)
}

// hostInfo describes the CPU from /proc.
func hostInfo() Info {
	in := Info{Name: "host CPU", Ordinal: -1, SMs: runtime.NumCPU(), Arch: "host"}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() {
			if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				in.Name = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() {
			k, v, ok := strings.Cut(s.Text(), ":")
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				continue
			}
			switch k {
			case "MemTotal":
				in.TotalMemory = n << 10
			case "MemAvailable":
				in.FreeMemory = n << 10
			}
		}
		f.Close()
	}
	return in
}

// String renders the description on a few lines.
func (in Info) String() string {
	var b strings.Builder
	if in.Ordinal < 0 {
		fmt.Fprintf(&b, "host: %s, %d logical CPUs, %s memory (%s available)",
			in.Name, in.SMs, card.Bytes(in.TotalMemory), card.Bytes(in.FreeMemory))
		return b.String()
	}
	fmt.Fprintf(&b, "device %d: %s\n", in.Ordinal, in.Name)
	fmt.Fprintf(&b, "  compute %d.%d (%s), %d SMs, %s clock\n", in.ComputeMajor, in.ComputeMinor, in.Arch, in.SMs, ghz(in.ClockKHz))
	fmt.Fprintf(&b, "  memory %s total, %s free, L2 %s, peak %s\n",
		card.Bytes(in.TotalMemory), card.Bytes(in.FreeMemory), card.Bytes(in.L2Bytes), bandwidth(in.PeakBandwidth))
	fmt.Fprintf(&b, "  limits %d threads/block, warp %d, %s shared/block (opt-in)\n",
		in.MaxThreadsPerBlock, in.WarpSize, card.Bytes(int64(in.MaxSharedPerBlockOptin)))
	fmt.Fprintf(&b, "  driver %s, NVRTC %s", orDash(in.DriverVersion), orDash(in.NVRTCVersion))
	return b.String()
}

// HTML renders the description as a card.
func (in Info) HTML() string {
	if in.Ordinal < 0 {
		return card.New("host device (CPU)").
			Row("CPU", in.Name).
			Row("cores", strconv.Itoa(in.SMs)).
			Row("memory", card.Bytes(in.TotalMemory)+" ("+card.Bytes(in.FreeMemory)+" available)").
			HTML()
	}
	return card.New(fmt.Sprintf("GPU %d: %s", in.Ordinal, in.Name)).
		Row("compute capability", fmt.Sprintf("%d.%d (%s)", in.ComputeMajor, in.ComputeMinor, in.Arch)).
		Row("SMs", strconv.Itoa(in.SMs)).
		Row("memory", card.Bytes(in.TotalMemory)+" total, "+card.Bytes(in.FreeMemory)+" free").
		Row("L2 cache", card.Bytes(in.L2Bytes)).
		Row("clocks", "SM "+ghz(in.ClockKHz)+", memory "+ghz(in.MemoryClockKHz)+", "+strconv.Itoa(in.MemoryBusWidth)+"-bit bus").
		Row("peak bandwidth", bandwidth(in.PeakBandwidth)).
		Row("limits", fmt.Sprintf("%d threads/block, warp %d, %s shared/block opt-in", in.MaxThreadsPerBlock, in.WarpSize, card.Bytes(int64(in.MaxSharedPerBlockOptin)))).
		Row("driver", orDash(in.DriverVersion)).
		Row("NVRTC", orDash(in.NVRTCVersion)).
		HTML()
}

func ghz(khz int) string {
	if khz <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.2f GHz", float64(khz)/1e6)
}

func bandwidth(bps float64) string {
	if bps <= 0 {
		return "?"
	}
	return strings.TrimSpace(card.SI(bps)) + "B/s"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// HTML renders the device's Info as a card (or the error getting it).
func (d *Device) HTML() string {
	in, err := d.Info()
	if err != nil {
		return card.New(d.String()).Row("error", err.Error()).HTML()
	}
	return in.HTML()
}

// Status summarises every device for the %gpu magic: each CUDA device's
// Info, or why there is none, and which device Default chose.
func Status() string {
	var b strings.Builder
	devs, err := Devices()
	switch {
	case err != nil:
		fmt.Fprintf(&b, "no GPU: %s\n", trimPkg(err))
	case len(devs) == 0:
		b.WriteString("no GPU: the driver sees no CUDA device\n")
	default:
		fmt.Fprintf(&b, "%d CUDA device(s), driver %s\n", len(devs), orDash(versionString(drv.version)))
		for _, d := range devs {
			in, err := d.Info()
			if err != nil {
				fmt.Fprintf(&b, "%s: %s\n", d, trimPkg(err))
				continue
			}
			b.WriteString(in.String())
			b.WriteString("\n")
		}
	}
	b.WriteString(hostInfo().String())
	b.WriteString("\ndefault: ")
	b.WriteString(DefaultReason())
	return b.String()
}
