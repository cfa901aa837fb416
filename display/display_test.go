package display

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"github.com/graphnb/graphnb/internal/card/cardtest"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// call is one recorded Sink call.
type sinkCall struct {
	clear   bool
	wait    bool
	data    Bundle
	id      string
	update  bool
	hasMeta bool
}

// fakeSink records every call.
type fakeSink struct {
	mu    sync.Mutex
	calls []sinkCall
}

func (s *fakeSink) Display(data Bundle, metadata map[string]any, displayID string, update bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, sinkCall{data: data, id: displayID, update: update, hasMeta: metadata != nil})
}

func (s *fakeSink) ClearOutput(wait bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, sinkCall{clear: true, wait: wait})
}

func (s *fakeSink) got() []sinkCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sinkCall(nil), s.calls...)
}

// withSink installs a fresh fake sink for the test.
func withSink(t *testing.T) *fakeSink {
	t.Helper()
	s := &fakeSink{}
	prev := SetSink(s)
	t.Cleanup(func() { SetSink(prev) })
	return s
}

// withConsole removes the sink and captures console output.
func withConsole(t *testing.T) (stdout, stderr *bytes.Buffer) {
	t.Helper()
	prev := SetSink(nil)
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	oldOut, oldErr := consoleOut, consoleErr
	consoleOut = func() io.Writer { return stdout }
	consoleErr = func() io.Writer { return stderr }
	t.Cleanup(func() {
		SetSink(prev)
		consoleOut, consoleErr = oldOut, oldErr
	})
	return stdout, stderr
}

// captureErr captures console errors while a sink is installed.
func captureErr(t *testing.T) *bytes.Buffer {
	t.Helper()
	buf := &bytes.Buffer{}
	old := consoleErr
	consoleErr = func() io.Writer { return buf }
	t.Cleanup(func() { consoleErr = old })
	return buf
}

