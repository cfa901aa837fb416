package plots

import (
	"encoding/xml"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/trace"
)

// sweepTrace is a hand-made trace of an SSSP kernel whose steps are
// sweeps of the times given, in µs, so the chart is the same on every
// machine.
func sweepTrace(name string, us ...int) *trace.Trace {
	t := &trace.Trace{Algorithm: name, Arcs: 1 << 20}
	for i, u := range us {
		t.Steps = append(t.Steps, trace.Step{Kind: "sweep", Frontier: int64(1000 - 50*i), Inspected: 1 << 20, Updated: int64(900 - 80*i),
			Time: time.Duration(u) * time.Microsecond})
	}
	t.Time = t.StepTime() + 100*time.Microsecond
	return t
}

// cacheRuns are the SSSP kernel with the edge permutation off (12 sweeps
// of 1.1–1.4 ms) and on (8 sweeps of 0.9–1.2 ms).
func cacheRuns() ([]string, []*trace.Trace) {
	return []string{"cache off", "cache on"}, []*trace.Trace{
		sweepTrace("sssp (cache off, test fixture)", 1400, 1350, 1320, 1280, 1250, 1220, 1200, 1180, 1150, 1130, 1120, 1100),
		sweepTrace("sssp (cache on, test fixture)", 1200, 1150, 1100, 1050, 1000, 960, 930, 900),
	}
}

