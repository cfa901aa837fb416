package notebook

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"

	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/magics"
	"github.com/graphnb/graphnb/session"
	"github.com/graphnb/graphnb/symbols"
)

// notebookOf builds a 4.5 notebook whose code cells have ids c1, c2, ….
func notebookOf(sources ...string) *Notebook {
	nb := New()
	for i, s := range sources {
		c := NewCode(s)
		c.ID = "c" + string(rune('1'+i))
		nb.Cells = append(nb.Cells, c)
	}
	return nb
}

// run executes nb and fails the test on anything but want (nil or a
// *CellError), returning that error.
func run(t *testing.T, nb *Notebook, opt ExecOptions) *CellError {
	t.Helper()
	opt.Session = graphnbSession()
	err := Execute(context.Background(), nb, opt)
	if err == nil {
		return nil
	}
	var ce *CellError
	if !errors.As(err, &ce) {
		t.Fatalf("Execute: %v (%T), want nil or a *CellError", err, err)
	}
	return ce
}

// kinds summarises outputs as "stream:stdout", "display_data", ….
func kinds(outs []*Output) []string {
	var k []string
	for _, o := range outs {
		if o.Type == Stream {
			k = append(k, Stream+":"+o.Name)
		} else {
			k = append(k, o.Type)
		}
	}
	return k
}

func text(t *testing.T, o *Output, mime string) string {
	t.Helper()
	s, ok := o.Data.Text(mime)
	if !ok {
		t.Fatalf("output %+v has no %s string", o, mime)
	}
	return s
}

func TestExecuteOutputs(t *testing.T) {
	nb := notebookOf(
		// Consecutive writes to one stream make one output. log is
		// compiled code writing to fd 2. (The order of stdout against
		// stderr is the order the two pipes are read in, as in the kernel:
		// see TestRecorderStreams.)
		"fmt.Println(\"one\")\nfmt.Print(\"two \")\nfmt.Println(\"three\")\nlog.SetFlags(0)\nlog.Println(\"warning\")\n_, _ = os.Stdout.WriteString(\"written to fd 1\\n\")",
		"display.HTML(\"<b>bold</b>\")\nfmt.Println(\"between\")\ndisplay.JSON(map[string]any{\"a\": []int{1, 2}})\n6 * 7",
		// A multi-byte character split across two writes stays whole; a
		// line rewritten with \r keeps its last text.
		"os.Stdout.Write([]byte{0xce})\nos.Stdout.Write([]byte{0x94, '\\n'})\nfor i := 0; i <= 2; i++ {\n\tfmt.Printf(\"\\r%d%%\", i*50)\n}\nfmt.Println()",
		"img := image.NewRGBA(image.Rect(0, 0, 2, 2))\ndisplay.Image(img)",
		"%time\nx := 1\nx",
	)
	md := NewMarkdown("# untouched")
	nb.Cells = append([]*Cell{md}, nb.Cells...)
	if ce := run(t, nb, ExecOptions{}); ce != nil {
		t.Fatal(ce)
	}
	if nb.Cells[0] != md || md.Source != "# untouched" || md.ExecutionCount != 0 {
		t.Errorf("markdown cell changed: %+v", md)
	}
	c := nb.Cells[1]
	streams := map[string]string{}
	for _, o := range c.Outputs {
		streams[o.Name] += o.Text
	}
	if len(c.Outputs) > 3 || streams["stdout"] != "one\ntwo three\nwritten to fd 1\n" || streams["stderr"] != "warning\n" {
		t.Errorf("cell 2 outputs %s, streams %q", kinds(c.Outputs), streams)
	}
	c = nb.Cells[2]
	if got := strings.Join(kinds(c.Outputs), " "); got != "display_data stream:stdout display_data execute_result" {
		t.Fatalf("cell 3 outputs %s", got)
	}
	if s := text(t, c.Outputs[0], "text/html"); s != "<b>bold</b>" {
		t.Errorf("HTML display %q", s)
	}
	if _, ok := c.Outputs[2].Data["application/json"]; !ok {
		t.Errorf("JSON display lacks application/json: %v", c.Outputs[2].Data)
	}
	if r := c.Outputs[3]; text(t, r, "text/plain") != "42" || r.ExecutionCount != 2 || c.ExecutionCount != 2 {
		t.Errorf("execute_result %+v in cell with count %d", r, c.ExecutionCount)
	}
	if got := nb.Cells[3].Outputs[0].Text; got != "Δ\n100%\n" {
		t.Errorf("cell 4 text %q, want %q", got, "Δ\n100%\n")
	}
	png, err := base64.StdEncoding.DecodeString(text(t, nb.Cells[4].Outputs[0], "image/png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("image/png is not base64 of a PNG: %v", err)
	}
	if c := nb.Cells[5]; len(c.Outputs) != 2 || !strings.HasPrefix(c.Outputs[0].Text, "wall time: ") {
		t.Errorf("%%time cell outputs %s: want the wall time, then the result", kinds(c.Outputs))
	}

	// Written as Jupyter would: the image as one base64 string.
	out, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"image/png": "iVBOR`)) {
		t.Error("image/png not written as one string")
	}
	var ks struct{ Name string }
	var li struct{ Name, Mimetype string }
	if _, err := nb.Metadata.Get("kernelspec", &ks); err != nil || ks.Name != "graphnb" {
		t.Errorf("kernelspec %+v %v", ks, err)
	}
	if _, err := nb.Metadata.Get("language_info", &li); err != nil || li.Name != "go" || li.Mimetype != "text/x-go" {
		t.Errorf("language_info %+v %v", li, err)
	}
}

