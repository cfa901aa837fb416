package testgraphs

import (
	"math"
	"slices"
	"testing"
)

// TestShortestPathsAnswers checks the table's answers with the plainest
// algorithms: a queue BFS for Hops, |V|-1 rounds of Bellman-Ford for Dist
// (an arc of weight +Inf is no arc).
func TestShortestPathsAnswers(t *testing.T) {
	names := map[string]bool{}
	for _, c := range ShortestPaths() {
		if names[c.Name] {
			t.Errorf("two cases named %q", c.Name)
		}
		names[c.Name] = true
		g := c.Graph(t)
		if g.NumVertices() != c.N || len(c.Hops) != c.N || len(c.Dist) != c.N {
			t.Errorf("%s: %d vertices, %d hops, %d distances; want %d", c.Name, g.NumVertices(), len(c.Hops), len(c.Dist), c.N)
			continue
		}
		hops := make([]int32, c.N)
		for v := range hops {
			hops[v] = -1
		}
		hops[c.Source] = 0
		for q := []int32{c.Source}; len(q) > 0; q = q[1:] {
			for _, v := range g.Neighbors(q[0]) {
				if hops[v] < 0 {
					hops[v] = hops[q[0]] + 1
					q = append(q, v)
				}
			}
		}
		if !slices.Equal(hops, c.Hops) {
			t.Errorf("%s: hops %v, the table says %v", c.Name, hops, c.Hops)
		}
		dist := make([]float64, c.N)
		for v := range dist {
			dist[v] = math.Inf(1)
		}
		dist[c.Source] = 0
		for range c.N {
			for u := range int32(c.N) {
				for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
					w := 1.0
					if g.Weighted() {
						w = g.ArcWeight(k)
					}
					if v := g.Adj[k]; !math.IsInf(w, 1) && dist[u]+w < dist[v] {
						dist[v] = dist[u] + w
					}
				}
			}
		}
		if !slices.Equal(dist, c.Dist) {
			t.Errorf("%s: distances %v, the table says %v", c.Name, dist, c.Dist)
		}
	}
}

func TestShapes(t *testing.T) {
	for _, c := range []struct {
		name  string
		edges []Edge
		want  []Edge
	}{
		{"path", Path(4, func(i int) float64 { return float64(10 + i) }), []Edge{{0, 1, 10}, {1, 2, 11}, {2, 3, 12}}},
		{"star", Star(4, nil), []Edge{{0, 1, 1}, {0, 2, 1}, {0, 3, 1}}},
		{"grid 2x3", Grid(2, 3, 1, 2), []Edge{{0, 1, 1}, {0, 3, 2}, {1, 2, 1}, {1, 4, 2}, {2, 5, 2}, {3, 4, 1}, {4, 5, 1}}},
		{"grid 3x1", Grid(3, 1, 1, 2), []Edge{{0, 1, 2}, {1, 2, 2}}},
		{"complete", Complete(3, func(u, v int) float64 { return float64(u*10 + v) }), []Edge{{0, 1, 1}, {0, 2, 2}, {1, 2, 12}}},
	} {
		if !slices.Equal(c.edges, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.edges, c.want)
		}
	}
}
