package spec

import (
	"strings"
	"testing"

	"github.com/graphnb/graphnb/gpu"
)

func TestParseAndString(t *testing.T) {
	cases := []struct {
		in   string
		want Spec
		str  string
	}{
		{"rmat:20", Spec{Kind: "rmat", Scale: 20, EdgeFactor: 16}, "rmat:20"},
		{"RMAT:12:8", Spec{Kind: "rmat", Scale: 12, EdgeFactor: 8}, "rmat:12:8"},
		{"ssca2:16", Spec{Kind: "ssca2", Scale: 16}, "ssca2:16"},
		{"path:10", Spec{Kind: "path", N: 10}, "path:10"},
		{"star:5", Spec{Kind: "star", N: 5}, "star:5"},
		{"complete:7", Spec{Kind: "complete", N: 7}, "complete:7"},
		{"grid:3x4", Spec{Kind: "grid", Rows: 3, Cols: 4}, "grid:3x4"},
		{"er:100:0.05", Spec{Kind: "er", N: 100, P: 0.05}, "er:100:0.05"},
		{" data/rome99.gr ", Spec{Kind: "file", Path: "data/rome99.gr"}, "data/rome99.gr"},
		{`C:\graphs\x.gr`, Spec{Kind: "file", Path: `C:\graphs\x.gr`}, `C:\graphs\x.gr`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := Parse(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("Parse = %+v, want %+v", got, c.want)
			}
			if got.String() != c.str {
				t.Fatalf("String = %q, want %q", got.String(), c.str)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "empty graph description"},
		{"rmat:", "the scale must be"},
		{"rmat:31", "1..30"},
		{"rmat:10:0", "the edge factor"},
		{"rmat:1:2:3", "rmat:SCALE"},
		{"ssca2:4:4", "takes 1 field"},
		{"grid:5", "grid:ROWSxCOLS"},
		{"grid:0x5", "the row count"},
		{"er:10", "takes 2 field"},
		{"er:10:1.5", "edge probability"},
		{"path:-3", "vertex count"},
		{"torus:4", `unknown graph kind "torus"`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			_, err := Parse(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Parse(%q) = %v, want an error containing %q", c.in, err, c.want)
			}
		})
	}
}

func TestMakeEveryKind(t *testing.T) {
	cases := []struct {
		spec     string
		vertices int
		edges    int64 // -1: not checked exactly
	}{
		{"rmat:8", 256, -1},
		{"ssca2:8", 256, -1},
		{"path:10", 10, 9},
		{"star:6", 6, 5},
		{"complete:5", 5, 10},
		{"grid:3x4", 12, 17},
		{"er:50:0.2", 50, -1},
		{"../../data/karate.mtx", 34, 78},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			g, err := Load(c.spec, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g.NumVertices() != c.vertices || (c.edges >= 0 && g.NumEdges() != c.edges) {
				t.Fatalf("%v: want %d vertices, %d edges", g, c.vertices, c.edges)
			}
			if g.Directed {
				t.Fatalf("%s: generated graphs are undirected", c.spec)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	g, err := Load("path:4", Options{Weights: "int:3", Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range g.Weights {
		if w < 1 || w > 3 || w != float32(int(w)) {
			t.Fatalf("weight %g is not a whole number in 1..3", w)
		}
	}
	if g, _ := Load("path:4", Options{Weights: "none"}); g.Weighted() {
		t.Fatal("weights none gave a weighted graph")
	}
	if g, _ := Load("path:4", Options{Float64: true}); g.Weights64 == nil {
		t.Fatal("Float64 did not give float64 weights")
	}
	a, _ := Load("rmat:8", Options{Seed: 1})
	b, _ := Load("rmat:8", Options{Seed: 2})
	if a.NumArcs() == b.NumArcs() && a.Weights[0] == b.Weights[0] {
		t.Fatal("different seeds gave the same graph")
	}
	d, err := Load("../../data/rome99.gr", Options{Symmetrize: true})
	if err != nil || d.Directed {
		t.Fatalf("Symmetrize on a DIMACS file: %v, directed=%v", err, d != nil && d.Directed)
	}
	for _, bad := range []string{"int:", "int:0", "gaussian"} {
		if err := (Options{Weights: bad}).Validate(); err == nil {
			t.Fatalf("weights %q accepted", bad)
		}
	}
}

// MakeOnDevice makes nothing on the host device or for kinds without a
// device generator: the caller then uses Make.
func TestMakeOnDeviceDeclines(t *testing.T) {
	for _, c := range []struct {
		s   string
		dev *gpu.Device
	}{{"rmat:6", gpu.Host()}, {"ssca2:6", nil}, {"grid:4x4", gpu.Host()}} {
		sp, err := Parse(c.s)
		if err != nil {
			t.Fatal(err)
		}
		if g, ok, err := sp.MakeOnDevice(c.dev, Options{}); g != nil || ok || err != nil {
			t.Errorf("%s: MakeOnDevice = %v, %v, %v; want nothing", c.s, g, ok, err)
		}
	}
}
