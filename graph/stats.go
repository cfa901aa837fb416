package graph

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/internal/par"
)

// DegreeStats summarises the out-degrees of a graph.
type DegreeStats struct {
	Vertices int
	Arcs     int64
	Min, Max int
	// Mean and StdDev are in arcs per vertex.
	Mean, StdDev float64
	// Isolated counts vertices of degree 0.
	Isolated int
	// Histogram[i] counts vertices whose degree d has bits.Len(d) == i:
	// bucket 0 is degree 0, bucket 1 degree 1, bucket 2 degrees 2–3,
	// bucket i degrees [2^(i-1), 2^i).
	Histogram []int64
}

// DegreeStats computes the degree statistics of g in O(N). It has no
// error result, so an interrupt (cancel.Request) makes it panic with an
// error wrapping cancel.ErrInterrupted.
func (g *CSR) DegreeStats() DegreeStats {
	n := g.NumVertices()
	s := DegreeStats{Vertices: n, Arcs: g.NumArcs(), Min: math.MaxInt}
	if n == 0 {
		s.Min = 0
		return s
	}
	var sum, sumSq float64
	for v := 0; v < n; v++ {
		if par.Cancelled(v) {
			panic(fmt.Errorf("graph: DegreeStats: %w", cancel.ErrInterrupted))
		}
		d := int(g.Offsets[v+1] - g.Offsets[v])
		s.Min = min(s.Min, d)
		s.Max = max(s.Max, d)
		if d == 0 {
			s.Isolated++
		}
		b := bits.Len(uint(d))
		for len(s.Histogram) <= b {
			s.Histogram = append(s.Histogram, 0)
		}
		s.Histogram[b]++
		sum += float64(d)
		sumSq += float64(d) * float64(d)
	}
	s.Mean = sum / float64(n)
	s.StdDev = math.Sqrt(max(0, sumSq/float64(n)-s.Mean*s.Mean))
	return s
}

// String renders the statistics and a text histogram.
func (s DegreeStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "degree: min %d, max %d, mean %.2f, stddev %.2f, isolated %d\n",
		s.Min, s.Max, s.Mean, s.StdDev, s.Isolated)
	var top int64
	for _, c := range s.Histogram {
		top = max(top, c)
	}
	for i, c := range s.Histogram {
		if c == 0 {
			continue
		}
		bar := strings.Repeat("#", int(math.Ceil(40*float64(c)/float64(top))))
		fmt.Fprintf(&b, "  %-13s %10d %s\n", bucketLabel(i), c, bar)
	}
	return b.String()
}

func bucketLabel(i int) string {
	switch i {
	case 0:
		return "0"
	case 1:
		return "1"
	}
	return fmt.Sprintf("%d–%d", 1<<(i-1), 1<<i-1)
}
