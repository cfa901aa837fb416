// Package card builds the small HTML summaries that graphs and algorithm
// results show in notebooks, so they all look alike.
package card

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// Card is a small HTML summary: a title, name/value rows and optional
// sections (a table, an SVG chart). The HTML methods of graphs and of the
// algo packages' results are built with it, so every result a notebook
// shows looks alike; a cell can build its own too. The markup uses inline
// styles only (no script, no class, no external asset). Output a kernel
// produces in the session is trusted and shown as is; a front end that
// sanitises an untrusted notebook may drop an SVG section, and the rows
// remain.
//
// The zero Card is usable; methods return the card so calls chain:
//
//	card.New("BFS").Row("source", "0").Row("levels", "6").HTML()
type Card struct {
	title string
	rows  [][2]string
	parts []string
}

// New returns an empty card with a title (plain text).
func New(title string) *Card { return &Card{title: title} }

// Row adds a name/value row; both are plain text (escaped).
func (c *Card) Row(name, value string) *Card {
	c.rows = append(c.rows, [2]string{name, value})
	return c
}

// Rates adds the two rate rows every traversal result shows, labelled
// "Graph500 TEPS" (edges of the traversed component per second) and
// "arcs/s" (stored arcs per second), with SI prefixes: "1.5 GTEPS",
// "3 G arcs/s".
func (c *Card) Rates(graph500, arcsPerSecond float64) *Card {
	return c.Row("Graph500 TEPS", SI(graph500)+"TEPS").
		Row("arcs/s", strings.TrimSpace(SI(arcsPerSecond))+" arcs/s")
}

// Table adds a data table below the rows: an optional caption, a header
// and rows of cells, all plain text (escaped). Cells after the header's
// length are dropped; numbers read best right-aligned, so every column
// but the first is.
func (c *Card) Table(caption string, header []string, rows [][]string) *Card {
	var b strings.Builder
	if caption != "" {
		fmt.Fprintf(&b, `<div style="margin-top:6px;color:#57606a">%s</div>`, html.EscapeString(caption))
	}
	b.WriteString(`<table style="border-collapse:collapse;margin:2px 0 0 0">`)
	b.WriteString("<tr>")
	for i, h := range header {
		fmt.Fprintf(&b, `<th style="%s;border-bottom:1px solid #d0d7de">%s</th>`, cellStyle(i), html.EscapeString(h))
	}
	b.WriteString("</tr>")
	for _, r := range rows {
		b.WriteString("<tr>")
		for i := range header {
			v := ""
			if i < len(r) {
				v = r[i]
			}
			fmt.Fprintf(&b, `<td style="%s">%s</td>`, cellStyle(i), html.EscapeString(v))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	c.parts = append(c.parts, b.String())
	return c
}

func cellStyle(col int) string {
	if col == 0 {
		return "text-align:left;padding:0 8px 0 0"
	}
	return "text-align:right;padding:0 0 0 12px"
}

// RawHTML adds a section of markup as is, such as an inline SVG chart.
// The caller vouches for it: it must be well-formed and hold no script.
func (c *Card) RawHTML(fragment string) *Card {
	c.parts = append(c.parts, fragment)
	return c
}

// HTML renders the card.
func (c *Card) HTML() string {
	var b strings.Builder
	b.WriteString(`<div style="display:inline-block;font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;font-size:12px;line-height:1.4;border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:2px 0;text-align:left">`)
	if c.title != "" {
		fmt.Fprintf(&b, `<div style="font-weight:600;font-size:13px;margin-bottom:4px">%s</div>`, html.EscapeString(c.title))
	}
	if len(c.rows) > 0 {
		b.WriteString(`<table style="border-collapse:collapse;margin:0">`)
		for _, r := range c.rows {
			fmt.Fprintf(&b, `<tr><th style="text-align:left;font-weight:normal;color:#57606a;padding:1px 16px 1px 0">%s</th><td style="text-align:left;padding:1px 0">%s</td></tr>`,
				html.EscapeString(r[0]), html.EscapeString(r[1]))
		}
		b.WriteString("</table>")
	}
	for _, p := range c.parts {
		b.WriteString(p)
	}
	b.WriteString("</div>")
	return b.String()
}

// Count renders n with comma thousands separators: "1,048,576".
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, d := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// SI renders x with 3 significant digits, a space and a k/M/G/T prefix
// ("1.23 G"; "12 " below a thousand), ready to be followed by a unit.
func SI(x float64) string {
	for _, p := range []struct {
		f float64
		s string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if x >= p.f {
			return fmt.Sprintf("%.3g %s", x/p.f, p.s)
		}
	}
	return fmt.Sprintf("%.3g ", x)
}

// Bytes renders a byte count b with one decimal and a binary unit: "1023
// B", "1.5 KiB", "3.0 GiB"; TiB is the largest unit ("2048.0 TiB").
// graph, gpu, the algorithms and bench print memory sizes with it.
func Bytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit && exp < 3; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGT"[exp])
}
