package sssp

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph/gen"
)

func TestFromDistances(t *testing.T) {
	g, err := gen.RMAT(8, 8, gen.Seed(3))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Dijkstra(g, 5)
	if err != nil {
		t.Fatal(err)
	}
	dist := append([]float64(nil), want.Dist...)
	r, err := FromDistances(g, 5, dist, time.Millisecond, 7, "mine")
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(g, r); err != nil {
		t.Fatalf("a result made from Dijkstra's distances fails Check: %v", err)
	}
	if r.Reached != want.Reached || r.ComponentEdges != want.ComponentEdges || r.Iterations != 7 || r.Algorithm != "mine" || r.TEPS.ArcsPerSecond <= 0 {
		t.Fatalf("result %+v; Dijkstra reached %d, component edges %d", r, want.Reached, want.ComponentEdges)
	}
	for _, c := range []struct {
		name string
		edit func([]float64)
		want string
	}{
		{"NaN", func(d []float64) { d[3] = math.NaN() }, "distance NaN"},
		{"negative", func(d []float64) { d[3] = -1 }, "distance -1"},
		{"source not 0", func(d []float64) { d[5] = 1 }, "source 5"},
		{"too short", nil, "distances for a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := append([]float64(nil), want.Dist...)
			if c.edit == nil {
				d = d[:10]
			} else {
				c.edit(d)
			}
			if _, err := FromDistances(g, 5, d, 0, 1, ""); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want one mentioning %q", err, c.want)
			}
		})
	}
	// Distances that are too small leave vertices without a tight parent
	// or fail Check's bound.
	d := append([]float64(nil), want.Dist...)
	for v := range d {
		if v != 5 && !math.IsInf(d[v], 1) {
			d[v] /= 2
		}
	}
	if r, err := FromDistances(g, 5, d, 0, 1, ""); err == nil {
		if err := Check(g, r); err == nil {
			t.Fatal("halved distances passed FromDistances and Check")
		}
	}
}
