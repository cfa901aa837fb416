package bench

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
)

// fakePeer is the command of testdata/fakepeer.sh in a mode.
func fakePeer(mode string) string {
	return "sh testdata/fakepeer.sh " + mode + " {scale} {roots} {file}"
}

func TestParsePeer(t *testing.T) {
	for _, tc := range []struct{ in, name, kind, command string }{
		{"gapbs-bfs=./gapbs-bfs -g {scale}", "gapbs-bfs", "gapbs", "./gapbs-bfs -g {scale}"},
		{"gapbs=x", "gapbs", "gapbs", "x"},
		{"ecl-mst=./ecl-mst {file}", "ecl-mst", "ecl-mst", "./ecl-mst {file}"},
		{"seedref-sssp=./seedref {scale} 8", "seedref-sssp", "seedref", "./seedref {scale} 8"},
		{"mine:seedref=./a=b", "mine", "seedref", "./a=b"},
	} {
		p, err := ParsePeer(tc.in)
		if err != nil || p.Name != tc.name || p.Kind != tc.kind || p.Command != tc.command {
			t.Errorf("ParsePeer(%q) = %+v, %v; want %s, %s, %s", tc.in, p, err, tc.name, tc.kind, tc.command)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"gapbs-bfs", "NAME=COMMAND"},
		{"=cmd", "NAME=COMMAND"},
		{"gapbs-bfs=", "NAME=COMMAND"},
		{"gunrock=./bfs", `unknown kind ""`},
		{"gapbsbfs=./bfs", `unknown kind ""`},
		{"x:gunrock=./bfs", `unknown kind "gunrock"`},
	} {
		if _, err := ParsePeer(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePeer(%q): error %v, want one containing %q", tc.in, err, tc.want)
		}
	}
}