// The recorder on its own, fed as the capture and the display package
// feed it.
func TestRecorderStreams(t *testing.T) {
	c1, c2 := NewCode("1"), NewCode("2")
	r := &recorder{ids: map[string][]outRef{}}
	r.write("stdout", []byte("lost: no cell yet\n"))
	r.begin(c1)
	r.write("stdout", []byte("a"))
	r.write("stdout", []byte("b\n\xce")) // Δ cut in two
	r.write("stdout", []byte("\x94\n"))
	r.write("stderr", []byte("e\n"))
	r.Display(display.Bundle{"text/plain": "v1"}, nil, "id-1", false)
	r.write("stdout", []byte("c\n"))
	r.begin(c2)
	r.write("stderr", []byte("to cell 2\n"))
	r.Display(display.Bundle{"text/plain": "v2"}, map[string]any{"isolated": true}, "id-1", true)
	r.Display(display.Bundle{"text/plain": "no such display"}, nil, "id-2", true)
	r.write("stdout", []byte("partial \xe2\x82")) // held back, then flushed as is
	nb := &Notebook{NBFormat: 4, Cells: []*Cell{c1, c2}}
	r.finish(nb)
	r.write("stdout", []byte("after the run\n"))

	if got := strings.Join(kinds(c1.Outputs), " "); got != "stream:stdout stream:stderr display_data stream:stdout" {
		t.Fatalf("cell 1 outputs %s", got)
	}
	for i, want := range []string{"ab\nΔ\n", "e\n", "", "c\n"} {
		if c1.Outputs[i].Text != want {
			t.Errorf("cell 1 output %d: %q, want %q", i+1, c1.Outputs[i].Text, want)
		}
	}
	if d := c1.Outputs[2]; d.Data["text/plain"] != "v2" || string(d.Metadata["isolated"]) != "true" {
		t.Errorf("the display was not updated in place: %+v", d)
	}
	if got := strings.Join(kinds(c2.Outputs), " "); got != "stream:stderr stream:stdout" {
		t.Fatalf("cell 2 outputs %s", got)
	}
	if c2.Outputs[1].Text != "partial \xe2\x82" {
		t.Errorf("held-back bytes: %q", c2.Outputs[1].Text)
	}
}

