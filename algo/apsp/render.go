package apsp

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"time"

	"github.com/graphnb/graphnb/internal/card"
)

// cornerSize is the side of the distance sub-matrix the HTML shows.
const cornerSize = 6

// HTML renders the result as a card: algorithm, vertices, element type,
// tile size, times, the memory of the distance and predecessor matrices,
// and the distances among the first few vertices (∞: no path). The text
// form is String.
func (r *Result) HTML() string {
	if r == nil || r.Dist == nil {
		return "<div>" + html.EscapeString(r.String()) + "</div>"
	}
	n := r.Dist.N
	kind := "float32"
	if r.Dist.IsInt() {
		kind = "int32"
	}
	tile := "none (plain Floyd-Warshall)"
	if r.Tile > 0 {
		tile = strconv.Itoa(r.Tile)
	}
	c := card.New("all-pairs shortest paths").
		Row("algorithm", r.Algorithm).
		Row("vertices", card.Count(int64(n))).
		Row("distances", kind).
		Row("tile", tile).
		Row("time", r.Time.Round(time.Microsecond).String()).
		Row("preparation", r.PrepTime.Round(time.Microsecond).String())
	if r.CopyTime > 0 {
		c.Row("copies", r.CopyTime.Round(time.Microsecond).String()+" (time with copies "+(r.Time+r.CopyTime).Round(time.Microsecond).String()+")")
	}
	c.Row("memory", card.Bytes(r.Dist.MemoryBytes()+4*int64(len(r.Parents))))
	if k := min(n, cornerSize); k > 0 && len(r.Dist.F32)+len(r.Dist.I32) >= n*n {
		header := []string{"from \\ to"}
		for j := 0; j < k; j++ {
			header = append(header, strconv.Itoa(j))
		}
		var rows [][]string
		for i := 0; i < k; i++ {
			row := []string{strconv.Itoa(i)}
			for j := 0; j < k; j++ {
				row = append(row, formatDist(r.Dist.At(i, j)))
			}
			rows = append(rows, row)
		}
		caption := "distances"
		if n > k {
			caption = fmt.Sprintf("distances among the first %d of %s vertices", k, card.Count(int64(n)))
		}
		c.Table(caption, header, rows)
	}
	return c.HTML()
}

// formatDist renders a distance with 6 significant digits, ∞ for no path.
func formatDist(d float64) string {
	if math.IsInf(d, 1) {
		return "∞"
	}
	return strconv.FormatFloat(d, 'g', 6, 64)
}
