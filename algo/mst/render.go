package mst

import (
	"github.com/graphnb/graphnb/internal/card"
	"html"
	"strconv"
	"time"
)

// edgeRows is how many forest edges the HTML lists.
const edgeRows = 6

// HTML renders the result as a card: algorithm, total weight, trees,
// edges, Borůvka rounds, times, both TEPS conventions ("Graph500 TEPS":
// edges per second, "arcs/s": stored arcs per second, the study's MTEPS),
// the lightest and heaviest forest edges, and the first few edges. The
// text form is String.
func (r *Result) HTML() string {
	if r == nil {
		return "<div>" + html.EscapeString(r.String()) + "</div>"
	}
	c := card.New("minimum spanning forest").
		Row("algorithm", r.Algorithm).
		Row("weight", strconv.FormatFloat(r.Weight, 'g', 8, 64)).
		Row("trees", card.Count(int64(r.Trees))).
		Row("edges", card.Count(int64(len(r.Edges))))
	if r.Iterations > 0 {
		c.Row("rounds", strconv.Itoa(r.Iterations))
	}
	c.Row("time", r.Time.Round(time.Microsecond).String()).
		Row("preparation", r.PrepTime.Round(time.Microsecond).String()).
		Rates(r.TEPS.Graph500, r.TEPS.ArcsPerSecond)
	if k := len(r.Edges); k > 0 {
		// Edges are sorted by weight, so the ends are the extremes.
		c.Row("lightest edge", edgeText(r.Edges[0])).Row("heaviest edge", edgeText(r.Edges[k-1]))
		var rows [][]string
		for _, e := range r.Edges[:min(k, edgeRows)] {
			rows = append(rows, []string{strconv.Itoa(int(e.U)) + "–" + strconv.Itoa(int(e.V)), weightText(e.W)})
		}
		caption := "edges"
		if k > edgeRows {
			caption = "lightest " + strconv.Itoa(edgeRows) + " of " + card.Count(int64(k)) + " edges"
		}
		c.Table(caption, []string{"edge", "weight"}, rows)
	}
	return c.HTML()
}

func edgeText(e Edge) string {
	return strconv.Itoa(int(e.U)) + "–" + strconv.Itoa(int(e.V)) + " (" + weightText(e.W) + ")"
}

func weightText(w float64) string { return strconv.FormatFloat(w, 'g', 6, 64) }
