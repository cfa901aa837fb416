package plots

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/trace"
)

// bfsTrace is a hand-made trace of a direction-optimizing BFS on a graph
// of 2²⁰ vertices and 2²⁵ arcs: two top-down steps, three bottom-up ones
// around the big frontiers, two top-down ones to finish. Times are made
// up (a step's time grows with the arcs it reads), so the chart is the
// same on every machine.
func bfsTrace() *trace.Trace {
	const us = time.Microsecond
	t := &trace.Trace{Algorithm: "bfs direction-optimizing (test fixture)", Arcs: 1 << 25}
	for _, s := range []struct {
		kind                string
		frontier, inspected int64
		time                time.Duration
	}{
		{"top-down", 1, 32, 40 * us},
		{"top-down", 30, 960, 90 * us},
		{"bottom-up", 9000, 2_100_000, 2100 * us},
		{"bottom-up", 400000, 3_600_000, 3400 * us},
		{"bottom-up", 120000, 1_500_000, 1600 * us},
		{"top-down", 800, 25_600, 350 * us},
		{"top-down", 3, 96, 45 * us},
	} {
		t.Steps = append(t.Steps, trace.Step{Kind: s.kind, Frontier: s.frontier, FrontierArcs: s.inspected,
			Inspected: s.inspected, Updated: s.frontier, Time: s.time})
	}
	t.Time = t.StepTime() + 200*us
	return t
}

// withEfficiency is a trace that read e×arcs arcs in one step.
func withEfficiency(name string, arcs int64, e float64) *trace.Trace {
	return &trace.Trace{Algorithm: name, Arcs: arcs, Time: time.Millisecond,
		Steps: []trace.Step{{Kind: "top-down", Inspected: int64(e * float64(arcs)), Time: time.Millisecond}}}
}

// TestTimelineComm draws a group run's trace: each step's time in
// collectives shades the bottom of its bar, with a legend entry.
func TestTimelineComm(t *testing.T) {
	resetStyles()
	tr := bfsTrace()
	tr.Algorithm = "bfs over a group of 4 (test fixture)"
	for i := range tr.Steps {
		tr.Steps[i].Comm = tr.Steps[i].Time * time.Duration(2+i%3) / 6
	}
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	c := Timeline(tr)
	c.SVGOutput = true
	if svg := c.SVGText(); !strings.Contains(svg, commLabel) {
		t.Fatalf("no legend entry %q in the chart", commLabel)
	}
	golden(t, "trace_timeline_comm", c.PNG())
	if stepComm(bfsTrace().Steps) != nil {
		t.Fatal("a run without collectives is shaded")
	}
}

