package bench

import (
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/graphnb/graphnb/internal/card"
)

// PointTime is where the wall time of one graph of a sweep went: making
// the graph, then every variant on it. The parts add up to Wall.
type PointTime struct {
	// Graph, Scale and Vertices name the graph as the rows do; Device is
	// where it was measured.
	Graph    string `json:"graph"`
	Scale    int    `json:"scale"`
	Vertices int    `json:"vertices"`
	Device   string `json:"device,omitempty"`
	// Wall is the wall-clock time of the point: Generation plus every
	// row's WallTime (preparation to close).
	Wall time.Duration `json:"wall_ns"`
	// Generation made (or read) the graph; Preparation is the variants'
	// Prepare and their per-run preparation; Algorithm the runs' own
	// times (Run.Time, what the rates divide by); Validation the
	// checkers; Copies the rest of each Run call (result downloads,
	// host-side bookkeeping); Other what is left (closing, the runs'
	// surroundings).
	Generation time.Duration `json:"generation_ns"`
	// GeneratedOnDevice: the graph was made on the GPU.
	GeneratedOnDevice bool          `json:"generated_on_device,omitempty"`
	Preparation       time.Duration `json:"preparation_ns"`
	Algorithm         time.Duration `json:"algorithm_ns"`
	Validation        time.Duration `json:"validation_ns"`
	Copies            time.Duration `json:"copies_ns"`
	Other             time.Duration `json:"other_ns"`
	// AlgorithmShare is Algorithm / Wall, in [0, 1].
	AlgorithmShare float64 `json:"algorithm_share"`
}

// WallTimes is the wall time of a table's graphs, one PointTime per graph
// (and device, for merged tables) in the order the rows first name them.
// It renders as a small table (HTML in a notebook, text in a console).
type WallTimes []PointTime

// WallTimes splits the wall time of every graph of t: generation,
// preparation, the algorithm, validation and copies, and the share of
// the wall time spent in the algorithm. Peer rows are left out. Rows of
// one graph measured in different sweeps (Merge) add their generation
// times, each counted once.
func (t *Table) WallTimes() WallTimes {
	var out WallTimes
	gens := map[int][]time.Duration{}
	for _, r := range t.Rows {
		if r.Peer != nil { // a peer program's run: not graphnb's wall time
			continue
		}
		i := slices.IndexFunc(out, func(p PointTime) bool { return p.Graph == r.Graph && p.Device == r.Device })
		if i < 0 {
			out = append(out, PointTime{Graph: r.Graph, Scale: r.Scale, Vertices: r.Vertices, Device: r.Device})
			i = len(out) - 1
		}
		p := &out[i]
		if !slices.Contains(gens[i], r.GraphTime) {
			gens[i] = append(gens[i], r.GraphTime)
			p.Generation += r.GraphTime
			p.Wall += r.GraphTime
		}
		p.GeneratedOnDevice = p.GeneratedOnDevice || r.GraphOnDevice
		p.Wall += r.WallTime
		p.Preparation += r.PrepTime
		for _, x := range r.Runs {
			p.Preparation += x.PrepTime
			p.Algorithm += x.Time
		}
		p.Validation += r.CheckTime
		p.Copies += r.CopyTime
	}
	for i := range out {
		p := &out[i]
		p.Other = max(0, p.Wall-p.Generation-p.Preparation-p.Algorithm-p.Validation-p.Copies)
		if p.Wall > 0 {
			p.AlgorithmShare = min(1, float64(p.Algorithm)/float64(p.Wall))
		}
	}
	return out
}

// columns returns the header and cells of the rendered table.
func (w WallTimes) columns() ([]string, [][]string) {
	head := []string{"graph", "wall s", "generation", "preparation", "algorithm", "validation", "copies", "other", "in the algorithm"}
	devices := false
	for _, p := range w {
		devices = devices || p.Device != w[0].Device
	}
	if devices {
		head = append(head, "device")
	}
	var rows [][]string
	for _, p := range w {
		name := Row{Graph: p.Graph, Scale: p.Scale}.point()
		gen := secs3(p.Generation)
		if p.GeneratedOnDevice {
			gen += " (on GPU)"
		}
		c := []string{name, secs3(p.Wall), gen, secs3(p.Preparation), secs3(p.Algorithm),
			secs3(p.Validation), secs3(p.Copies), secs3(p.Other), percent(p.AlgorithmShare)}
		if devices {
			c = append(c, p.Device)
		}
		rows = append(rows, c)
	}
	return head, rows
}

// secs3 renders a duration in seconds to the millisecond (to the tenth
// of a second from 100 s on), so that a column reads at a glance.
func secs3(d time.Duration) string {
	if d >= 100*time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64)
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

// percent renders a share in [0, 1] as a percentage: "0.8%", "42%".
func percent(x float64) string {
	if x < 0.1 {
		return strconv.FormatFloat(100*x, 'g', 2, 64) + "%"
	}
	return strconv.FormatFloat(100*x, 'f', 0, 64) + "%"
}

const wallLegend = "Wall time per graph in seconds: generation, preparation (Prepare and per-run), the algorithm (the runs' own times), validation, copies (the rest of each run: result downloads, host bookkeeping) and other (closing, overheads)."

// String renders the split as aligned text.
func (w WallTimes) String() string {
	if len(w) == 0 {
		return "wall time: no rows\n"
	}
	var b strings.Builder
	head, rows := w.columns()
	writeAligned(&b, head, rows)
	b.WriteString(wallLegend + "\n")
	return b.String()
}

// HTML renders the split as a card for a notebook.
func (w WallTimes) HTML() string {
	c := card.New("Where the wall time went")
	if len(w) == 0 {
		c.Row("rows", "none")
		return c.HTML()
	}
	head, rows := w.columns()
	c.Table("", head, rows)
	c.RawHTML(`<div style="margin-top:4px;color:#57606a">` + html.EscapeString(wallLegend) + `</div>`)
	return c.HTML()
}

// Collapsed is a table rendered folded away in a notebook: one summary
// line (its name, rows, and the wall time split) that opens on a click to
// the whole table. Notebooks show it below the chart of the same table,
// so a big table is printed once and does not push the chart away.
type Collapsed struct{ T *Table }

// Collapsed returns t folded: see Collapsed.
func (t *Table) Collapsed() Collapsed { return Collapsed{t} }

// summaryLine is the one line a folded table shows.
func (c Collapsed) summaryLine() string {
	var wall, algo time.Duration
	for _, p := range c.T.WallTimes() {
		wall += p.Wall
		algo += p.Algorithm
	}
	share := 0.0
	if wall > 0 {
		share = float64(algo) / float64(wall)
	}
	return fmt.Sprintf("%s: %d rows, %d variants; %s s of wall time, %s in the algorithm", c.T.Meta.Name,
		len(c.T.Rows), len(c.T.Variants()), secs3(wall), percent(share))
}

// HTML renders the summary line and, folded under it, the whole table
// and its wall time split.
func (c Collapsed) HTML() string {
	return `<details><summary>` + html.EscapeString(c.summaryLine()) + ` (click to show the table)</summary>` +
		c.T.HTML() + c.T.WallTimes().HTML() + `</details>`
}

// String is the summary line (a console cannot fold).
func (c Collapsed) String() string { return c.summaryLine() + "\n" }
