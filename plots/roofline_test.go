package plots

import (
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/trace"
)

// h100Ceilings are an H100's measured ceilings (README, "The device's
// ceilings").
func h100Ceilings() gpu.Ceilings {
	return gpu.Ceilings{Device: "NVIDIA H100 80GB HBM3", PeakBandwidth: 3.35e12, CopyBandwidth: 2.95e12,
		Gather4InL2: 506e9, Gather4Beyond: 125e9, Gather8InL2: 1.01e12, Gather8Beyond: 250e9, L2Bytes: 50 << 20,
		LaunchLatency: 1800 * time.Nanosecond}
}

// launchTrace is a run of one kernel whose launches move `bytes` each at
// the given bandwidths (bytes per second).
func launchTrace(name, kernel string, bytes int64, bws ...float64) *trace.Trace {
	t := &trace.Trace{Algorithm: name, Arcs: 1 << 20}
	for i, bw := range bws {
		d := time.Duration(float64(bytes) / bw * 1e9)
		t.Steps = append(t.Steps, trace.Step{Kind: "sweep", Time: d})
		t.Launches = append(t.Launches, trace.Launch{Name: kernel, Step: i, Time: d, Bytes: bytes, Gather: bytes / 2})
		t.Time += d
	}
	return t
}

func TestRoofline(t *testing.T) {
	resetStyles() // golden images: styles as in a fresh notebook
	on := launchTrace("cache on", "sssp_edge_d64_w32_plain", 100<<20, 700e9, 720e9, 690e9)
	off := launchTrace("cache off", "sssp_edge_d64_w32_plain", 100<<20, 520e9, 540e9)
	small := launchTrace("near-far", "sssp_nf_step_d64_w32", 64<<10, 20e9, 25e9)
	c := Roofline(h100Ceilings(), on, off, small)
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
	s := c.String()
	for _, want := range []string{"cache on 3 launches, median 700 GB/s", "cache off 2 launches", "near-far 2 launches",
		"roof DRAM streaming (copy) 2950 GB/s", "8-byte gather beyond L2 250 GB/s"} {
		if !strings.Contains(s, want) {
			t.Errorf("String %q lacks %q", s, want)
		}
	}
	golden(t, "roofline", c.PNG())
	svg := c.SVGText()
	for _, want := range []string{"cache off", "launch latency 1.8µs", "100 MB", "GB/s"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	// One trace of several kernels: a series per kernel.
	two := launchTrace("bfs", "bfs_do_td", 1<<20, 100e9)
	two.Launches = append(two.Launches, trace.Launch{Name: "bfs_do_bu", Step: 0, Time: time.Microsecond, Bytes: 1 << 20})
	if s := Roofline(h100Ceilings(), two).String(); !strings.Contains(s, "bfs_do_td 1 launches") || !strings.Contains(s, "bfs_do_bu 1 launches") {
		t.Errorf("one trace, two kernels: %q", s)
	}
	// An entry of 32 launches (trace.Launch.Count): one point at one
	// launch's bytes, counted as 32 launches.
	counted := launchTrace("apsp", "fw_plain_i32", 32<<20, 500e9)
	counted.Launches[0].Count = 32
	c = Roofline(h100Ceilings(), counted)
	if s := c.String(); !strings.Contains(s, "fw_plain_i32 32 launches in 1 points, median 500 GB/s") {
		t.Errorf("an entry of 32 launches: %q", s)
	}
	if pts, err := c.points(); err != nil || len(pts) != 1 || len(pts[0].xy) != 1 || pts[0].xy[0].X != 1<<20 {
		t.Errorf("an entry of 32 launches of 1 MiB each: points %v, %v; want one at x = 1 MiB", pts, err)
	}
}

// Roofline refuses what it cannot draw, with a reason, never a panic.
func TestRooflineErrors(t *testing.T) {
	good := launchTrace("a", "kernel", 1<<20, 1e11)
	unmodelled := &trace.Trace{Algorithm: "b", Steps: []trace.Step{{Kind: "x", Time: 1}}, Launches: []trace.Launch{{Name: "k", Time: 1}}}
	for _, c := range []struct {
		name string
		c    *RooflineChart
		want string
	}{
		{"host", Roofline(gpu.Ceilings{}, good), "no measured bandwidth"},
		{"no trace", Roofline(h100Ceilings()), "no trace"},
		{"nil trace", Roofline(h100Ceilings(), nil), "nil *trace.Trace"},
		{"no model", Roofline(h100Ceilings(), unmodelled), "no launch has both a byte model and a time"},
	} {
		if err := c.c.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
		if c.c.PNG() != nil {
			t.Errorf("%s: a PNG", c.name)
		}
		if m := c.c.MIMEBundle(); !strings.Contains(m["text/plain"].(string), c.want) {
			t.Errorf("%s: bundle %v", c.name, m)
		}
	}
}
