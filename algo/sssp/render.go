package sssp

import (
	"fmt"
	"github.com/graphnb/graphnb/internal/card"
	"html"
	"math"
	"strconv"
	"time"
)

// distRows is how many vertices' distances the HTML shows.
const distRows = 8

// HTML renders the result as a card: algorithm, source, reached vertices,
// iterations, Δ (Δ-stepping), the largest finite distance, times (run,
// preparation, tree), both TEPS conventions ("Graph500 TEPS" and
// "arcs/s"), and the distances and parents of the first vertices. It scans
// Dist once (O(N)). The text form is String.
func (r *Result) HTML() string {
	if r == nil {
		return "<div>" + html.EscapeString(r.String()) + "</div>"
	}
	n := len(r.Dist)
	far := 0.0
	for _, d := range r.Dist {
		if !math.IsInf(d, 1) {
			far = max(far, d)
		}
	}
	c := card.New("SSSP").
		Row("algorithm", r.Algorithm).
		Row("source", strconv.Itoa(int(r.Source))).
		Row("reached", reachedText(r.Reached, int64(n))).
		Row("iterations", strconv.Itoa(r.Iterations))
	if r.Delta > 0 {
		c.Row("Δ", strconv.FormatFloat(r.Delta, 'g', 4, 64))
	}
	if r.Phases > 0 {
		c.Row("phases", strconv.Itoa(r.Phases))
	}
	if r.ArcsScanned > 0 {
		c.Row("arcs scanned", card.Count(r.ArcsScanned))
	}
	c.Row("max distance", strconv.FormatFloat(far, 'g', 6, 64)).
		Row("component edges", card.Count(r.ComponentEdges)).
		Row("time", r.Time.Round(time.Microsecond).String()).
		Row("preparation", r.PrepTime.Round(time.Microsecond).String()).
		Row("parent tree", r.TreeTime.Round(time.Microsecond).String()).
		Rates(r.TEPS.Graph500, r.TEPS.ArcsPerSecond)
	if n > 0 {
		var rows [][]string
		for v := 0; v < min(n, distRows); v++ {
			p := ""
			if v < len(r.Parents) {
				p = strconv.Itoa(int(r.Parents[v]))
			}
			rows = append(rows, []string{strconv.Itoa(v), formatDist(r.Dist[v]), p})
		}
		caption := "distances"
		if n > distRows {
			caption = fmt.Sprintf("distances (first %d of %s vertices)", distRows, card.Count(int64(n)))
		}
		c.Table(caption, []string{"vertex", "distance", "parent"}, rows)
	}
	return c.HTML()
}

// formatDist renders a distance with 6 significant digits, ∞ when
// unreached.
func formatDist(d float64) string {
	if math.IsInf(d, 1) {
		return "∞"
	}
	return strconv.FormatFloat(d, 'g', 6, 64)
}

// reachedText renders "3 of 6 vertices (50.0%)".
func reachedText(reached, n int64) string {
	if n == 0 {
		return card.Count(reached)
	}
	return fmt.Sprintf("%s of %s vertices (%.1f%%)", card.Count(reached), card.Count(n),
		100*float64(reached)/float64(n))
}