func TestCarriageReturns(t *testing.T) {
	// What nbconvert's coalesce_streams keeps of text with \r.
	cases := []struct{ in, want string }{
		{"10%\r20%\r30%\n", "30%\n"},
		{"a\r\nb\n", "a\r\nb\n"},
		{"a\rb\rc\nd\re", "c\ne"},
		{"end\r", "end\r"},
		{"a\r\rb", "b"},
		{"no returns", "no returns"},
	}
	for _, c := range cases {
		c1 := NewCode("1")
		c1.Outputs = []*Output{{Type: Stream, Name: "stdout", Text: c.in}}
		(&recorder{}).finish(&Notebook{NBFormat: 4, Cells: []*Cell{c1}})
		if got := c1.Outputs[0].Text; got != c.want {
			t.Errorf("%q → %q, want %q", c.in, got, c.want)
		}
	}
}

func TestExecuteDisplayUpdatedInPlace(t *testing.T) {
	nb := notebookOf(
		"h := display.NewDisplay(\"first\")\nfmt.Println(\"after\")",
		"h.Update(\"second\")\nh.Update(\"third\")",
		"display.NewDisplay(\"other\")",
		"p := display.NewProgress(\"sweep\", 3)\nfor i := 0; i < 3; i++ {\n\tp.Add(1)\n}\np.Done()",
	)
	if ce := run(t, nb, ExecOptions{}); ce != nil {
		t.Fatal(ce)
	}
	c1 := nb.Cells[0]
	if got := strings.Join(kinds(c1.Outputs), " "); got != "display_data stream:stdout" {
		t.Fatalf("cell 1 outputs %s", got)
	}
	if s := text(t, c1.Outputs[0], "text/plain"); s != `"third"` {
		t.Errorf("the display of cell 1 shows %s, want the last update \"third\"", s)
	}
	if len(nb.Cells[1].Outputs) != 0 {
		t.Errorf("updates left outputs of their own in cell 2: %s", kinds(nb.Cells[1].Outputs))
	}
	if s := text(t, nb.Cells[2].Outputs[0], "text/plain"); s != `"other"` {
		t.Errorf("another display was changed: %s", s)
	}
	p := nb.Cells[3].Outputs
	if len(p) != 1 || !strings.Contains(text(t, p[0], "text/plain"), "100% 3/3") {
		t.Errorf("progress bar: %d outputs, want one showing 100%% 3/3 (%+v)", len(p), p)
	}
}

func TestExecuteClearOutput(t *testing.T) {
	nb := notebookOf(
		"fmt.Println(\"gone\")\ndisplay.HTML(\"gone too\")\ndisplay.Clear(false)\nfmt.Println(\"kept\")",
		"fmt.Println(\"gone\")\ndisplay.Clear(true)\ndisplay.Text(\"kept\")",
		"fmt.Println(\"stays\")\ndisplay.Clear(true)",
	)
	if ce := run(t, nb, ExecOptions{}); ce != nil {
		t.Fatal(ce)
	}
	if o := nb.Cells[0].Outputs; len(o) != 1 || o[0].Text != "kept\n" {
		t.Errorf("clear now: %s", kinds(o))
	}
	if o := nb.Cells[1].Outputs; len(o) != 1 || o[0].Type != DisplayData {
		t.Errorf("clear before the next output: %s", kinds(o))
	}
	if o := nb.Cells[2].Outputs; len(o) != 1 || o[0].Text != "stays\n" {
		t.Errorf("a pending clear with nothing after it: %s", kinds(o))
	}
}