func TestCompareTraces(t *testing.T) {
	resetStyles() // golden images: styles as in a fresh notebook
	labels, traces := cacheRuns()
	for _, tr := range traces {
		if err := tr.Check(); err != nil {
			t.Fatal(err)
		}
	}
	c := CompareTraces(labels, traces)
	if c.Err() != nil || c.Title != "step times" || c.XLabel != "step" || c.YLabel != "time (ms)" || len(c.Labels) != 2 || len(c.Traces) != 2 {
		t.Fatalf("chart %+v, err %v", c, c.Err())
	}
	const want = `step comparison "step times": cache off: 12 steps, 14.7 ms; cache on: 8 steps, 8.29 ms`
	if s := c.String(); s != want {
		t.Fatalf("String %q\nwant %q", s, want)
	}
	golden(t, "trace_compare", c.PNG())

	// The step axis holds the longest run, the time axis its slowest step
	// from 0.
	p, err := c.build()
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 || p.Y.Max < 1.4 || p.Y.Max > 1.5 || p.X.Min != -0.5 || p.X.Max != 11.5 {
		t.Fatalf("axes x %g..%g, y %g..%g; want -0.5..11.5 and 0..about 1.4 ms", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	// One series per run, a bar at each of its steps and none past its
	// last.
	bars, top := compareBars(c.Labels, c.Traces)
	if top != 1.4 || bars.groups != 12 || len(bars.series) != 2 {
		t.Fatalf("bars: %d groups, %d series, top %g", bars.groups, len(bars.series), top)
	}
	for i, tr := range traces {
		s := bars.series[i]
		if s.Label != labels[i] || len(s.Values) != 12 {
			t.Fatalf("series %d: %q, %d values", i, s.Label, len(s.Values))
		}
		for k, v := range s.Values {
			switch {
			case k < len(tr.Steps) && v != float64(tr.Steps[k].Time)/1e6:
				t.Errorf("%s step %d: bar %g, want %g ms", labels[i], k, v, float64(tr.Steps[k].Time)/1e6)
			case k >= len(tr.Steps) && !math.IsNaN(v):
				t.Errorf("%s step %d: bar %g past the run's last step", labels[i], k, v)
			}
		}
	}

	svg := c.SVGText()
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("SVG does not parse: %v", err)
	}
	for _, want := range []string{"step times", "cache off: 12 steps, 14.7 ms", "cache on: 8 steps, 8.29 ms", "time (ms)", "step", "11"} {
		if !strings.Contains(svg, ">"+want+"<") {
			t.Errorf("SVG lacks the text %q", want)
		}
	}
	if m := c.MIMEBundle(); m["image/png"] == nil || m["text/plain"] != want {
		t.Fatalf("bundle %v", m["text/plain"])
	}
	c.SVGOutput = true
	if m := c.MIMEBundle(); m["image/svg+xml"] == nil || m["image/png"] != nil {
		t.Fatal("SVGOutput ignored")
	}
	dir := t.TempDir()
	for _, name := range []string{"c.png", "c.svg", "c.pdf"} {
		if err := c.Save(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// A run keeps the colour its label has in the notebook's other charts.
func TestCompareTracesStyles(t *testing.T) {
	resetStyles()
	defer resetStyles()
	on := Style("cache on") // drawn first elsewhere in the notebook
	labels, traces := cacheRuns()
	bars, _ := compareBars(labels, traces)
	if bars.style[1] != on || bars.style[0] == on {
		t.Fatalf("styles %v; want cache on at %d, cache off elsewhere", bars.style, on)
	}
	if s := chartStyles(labels); s[0] != bars.style[0] || s[1] != bars.style[1] {
		t.Fatalf("styles %v here, %v in the other charts", bars.style, s)
	}
}

// One run is a chart too; a step of no time, a 1-step run and many steps
// are drawn, the step labels thinned as on a timeline.
func TestCompareTracesShapes(t *testing.T) {
	one := CompareTraces([]string{"only"}, []*trace.Trace{sweepTrace("a", 0)})
	if one.Err() != nil || one.PNG() == nil {
		t.Fatalf("one run of one step of 0 ms: %v", one.Err())
	}
	if s := one.String(); s != `step comparison "step times": only: 1 step, 0 ms` {
		t.Errorf("String %q", s)
	}
	long, short := make([]int, 40), make([]int, 25)
	for i := range long {
		long[i] = 500 + 10*i
	}
	for i := range short {
		short[i] = 800 - 10*i
	}
	c := CompareTraces([]string{"a", "b"}, []*trace.Trace{sweepTrace("a", long...), sweepTrace("b", short...)})
	p, err := c.build()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if s := strings.Join(got, " "); s != "0 5 10 15 20 25 30 35" {
		t.Errorf("40 steps: labels %q", s)
	}
	if c.PNG() == nil {
		t.Fatal(c.Err())
	}
}

// CompareTraces refuses what it cannot draw with an error that says what
// is wrong, in Err, in the bundle and by PNG returning nil, never a
// panic.
func TestCompareTracesErrors(t *testing.T) {
	labels, traces := cacheRuns()
	negative := sweepTrace("neg", 1000, -5, 1000)
	cases := []struct {
		name   string
		labels []string
		traces []*trace.Trace
		want   string
	}{
		{"no traces", nil, nil, "plots: CompareTraces: no traces to compare; pass one trace per run, with a label each"},
		{"no traces, a label", []string{"a"}, []*trace.Trace{}, "plots: CompareTraces: no traces to compare"},
		{"more labels", []string{"a", "b", "c"}, traces, "plots: CompareTraces: 3 labels for 2 traces; pass one label per trace"},
		{"fewer labels", labels[:1], traces, "plots: CompareTraces: 1 labels for 2 traces; pass one label per trace"},
		{"nil trace", labels, []*trace.Trace{traces[0], nil}, `plots: CompareTraces: trace 1 ("cache on") is nil; pass the Trace of a result run with tracing on`},
		{"no steps", labels, []*trace.Trace{{Algorithm: "empty"}, traces[1]}, `plots: CompareTraces: trace 0 ("cache off") has no steps to chart; pass the Trace of a run that took at least one step`},
		{"negative time", labels, []*trace.Trace{traces[0], negative}, `plots: CompareTraces: step 1 of trace 1 ("cache on") has a negative time (-5µs); the trace is malformed (see trace.Trace.Check)`},
		{"duplicate labels", []string{"run", "other", "run"}, []*trace.Trace{traces[0], traces[1], traces[0]}, `plots: CompareTraces: traces 0 and 2 are both labelled "run"; give each run a label of its own`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := CompareTraces(tc.labels, tc.traces)
			if c.Err() == nil || !strings.Contains(c.Err().Error(), tc.want) {
				t.Fatalf("err %v, want %q", c.Err(), tc.want)
			}
			if c.PNG() != nil || c.SVGText() != "" {
				t.Fatal("chart rendered")
			}
			if m := c.MIMEBundle(); !strings.Contains(m["text/plain"].(string), tc.want) || m["image/png"] != nil {
				t.Fatalf("bundle %v", m)
			}
			c.SVGOutput = true
			if m := c.MIMEBundle(); !strings.Contains(m["text/plain"].(string), tc.want) || m["image/svg+xml"] != nil {
				t.Fatalf("SVG bundle %v", m)
			}
			if err := c.Save(filepath.Join(t.TempDir(), "c.png")); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Save: %v", err)
			}
			_ = c.String() // no panic, whatever the fields
		})
	}
	if s := CompareTraces(nil, nil).String(); s != `step comparison "step times": no traces` {
		t.Errorf("String of no traces: %q", s)
	}
	if s := CompareTraces([]string{"a", "b"}, []*trace.Trace{nil, traces[1]}).String(); s != `step comparison "step times": a: no trace; b: 8 steps, 8.29 ms` {
		t.Errorf("String with a nil trace: %q", s)
	}
	if s := CompareTraces(nil, traces[:1]).String(); s != `step comparison "step times": ?: 12 steps, 14.7 ms` {
		t.Errorf("String without labels: %q", s)
	}

	// A trace emptied, or labels changed, after the chart was made is
	// caught when it renders.
	labels, traces = cacheRuns()
	c := CompareTraces(labels, traces)
	traces[1].Steps = nil
	if c.PNG() != nil || c.Err() == nil || !strings.Contains(c.Err().Error(), `trace 1 ("cache on") has no steps`) {
		t.Fatalf("emptied trace: err %v", c.Err())
	}
	labels, traces = cacheRuns()
	c = CompareTraces(labels, traces)
	c.Labels = []string{"same", "same"}
	if c.PNG() != nil || c.Err() == nil || !strings.Contains(c.Err().Error(), `both labelled "same"`) {
		t.Fatalf("relabelled: err %v", c.Err())
	}
}
