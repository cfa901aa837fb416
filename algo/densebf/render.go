package densebf

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
// iterations (sweeps over the matrix), the largest finite distance, times
// (with the host↔device copies too when a GPU run made some),
// and the distances and predecessors of the first vertices (∞:
// unreachable). It scans Dist once (O(N)). The text form is String.
func (r *Result) HTML() string {
	if r == nil {
		return "<div>" + html.EscapeString(r.String()) + "</div>"
	}
	n := len(r.Dist)
	reached, far := 0, 0.0
	for _, d := range r.Dist {
		if !math.IsInf(d, 1) {
			reached++
			far = max(far, d)
		}
	}
	reach := "0"
	if n > 0 {
		reach = fmt.Sprintf("%s of %s vertices (%.1f%%)", card.Count(int64(reached)),
			card.Count(int64(n)), 100*float64(reached)/float64(n))
	}
	c := card.New("Bellman-Ford (dense)").
		Row("algorithm", r.Algorithm).
		Row("source", strconv.Itoa(int(r.Source))).
		Row("reached", reach).
		Row("iterations", strconv.Itoa(r.Iterations)).
		Row("max distance", strconv.FormatFloat(far, 'g', 6, 64)).
		Row("time", r.Time.Round(time.Microsecond).String())
	if r.CopyTime > 0 {
		c.Row("time with copies", (r.Time + r.CopyTime).Round(time.Microsecond).String())
	}
	c.Row("preparation", r.PrepTime.Round(time.Microsecond).String())
	if n > 0 {
		var rows [][]string
		for v := 0; v < min(n, distRows); v++ {
			p := ""
			if v < len(r.Parents) {
				p = strconv.Itoa(int(r.Parents[v]))
			}
			d := "∞"
			if !math.IsInf(r.Dist[v], 1) {
				d = strconv.FormatFloat(r.Dist[v], 'g', 6, 64)
			}
			rows = append(rows, []string{strconv.Itoa(v), d, p})
		}
		caption := "distances"
		if n > distRows {
			caption = fmt.Sprintf("distances (first %d of %s vertices)", distRows, card.Count(int64(n)))
		}
		c.Table(caption, []string{"vertex", "distance", "predecessor"}, rows)
	}
	return c.HTML()
}