func TestExecuteStopsAtFirstFailure(t *testing.T) {
	cases := []struct {
		name, bad  string
		ename      string
		traceback  string
		outputsTop int // outputs of the failing cell before its error
	}{
		{"panic", "fmt.Println(\"before\")\nvar s []int\n_ = s[3]", "panic", "cell[2] line 3", 1},
		{"compile error", "fmt.Println(\"never\")\ny := undefinedName + 1", "CompileError", "undefined", 0},
		{"unknown magic", "%frobnicate", "MagicError", "frobnicate", 0},
		{"explicit panic", "panic(\"boom\")", "panic", "boom", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nb := notebookOf("x := 1\nx", c.bad, "fmt.Println(\"later\")\nx")
			nb.Cells = append(nb.Cells[:2], append([]*Cell{NewMarkdown("between")}, nb.Cells[2:]...)...)
			// Outputs of an earlier run must not survive.
			for _, cell := range nb.Cells {
				if cell.Type == Code {
					cell.ExecutionCount = 9
					cell.Outputs = []*Output{{Type: Stream, Name: "stdout", Text: "stale\n"}}
				}
			}
			ce := run(t, nb, ExecOptions{})
			if ce == nil {
				t.Fatal("the run did not fail")
			}
			if ce.Index != 1 || ce.ID != "c2" || ce.Count != 2 || ce.EName != c.ename {
				t.Errorf("CellError %+v, want cell index 1 (c2), count 2, %s", ce, c.ename)
			}
			msg := ce.Error()
			if !strings.HasPrefix(msg, "cell 2 (In [2], id c2): "+c.ename+": ") || strings.Contains(msg, "\n") {
				t.Errorf("message %q: want one line naming the cell", msg)
			}
			bad := nb.Cells[1]
			if len(bad.Outputs) != c.outputsTop+1 {
				t.Fatalf("failing cell outputs %s", kinds(bad.Outputs))
			}
			e := bad.Outputs[c.outputsTop]
			if e.Type != Error || e.EName != c.ename || e.EValue == "" || !strings.Contains(strings.Join(e.Traceback, "\n"), c.traceback) {
				t.Errorf("error output %+v, want %s with %q in the traceback", e, c.ename, c.traceback)
			}
			later := nb.Cells[3]
			if len(later.Outputs) != 0 || later.ExecutionCount != 0 {
				t.Errorf("the cell after the failure has outputs %s, count %d", kinds(later.Outputs), later.ExecutionCount)
			}
			if s := text(t, nb.Cells[0].Outputs[0], "text/plain"); s != "1" || nb.Cells[0].ExecutionCount != 1 {
				t.Errorf("the first cell: %s, count %d", s, nb.Cells[0].ExecutionCount)
			}
			if _, err := nb.Marshal(); err != nil {
				t.Errorf("the notebook of a failed run does not write: %v", err)
			}
		})
	}
}

func TestExecuteSkipsBlankCells(t *testing.T) {
	nb := notebookOf("1", "  \n\t", "2")
	if ce := run(t, nb, ExecOptions{}); ce != nil {
		t.Fatal(ce)
	}
	var counts []int
	for _, c := range nb.Cells {
		counts = append(counts, c.ExecutionCount)
	}
	if counts[0] != 1 || counts[1] != 0 || counts[2] != 2 {
		t.Errorf("execution counts %v, want [1 0 2]", counts)
	}
}

func TestExecuteGoroutinePanicFailsTheRun(t *testing.T) {
	// A goroutine that panics while its cell runs fails the cell, as in
	// the kernel.
	nb := notebookOf(
		"done := make(chan bool)\ngo func() {\n\tdefer close(done)\n\tpanic(\"in a goroutine\")\n}()\n<-done\ntime.Sleep(200 * time.Millisecond)",
		"time.Sleep(200 * time.Millisecond)",
		"fmt.Println(\"never\")",
	)
	ce := run(t, nb, ExecOptions{})
	if ce == nil {
		t.Fatal("the run did not fail")
	}
	if ce.Index != 0 || ce.EName != "panic" || !strings.Contains(ce.Error(), "in a goroutine") {
		t.Errorf("CellError %+v (%v): want cell 1, a goroutine's panic", ce, ce)
	}
	if o := nb.Cells[0].Outputs; len(o) != 1 || o[0].Type != Error || !strings.Contains(o[0].EValue, "in a goroutine") {
		t.Errorf("cell 1 outputs %s: want the goroutine's error", kinds(o))
	}
	if nb.Cells[2].ExecutionCount != 0 {
		t.Error("the run went on after the goroutine failed")
	}
}