func testImage() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 200, G: 10, B: 30, A: 255})
	return img
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, testImage()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jpegBytes(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, testImage(), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func TestExplicitDisplays(t *testing.T) {
	p, j := pngBytes(t), jpegBytes(t)
	tests := []struct {
		name string
		call func()
		want Bundle
	}{
		{"Text", func() { Text("hello") }, Bundle{"text/plain": "hello"}},
		{"HTML", func() { HTML("<b>x</b>") }, Bundle{"text/html": "<b>x</b>"}},
		{"Markdown", func() { Markdown("# T") }, Bundle{"text/markdown": "# T"}},
		{"SVG", func() { SVG("<svg/>") }, Bundle{"image/svg+xml": "<svg/>"}},
		{"LaTeX", func() { LaTeX(`$x^2$`) }, Bundle{"text/latex": `$x^2$`}},
		{"PNG", func() { PNG(p) }, Bundle{"image/png": b64(p)}},
		{"JPEG", func() { JPEG(j) }, Bundle{"image/jpeg": b64(j)}},
		{"Image", func() { Image(testImage()) }, Bundle{"image/png": b64(p)}},
		{"Show", func() { Show(htmlStringer{}) }, Bundle{"text/plain": "plain", "text/html": "<i>rich</i>"}},
		{"JSON", func() { JSON(map[string]any{"a": 1, "b": []string{"<x>"}}) }, Bundle{
			"application/json": map[string]any{"a": json.Number("1"), "b": []any{"<x>"}},
			"text/plain":       "{\n  \"a\": 1,\n  \"b\": [\n    \"<x>\"\n  ]\n}",
		}},
		{"JSON raw", func() { JSON(json.RawMessage(`[1, 2.5]`)) }, Bundle{
			"application/json": []any{json.Number("1"), json.Number("2.5")},
			"text/plain":       "[\n  1,\n  2.5\n]",
		}},
		{"JSON string", func() { JSON("hi") }, Bundle{"application/json": "hi", "text/plain": `"hi"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := withSink(t)
			tc.call()
			got := s.got()
			if len(got) != 1 {
				t.Fatalf("%d sink calls, want 1", len(got))
			}
			c := got[0]
			if c.clear || c.id != "" || c.update || c.hasMeta {
				t.Errorf("call %+v: want a plain display without id, update or metadata", c)
			}
			if !reflect.DeepEqual(c.data, tc.want) {
				t.Errorf("bundle\n got %#v\nwant %#v", c.data, tc.want)
			}
		})
	}
}

// The PNG sent by Image decodes back to the same pixels.
func TestImageRoundTrip(t *testing.T) {
	s := withSink(t)
	Image(testImage())
	raw, err := base64.StdEncoding.DecodeString(s.got()[0].data["image/png"].(string))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got := color.RGBAModel.Convert(img.At(1, 1)); got != (color.RGBA{200, 10, 30, 255}) {
		t.Errorf("pixel (1,1) = %v", got)
	}
}

func TestExplicitBadInput(t *testing.T) {
	tests := []struct {
		name string
		call func()
		want string
	}{
		{"PNG of JPEG", func() { PNG(jpegBytes(t)) }, "display.PNG: the"},
		{"PNG empty", func() { PNG(nil) }, "not a PNG file"},
		{"JPEG of PNG", func() { JPEG(pngBytes(t)) }, "display.JPEG:"},
		{"Image nil", func() { Image(nil) }, "display.Image: the image is nil"},
		{"Image nil RGBA", func() { Image((*image.RGBA)(nil)) }, "cannot encode *image.RGBA"},
		{"JSON NaN", func() { JSON(math.NaN()) }, "display.JSON: json: unsupported value: NaN"},
		{"JSON chan", func() { JSON(make(chan int)) }, "display.JSON: json: unsupported type: chan int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := withSink(t)
			errs := captureErr(t)
			tc.call()
			if n := len(s.got()); n != 0 {
				t.Errorf("%d sink calls, want none", n)
			}
			if !strings.Contains(errs.String(), tc.want) {
				t.Errorf("stderr %q does not contain %q", errs.String(), tc.want)
			}
		})
	}
}

func TestClear(t *testing.T) {
	s := withSink(t)
	Clear(true)
	Clear(false)
	want := []sinkCall{{clear: true, wait: true}, {clear: true}}
	if got := s.got(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// Render test types, one per interface and some combinations.
type (
	htmlOnly     struct{}
	htmlStringer struct{}
	mdOnly       struct{}
	svgOnly      struct{}
	pngOnly      struct{ b []byte }
	bundler      struct{ m map[string]any }
	everything   struct{}
	errStringer  struct{}
	named        string
	panicky      struct{}
	ptrStringer  struct{ s string }
	pngImage     struct{ *image.RGBA }
)

func (htmlOnly) HTML() string                { return "<p>h</p>" }
func (htmlStringer) HTML() string            { return "<i>rich</i>" }
func (htmlStringer) String() string          { return "plain" }
func (mdOnly) Markdown() string              { return "*m*" }
func (svgOnly) SVG() string                  { return "<svg></svg>" }
func (p pngOnly) PNG() []byte                { return p.b }
func (b bundler) MIMEBundle() map[string]any { return b.m }
func (everything) HTML() string              { return "<p>e</p>" }
func (everything) Markdown() string          { return "**e**" }
func (everything) SVG() string               { return "<svg>e</svg>" }
func (everything) PNG() []byte               { return []byte{1, 2, 3} }
func (everything) String() string            { return "e" }
func (everything) MIMEBundle() map[string]any {
	return map[string]any{"text/html": "<p>bundle</p>", "application/x-e": 7}
}
func (errStringer) Error() string     { return "the error" }
func (errStringer) String() string    { return "the string" }
func (panicky) HTML() string          { panic("boom") }
func (panicky) Markdown() string      { return "ok" }
func (p *ptrStringer) String() string { return p.s }
func (p *ptrStringer) HTML() string   { return "<b>" + p.s + "</b>" }
func (pngImage) PNG() []byte          { return []byte("from-method") }

func TestRender(t *testing.T) {
	img := testImage()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		v    any
		want Bundle
	}{
		{"nil", nil, Bundle{"text/plain": "nil"}},
		{"string", "a\tb", Bundle{"text/plain": `"a\tb"`}},
		{"named string", named("x"), Bundle{"text/plain": `"x"`}},
		{"int", 42, Bundle{"text/plain": "42"}},
		{"slice", []int{1, 2}, Bundle{"text/plain": "[1 2]"}},
		{"struct", struct{ A, B int }{1, 2}, Bundle{"text/plain": "{1 2}"}},
		{"Stringer", time.Second, Bundle{"text/plain": "1s"}},
		{"error", errors.New("bad"), Bundle{"text/plain": "bad"}},
		{"Error wins over String", errStringer{}, Bundle{"text/plain": "the error"}},
		{"HTMLer", htmlOnly{}, Bundle{"text/plain": "{}", "text/html": "<p>h</p>"}},
		{"HTMLer Stringer", htmlStringer{}, Bundle{"text/plain": "plain", "text/html": "<i>rich</i>"}},
		{"Markdowner", mdOnly{}, Bundle{"text/plain": "{}", "text/markdown": "*m*"}},
		{"SVGer", svgOnly{}, Bundle{"text/plain": "{}", "image/svg+xml": "<svg></svg>"}},
		{"PNGer", pngOnly{[]byte{0, 1, 2, 250}}, Bundle{"text/plain": "{[0 1 2 250]}", "image/png": "AAEC+g=="}},
		{"PNGer nil", pngOnly{}, Bundle{"text/plain": "{[]}"}},
		{"MIMEBundler", bundler{map[string]any{"text/html": "<p/>", "image/png": []byte{0xff}, "image/svg+xml": []byte("<svg/>")}},
			Bundle{"text/html": "<p/>", "image/png": "/w==", "image/svg+xml": []byte("<svg/>"),
				"text/plain": "{map[image/png:[255] image/svg+xml:[60 115 118 103 47 62] text/html:<p/>]}"}},
		{"MIMEBundler text/plain kept", bundler{map[string]any{"text/plain": "mine", "text/csv": "a,b"}},
			Bundle{"text/plain": "mine", "text/csv": "a,b"}},
		{"every interface, bundle wins", everything{}, Bundle{
			"text/plain": "e", "text/html": "<p>bundle</p>", "text/markdown": "**e**",
			"image/svg+xml": "<svg>e</svg>", "image/png": "AQID", "application/x-e": 7}},
		{"panicking method skipped", panicky{}, Bundle{"text/plain": "{}", "text/markdown": "ok"}},
		{"pointer receiver", &ptrStringer{"p"}, Bundle{"text/plain": "p", "text/html": "<b>p</b>"}},
		{"nil pointer receiver", (*ptrStringer)(nil), Bundle{"text/plain": "<nil>"}},
		{"image.Image", img, Bundle{"text/plain": fmtV(img), "image/png": b64(buf.Bytes())}},
		{"PNGer wins over image.Image", pngImage{img}, Bundle{"text/plain": fmtV(pngImage{img}), "image/png": b64([]byte("from-method"))}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Render(tc.v); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Render(%T)\n got %#v\nwant %#v", tc.v, got, tc.want)
			}
		})
	}
}

func fmtV(v any) string { return plain(v) }

func TestHandle(t *testing.T) {
	s := withSink(t)
	h := NewDisplay("first")
	h.Update(htmlOnly{})
	h2 := NewDisplay(1)
	h.Update("third")
	got := s.got()
	if len(got) != 4 {
		t.Fatalf("%d calls, want 4", len(got))
	}
	if h.ID() == "" || h.ID() == h2.ID() {
		t.Fatalf("ids %q and %q: want distinct non-empty ids", h.ID(), h2.ID())
	}
	want := []sinkCall{
		{data: Bundle{"text/plain": `"first"`}, id: h.ID()},
		{data: Bundle{"text/plain": "{}", "text/html": "<p>h</p>"}, id: h.ID(), update: true},
		{data: Bundle{"text/plain": "1"}, id: h2.ID()},
		{data: Bundle{"text/plain": `"third"`}, id: h.ID(), update: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls\n got %+v\nwant %+v", got, want)
	}
}

func TestConsoleFallback(t *testing.T) {
	p := pngBytes(t)
	tests := []struct {
		name string
		call func()
		want string
	}{
		{"Text", func() { Text("hi") }, "hi\n"},
		{"Show", func() { Show(htmlStringer{}) }, "plain\n"},
		{"HTML source", func() { HTML("<b>x</b>") }, "<b>x</b>\n"},
		{"Markdown source", func() { Markdown("# T") }, "# T\n"},
		{"LaTeX source", func() { LaTeX("$x$") }, "$x$\n"},
		{"SVG placeholder", func() { SVG("<svg></svg>") }, "[image/svg+xml, 11 B]\n"},
		{"PNG placeholder", func() { PNG(p) }, "[image/png, " + byteSize(len(p)) + "]\n"},
		{"JSON", func() { JSON([]int{1}) }, "[\n  1\n]\n"},
		{"Clear does nothing", func() { Clear(false) }, ""},
		{"Handle", func() { h := NewDisplay(1); h.Update(2) }, "1\n2\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs := withConsole(t)
			tc.call()
			if out.String() != tc.want {
				t.Errorf("stdout %q, want %q", out.String(), tc.want)
			}
			if errs.Len() != 0 {
				t.Errorf("stderr %q, want nothing", errs.String())
			}
		})
	}
}

func TestConsoleTextSizes(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 100, 2000} {
		raw := bytes.Repeat([]byte{7}, n)
		if got := decodedLen(b64(raw)); got != n {
			t.Errorf("decodedLen of %d bytes = %d", n, got)
		}
	}
	if got := consoleText(Bundle{"image/png": b64(make([]byte, 3000)), "application/x-y": 1}); got != "[application/x-y] [image/png, 2.9 KiB]" {
		t.Errorf("consoleText = %q", got)
	}
}

// fakeClock is a manual clock and timer queue for Progress.
type fakeClock struct {
	mu      sync.Mutex
	t       time.Time
	pending []func()
	delays  []time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func (c *fakeClock) after(d time.Duration, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = append(c.pending, f)
	c.delays = append(c.delays, d)
}

// fire runs the scheduled functions (as their timers would).
func (c *fakeClock) fire() int {
	c.mu.Lock()
	fs := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, f := range fs {
		f()
	}
	return len(fs)
}

func newFakeProgress(label string, total int64) (*Progress, *fakeClock) {
	c := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	return newProgress(label, total, c.now, c.after), c
}

func TestProgressRateLimit(t *testing.T) {
	s := withSink(t)
	p, clk := newFakeProgress("work", 1000)
	texts := func() []string {
		var r []string
		for _, c := range s.got() {
			r = append(r, c.data["text/plain"].(string))
		}
		return r
	}
	if got := texts(); len(got) != 1 || got[0] != "work [....................] 0% 0/1k" {
		t.Fatalf("after NewProgress: %q", got)
	}
	for i := 0; i < 500; i++ {
		p.Add(1)
	}
	if n := len(s.got()); n != 1 {
		t.Fatalf("500 Adds inside the interval drew %d times, want 0 more", n-1)
	}
	if len(clk.delays) != 1 || clk.delays[0] != ProgressInterval {
		t.Fatalf("scheduled redraws %v, want one after %v", clk.delays, ProgressInterval)
	}
	clk.advance(ProgressInterval)
	if n := clk.fire(); n != 1 {
		t.Fatalf("fired %d", n)
	}
	if got := texts(); len(got) != 2 || got[1] != "work [##########..........] 50% 500/1k ETA 0.1s" {
		t.Fatalf("after the trailing redraw: %q", got)
	}
	// A change after the interval draws at once; the next inside it waits.
	clk.advance(ProgressInterval + time.Millisecond)
	p.Set(600)
	p.Add(100)
	if got := texts(); len(got) != 3 || got[2] != "work [############........] 60% 600/1k ETA 0.1s" {
		t.Fatalf("after Set past the interval: %q", got)
	}
	// Done draws at once although inside the interval, with the last count.
	clk.advance(time.Millisecond)
	p.Done()
	got := texts()
	if len(got) != 4 || got[3] != "work [##############......] 70% 700/1k stopped after 0.2s" {
		t.Fatalf("after Done: %q", got)
	}
	// Nothing after Done: not the scheduled redraw, not more work.
	clk.advance(time.Second)
	clk.fire()
	p.Add(300)
	p.Done()
	clk.fire()
	if n := len(s.got()); n != 4 {
		t.Fatalf("%d draws after Done, want none", n-4)
	}
	calls := s.got()
	for i, c := range calls {
		if c.id != calls[0].id || c.update != (i > 0) {
			t.Errorf("call %d: id %q update %v; want id %q update %v", i, c.id, c.update, calls[0].id, i > 0)
		}
		if _, ok := c.data["text/html"].(string); !ok {
			t.Errorf("call %d has no text/html", i)
		}
	}
}

// A redraw by another goroutine between scheduling and firing does not
// lose a later change: the trailing redraw reschedules itself.
func TestProgressTrailingRedrawReschedules(t *testing.T) {
	s := withSink(t)
	p, clk := newFakeProgress("", 10)
	p.Add(1) // inside the interval: schedules
	clk.advance(ProgressInterval)
	p.Add(1) // due: draws 2/10 now
	p.Add(1) // inside the new interval: a redraw is already scheduled
	clk.fire()
	if n := len(s.got()); n != 2 {
		t.Fatalf("%d draws, want 2", n)
	}
	if len(clk.pending) != 1 {
		t.Fatalf("%d redraws pending, want the rescheduled one", len(clk.pending))
	}
	clk.advance(ProgressInterval)
	clk.fire()
	got := s.got()
	if last := got[len(got)-1].data["text/plain"]; last != "[######..............] 30% 3/10 ETA 0.5s" {
		t.Fatalf("last draw %q", last)
	}
}

func TestProgressCallbackAndTotals(t *testing.T) {
	s := withSink(t)
	p, clk := newFakeProgress("cb", 0)
	f := p.Callback()
	clk.advance(ProgressInterval)
	f(5, 0) // unknown total stays unknown
	clk.advance(ProgressInterval)
	f(5, 20)
	clk.advance(ProgressInterval)
	p.SetTotal(10)
	clk.advance(ProgressInterval)
	f(10, -1) // reaches the total: ends the bar
	p.Done()  // changes nothing more
	f(11, -1)
	var got []string
	for _, c := range s.got() {
		got = append(got, c.data["text/plain"].(string))
	}
	want := []string{
		"cb 0 0.0s",
		"cb 5 0.1s",
		"cb [#####...............] 25% 5/20 ETA 0.6s",
		"cb [##########..........] 50% 5/10 ETA 0.3s",
		"cb [####################] 100% 10/10", // due, drawn at once
		"cb [####################] 100% 10/10 in 0.4s",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("draws\n got %q\nwant %q", got, want)
	}
}

func TestProgressConcurrentAdd(t *testing.T) {
	s := withSink(t)
	p := NewProgress("par", 8*5000)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000; i++ {
				p.Add(1)
				if i%1000 == 0 {
					_ = p.String() + p.HTML() // readers alongside writers
				}
			}
		}()
	}
	wg.Wait()
	p.Done()
	calls := s.got()
	last := calls[len(calls)-1].data["text/plain"].(string)
	if !strings.HasPrefix(last, "par [####################] 100% 40k/40k in ") {
		t.Errorf("final draw %q", last)
	}
	for i, c := range calls {
		if c.id != calls[0].id || c.update != (i > 0) {
			t.Fatalf("call %d: id %q update %v", i, c.id, c.update)
		}
	}
}

func TestProgressConsole(t *testing.T) {
	_, errs := withConsole(t)
	p, clk := newFakeProgress("load", 4)
	clk.advance(ProgressInterval)
	p.Add(1)
	clk.advance(30 * time.Millisecond)
	p.Add(3) // inside the interval: not drawn, Done draws it
	p.Done()
	want := "\rload [....................] 0% 0/4" +
		"\rload [#####...............] 25% 1/4 ETA 0.3s" +
		"\rload [####################] 100% 4/4 in 0.1s\n"
	if errs.String() != want {
		t.Errorf("console\n got %q\nwant %q", errs.String(), want)
	}
	// A shorter line is padded to wipe the longer one before it.
	errs.Reset()
	p, clk = newFakeProgress("", 10)
	clk.advance(12 * time.Second)
	p.Set(1)
	p.Set(10)
	p.Done()
	want = "\r[....................] 0% 0/10" +
		"\r[##..................] 10% 1/10 ETA 1m48s" +
		"\r[####################] 100% 10/10 in 12s \n"
	if errs.String() != want {
		t.Errorf("console\n got %q\nwant %q", errs.String(), want)
	}
}

func TestProgressStringHTML(t *testing.T) {
	withSink(t)
	p, clk := newFakeProgress("a<b>&c", 200)
	clk.advance(2 * time.Second)
	p.Set(50)
	if got, want := p.String(), "a<b>&c [#####...............] 25% 50/200 ETA 6.0s"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	h := p.HTML()
	for _, want := range []string{"a&lt;b&gt;&amp;c", "width:25.0%", "25% · 50/200 · 2.0s elapsed · 25/s · ETA 6.0s"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q:\n%s", want, h)
		}
	}
	checkXML(t, h)
	p.Done()
	checkXML(t, p.HTML())
	u, _ := newFakeProgress("", -1)
	u.Add(12345)
	checkXML(t, u.HTML())
	if got := u.String(); got != "12.3k 0.0s" {
		t.Errorf("unknown total: %q", got)
	}
}

// checkXML fails unless s is well-formed markup.
func checkXML(t *testing.T, s string) {
	t.Helper()
	if err := cardtest.WellFormed(s); err != nil {
		t.Errorf("not well-formed: %v\n%s", err, s)
	}
}

func TestFormatting(t *testing.T) {
	counts := map[int64]string{0: "0", 999: "999", 1000: "1k", 4200: "4.2k", 10000: "10k",
		999_499: "999k", 999_600: "1M", 1 << 20: "1.05M", 3e9: "3G", 2e12: "2T", -1500: "-1.5k"}
	for n, want := range counts {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
	rates := map[float64]string{0: "0/s", 25: "25/s", 1234.5: "1.23k/s", 9.87: "9.9/s", 0.8437: "0.84/s",
		0.1: "0.1/s", 1.0 / 12: "1 per 12s", 1.0 / 185: "1 per 3m05s"}
	for r, want := range rates {
		if got := formatRate(r); got != want {
			t.Errorf("formatRate(%g) = %q, want %q", r, got, want)
		}
	}
	durs := map[time.Duration]string{0: "0.0s", 420 * time.Millisecond: "0.4s", 12 * time.Second: "12s",
		185 * time.Second: "3m05s", 3720 * time.Second: "1h02m"}
	for d, want := range durs {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestSetRenderer(t *testing.T) {
	s := withSink(t)
	custom := func(v any) Bundle { return Bundle{"text/plain": "custom", "text/html": "<i>c</i>"} }
	if prev := SetRenderer(custom); prev != nil {
		t.Fatalf("a renderer was installed before the test")
	}
	t.Cleanup(func() { SetRenderer(nil) })
	Show(1)
	h := NewDisplay(2)
	h.Update(3)
	if got := Render(4); !reflect.DeepEqual(got, Bundle{"text/plain": "4"}) {
		t.Errorf("Render ignores the renderer; got %v", got)
	}
	if prev := SetRenderer(nil); prev == nil {
		t.Errorf("SetRenderer(nil) returned nil, want the custom renderer")
	}
	Show(5)
	got := s.got()
	for i, c := range got[:3] {
		if c.data["text/plain"] != "custom" {
			t.Errorf("call %d rendered %v, want the custom renderer", i, c.data)
		}
	}
	if got[3].data["text/plain"] != "5" {
		t.Errorf("after SetRenderer(nil): %v", got[3].data)
	}
}
