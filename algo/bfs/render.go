package bfs

import (
	"fmt"
	"github.com/graphnb/graphnb/internal/card"
	"html"
	"strconv"
	"time"
)

// levelRows is how many levels the HTML table shows before it elides the
// middle of a long search (a path graph has one level per vertex).
const levelRows = 20

// HTML renders the result as a card: algorithm, source, reached vertices,
// levels, iterations, times, both TEPS conventions ("Graph500 TEPS" and
// "arcs/s"), and a per-level table of frontier sizes and the direction
// each level was expanded in (long searches show their first and last
// levels). The text form is String; Trace has the full level table.
func (r *Result) HTML() string {
	if r == nil {
		return "<div>" + html.EscapeString(r.String()) + "</div>"
	}
	n := int64(len(r.Levels))
	c := card.New("BFS").
		Row("algorithm", r.Algorithm).
		Row("source", strconv.Itoa(int(r.Source))).
		Row("reached", reachedText(r.Reached, n)).
		Row("levels", strconv.Itoa(len(r.FrontierSizes))).
		Row("iterations", strconv.Itoa(r.Iterations)).
		Row("component edges", card.Count(r.ComponentEdges)).
		Row("time", r.Time.Round(time.Microsecond).String()).
		Row("preparation", r.PrepTime.Round(time.Microsecond).String()).
		Rates(r.TEPS.Graph500, r.TEPS.ArcsPerSecond)
	if r.Note != "" {
		c.Row("note", r.Note)
	}
	if len(r.FrontierSizes) > 0 {
		header := []string{"level", "frontier", "expanded"}
		if r.Directions == nil {
			header = header[:2]
		}
		var rows [][]string
		for _, l := range elide(len(r.FrontierSizes), levelRows) {
			if l < 0 {
				rows = append(rows, []string{"…", "", ""})
				continue
			}
			dir := ""
			if l < len(r.Directions) {
				dir = r.Directions[l].String()
			}
			rows = append(rows, []string{strconv.Itoa(l), card.Count(r.FrontierSizes[l]), dir})
		}
		c.Table("frontier per level", header, rows)
	}
	return c.HTML()
}

// reachedText renders "3 of 6 vertices (50.0%)".
func reachedText(reached, n int64) string {
	if n == 0 {
		return card.Count(reached)
	}
	return fmt.Sprintf("%s of %s vertices (%.1f%%)", card.Count(reached), card.Count(n),
		100*float64(reached)/float64(n))
}

// elide returns the indices 0..n-1, or for n > keep the first keep-4,
// a -1 marking the gap, and the last 3.
func elide(n, keep int) []int {
	var idx []int
	if n <= keep {
		for i := 0; i < n; i++ {
			idx = append(idx, i)
		}
		return idx
	}
	for i := 0; i < keep-4; i++ {
		idx = append(idx, i)
	}
	idx = append(idx, -1)
	for i := n - 3; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}