func TestExecuteTimeout(t *testing.T) {
	cases := []struct{ name, src string }{
		{"interpreted loop", "n := 0\nfor {\n\tn++\n}"},
		{"sleep", "time.Sleep(time.Hour)"},
		{"compiled algorithm polling cancel", "for {\n\tg, _ := gen.RMAT(12, 16, gen.Seed(1))\n\t_, _ = bfs.DirectionOptimizing(g, 0, bfs.Options{})\n}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nb := notebookOf("x := 1", c.src, "x")
			ce := run(t, nb, ExecOptions{CellTimeout: 500 * time.Millisecond})
			if ce == nil {
				t.Fatal("the run did not fail")
			}
			if ce.EName != "Timeout" || ce.Index != 1 || !strings.Contains(ce.EValue, "500ms") {
				t.Errorf("CellError %v, want a Timeout of cell 2 naming 500ms", ce)
			}
			o := nb.Cells[1].Outputs
			if len(o) != 1 || o[0].EName != "Timeout" || !strings.HasPrefix(o[0].Traceback[0], "Timeout: ") {
				t.Errorf("outputs %+v: want the Timeout error", o)
			}
			if len(nb.Cells[2].Outputs) != 0 {
				t.Error("the cell after the timeout ran")
			}
		})
	}
}

// logFunc is a Log writer that calls f with each line.
type logFunc func(line string)

func (f logFunc) Write(b []byte) (int, error) {
	f(string(b))
	return len(b), nil
}

func TestExecuteCancel(t *testing.T) {
	t.Run("while running", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		nb := notebookOf("1", "for {\n}", "2")
		// The loop never ends: only the cancellation stops the run. It
		// comes once the log says the loop's cell has started.
		log := logFunc(func(line string) {
			if strings.Contains(line, "cell 2 (In [2])") {
				time.AfterFunc(50*time.Millisecond, cancel)
			}
		})
		err := Execute(ctx, nb, ExecOptions{Log: log})
		var ce *CellError
		if !errors.As(err, &ce) || ce.EName != "Interrupted" || ce.Index != 1 {
			t.Fatalf("Execute: %v, want cell 2 Interrupted", err)
		}
		if nb.Cells[1].Outputs[0].EName != "Interrupted" || len(nb.Cells[2].Outputs) != 0 {
			t.Errorf("outputs: %s / %s", kinds(nb.Cells[1].Outputs), kinds(nb.Cells[2].Outputs))
		}
	})
	t.Run("before starting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		nb := notebookOf("fmt.Println(\"never\")")
		err := Execute(ctx, nb, ExecOptions{})
		var ce *CellError
		if !errors.As(err, &ce) || ce.EName != "Interrupted" || ce.Index != 0 {
			t.Fatalf("Execute: %v, want cell 1 Interrupted", err)
		}
		if len(nb.Cells[0].Outputs) != 1 {
			t.Errorf("outputs %s: want only the interruption", kinds(nb.Cells[0].Outputs))
		}
	})
}

