package bench

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/card/cardtest"
)

// handRow is a row of runs from the given roots and times (ms) on a graph
// of 1000 arcs (the Graph500 numerator is half of it).
func handRow(variant, g string, roots []int32, ms ...float64) Row {
	r := Row{Variant: variant, Graph: g, Scale: 10, Vertices: 1024, Arcs: 1000}
	for i, x := range ms {
		d := time.Duration(x * 1e6)
		r.Runs = append(r.Runs, Run{Root: roots[i], Time: d, TEPS: graph.Rate(500, 1000, d), ComponentEdges: 500})
	}
	r.Stats = ComputeStats(r.Runs)
	return r
}

func TestSpeedup(t *testing.T) {
	both := []int32{1, 2}
	tab := &Table{Meta: Meta{Name: "hand"}, Rows: []Row{
		handRow("CPU", "rmat:10:16", both, 10, 20),
		handRow("GPU", "rmat:10:16", both, 5, 5),
		// other roots: no pairs, the spread comes from the extremes
		handRow("GPU other roots", "rmat:10:16", []int32{7, 8}, 4, 8),
		// a graph the baseline did not measure gives no row
		handRow("GPU", "rmat:11:16", both, 1, 1),
	}}
	st := tab.Speedup("cpu") // case-insensitive
	if st.Err != nil || st.Baseline != "CPU" || len(st.Rows) != 2 {
		t.Fatalf("Speedup: err %v, baseline %q, %d rows", st.Err, st.Baseline, len(st.Rows))
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s = %.12g, want %.12g", what, got, want)
		}
	}
	// CPU rates 1e5 and 5e4 arcs/s (mean 7.5e4); GPU 2e5 twice: mean
	// speedup 2e5/7.5e4 = 8/3; per-root ratios 10/5 = 2 and 20/5 = 4.
	g := st.Rows[0]
	if g.Variant != "GPU" || g.Pairs != 2 || g.Graph != "rmat:10:16" || g.Vertices != 1024 {
		t.Fatalf("row %+v", g)
	}
	near("mean", g.Mean, 8.0/3)
	near("min", g.Min, 2)
	near("max", g.Max, 4)
	// Unpaired: rates 2.5e5 and 1.25e5 (mean 1.875e5) over 7.5e4 → 2.5;
	// extremes: CPU fastest 10 ms, slowest 20 ms; variant 4..8 ms →
	// min 10/8, max 20/4.
	o := st.Rows[1]
	if o.Variant != "GPU other roots" || o.Pairs != 0 {
		t.Fatalf("row %+v", o)
	}
	near("unpaired mean", o.Mean, 2.5)
	near("unpaired min", o.Min, 10.0/8)
	near("unpaired max", o.Max, 5)

	if h := st.HTML(); cardtest.WellFormed(h) != nil || !strings.Contains(h, "speedup over CPU") || !strings.Contains(h, "2 paired runs") {
		t.Fatalf("HTML %s", h)
	}
	if s := st.String(); !strings.Contains(s, "2.67") || !strings.Contains(s, "extremes") {
		t.Fatalf("String:\n%s", s)
	}
	var buf bytes.Buffer
	if err := st.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) != 3 || recs[1][0] != "GPU" || recs[1][1] != "CPU" || recs[1][8] != "2" {
		t.Fatalf("CSV %v %v", recs, err)
	}
}

func TestSpeedupTimeOnly(t *testing.T) {
	mk := func(v string, ms ...float64) Row {
		r := Row{Variant: v, Graph: "rome99.gr", Vertices: 3353}
		for i, x := range ms {
			r.Runs = append(r.Runs, Run{Root: -1, Rep: i, Time: time.Duration(x * 1e6)})
		}
		r.Stats = ComputeStats(r.Runs)
		return r
	}
	st := (&Table{Rows: []Row{mk("plain", 60, 62), mk("blocked", 12, 10)}}).Speedup("plain")
	if len(st.Rows) != 1 {
		t.Fatalf("%d rows", len(st.Rows))
	}
	r := st.Rows[0]
	// mean times 61 and 11; pairs by repetition: 60/12 = 5, 62/10 = 6.2
	if math.Abs(r.Mean-61.0/11) > 1e-12 || r.Min != 5 || math.Abs(r.Max-6.2) > 1e-12 || r.Pairs != 2 {
		t.Fatalf("time-only speedup %+v", r)
	}
}

func TestSpeedupUnknownBaseline(t *testing.T) {
	st := (&Table{Rows: []Row{handRow("a", "g", []int32{1}, 1)}}).Speedup("b")
	if st.Err == nil || !strings.Contains(st.Err.Error(), `no variant "b"`) || !strings.Contains(st.Err.Error(), `"a"`) || len(st.Rows) != 0 {
		t.Fatalf("err %v, rows %d", st.Err, len(st.Rows))
	}
	if !strings.Contains(st.String(), `no variant "b"`) || cardtest.WellFormed(st.HTML()) != nil || st.WriteCSV(&bytes.Buffer{}) == nil {
		t.Fatal("renderings hide the error")
	}
}