// peerSweep is a small BFS sweep with its table.
func peerSweep(t *testing.T) (Sweep, *Table) {
	t.Helper()
	s := Sweep{Variants: []Variant{BFSTopDown()}, Family: "rmat", Scales: []int{6, 7}, Roots: 3}
	tab, err := s.Run(gpu.Host(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, tab
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }

// TestRunPeersParsesEachKind runs the fake peer in each format over a
// two-graph sweep and checks every figure and convention of its rows.
func TestRunPeersParsesEachKind(t *testing.T) {
	s, tab := peerSweep(t)
	own := len(tab.Rows)
	var log bytes.Buffer
	err := s.RunPeers(context.Background(), tab, []Peer{
		{Name: "gapbs-bfs", Kind: "gapbs", Command: fakePeer("gapbs")},
		{Name: "ecl-mst", Kind: "ecl-mst", Command: fakePeer("ecl-mst")},
		{Name: "seedref", Kind: "seedref", Command: fakePeer("seedref")},
	}, &log)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(tab.Rows), own+2*4; got != want {
		t.Fatalf("%d rows, want %d", got, want)
	}
	wantPeers := []string{"peer: gapbs-bfs", "peer: ecl-mst", "peer: seedref (sssp cache=off restrict=on)", "peer: seedref (bfs-scan cache=off restrict=on)"}
	if !reflect.DeepEqual(tab.Meta.Peers, wantPeers) {
		t.Fatalf("Meta.Peers %q, want %q", tab.Meta.Peers, wantPeers)
	}
	if !strings.Contains(log.String(), "peer gapbs-bfs on rmat:7:16: sh testdata/fakepeer.sh gapbs 7 3") {
		t.Fatalf("log lacks the substituted command:\n%s", log.String())
	}
	for _, r := range tab.Rows[own:] {
		p := r.Peer
		if p == nil || r.NumRuns != 1 || r.Scale == 0 || r.Vertices != 1<<r.Scale {
			t.Fatalf("row %s on %s: peer %v, %d runs, scale %d, %d vertices", r.Variant, r.Graph, p, r.NumRuns, r.Scale, r.Vertices)
		}
		ownArcs := tab.Rows[r.Scale-6].Arcs // the sweep's row of that graph
		switch r.Variant {
		case "peer: gapbs-bfs":
			if p.Seconds != 0.002 || len(p.RunSeconds) != 3 || r.MaxTime != 2020*time.Microsecond || r.Arcs != 20000 ||
				!near(r.HarmonicMeanTEPS, 16*float64(int(1)<<r.Scale)/0.002) || !near(r.MeanArcsPerSecond, 20000/0.002) ||
				!strings.HasPrefix(p.Device, "host CPU") {
				t.Errorf("gapbs row: %+v %+v", p, r.Stats)
			}
		case "peer: ecl-mst":
			if !near(p.Seconds, 0.0045) || r.MeanTime != 4500*time.Microsecond || r.MaxTime != 90*time.Millisecond ||
				p.Device != "Fake GPU 80GB" || r.Arcs != ownArcs || !near(r.MeanArcsPerSecond, float64(ownArcs)/0.0045) ||
				!strings.Contains(p.Command, "graph.egr'") || !strings.Contains(p.Statistic, "median of 4") {
				t.Errorf("ecl-mst row: %+v %+v", p, r.Stats)
			}
		case "peer: seedref (sssp cache=off restrict=on)", "peer: seedref (bfs-scan cache=off restrict=on)":
			rate := 2e9
			if strings.Contains(r.Variant, "bfs") {
				rate = 4e9
			}
			if arcs := int64(32) << r.Scale; r.Arcs != arcs || !near(r.MeanArcsPerSecond, rate) || !near(p.Seconds, float64(arcs)/rate) {
				t.Errorf("seedref row: %+v %+v", p, r.Stats)
			}
		default:
			t.Errorf("unexpected row %q", r.Variant)
		}
		if len(p.OutputTail) == 0 || p.Wall <= 0 {
			t.Errorf("row %s: no output tail or wall time", r.Variant)
		}
	}
	if w := tab.WallTimes(); len(w) != 2 || w[0].Wall > 10*time.Second {
		t.Errorf("peer rows leaked into the wall times: %+v", w)
	}

	// The JSON round trip keeps the peers; the renderings show them.
	var buf bytes.Buffer
	if err := tab.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, tab) {
		t.Fatalf("the round trip changed the table with peers")
	}
	text := back.String()
	for _, want := range []string{"peer: gapbs-bfs", "3 peer", "Peers, measured in the same call", "Fake GPU 80GB", "median of 4 runs"} {
		if !strings.Contains(text, want) {
			t.Errorf("text table lacks %q:\n%s", want, text)
		}
	}
	var csvBuf bytes.Buffer
	if err := back.WriteCSV(&csvBuf); err != nil || strings.Count(csvBuf.String(), "peer: ") != 8 {
		t.Errorf("CSV has %d peer records, want 8 (%v)", strings.Count(csvBuf.String(), "peer: "), err)
	}
	if h := back.HTML(); !strings.Contains(h, "Peers, measured in the same call") {
		t.Errorf("HTML lacks the peers")
	}
}

// TestRunPeersFailures: a failing, a hanging, an unparsable peer and a
// placeholder without a value each give an error naming the peer and
// quoting the output, add no row, and leave the sweep's rows and the
// good peer's alone.
func TestRunPeersFailures(t *testing.T) {
	s, tab := peerSweep(t)
	s.Scales = []int{6} // one graph: each failure once
	tab.Rows = tab.Rows[:1]
	own := tab.Rows[0]
	t0 := time.Now()
	err := s.RunPeers(context.Background(), tab, []Peer{
		{Name: "crash", Kind: "gapbs", Command: fakePeer("fail")},
		{Name: "sleepy", Kind: "gapbs", Command: fakePeer("hang"), Timeout: 300 * time.Millisecond},
		{Name: "babble", Kind: "gapbs", Command: fakePeer("garbage")},
		{Name: "good", Kind: "gapbs", Command: fakePeer("gapbs")},
		{Name: "quiet", Kind: "ecl-mst", Command: "sh testdata/fakepeer.sh gapbs"},
	}, nil)
	if time.Since(t0) > 20*time.Second {
		t.Errorf("the hanging peer was not stopped at its timeout (%s)", time.Since(t0))
	}
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"peer crash on rmat:6:16", "failed: exit status 3", "segmentation fault (pretend)",
		"peer sleepy on rmat:6:16", "timed out after 300ms (raise -peer-timeout)", "waiting forever",
		"peer babble on rmat:6:16", `cannot read the time of "Average Time: soon"`,
		"peer quiet on rmat:6:16", `ecl-mst: no "Dev+:" line`, "Average Time:        0.00200",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if len(tab.Meta.PeerErrors) != 4 {
		t.Errorf("%d peer errors recorded, want 4", len(tab.Meta.PeerErrors))
	}
	if len(tab.Rows) != 2 || !reflect.DeepEqual(tab.Rows[0], own) || tab.Rows[1].Variant != "peer: good" {
		t.Fatalf("rows after the failures: %d, want the sweep's and the good peer's", len(tab.Rows))
	}
	if !strings.Contains(tab.String(), "peer failed   bench: peer crash on rmat:6:16") {
		t.Errorf("the text table does not say which peer failed:\n%s", tab.String())
	}
}

// TestPeerPlaceholders: {n} takes the vertex count; a template graph
// without a scale cannot fill {scale}; a cancelled context stops the
// peers.
func TestPeerPlaceholders(t *testing.T) {
	s := Sweep{Variants: []Variant{BFSTopDown()}, Family: "grid:{n}x4", Sizes: []int{3}, Roots: 2}
	tab, err := s.Run(gpu.Host(), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.RunPeers(context.Background(), tab, []Peer{
		{Name: "n", Kind: "seedref", Command: "echo 'scale 1: n={n} undirected edges=1 arcs={n}'; echo 'k: mean 1 G arcs/s'"},
		{Name: "s", Kind: "gapbs", Command: "echo {scale}"},
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "{scale} has no value for graph grid:3x4") {
		t.Fatalf("error %v, want one about {scale}", err)
	}
	last := tab.Rows[len(tab.Rows)-1]
	if last.Peer == nil || last.Peer.Command != "echo 'scale 1: n=12 undirected edges=1 arcs=12'; echo 'k: mean 1 G arcs/s'" {
		t.Fatalf("{n} not substituted: %+v", last.Peer)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.RunPeers(ctx, tab, []Peer{{Name: "g", Kind: "gapbs", Command: "true"}}, nil); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("cancelled: error %v", err)
	}
}

// TestLoadFileWithoutPeers: result files written before peers existed
// still load, with no peer rows.
func TestLoadFileWithoutPeers(t *testing.T) {
	tab, err := LoadFile("../docs/results/bfs-rmat-h100.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) == 0 || len(tab.Meta.Peers) != 0 {
		t.Fatalf("%d rows, peers %q", len(tab.Rows), tab.Meta.Peers)
	}
	for _, r := range tab.Rows {
		if r.Peer != nil {
			t.Fatalf("row %s has a peer", r.Variant)
		}
	}
	if strings.Contains(tab.String(), "Peers, measured") {
		t.Fatal("an old file renders a peers section")
	}
}