func TestExecuteParameters(t *testing.T) {
	params := NewCode("scale := 14\nvar density float64 = 0.5\nconst label = \"default\"\nverbose := false\nfamily := \"rmat\"")
	params.ID = "params"
	_ = params.Metadata.Set("tags", []string{ParametersTag})
	stale := NewCode("scale = 99")
	stale.ID = "old-injection"
	_ = stale.Metadata.Set("tags", []string{InjectedParametersTag})
	show := NewCode("fmt.Printf(\"%d %v %s %v %s\\n\", scale, density, label, verbose, family)")
	show.ID = "show"
	nb := New()
	nb.Cells = []*Cell{NewMarkdown("# parameters"), params, stale, show}

	ce := run(t, nb, ExecOptions{Params: []Param{
		{"scale", "20"}, {"density", "1"}, {"label", `"from -p"`}, {"verbose", "true"}, {"family", "ssca2:10"}, {"scale", "21"},
	}})
	if ce != nil {
		t.Fatal(ce)
	}
	if len(nb.Cells) != 4 || nb.Cells[1] != params || nb.Cells[3] != show {
		t.Fatalf("cells %d: want markdown, parameters, the new injected cell, show", len(nb.Cells))
	}
	inj := nb.Cells[2]
	if inj.ID != "injected-parameters" || !inj.HasTag(InjectedParametersTag) || inj.Type != Code {
		t.Errorf("injected cell: id %q tags %v", inj.ID, inj.Tags())
	}
	wantSrc := "// Parameters injected by graphnb exec\nscale = 21\ndensity = 1\nconst label = \"from -p\"\nverbose = true\nfamily = \"ssca2:10\""
	if inj.Source != wantSrc {
		t.Errorf("injected source:\n%s\nwant:\n%s", inj.Source, wantSrc)
	}
	if params.Source != "scale := 14\nvar density float64 = 0.5\nconst label = \"default\"\nverbose := false\nfamily := \"rmat\"" {
		t.Errorf("the parameters cell changed: %q", params.Source)
	}
	// density stays a float64: 1 prints as 1, and the run compiled.
	if o := show.Outputs; len(o) != 1 || o[0].Text != "21 1 from -p true ssca2:10\n" {
		t.Errorf("show: %+v", o)
	}
	if params.ExecutionCount != 1 || inj.ExecutionCount != 2 || show.ExecutionCount != 3 {
		t.Errorf("counts %d %d %d", params.ExecutionCount, inj.ExecutionCount, show.ExecutionCount)
	}
}

func TestExecuteParameterOfTheWrongType(t *testing.T) {
	nb := notebookOf("scale := 14", "scale")
	_ = nb.Cells[0].Metadata.Set("tags", []string{ParametersTag})
	ce := run(t, nb, ExecOptions{Params: []Param{{"scale", "big"}}})
	if ce == nil || ce.Index != 1 || ce.ID != "injected-parameters" || ce.EName != "CompileError" {
		t.Fatalf("CellError %v: want the injected cell (2) failing to compile", ce)
	}
}

func TestInjectParametersErrors(t *testing.T) {
	withParams := func(src string) *Notebook {
		nb := notebookOf(src, "1")
		_ = nb.Cells[0].Metadata.Set("tags", []string{ParametersTag})
		return nb
	}
	cases := []struct {
		name   string
		nb     *Notebook
		params []Param
		want   string
	}{
		{"no parameters cell", notebookOf("x := 1"), []Param{{"x", "2"}}, `no code cell tagged "parameters"`},
		{"unknown name", withParams("scale := 14\nroots := 4"), []Param{{"seed", "2"}},
			"seed is not set by the parameters cell, cell 1 (id c1), which sets scale, roots"},
		{"cell assigns nothing", withParams("fmt.Println()"), []Param{{"x", "1"}}, "which sets no names"},
		{"not an identifier", withParams("x := 1"), []Param{{"1x", "1"}}, `"1x" is not a Go identifier`},
		{"cell does not parse", withParams("x := 1\nif {"), []Param{{"x", "2"}}, "does not parse: line 2:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(c.nb.Cells)
			err := InjectParameters(c.nb, c.params)
			if !errors.Is(err, ErrParameter) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v: want ErrParameter and %q", err, c.want)
			}
			if len(c.nb.Cells) != before {
				t.Error("a failed injection changed the notebook")
			}
			// Execute refuses too, and runs nothing.
			if err := Execute(context.Background(), c.nb, ExecOptions{Params: c.params}); !errors.Is(err, ErrParameter) {
				t.Fatalf("Execute: %v, want ErrParameter", err)
			}
			if c.nb.Cells[len(c.nb.Cells)-1].ExecutionCount != 0 {
				t.Error("Execute ran cells despite a parameter error")
			}
		})
	}
}