func TestTimeline(t *testing.T) {
	resetStyles() // golden images: styles as in a fresh notebook
	tr := bfsTrace()
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	c := Timeline(tr)
	if c.Err() != nil || c.Title != tr.Algorithm || c.XLabel != "step" || c.YLabel != "time (ms)" || c.FrontierLabel != "frontier (vertices)" {
		t.Fatalf("chart %+v, err %v", c, c.Err())
	}
	if s := c.String(); s != `timeline "bfs direction-optimizing (test fixture)": 7 steps (top-down, bottom-up)` {
		t.Fatalf("String %q", s)
	}
	golden(t, "trace_timeline", c.PNG())

	// The time axis holds the slowest step from 0, the step axis every
	// step.
	p, err := c.build()
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 || p.Y.Max < 3.4 || p.Y.Max > 3.6 || p.X.Min != -0.5 || p.X.Max != 6.5 {
		t.Fatalf("axes x %g..%g, y %g..%g; want -0.5..6.5 and 0..about 3.4 ms", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}

	svg := c.SVGText()
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("SVG does not parse: %v", err)
	}
	for _, want := range []string{tr.Algorithm, "top-down", "bottom-up", "direction switch", "frontier (vertices)", "time (ms)", "step"} {
		if !strings.Contains(svg, ">"+want+"<") {
			t.Errorf("SVG lacks the text %q", want)
		}
	}
	if m := c.MIMEBundle(); m["image/png"] == nil || !strings.Contains(m["text/plain"].(string), "7 steps") {
		t.Fatalf("bundle %v", m["text/plain"])
	}
	c.SVGOutput = true
	if m := c.MIMEBundle(); m["image/svg+xml"] == nil || m["image/png"] != nil {
		t.Fatal("SVGOutput ignored")
	}
	// Without a SwitchLabel the switches are not drawn; with another, it
	// names them.
	c.SwitchLabel = ""
	if svg := c.SVGText(); strings.Contains(svg, ">direction switch<") || strings.Count(svg, "stroke-dasharray") >= strings.Count(c0svg(t, tr), "stroke-dasharray") {
		t.Error("SwitchLabel \"\": the switches are still drawn")
	}
	c.SwitchLabel = "kind changes"
	if svg := c.SVGText(); !strings.Contains(svg, ">kind changes<") {
		t.Error("SwitchLabel does not name the switches")
	}
	dir := t.TempDir()
	for _, name := range []string{"t.png", "t.svg", "t.pdf"} {
		if err := c.Save(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// The right axis reads the frontier in vertices, whole numbers at the
// real scale, not the time axis' milliseconds the line is drawn in.
func TestTimelineRightAxis(t *testing.T) {
	svg := Timeline(bfsTrace()).SVGText()
	for _, want := range []string{"0", "200000", "400000"} {
		if !strings.Contains(svg, ">"+want+"<") {
			t.Errorf("SVG lacks the right axis tick label %q", want)
		}
	}
	if strings.Contains(svg, "e+05") {
		t.Error("right axis ticks in exponent form")
	}
	ticks := newRightAxis(newPlot("", "", ""), "", 420000, integerTicks{}.Ticks(0, 420000)).ticks
	for _, tk := range ticks {
		if tk.Value != math.Trunc(tk.Value) || strings.ContainsAny(tk.Label, ".e") {
			t.Errorf("tick %+v is not a whole number of vertices", tk)
		}
	}
	// Small frontiers get integer ticks too, every one labelled.
	small := bfsTrace()
	for i := range small.Steps {
		small.Steps[i].Frontier = int64(i % 4)
	}
	svg = Timeline(small).SVGText()
	for _, want := range []string{">1<", ">2<", ">3<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("small frontiers: SVG lacks the tick label %s", want)
		}
	}
	if strings.Contains(svg, ">0.5<") || strings.Contains(svg, ">2.5<") {
		t.Error("small frontiers: fractional vertex ticks")
	}
	// Without frontiers there is no right axis, and no frontier line.
	none := bfsTrace()
	for i := range none.Steps {
		none.Steps[i].Frontier = 0
	}
	svg = Timeline(none).SVGText()
	if svg == "" || strings.Contains(svg, "frontier") {
		t.Error("a trace without frontiers: want a chart without the frontier line and axis")
	}
}

func TestStepTicks(t *testing.T) {
	labels := func(n int) []string {
		var out []string
		for _, tk := range (stepTicks{}).Ticks(-0.5, float64(n)-0.5) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got := strings.Join(labels(7), " "); got != "0 1 2 3 4 5 6" {
		t.Errorf("7 steps: labels %q", got)
	}
	if got := strings.Join(labels(40), " "); got != "0 5 10 15 20 25 30 35" {
		t.Errorf("40 steps: labels %q", got)
	}
	if got := len(labels(5000)); got > 15 || got < 5 {
		t.Errorf("5000 steps: %d labels", got)
	}
}

func TestWorkEfficiency(t *testing.T) {
	resetStyles() // golden images: styles as in a fresh notebook
	const arcs = 1 << 25
	labels := []string{"top-down", "direction-optimizing", "bottom-up"}
	c := WorkEfficiency(labels, []*trace.Trace{
		withEfficiency("bfs top-down", arcs, 1),
		bfsTrace(),
		withEfficiency("bfs bottom-up", arcs, 1.6),
	})
	if c.Err() != nil || c.YLabel != "arcs inspected ÷ arcs" || len(c.Values) != 3 {
		t.Fatalf("chart %+v, err %v", c, c.Err())
	}
	if want := float64(bfsTrace().Inspected()) / arcs; c.Values[1] != want || c.Values[0] != 1 {
		t.Fatalf("values %v, want 1, %g, 1.6", c.Values, want)
	}
	if s := c.String(); s != `work efficiency chart "work efficiency": top-down 1, direction-optimizing 0.215, bottom-up 1.6` {
		t.Fatalf("String %q", s)
	}
	golden(t, "trace_efficiency", c.PNG())

	img, err := png.Decode(bytes.NewReader(c.PNG()))
	if err != nil || img.Bounds().Dx() < 400 {
		t.Fatalf("PNG: %v", err)
	}
	svg := c.SVGText()
	for _, want := range []string{"direction-optimizing", "0.215", "1.6", "every arc once (1)"} {
		if !strings.Contains(svg, ">"+want+"<") {
			t.Errorf("SVG lacks the text %q", want)
		}
	}
	// The reference line at 1 stays in view when every run reads less.
	low := WorkEfficiency([]string{"a"}, []*trace.Trace{withEfficiency("a", arcs, 0.1)})
	p, err := low.build()
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 || p.Y.Max <= 1 {
		t.Fatalf("y from %g to %g; want 0 to above 1", p.Y.Min, p.Y.Max)
	}
	if m := low.MIMEBundle(); m["image/png"] == nil {
		t.Fatal("no PNG in the bundle")
	}
	if err := low.Save(filepath.Join(t.TempDir(), "e.svg")); err != nil {
		t.Fatal(err)
	}
}

// The charts of a trace refuse what they cannot draw with an error that
// says what is wrong, in Err, in the bundle and by PNG returning nil,
// never a panic.
func TestTraceChartErrors(t *testing.T) {
	noSteps := &trace.Trace{Algorithm: "bfs top-down", Arcs: 10}
	negative := bfsTrace()
	negative.Steps[2].Time = -time.Millisecond
	ok := withEfficiency("ok", 100, 1)
	cases := []struct {
		name  string
		chart interface {
			Err() error
			PNG() []byte
			MIMEBundle() map[string]any
		}
		want string
	}{
		{"nil trace", Timeline(nil), "plots: Timeline(nil): the *trace.Trace is nil"},
		{"no steps", Timeline(noSteps), `the trace of "bfs top-down" has no steps to chart`},
		{"negative time", Timeline(negative), "step 2 of"},
		{"no traces", WorkEfficiency(nil, nil), "WorkEfficiency: no traces to chart"},
		{"mismatched labels", WorkEfficiency([]string{"a", "b"}, []*trace.Trace{ok}), "WorkEfficiency: 2 labels for 1 traces; pass one label per trace"},
		{"nil trace in list", WorkEfficiency([]string{"a", "b"}, []*trace.Trace{ok, nil}), `WorkEfficiency: trace 1 ("b") is nil`},
		{"zero arcs", WorkEfficiency([]string{"a", "z"}, []*trace.Trace{ok, {Algorithm: "z", Steps: ok.Steps}}), `WorkEfficiency: trace 1 ("z") has Arcs = 0, the divisor of work efficiency`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.chart.Err() == nil || !strings.Contains(c.chart.Err().Error(), c.want) {
				t.Fatalf("err %v, want %q", c.chart.Err(), c.want)
			}
			if c.chart.PNG() != nil {
				t.Fatal("PNG rendered")
			}
			if m := c.chart.MIMEBundle(); !strings.Contains(m["text/plain"].(string), c.want) || m["image/png"] != nil {
				t.Fatalf("bundle %v", m)
			}
		})
	}
	if s := Timeline(nil).String(); s != `timeline "": no trace` {
		t.Errorf("String of Timeline(nil): %q", s)
	}
	if s := Timeline(nil).SVGText(); s != "" {
		t.Errorf("SVG of Timeline(nil): %q", s)
	}
	// A trace emptied after the chart was made is caught when it renders.
	tr := bfsTrace()
	c := Timeline(tr)
	tr.Steps = nil
	if c.PNG() != nil || c.Err() == nil || !strings.Contains(c.Err().Error(), "no steps") {
		t.Fatalf("emptied trace: err %v", c.Err())
	}
}

// Time ticks are written in their shortest form (5000, not 5000.00).
func TestTimelineTimeTicks(t *testing.T) {
	tr := &trace.Trace{Algorithm: "apsp", Steps: []trace.Step{{Kind: "phase", Time: 5 * time.Second}, {Kind: "phase", Time: 4 * time.Second}}}
	svg := Timeline(tr).SVGText()
	if !strings.Contains(svg, ">5000<") || strings.Contains(svg, "5000.0") {
		t.Error("time ticks of 5000 ms not written as 5000")
	}
}

// c0svg is the default timeline of tr as SVG.
func c0svg(t *testing.T, tr *trace.Trace) string {
	t.Helper()
	c := Timeline(tr)
	c.SVGOutput = true
	return c.SVGText()
}
