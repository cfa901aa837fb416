package bench

import (
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/graphnb/graphnb/internal/card"
)

// SpeedupTable is every variant of a Table compared with one baseline
// variant, graph by graph: the studies' "speedup over the CPU" figure.
type SpeedupTable struct {
	// Meta is the source table's.
	Meta Meta `json:"meta"`
	// Baseline is the label of the variant the others are divided by.
	Baseline string `json:"baseline"`
	// Rows hold one entry per other variant and graph both measured.
	Rows []SpeedupRow `json:"rows"`
	// Err is why the table is empty when the baseline is missing; the
	// renderings show it.
	Err error `json:"-"`
	// Labels maps a variant (the baseline included) to the name its rows
	// and curve show when that differs from the variant: Table.Label, what
	// actually ran.
	Labels map[string]string `json:"labels,omitempty"`
}

// Label is the name of a variant's rows and curve: Labels[variant], or
// the variant.
func (st *SpeedupTable) Label(variant string) string {
	if l, ok := st.Labels[variant]; ok {
		return l
	}
	return variant
}

// SpeedupRow is one variant's speedup over the baseline on one graph.
type SpeedupRow struct {
	Variant  string `json:"variant"`
	Scale    int    `json:"scale"`
	Graph    string `json:"graph"`
	Vertices int    `json:"vertices"`
	// Mean is the ratio of the mean rates: the variant's mean arcs/s over
	// the baseline's (for tables measured by time only, the baseline's
	// mean time over the variant's) — the ratio of the two curves of the
	// TEPS chart.
	Mean float64 `json:"mean"`
	// Min and Max are the spread. When the two variants ran the same
	// roots and repetitions (always within one sweep), they are the
	// smallest and largest per-run ratio, baseline time / variant time
	// for the same root and repetition (Pairs such pairs); Mean lies
	// between them. Otherwise (Pairs = 0) they are the widest bounds the
	// extremes allow: the variant's slowest over the baseline's fastest,
	// and its fastest over the baseline's slowest.
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Pairs int     `json:"pairs"`
}

// Speedup compares every other variant with baseline (its label,
// matched exactly or else ignoring case) on each graph both measured.
// When the table holds no such variant the result has no rows and Err
// says which labels exist.
func (t *Table) Speedup(baseline string) *SpeedupTable {
	st := &SpeedupTable{Meta: t.Meta, Baseline: baseline}
	labels := t.Variants()
	found := false
	for _, v := range labels {
		if v == baseline {
			found = true
		}
	}
	if !found {
		for _, v := range labels {
			if strings.EqualFold(v, baseline) {
				st.Baseline, found = v, true
				break
			}
		}
	}
	if !found {
		st.Err = fmt.Errorf("bench: no variant %q to compare with; the table has %s", baseline, quoteList(labels))
		return st
	}
	for _, v := range labels {
		if l := t.Label(v); l != v {
			if st.Labels == nil {
				st.Labels = map[string]string{}
			}
			st.Labels[v] = l
		}
	}
	base := map[string]*Row{}
	for i := range t.Rows {
		if r := &t.Rows[i]; r.Variant == st.Baseline {
			base[r.Graph] = r
		}
	}
	timeOnly := t.timeOnly()
	for i := range t.Rows {
		r := &t.Rows[i]
		b := base[r.Graph]
		if r.Variant == st.Baseline || b == nil || r.NumRuns == 0 || b.NumRuns == 0 {
			continue
		}
		st.Rows = append(st.Rows, speedupOf(r, b, timeOnly))
	}
	return st
}

func speedupOf(r, b *Row, timeOnly bool) SpeedupRow {
	s := SpeedupRow{Variant: r.Variant, Scale: r.Scale, Graph: r.Graph, Vertices: r.Vertices}
	if !timeOnly && r.MeanArcsPerSecond > 0 && b.MeanArcsPerSecond > 0 {
		s.Mean = r.MeanArcsPerSecond / b.MeanArcsPerSecond
	} else {
		s.Mean = ratio(b.MeanTime, r.MeanTime)
	}
	type key struct {
		root int32
		rep  int
	}
	bt := make(map[key]time.Duration, len(b.Runs))
	for _, x := range b.Runs {
		bt[key{x.Root, x.Rep}] = x.Time
	}
	for _, x := range r.Runs {
		t, ok := bt[key{x.Root, x.Rep}]
		if !ok || x.Time <= 0 || t <= 0 {
			continue
		}
		q := ratio(t, x.Time)
		if s.Pairs == 0 {
			s.Min, s.Max = q, q
		}
		s.Min, s.Max = min(s.Min, q), max(s.Max, q)
		s.Pairs++
	}
	if s.Pairs == 0 {
		s.Min, s.Max = ratio(b.MinTime, r.MaxTime), ratio(b.MaxTime, r.MinTime)
	}
	return s
}

// ratio is a/b as a float, 0 when b is not positive.
func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func quoteList(x []string) string {
	if len(x) == 0 {
		return "no variants"
	}
	q := make([]string, len(x))
	for i, s := range x {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func (st *SpeedupTable) title() string {
	return fmt.Sprintf("%s: speedup over %s", st.Meta.Name, st.Label(st.Baseline))
}

func (st *SpeedupTable) columns() ([]string, [][]string) {
	head := []string{"variant", "graph", "vertices", "mean ×", "min ×", "max ×", "spread from"}
	var rows [][]string
	for _, r := range st.Rows {
		from := fmt.Sprintf("%d paired runs", r.Pairs)
		if r.Pairs == 0 {
			from = "extremes"
		}
		point := r.Graph
		if r.Scale > 0 {
			point = fmt.Sprintf("2^%d", r.Scale)
		}
		rows = append(rows, []string{st.Label(r.Variant), point, card.Count(int64(r.Vertices)),
			times(r.Mean), times(r.Min), times(r.Max), from})
	}
	return head, rows
}

func times(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

const speedupLegend = "Speedup: mean = ratio of the mean rates; min/max = extreme per-root ratios of the baseline's time to the variant's."

// String renders the speedups for a console.
func (st *SpeedupTable) String() string {
	var b strings.Builder
	b.WriteString(st.title() + "\n")
	if st.Err != nil {
		b.WriteString("  " + st.Err.Error() + "\n")
		return b.String()
	}
	head, rows := st.columns()
	writeAligned(&b, head, rows)
	b.WriteString(speedupLegend + "\n")
	return b.String()
}

// HTML renders the speedups as a card for a notebook.
func (st *SpeedupTable) HTML() string {
	c := card.New(st.title())
	if st.Err != nil {
		return c.Row("error", st.Err.Error()).HTML()
	}
	c.Row("device", st.Meta.Device)
	head, rows := st.columns()
	c.Table("", head, rows)
	c.RawHTML(`<div style="margin-top:4px;color:#57606a">` + html.EscapeString(speedupLegend) + `</div>`)
	return c.HTML()
}

// WriteCSV writes one record per row: variant, baseline, scale, graph,
// vertices, mean, min, max, pairs.
func (st *SpeedupTable) WriteCSV(w io.Writer) error {
	if st.Err != nil {
		return st.Err
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"variant", "baseline", "scale", "graph", "vertices", "mean", "min", "max", "pairs"})
	for _, r := range st.Rows {
		cw.Write([]string{r.Variant, st.Baseline, strconv.Itoa(r.Scale), r.Graph, strconv.Itoa(r.Vertices),
			num(r.Mean), num(r.Min), num(r.Max), strconv.Itoa(r.Pairs)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("bench: writing CSV: %w", err)
	}
	return nil
}
