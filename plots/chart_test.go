package plots

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"gonum.org/v1/plot/vg/vgimg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sample() *Chart {
	scales := []float64{1 << 14, 1 << 16, 1 << 18, 1 << 20}
	c := New("BFS on R-MAT", "vertices", "GTEPS")
	c.Log2X = true
	c.Range("direction-optimizing", scales, []float64{1, 2, 3, 2.5}, []float64{0.8, 1.7, 2.6, 2.2}, []float64{1.2, 2.4, 3.3, 2.9})
	c.Line("top-down", scales, []float64{0.3, 0.4, 0.35, 0.2})
	return c
}

func TestPNGAndSVG(t *testing.T) {
	c := sample()
	img, err := png.Decode(bytes.NewReader(c.PNG()))
	if err != nil {
		t.Fatalf("PNG: %v (chart error %v)", err, c.Err())
	}
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 250 {
		t.Fatalf("PNG is %v, want about 6×4 inches", b)
	}
	svg := c.SVGText()
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("SVG does not parse: %v", err)
	}
	for _, want := range []string{"BFS on R-MAT", "direction-optimizing", "top-down"} {
		if !strings.Contains(svg, want) {
			t.Fatalf("SVG lacks %q", want)
		}
	}
}

func TestMIMEBundle(t *testing.T) {
	c := sample()
	b := c.MIMEBundle()
	raw, err := base64.StdEncoding.DecodeString(b["image/png"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	if b["text/plain"] != `chart "BFS on R-MAT": direction-optimizing, top-down` {
		t.Fatalf("text/plain %q", b["text/plain"])
	}
	c.SVGOutput = true
	b = c.MIMEBundle()
	if b["image/svg+xml"] == nil || b["image/png"] != nil {
		t.Fatalf("SVGOutput gave %v", keys(b))
	}
	// The HTML form embeds the same SVG as a data: URL, which nbconvert's
	// sanitizer keeps (it empties an inline image/svg+xml).
	h, _ := b["text/html"].(string)
	src, ok := strings.CutPrefix(h, `<img src="data:image/svg+xml;base64,`)
	if !ok {
		t.Fatalf("SVGOutput text/html %.80q, want an <img> with a data: URL", h)
	}
	enc, _, _ := strings.Cut(src, `"`)
	if svg, err := base64.StdEncoding.DecodeString(enc); err != nil || string(svg) != b["image/svg+xml"] {
		t.Fatalf("the <img> does not hold the chart's SVG (%v)", err)
	}
	if !strings.Contains(h, `alt="chart &#34;BFS on R-MAT&#34;`) {
		t.Fatalf("the <img> has no escaped alt text: %.200q", h[len(h)-120:])
	}
}

// TestNilTables checks that every chart of a table refuses a nil one with
// an error that names the function and the argument, instead of a nil
// dereference.
func TestNilTables(t *testing.T) {
	for name, err := range map[string]error{
		"TEPS":         TEPS(nil).Err(),
		"TEPSGraph500": TEPSGraph500(nil).Err(),
		"Speedup":      Speedup(nil).Err(),
		"TimeVsN":      TimeVsN(nil).Err(),
		"Bars":         Bars(nil).Err(),
	} {
		if err == nil || !strings.Contains(err.Error(), name+"(nil)") || !strings.Contains(err.Error(), "is nil") {
			t.Errorf("%s(nil): error %v, want one naming %s(nil)", name, err, name)
		}
	}
	if b := Speedup(nil).MIMEBundle(); !strings.Contains(b["text/plain"].(string), "Speedup(nil)") {
		t.Errorf("Speedup(nil) shows %v", b)
	}
}

func keys(m map[string]any) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	return k
}

// The legend sits in a column of its own right of the plot area, so it
// covers no data however many series there are: the image is wider than
// the plot, and the y range holds every point.
func TestLegendBesideThePlot(t *testing.T) {
	for _, logY := range []bool{false, true} {
		c := sample()
		c.LogY = logY
		p, err := c.build()
		if err != nil {
			t.Fatal(err)
		}
		if top := 3.3; top > p.Y.Max || p.Y.Min > 1 {
			t.Fatalf("logY=%v: y from %g to %g does not hold the data (1 to %g)", logY, p.Y.Min, p.Y.Max, top)
		}
		img, err := png.Decode(bytes.NewReader(c.PNG()))
		if err != nil {
			t.Fatal(err)
		}
		plotWidth := int(6 * vgimg.DefaultDPI)
		if w := img.Bounds().Dx(); w <= plotWidth+20 {
			t.Fatalf("logY=%v: image %d px wide; want the %d px plot plus a legend column", logY, w, plotWidth)
		}
	}
}

func TestErrors(t *testing.T) {
	c := New("t", "x", "y").Line("bad", []float64{1, 2}, []float64{1})
	if c.PNG() != nil || c.Err() == nil || !strings.Contains(c.Err().Error(), `"bad" has 2 x values but 1 y values`) {
		t.Fatalf("err = %v", c.Err())
	}
	if b := c.MIMEBundle(); !strings.Contains(b["text/plain"].(string), "1 y values") {
		t.Fatalf("bundle %v", b)
	}
	c = New("t", "x", "y").Range("r", []float64{1}, []float64{1}, []float64{1}, nil)
	if c.Err() == nil {
		t.Fatal("missing highs accepted")
	}
	if err := sample().Save(filepath.Join(t.TempDir(), "noext")); err == nil {
		t.Fatal("Save without an extension succeeded")
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"c.png", "c.svg", "c.pdf"} {
		path := filepath.Join(dir, name)
		if err := sample().Save(path); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path); err != nil || st.Size() < 500 {
			t.Fatalf("%s: %v, %d bytes", name, err, st.Size())
		}
	}
}

func TestPow2Ticks(t *testing.T) {
	ticks := pow2Ticks{}.Ticks(1<<14, 1<<20)
	if len(ticks) != 7 || ticks[0].Label != "2¹⁴" || ticks[6].Label != "2²⁰" || ticks[0].Value != 1<<14 {
		t.Fatalf("ticks %+v", ticks)
	}
	if superscript(-3) != "⁻³" || superscript(90) != "⁹⁰" {
		t.Fatal(superscript(-3), superscript(90))
	}
}
