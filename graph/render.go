package graph

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/graphnb/graphnb/internal/card"
)

// HTML renders the graph as a card: kind, vertices, edges, arcs, weights,
// memory, degree summary and an inline SVG histogram of the degrees
// (log2 buckets, as DegreeStats). It scans the offsets once (O(N)); the
// text form is String.
func (g *CSR) HTML() string {
	if g == nil || len(g.Offsets) == 0 {
		return card.New("empty graph (no offsets)").HTML()
	}
	kind := "undirected graph"
	if g.Directed {
		kind = "directed graph"
	}
	w := "none (unit weights)"
	switch {
	case g.Weights != nil:
		w = "float32"
	case g.Weights64 != nil:
		w = "float64"
	}
	s := g.DegreeStats()
	c := card.New(kind).
		Row("vertices", card.Count(int64(g.NumVertices()))).
		Row("edges", card.Count(g.NumEdges())).
		Row("arcs", card.Count(g.NumArcs())).
		Row("weights", w).
		Row("memory", card.Bytes(g.MemoryBytes()))
	s.rows(c)
	return c.RawHTML(s.histogramSVG()).HTML()
}

// HTML renders the statistics as a card with an inline SVG histogram.
func (s DegreeStats) HTML() string {
	c := card.New("out-degrees").Row("vertices", card.Count(int64(s.Vertices))).Row("arcs", card.Count(s.Arcs))
	s.rows(c)
	return c.RawHTML(s.histogramSVG()).HTML()
}

// rows adds the degree summary rows.
func (s DegreeStats) rows(c *card.Card) {
	c.Row("degree", fmt.Sprintf("min %d · max %d · mean %.2f · σ %.2f", s.Min, s.Max, s.Mean, s.StdDev)).
		Row("isolated", card.Count(int64(s.Isolated)))
}

// histogramSVG draws the degree histogram: one bar per log2 bucket, bar
// heights on a log scale (degree distributions span orders of magnitude),
// the bucket's smallest degree under each bar and the exact count in a
// tooltip. Empty when there are no vertices.
func (s DegreeStats) histogramSVG() string {
	if len(s.Histogram) == 0 {
		return ""
	}
	const (
		barW, gap     = 20, 4
		plotH, labelH = 60, 14
		top           = 4
	)
	var peak int64
	for _, c := range s.Histogram {
		peak = max(peak, c)
	}
	n := len(s.Histogram)
	width := n*(barW+gap) + gap
	height := top + plotH + labelH
	var b strings.Builder
	fmt.Fprintf(&b, `<div style="margin-top:6px;color:#57606a">vertices by degree (log scale)</div>`)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" style="display:block">`, width, height, width, height)
	fmt.Fprintf(&b, `<line x1="0" y1="%d" x2="%d" y2="%d" stroke="#8c959f" stroke-width="1"/>`, top+plotH, width, top+plotH)
	b.WriteString(`<g fill="#3b7dd8">`)
	for i, c := range s.Histogram {
		h := 0
		if c > 0 {
			h = max(1, int(math.Round(plotH*math.Log1p(float64(c))/math.Log1p(float64(peak)))))
		}
		noun := "vertices"
		if c == 1 {
			noun = "vertex"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d"><title>degree %s: %s %s</title></rect>`,
			gap+i*(barW+gap), top+plotH-h, barW, h, bucketLabel(i), card.Count(c), noun)
	}
	b.WriteString(`</g><g font-size="9" font-family="sans-serif" text-anchor="middle" fill="#57606a">`)
	for i := range s.Histogram {
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`, gap+i*(barW+gap)+barW/2, top+plotH+11, bucketFloor(i))
	}
	b.WriteString("</g>")
	b.WriteString("</svg>")
	return b.String()
}

// bucketFloor is the smallest degree of histogram bucket i, short, with
// binary prefixes (k = 1024): "0", "1", "2", "4", …, "1k", "2k", …, "1M".
func bucketFloor(i int) string {
	if i == 0 {
		return "0"
	}
	d := int64(1) << (i - 1)
	switch {
	case d >= 1<<30:
		return fmt.Sprintf("%dG", d>>30)
	case d >= 1<<20:
		return fmt.Sprintf("%dM", d>>20)
	case d >= 1<<10:
		return fmt.Sprintf("%dk", d>>10)
	}
	return strconv.FormatInt(d, 10)
}
