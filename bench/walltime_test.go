package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
)

// TestWallTimes checks the split of each graph's wall time: its parts
// are the rows' measured times, they add up to the wall time, the share
// in the algorithm is the runs' own time over it, and every rendering
// (text, HTML, JSON) carries it.
func TestWallTimes(t *testing.T) {
	tab := smallTable(t)
	w := tab.WallTimes()
	if len(w) != 2 || w[0].Graph != "rmat:6:16" || w[1].Scale != 7 {
		t.Fatalf("wall times of %d graphs: %+v", len(w), w)
	}
	for _, p := range w {
		var wall, prep, algo, check, copies time.Duration
		for _, r := range tab.Rows {
			if r.Graph != p.Graph {
				continue
			}
			if r.RunsTime <= 0 || r.RunsTime > r.WallTime {
				t.Fatalf("%s on %s: runs took %v of a %v row", r.Variant, r.Graph, r.RunsTime, r.WallTime)
			}
			wall += r.WallTime
			prep += r.PrepTime
			check += r.CheckTime
			copies += r.CopyTime
			for _, x := range r.Runs {
				algo += x.Time
				prep += x.PrepTime
			}
			if p.Generation != r.GraphTime {
				t.Fatalf("%s: generation %v, the rows say %v", p.Graph, p.Generation, r.GraphTime)
			}
		}
		if p.Wall != wall+p.Generation || p.Preparation != prep || p.Algorithm != algo || p.Validation != check || p.Copies != copies {
			t.Fatalf("%s: %+v; rows: wall %v prep %v algo %v check %v copies %v", p.Graph, p, wall, prep, algo, check, copies)
		}
		if sum := p.Generation + p.Preparation + p.Algorithm + p.Validation + p.Copies + p.Other; sum != p.Wall {
			t.Fatalf("%s: parts add up to %v, wall %v", p.Graph, sum, p.Wall)
		}
		if p.Algorithm <= 0 || p.Validation <= 0 || p.AlgorithmShare <= 0 || p.AlgorithmShare >= 1 ||
			p.AlgorithmShare != float64(p.Algorithm)/float64(p.Wall) {
			t.Fatalf("%s: algorithm %v, validation %v, share %v", p.Graph, p.Algorithm, p.Validation, p.AlgorithmShare)
		}
	}
	for name, text := range map[string]string{"String": tab.String(), "HTML": tab.HTML(), "WallTimes": w.String()} {
		for _, want := range []string{"generation", "validation", "copies", "in the algorithm", "2^7"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	var buf bytes.Buffer
	if err := tab.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		WallTimes []PointTime `json:"wall_times"`
		Rows      []struct {
			RunsNs int64 `json:"runs_ns"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.WallTimes) != 2 || doc.WallTimes[1].Wall != w[1].Wall || doc.WallTimes[1].AlgorithmShare != w[1].AlgorithmShare || doc.Rows[0].RunsNs <= 0 {
		t.Fatalf("JSON wall times %+v", doc.WallTimes)
	}
	if back, err := Load(&buf); err != nil || back.WallTimes()[1] != w[1] {
		t.Fatalf("reloaded: %v, %v", back, err)
	}
	c := tab.Collapsed()
	if h := c.HTML(); !strings.HasPrefix(h, "<details><summary>") || !strings.Contains(h, "4 rows, 2 variants") || !strings.Contains(h, "<table") {
		t.Fatalf("collapsed HTML %.300s", h)
	}
}

// TestGPUVariantOnHostSaysWhatRan: on the host device a GPU variant runs
// CPU code; its rows, text table and labels say so, and a CPU variant's
// do not.
func TestGPUVariantOnHostSaysWhatRan(t *testing.T) {
	vs, err := LookupAll("bfs", "gpu/dynamic-parallelism", "cpu/do")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Sweep{Variants: vs, Family: "rmat", Scales: []int{6}, Roots: 2}.Run(gpu.Host(), nil)
	if err != nil {
		t.Fatal(err)
	}
	gpuRow, cpuRow := tab.Rows[0], tab.Rows[1]
	if !strings.HasPrefix(gpuRow.Ran, "cpu ") || cpuRow.Ran != "" {
		t.Fatalf("ran: GPU variant %q, CPU variant %q", gpuRow.Ran, cpuRow.Ran)
	}
	label := tab.Label(gpuRow.Variant)
	if label != gpuRow.Variant+" [ran: "+gpuRow.Ran+"]" || tab.Label(cpuRow.Variant) != cpuRow.Variant {
		t.Fatalf("labels %q, %q", label, tab.Label(cpuRow.Variant))
	}
	if !strings.Contains(tab.String(), label) {
		t.Fatalf("the text table does not show %q:\n%s", label, tab)
	}
	if sp := tab.Speedup(cpuRow.Variant); sp.Label(gpuRow.Variant) != label || !strings.Contains(sp.String(), label) {
		t.Fatalf("the speedup table names the GPU variant %q:\n%s", sp.Label(gpuRow.Variant), sp)
	}
	if sp := tab.Speedup(gpuRow.Variant); !strings.Contains(sp.String(), "speedup over "+label) {
		t.Fatalf("the speedup table's baseline is not named with what ran:\n%s", sp)
	}
	if gpuRow.Device != gpu.Host().String() || gpuRow.Host == "" {
		t.Fatalf("row device %q host %q", gpuRow.Device, gpuRow.Host)
	}
}

// TestMergeKeepsEachRowsMachine: a table measured elsewhere keeps its
// rows' device and host, and the merged metadata claims no one device.
func TestMergeKeepsEachRowsMachine(t *testing.T) {
	here := smallTable(t)
	there := smallTable(t).Filter("CPU top-down")
	there.Meta.Device, there.Meta.Host = "NVIDIA H100 (device 0)", Host{CPU: "Xeon", Cores: 16, MemoryBytes: 1 << 30}
	for i := range there.Rows { // written before rows recorded their machine
		there.Rows[i].Device, there.Rows[i].Host = "", ""
		there.Rows[i].Graph += " elsewhere"
	}
	m := here.Merge(there)
	if len(m.Rows) != 6 {
		t.Fatalf("%d rows", len(m.Rows))
	}
	for _, r := range m.Rows {
		elsewhere := strings.HasSuffix(r.Graph, " elsewhere")
		if elsewhere != (r.Device == "NVIDIA H100 (device 0)") || elsewhere != strings.HasPrefix(r.Host, "Xeon, 16 cores") {
			t.Fatalf("%s on %s: device %q host %q", r.Variant, r.Graph, r.Device, r.Host)
		}
	}
	if !strings.HasPrefix(m.Meta.Device, "several") || m.Meta.Host.CPU != "" || !strings.Contains(m.String(), "NVIDIA H100 (device 0)") {
		t.Fatalf("merged meta device %q host %+v", m.Meta.Device, m.Meta.Host)
	}
	if same := here.Merge(smallTable(t)); same.Meta.Device != here.Meta.Device {
		t.Fatalf("a merge on one machine names %q", same.Meta.Device)
	}
}

func TestFileSweepRecordsTheFilesWeights(t *testing.T) {
	dir := t.TempDir()
	weighted := filepath.Join(dir, "w.gr")
	plain := filepath.Join(dir, "p.mtx")
	os.WriteFile(weighted, []byte("p sp 3 2\na 1 2 5\na 2 3 7\n"), 0o644)
	os.WriteFile(plain, []byte("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n"), 0o644)
	for path, want := range map[string]string{weighted: "from the file (float32)", plain: "none (the file has none)"} {
		tab, err := Sweep{Variants: []Variant{SSSPDijkstra()}, Family: path, Roots: 1}.Run(gpu.Host(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if tab.Meta.Weights != want || !strings.Contains(tab.String(), "weights "+want) {
			t.Fatalf("%s: weights %q, want %q", path, tab.Meta.Weights, want)
		}
	}
}

func TestTitlesNeverShowTemplates(t *testing.T) {
	for fam, want := range map[string]string{
		"rmat": "BFS on R-MAT", "er:{n}:0.05": "BFS on Erdős–Rényi G(n, 0.05)",
		"rmat:{scale}:8": "BFS on R-MAT (edge factor 8)", "grid:{n}x{n}": "BFS on grids n×n",
		"path:{n}": "BFS on paths of n vertices", "ssca2:{scale}": "BFS on SSCA#2",
		"rome99.gr": "BFS on rome99.gr",
	} {
		if got := defaultName("bfs", fam); got != want || strings.ContainsAny(got, "{}") {
			t.Errorf("%s: title %q, want %q", fam, got, want)
		}
	}
}
