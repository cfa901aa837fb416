package bench

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/internal/card/cardtest"
)

// smallTable measures two BFS variants on scales 6 and 7.
func smallTable(t *testing.T) *Table {
	t.Helper()
	tab, err := Sweep{Name: "BFS <test> & co", Variants: []Variant{BFSTopDown(), BFSDirectionOptimizing()},
		Family: "rmat", Scales: []int{6, 7}, Roots: 3}.Run(gpu.Host(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestJSONRoundTrip(t *testing.T) {
	tab := smallTable(t)
	tab.Meta.Command = "graphnb bench bfs rmat -scales 6-7"
	var buf bytes.Buffer
	if err := tab.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"format": "graphnb-bench/1"`) || !strings.Contains(buf.String(), `"mean_arcs_per_s"`) {
		t.Fatalf("JSON lacks the format tag or the flattened stats:\n%.400s", buf.String())
	}
	got, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, tab) {
		t.Fatalf("round trip changed the table:\n got %+v\nwant %+v", got.Meta, tab.Meta)
	}
	// and through a file
	path := filepath.Join(t.TempDir(), "t.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadFile(path); err != nil || !reflect.DeepEqual(got, tab) {
		t.Fatalf("LoadFile: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"not JSON", "rows,1,2", "reading a result table"},
		{"another format", `{"format": "other/2", "rows": []}`, `format "other/2"`},
		{"no format", `{"rows": []}`, "not a graphnb result table"},
		{"bad field type", `{"format": "graphnb-bench/1", "rows": [{"vertices": "many"}]}`, "reading a result table"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Load(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("LoadFile of a missing file: %v", err)
	}
}

func TestCSV(t *testing.T) {
	tab := smallTable(t)
	var buf bytes.Buffer
	if err := tab.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recs[0], CSVHeader) || len(recs) != 1+len(tab.Rows) {
		t.Fatalf("header %v, %d records for %d rows", recs[0], len(recs), len(tab.Rows))
	}
	col := func(name string) int {
		for i, h := range CSVHeader {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %q", name)
		return -1
	}
	for i, r := range tab.Rows {
		rec := recs[i+1]
		if rec[col("variant")] != r.Variant || rec[col("graph")] != r.Graph || rec[col("algo")] != "bfs" ||
			rec[col("runs")] != "3" || rec[col("validated_runs")] != "3" || rec[col("vertices")] != strconv.Itoa(r.Vertices) {
			t.Fatalf("record %d: %v for row %+v", i, rec, r)
		}
		for _, c := range []struct {
			name string
			want float64
		}{{"mean_arcs_per_s", r.MeanArcsPerSecond}, {"hmean_teps_graph500", r.HarmonicMeanTEPS}, {"mean_time_s", r.MeanTime.Seconds()}} {
			x, err := strconv.ParseFloat(rec[col(c.name)], 64)
			if err != nil || x <= 0 || (x-c.want) > 1e-5*c.want || (c.want-x) > 1e-5*c.want {
				t.Fatalf("record %d %s = %q, want %g", i, c.name, rec[col(c.name)], c.want)
			}
		}
	}

	buf.Reset()
	if err := tab.WriteRunsCSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err = csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recs[0], RunsCSVHeader) || len(recs) != 1+4*3 {
		t.Fatalf("runs CSV: header %v, %d records, want 13", recs[0], len(recs))
	}
	if root := recs[1][5]; root != strconv.Itoa(int(tab.Rows[0].Runs[0].Root)) || recs[1][13] != "true" {
		t.Fatalf("first run record %v", recs[1])
	}
}

func TestRenderings(t *testing.T) {
	tab := smallTable(t)
	h := tab.HTML()
	if err := cardtest.WellFormed(h); err != nil {
		t.Fatalf("HTML not well-formed: %v\n%s", err, h)
	}
	for _, want := range []string{"BFS &lt;test&gt; &amp; co", "CPU top-down", "CPU direction-optimizing", "arcs/s mean",
		"G500 TEPS hmean", "harmonic mean", "2^7", "host CPU", "3 ✓", "every result validated"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "<style", "class="} {
		if strings.Contains(h, bad) {
			t.Errorf("HTML contains %q", bad)
		}
	}
	s := tab.String()
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if !strings.HasPrefix(s, "BFS <test> & co\n") || !strings.Contains(s, "arcs/s mean") || !strings.Contains(s, "harmonic mean") {
		t.Fatalf("String:\n%s", s)
	}
	var dataLines int
	for _, l := range lines {
		if strings.Contains(l, "CPU top-down") || strings.Contains(l, "CPU direction-optimizing") {
			dataLines++
		}
	}
	if dataLines != 4 {
		t.Fatalf("String has %d data lines, want 4:\n%s", dataLines, s)
	}
}

func TestStoppedAndTimeOnlyRenderings(t *testing.T) {
	tab, err := Sweep{Variants: []Variant{APSPFloydWarshall()}, Family: "grid:4x4", Repetitions: 1}.Run(gpu.Host(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tab.Meta.Stopped = "bench: interrupted"
	h := tab.HTML()
	if err := cardtest.WellFormed(h); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h, "arcs/s mean") || !strings.Contains(h, "stopped early") || !strings.Contains(h, "grid:4x4") {
		t.Fatalf("time-only HTML shows rates or hides the stop:\n%s", h)
	}
	if s := tab.String(); strings.Contains(s, "G500") || !strings.Contains(s, "1 repetition(s) per graph") {
		t.Fatalf("String:\n%s", s)
	}
}

func TestFilterMergeVariants(t *testing.T) {
	tab := smallTable(t)
	if v := tab.Variants(); !reflect.DeepEqual(v, []string{"CPU top-down", "CPU direction-optimizing"}) {
		t.Fatalf("Variants %q", v)
	}
	td := tab.Filter("CPU top-down")
	do := tab.Filter("CPU direction-optimizing")
	if len(td.Rows) != 2 || len(do.Rows) != 2 || td.Rows[0].Variant != "CPU top-down" ||
		!reflect.DeepEqual(td.Meta.Variants, []string{"CPU top-down"}) || len(tab.Filter("nope").Rows) != 0 {
		t.Fatalf("Filter: %d and %d rows, meta %q", len(td.Rows), len(do.Rows), td.Meta.Variants)
	}
	m := do.Merge(td)
	if len(m.Rows) != 4 || m.Rows[0].Variant != "CPU direction-optimizing" ||
		!reflect.DeepEqual(m.Meta.Variants, []string{"CPU direction-optimizing", "CPU top-down"}) {
		t.Fatalf("Merge: %d rows, meta %q", len(m.Rows), m.Meta.Variants)
	}
	if len(tab.Rows) != 4 || len(td.Rows) != 2 {
		t.Fatal("Filter or Merge changed its inputs")
	}
	// A point measured again replaces the old one, in place.
	again := tab.Filter("CPU top-down")
	again.Rows = []Row{again.Rows[1]}
	again.Rows[0].NumRuns = 99
	m2 := tab.Merge(again)
	if len(m2.Rows) != 4 {
		t.Fatalf("Merge of a point measured again: %d rows, want 4", len(m2.Rows))
	}
	for i, r := range m2.Rows {
		same := r.Variant == again.Rows[0].Variant && r.Graph == again.Rows[0].Graph
		if same != (r.NumRuns == 99) || r.Variant != tab.Rows[i].Variant || r.Graph != tab.Rows[i].Graph {
			t.Errorf("row %d: %s on %s, %d runs", i, r.Variant, r.Graph, r.NumRuns)
		}
	}
	for _, r := range tab.Rows {
		if r.NumRuns == 99 {
			t.Fatal("Merge changed its input")
		}
	}
}

// The flattened JSON keeps the Stats fields beside the row's own.
func TestRowJSONShape(t *testing.T) {
	b, err := json.Marshal(Row{Variant: "v", Runs: []Run{{Root: 1}}, Stats: Stats{NumRuns: 1, HarmonicMeanTEPS: 2}})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["num_runs"] != 1.0 || m["hmean_teps"] != 2.0 || len(m["runs"].([]any)) != 1 {
		t.Fatalf("row JSON %s", b)
	}
}