func TestInjectParametersKeepsIDsUnique(t *testing.T) {
	nb := notebookOf("x := 1", "2")
	nb.Cells[1].ID = "injected-parameters" // a user's cell with that id
	_ = nb.Cells[0].Metadata.Set("tags", []string{ParametersTag})
	if err := InjectParameters(nb, []Param{{"x", "5"}}); err != nil {
		t.Fatal(err)
	}
	if nb.Cells[1].ID != "injected-parameters-2" {
		t.Errorf("injected id %q", nb.Cells[1].ID)
	}
	if err := nb.Validate(); err != nil {
		t.Error(err)
	}
	old := notebookOf("x := 1")
	old.NBFormatMinor = 4 // ids came with 4.5
	_ = old.Cells[0].Metadata.Set("tags", []string{ParametersTag})
	old.Cells[0].ID = ""
	if err := InjectParameters(old, []Param{{"x", "5"}}); err != nil || old.Cells[1].ID != "" {
		t.Errorf("nbformat 4.4: id %q, err %v: want no id", old.Cells[1].ID, err)
	}
}

func TestParamLiteral(t *testing.T) {
	cases := []struct{ value, want string }{
		{"20", "20"},
		{"-3", "-3"},
		{"+3", "+3"},
		{"0x1f", "0x1f"},
		{"1_000", "1_000"},
		{"1.5", "1.5"},
		{"-2e-3", "-2e-3"},
		{"true", "true"},
		{"false", "false"},
		{`"quoted"`, `"quoted"`},
		{"`raw`", "`raw`"},
		{"rmat:16", `"rmat:16"`},
		{"hello world", `"hello world"`},
		{"", `""`},
		{"nil", `"nil"`},
		{"1<<20", `"1<<20"`},
		{"'x'", `"'x'"`},
		{`say "hi"`, `"say \"hi\""`},
		{"True", `"True"`},
	}
	for _, c := range cases {
		if got := (Param{Name: "p", Value: c.value}).Literal(); got != c.want {
			t.Errorf("Literal(%q) = %s, want %s", c.value, got, c.want)
		}
	}
}

