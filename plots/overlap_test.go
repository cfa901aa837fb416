package plots

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/trace"
)

// oocTrace is a hand-made trace of an out-of-core APSP run of 6 rounds:
// every round copies about 30 ms of blocks; the first exposes its
// upload of a block row and column and the last its final downloads,
// the middle ones hide most copies behind 40 ms of kernels. Times are
// made up, so the chart is the same on every machine.
func oocTrace() *trace.Trace {
	const ms = time.Millisecond
	t := &trace.Trace{Algorithm: "out-of-core APSP (test fixture)", Arcs: 1 << 26}
	for _, s := range []struct{ time, copy, exposed time.Duration }{
		{52 * ms, 30 * ms, 12 * ms},
		{45 * ms, 31 * ms, 5 * ms},
		{44 * ms, 30 * ms, 4 * ms},
		{46 * ms, 32 * ms, 6 * ms},
		{44 * ms, 30 * ms, 4 * ms},
		{55 * ms, 30 * ms, 14 * ms},
	} {
		t.Steps = append(t.Steps, trace.Step{Kind: "round", Inspected: 1 << 30, Time: s.time, Copy: s.copy, Exposed: s.exposed})
	}
	t.Time = t.StepTime() + ms
	return t
}

func TestOverlap(t *testing.T) {
	resetStyles() // golden images: styles as in a fresh notebook
	tr := oocTrace()
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	c := Overlap(tr)
	if c.Err() != nil || c.Title != tr.Algorithm || c.XLabel != "round" || c.YLabel != "time (ms)" {
		t.Fatalf("chart %+v, err %v", c, c.Err())
	}
	steps, copies, exposed := c.Totals()
	if steps != 286*time.Millisecond || copies != 183*time.Millisecond || exposed != 45*time.Millisecond {
		t.Fatalf("totals %v, %v, %v", steps, copies, exposed)
	}
	if s := c.String(); s != `overlap "out-of-core APSP (test fixture)": 6 steps, 286ms; copies 183ms, 45ms exposed, 75% hidden` {
		t.Fatalf("String %q", s)
	}
	golden(t, "trace_overlap", c.PNG())

	// The time axis holds the tallest bar (the last step's 55 ms) from 0,
	// the step axis every step.
	p, err := c.build()
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 || p.Y.Max < 55 || p.Y.Max > 60 || p.X.Min != -0.5 || p.X.Max != 5.5 {
		t.Fatalf("axes x %g..%g, y %g..%g", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	svg := c.SVGText()
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("SVG does not parse: %v", err)
	}
	for _, want := range []string{tr.Algorithm, "compute (left bars)", "copies exposed", "copies hidden behind kernels (right bars)", "round", "time (ms)"} {
		if !strings.Contains(svg, ">"+want+"<") {
			t.Errorf("SVG lacks the text %q", want)
		}
	}
	if m := c.MIMEBundle(); m["image/png"] == nil || !strings.Contains(m["text/plain"].(string), "75% hidden") {
		t.Fatalf("bundle %v", m["text/plain"])
	}

	// A long title is wrapped, not cut at the canvas edge.
	long := oocTrace()
	long.Algorithm = "gpu out-of-core blocked Floyd-Warshall (tile 32, 44×44 blocks of 288, up to 6 per copy)"
	if p, err := Overlap(long).build(); err != nil || !strings.Contains(p.Title.Text, "\n") || strings.ReplaceAll(p.Title.Text, "\n", " ") != long.Algorithm {
		t.Fatalf("long title %v, %v", p, err)
	}

	// A trace without copies (the CPU's, or in core) shows compute only.
	cpu := oocTrace()
	for i := range cpu.Steps {
		cpu.Steps[i].Copy, cpu.Steps[i].Exposed = 0, 0
	}
	c = Overlap(cpu)
	if c.PNG() == nil || c.Err() != nil || !strings.HasSuffix(c.String(), "no copies") {
		t.Fatalf("no copies: %v, %q", c.Err(), c.String())
	}
	if svg := c.SVGText(); strings.Contains(svg, ">copies exposed<") {
		t.Error("a trace without copies has their legend entries")
	}
}

func TestOverlapErrors(t *testing.T) {
	bad := oocTrace()
	bad.Steps[2].Exposed = bad.Steps[2].Copy + time.Millisecond
	for _, c := range []struct {
		name string
		tr   *trace.Trace
		want string
	}{
		{"nil", nil, "is nil"},
		{"no steps", &trace.Trace{Algorithm: "x"}, "no steps"},
		{"exposed beyond the copies", bad, "step 2"},
	} {
		ch := Overlap(c.tr)
		if ch.Err() == nil || !strings.Contains(ch.Err().Error(), c.want) {
			t.Errorf("%s: Err %v, want %q", c.name, ch.Err(), c.want)
			continue
		}
		if ch.PNG() != nil {
			t.Errorf("%s: rendered", c.name)
		}
		if m := ch.MIMEBundle(); m["image/png"] != nil || !strings.Contains(m["text/plain"].(string), c.want) {
			t.Errorf("%s: bundle %v", c.name, m)
		}
	}
}