func TestParseParam(t *testing.T) {
	cases := []struct {
		in      string
		want    Param
		errPart string
	}{
		{"scale=20", Param{"scale", "20"}, ""},
		{"name=a=b", Param{"name", "a=b"}, ""},
		{"empty=", Param{"empty", ""}, ""},
		{"noequals", Param{}, "want name=value"},
		{"=5", Param{}, "is not a Go identifier"},
		{"a-b=5", Param{}, "is not a Go identifier"},
		{"_=5", Param{}, "is not a Go identifier"},
	}
	for _, c := range cases {
		got, err := ParseParam(c.in)
		switch {
		case c.errPart == "" && (err != nil || got != c.want):
			t.Errorf("ParseParam(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		case c.errPart != "" && (!errors.Is(err, ErrParameter) || !strings.Contains(err.Error(), c.errPart)):
			t.Errorf("ParseParam(%q) error %v, want ErrParameter and %q", c.in, err, c.errPart)
		}
	}
}

func TestAssignedNames(t *testing.T) {
	cases := []struct {
		src    string
		want   string
		consts string
	}{
		{"scale := 14\nroots := 4 // comment", "scale roots", ""},
		{"var (\n\ta = 1\n\tb, c int\n)\nconst d = 2", "a b c d", "d"},
		{"%env X=1\nx, y := 1, 2\nz = 3\n_ = 4", "x y z", ""},
		{"if true {\n\tinner := 1\n\t_ = inner\n}\nouter := 2", "outer", ""},
		{"", "", ""},
	}
	for _, c := range cases {
		names, consts, err := assignedNames(c.src)
		if err != nil {
			t.Errorf("assignedNames(%q): %v", c.src, err)
			continue
		}
		var cs []string
		for _, n := range names {
			if consts[n] {
				cs = append(cs, n)
			}
		}
		if strings.Join(names, " ") != c.want || strings.Join(cs, " ") != c.consts {
			t.Errorf("assignedNames(%q) = %v (consts %v), want %s (consts %s)", c.src, names, cs, c.want, c.consts)
		}
	}
}

func TestExecuteLog(t *testing.T) {
	var log bytes.Buffer
	nb := notebookOf("1", "panic(\"x\")")
	if ce := run(t, nb, ExecOptions{Log: &log}); ce == nil {
		t.Fatal("no failure")
	}
	for _, want := range []string{"[1/2] cell 1 (In [1])", "[1/2] cell 1 done in", "[2/2] cell 2 failed after", "panic: x"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

func TestExecuteKeepsOtherMetadata(t *testing.T) {
	nb := notebookOf("1")
	_ = nb.Metadata.Set("authors", []string{"someone"})
	_ = nb.Metadata.Set("kernelspec", map[string]string{"name": "python3"})
	if ce := run(t, nb, ExecOptions{}); ce != nil {
		t.Fatal(ce)
	}
	var authors []string
	var ks struct{ Name string }
	if _, err := nb.Metadata.Get("authors", &authors); err != nil || len(authors) != 1 {
		t.Errorf("authors lost: %v %v", authors, err)
	}
	if _, _ = nb.Metadata.Get("kernelspec", &ks); ks.Name != "graphnb" {
		t.Errorf("kernelspec %q, want graphnb", ks.Name)
	}
}

func TestExecuteRejectsInvalidNotebooks(t *testing.T) {
	nb := notebookOf("1")
	nb.Cells = append(nb.Cells, &Cell{Type: "heading"})
	if err := Execute(context.Background(), nb, ExecOptions{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Execute: %v, want ErrInvalid", err)
	}
	if nb.Cells[0].ExecutionCount != 0 {
		t.Error("an invalid notebook ran")
	}
}

// The tour runs to the end with small sizes, and its outputs hold what
// a reader expects: cards, the sweep's progress bar and a PNG chart.
func TestExecuteTour(t *testing.T) {
	if testing.Short() {
		t.Skip("the tour takes seconds")
	}
	nb, err := ReadFile("../notebooks/00-tour.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	err = Execute(context.Background(), nb, ExecOptions{Params: []Param{{"scale", "10"}, {"sweepTo", "11"}, {"roots", "2"}}, Session: graphnbSession()})
	if err != nil {
		t.Fatal(err)
	}
	var mimes = map[string]int{}
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			if o.Type == Error {
				t.Errorf("error output %s: %s", o.EName, o.EValue)
			}
			for m := range o.Data {
				mimes[m]++
			}
		}
	}
	if mimes["image/png"] == 0 || mimes["text/html"] < 5 {
		t.Errorf("outputs by MIME type %v: want a chart and the cards", mimes)
	}
	if _, err := nb.Marshal(); err != nil {
		t.Fatal(err)
	}
	_ = os.Stdout // the run restored fds 1 and 2: this test's output still shows
}

func TestExecuteAllowErrors(t *testing.T) {
	nb := notebookOf("x := 1", "undefinedName", "panic(\"boom\")", "x + 1")
	if ce := run(t, nb, ExecOptions{AllowErrors: true}); ce != nil {
		t.Fatalf("AllowErrors: the run failed with %v", ce)
	}
	for i, want := range []string{"", "CompileError", "panic", ""} {
		o := nb.Cells[i].Outputs
		got := ""
		for _, out := range o {
			if out.Type == Error {
				got = out.EName
			}
		}
		if got != want {
			t.Errorf("cell %d: error %q, want %q", i+1, got, want)
		}
	}
	if o := nb.Cells[3].Outputs; len(o) != 1 || o[0].Type != ExecuteResult {
		t.Errorf("cell 4 outputs %s: want its result", kinds(o))
	}
}

// graphnbSession is the interpreter as cmd/graphnb makes it: graphnb's
// packages and magics.
func graphnbSession() session.Options {
	return session.Options{Symbols: symbols.Symbols, LineMagics: magics.Line(), CellMagics: magics.Cell()}
}
