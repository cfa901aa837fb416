package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/display"
)

// newTestSession starts a session whose output goes to pipes that the test
// drains.
func newTestSession(t *testing.T, extra map[string]map[string]reflect.Value) (*Session, *capture) {
	t.Helper()
	out, errs := newCapture(t), newCapture(t)
	s, err := New(withGraphnb(Options{Stdout: out.w, Stderr: errs.w, Symbols: extra}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, out
}

func mustRun(t *testing.T, s *Session, code string) display.Bundle {
	t.Helper()
	b, err := s.Execute(context.Background(), code, Cell{Count: 1})
	if err != nil {
		t.Fatalf("%q: %v", code, describeErr(err))
	}
	return b
}

func text(b display.Bundle) string {
	s, _ := b["text/plain"].(string)
	return s
}

// spinner is a compiled function that runs until cancel.Check fails, as
// graphnb's algorithms do.
type spinner struct {
	started  chan struct{}
	returned atomic.Int64 // UnixNano when it returned
}

func (sp *spinner) spin() error {
	close(sp.started)
	defer func() { sp.returned.Store(time.Now().UnixNano()) }()
	for {
		if err := cancel.Check(); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

// TestInterrupt interrupts three kinds of long cells — an interpreted
// infinite loop, a time.Sleep(time.Hour) and a compiled call that polls
// cancel.Check — and checks that each stops within a second (the issue's
// contract; the measured latency is logged, typically well under 10 ms),
// that the error is Interrupted, and that variables survive.
func TestInterrupt(t *testing.T) {
	sp := &spinner{started: make(chan struct{})}
	extra := map[string]map[string]reflect.Value{
		"graphnb.test/spin/spin": {"Spin": reflect.ValueOf(sp.spin)},
	}
	s, _ := newTestSession(t, extra)
	mustRun(t, s, "kept := 41")

	cases := []struct {
		name    string
		code    string
		running func() // returns once the cell is in its long part
	}{
		{"interpreted loop", "n := 0\nfor {\n\tn++\n}", func() { time.Sleep(100 * time.Millisecond) }},
		{"sleep", "time.Sleep(time.Hour)", func() { time.Sleep(100 * time.Millisecond) }},
		{"compiled poller", "err := spin.Spin()", func() { <-sp.started }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancelCtx := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := s.Execute(ctx, c.code, Cell{Count: 2})
				done <- err
			}()
			c.running()
			start := time.Now()
			cancelCtx()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the cell did not stop within 10 s of the interrupt")
			}
			latency := time.Since(start)
			if c.name == "compiled poller" {
				deadline := time.Now().Add(10 * time.Second)
				for sp.returned.Load() == 0 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				if sp.returned.Load() == 0 {
					t.Fatal("the compiled call did not return")
				}
				latency = time.Unix(0, sp.returned.Load()).Sub(start)
			}
			t.Logf("stopped %v after the interrupt", latency)
			if latency > time.Second {
				t.Errorf("stopped %v after the interrupt, want within 1 s", latency)
			}
			var e *Error
			if !errors.As(err, &e) || e.EName() != "Interrupted" {
				t.Fatalf("error %v, want an Interrupted *Error", err)
			}
			if got := text(mustRun(t, s, "kept + 1")); got != "42" {
				t.Errorf("after the interrupt, kept + 1 = %q, want 42", got)
			}
			if cancel.Requested() {
				t.Error("a cancellation request outlived the next cell")
			}
		})
	}
}

// TestAsyncPanicSurvives checks that a goroutine's panic reaches
// AsyncError and that the session carries on.
func TestAsyncPanicSurvives(t *testing.T) {
	s, _ := newTestSession(t, nil)
	got := make(chan error, 1)
	// The goroutine panics after its cell has returned (a panic while the
	// cell runs fails the cell: TestCorpus/11_goroutine_panic).
	_, err := s.Execute(context.Background(), "go func() { time.Sleep(300 * time.Millisecond); panic(\"in the background\") }()", Cell{Count: 3, AsyncError: func(err error) { got <- err }})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		var e *Error
		if !errors.As(err, &e) || e.EName() != "panic" || !strings.Contains(e.EValue(), "in the background") {
			t.Fatalf("async error %v, want a panic naming the value", err)
		}
		if tb := strings.Join(e.Traceback(), "\n"); !strings.Contains(tb, "goroutine started at cell[3] line 1") {
			t.Errorf("traceback\n%s\ndoes not say where the goroutine started", tb)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no asynchronous error")
	}
	if got := text(mustRun(t, s, "1 + 1")); got != "2" {
		t.Errorf("1 + 1 = %q after a goroutine panic", got)
	}
}

// TestScope checks the complete.Scope view of the interpreter.
func TestScope(t *testing.T) {
	s, _ := newTestSession(t, nil)
	mustRun(t, s, `
import str "strings"
const answer = 42
type point struct{ X, Y int }
func double(x int) int { return 2 * x }
p := point{1, 2}
var total = double(answer)
`)
	names := s.Names()
	sort.Strings(names)
	want := []string{"answer", "double", "p", "point", "total"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("Names() = %v, want %v", names, want)
	}
	pk := s.Packages()
	for name, path := range map[string]string{
		"fmt": "fmt", "rand": "math/rand/v2", "template": "text/template", "str": "strings",
		"gen": "github.com/graphnb/graphnb/graph/gen", "bfs": "github.com/graphnb/graphnb/algo/bfs",
		"display": "github.com/graphnb/graphnb/display", "cancel": "github.com/graphnb/graphnb/cancel",
	} {
		if pk[name] != path {
			t.Errorf("Packages()[%q] = %q, want %q", name, pk[name], path)
		}
	}
	if _, ok := pk["__gnb"]; ok {
		t.Error("Packages() lists the session's helper package")
	}
	if m := s.Members("strings"); !m["ToUpper"].IsValid() {
		t.Error(`Members("strings") lacks ToUpper`)
	}
	if m := s.Members("github.com/graphnb/graphnb/graph/gen"); !m["RMAT"].IsValid() {
		t.Error("Members(gen) lacks RMAT")
	}
	if m := s.Members("github.com/graphnb/graphnb/display"); m["_HTMLer"].IsValid() {
		t.Error("Members lists yaegi's interface wrappers")
	}
	if v, ok := s.Value("total"); !ok || v.Interface() != 84 {
		t.Errorf("Value(total) = %v, %v; want 84", v, ok)
	}
	if v, ok := s.Value("p"); !ok || v.NumField() != 2 {
		t.Errorf("Value(p) = %v, %v; want the struct", v, ok)
	}
	if _, ok := s.Value("double"); !ok {
		t.Error("Value(double) not found")
	}
	for _, bad := range []string{"point", "nothing", "p.X", "double(2)", "__gnb_r"} {
		if _, ok := s.Value(bad); ok {
			t.Errorf("Value(%q) found something", bad)
		}
	}
}

// TestAutoImports checks the table of automatic imports.
func TestAutoImports(t *testing.T) {
	s, _ := newTestSession(t, nil)
	if len(s.tables.ambiguous) > 0 {
		t.Errorf("package names shared by several paths without a deliberate choice: %v (add them to preferred)", s.tables.ambiguous)
	}
	auto := s.AutoImports()
	for name, path := range map[string]string{
		"rand": "math/rand/v2", "template": "text/template", "scanner": "text/scanner", "pprof": "runtime/pprof",
		"graph": graphnbPrefix + "graph", "gen": graphnbPrefix + "graph/gen", "graphio": graphnbPrefix + "graph/graphio",
		"spec": graphnbPrefix + "graph/spec", "bfs": graphnbPrefix + "algo/bfs", "sssp": graphnbPrefix + "algo/sssp",
		"mst": graphnbPrefix + "algo/mst", "apsp": graphnbPrefix + "algo/apsp", "densebf": graphnbPrefix + "algo/densebf",
		"cancel": graphnbPrefix + "cancel", "display": graphnbPrefix + "display", "json": "encoding/json",
	} {
		if auto[name] != path {
			t.Errorf("auto-import %q = %q, want %q", name, auto[name], path)
		}
	}
	for name, path := range auto {
		if strings.Contains(path, "internal") || (strings.HasPrefix(path, graphnbPrefix+"kernel") || strings.HasPrefix(path, graphnbPrefix+"session")) {
			t.Errorf("auto-import %q = %q: internal and kernel packages are not for cells", name, path)
		}
	}
}

// TestCloseRefuses checks that a closed session refuses cells.
func TestCloseRefuses(t *testing.T) {
	s, _ := newTestSession(t, nil)
	s.Close()
	if _, err := s.Execute(context.Background(), "1", Cell{}); err == nil {
		t.Error("Execute after Close succeeded")
	}
}

// TestCancelledBeforeStart checks that a cell whose context is already
// cancelled does not run.
func TestCancelledBeforeStart(t *testing.T) {
	s, out := newTestSession(t, nil)
	ctx, cancelCtx := context.WithCancel(context.Background())
	cancelCtx()
	_, err := s.Execute(ctx, `fmt.Println("ran")`, Cell{Count: 1})
	var e *Error
	if !errors.As(err, &e) || e.EName() != "Interrupted" {
		t.Errorf("error %v, want Interrupted", err)
	}
	if got := out.sync(t); got != "" {
		t.Errorf("the cancelled cell printed %q", got)
	}
}

// cellError is the kernel's CellError interface, restated: the session
// must not import the kernel.
type cellError interface {
	error
	EName() string
	EValue() string
	Traceback() []string
}

var _ cellError = (*Error)(nil)

// engine is the kernel's Engine with session.Cell for kernel.Cell.
type engine interface {
	Execute(ctx context.Context, code string, cell Cell) (display.Bundle, error)
	Complete(code string, cursor int) (matches []string, start, end int)
	Inspect(code string, cursor, detail int) (data display.Bundle, found bool)
	IsComplete(code string) (status, indent string)
}

var _ engine = (*Session)(nil)

// TestEditorRequests checks that completion requests reach package complete.
func TestEditorRequests(t *testing.T) {
	s, _ := newTestSession(t, nil)
	if status, _ := s.IsComplete("x := 1"); status != "complete" {
		t.Errorf("IsComplete(x := 1) = %q, want complete", status)
	}
	mustRun(t, s, "myVariable := 3")
	matches, _, _ := s.Complete("myVar", 5)
	t.Logf("Complete(myVar) = %v", matches) // package complete decides what to offer
}

func BenchmarkExecuteTrivial(b *testing.B) {
	s, err := New(withGraphnb(Options{}))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	cell := Cell{Count: 1}
	b.ReportAllocs()
	for b.Loop() {
		r, err := s.Execute(ctx, "1+1", cell)
		if err != nil || r["text/plain"] != "2" {
			b.Fatalf("1+1 = %v, %v", r, err)
		}
	}
}

// BenchmarkCheck measures Go's type checker in front of the interpreter
// (check-ns/op), on a trivial cell and on a cell of 200 lines, after a
// session of 50 cells of declarations and variables.
func BenchmarkCheck(b *testing.B) {
	var big strings.Builder
	big.WriteString("type acc struct{ sum, n int }\nfunc (a *acc) add(v int) { a.sum += v; a.n++ }\n")
	for i := 0; i < 48; i++ {
		fmt.Fprintf(&big, "func f%d(xs []int) int {\n\ta := &acc{}\n\tfor _, x := range xs {\n\t\ta.add(x * %d)\n\t}\n\treturn a.sum\n}\n", i, i)
	}
	big.WriteString("total := 0\nfor i := 0; i < 3; i++ {\n\ttotal += f1([]int{i})\n}\ntotal\n")
	if n := strings.Count(big.String(), "\n"); n < 200 {
		b.Fatalf("the big cell has %d lines", n)
	}
	for _, c := range []struct{ name, code string }{{"trivial", "1+1"}, {"200_lines", big.String()}} {
		b.Run(c.name, func(b *testing.B) {
			s, err := New(withGraphnb(Options{}))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			for i := 0; i < 50; i++ {
				code := fmt.Sprintf("type t%d struct{ a, b int }\nfunc g%d(x t%d) int { return x.a + x.b }\nv%d := g%d(t%d{%d, 1})", i, i, i, i, i, i, i)
				if _, err := s.Execute(ctx, code, Cell{Count: i + 1}); err != nil {
					b.Fatal(err)
				}
			}
			var total time.Duration
			for b.Loop() {
				if _, err := s.Execute(ctx, c.code, Cell{Count: 100}); err != nil {
					b.Fatal(err)
				}
				total += s.check.last
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "check-ns/op")
		})
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		s, err := New(withGraphnb(Options{}))
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// A goroutine that panics between cells is reported through the AsyncError
// of the cell that started it, and fails no cell.
func TestGoroutinePanicBetweenCells(t *testing.T) {
	s, _ := newTestSession(t, nil)
	got := make(chan error, 1)
	_, err := s.Execute(context.Background(), "start := make(chan bool)\ngo func() { <-start; time.Sleep(300 * time.Millisecond); panic(\"late\") }()",
		Cell{Count: 1, AsyncError: func(err error) { got <- err }})
	if err != nil {
		t.Fatal(err)
	}
	// The goroutine panics 300 ms after this cell, between cells.
	mustRun(t, s, "close(start)")
	select {
	case err := <-got:
		if !strings.Contains(err.Error(), "in a goroutine: late") {
			t.Fatalf("async error %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no async error")
	}
	if b := mustRun(t, s, `"alive"`); text(b) != `"alive"` {
		t.Fatalf("next cell: %q", text(b))
	}
}

// Completion after "pt." lists the methods of a type declared in a cell
// (reflection cannot see them) with its fields, unexported ones too; after
// "Pt." the method expressions; inspecting Pt shows its declaration.
func TestCompleteCellTypes(t *testing.T) {
	s, _ := newTestSession(t, nil)
	mustRun(t, s, "type Pt struct{ X, y int }\nfunc (p Pt) Norm() int { return p.X*p.X + p.y*p.y }\nfunc (p *Pt) Scale(k int) { p.X *= k }\npt := Pt{3, 4}\nq := &pt")
	for _, c := range []struct {
		code string
		want []string
	}{
		{"pt.", []string{"Norm", "Scale", "X", "y"}},
		{"q.", []string{"Norm", "Scale", "X", "y"}},
		{"pt.N", []string{"Norm"}},
		{"Pt.", []string{"Norm", "Scale"}},
	} {
		got, _, _ := s.Complete(c.code, len(c.code))
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("Complete(%q) = %v, want %v", c.code, got, c.want)
		}
	}
	b, found := s.Inspect("Pt", 2, 0)
	if !found || !strings.Contains(text(b), "type Pt struct{X int; y int}") || !strings.Contains(text(b), "func (p *Pt) Scale(k int)") {
		t.Errorf("Inspect(Pt) = %q, %v", text(b), found)
	}
}

// TestInterruptKeepsFunctionValues interrupts every kind of blocking and
// running cell — an interpreted loop, a loop inside a function value, a
// sleep, a channel receive, a select, a compiled call that polls cancel,
// a compiled call that blocks (which holds the next cell until it
// returns) — and after each calls every kind of function
// value made before: literals, closures, method values, named functions.
// yaegi gives a function value the run id of the frame it was made in,
// and stopping a program changes the id: without the session's care every
// such value returns zero values for the rest of the session.
func TestInterruptKeepsFunctionValues(t *testing.T) {
	sp := &spinner{started: make(chan struct{})}
	release := make(chan struct{})
	extra := map[string]map[string]reflect.Value{
		"graphnb.test/spin/spin": {"Spin": reflect.ValueOf(sp.spin), "Block": reflect.ValueOf(func() { <-release })},
	}
	s, _ := newTestSession(t, extra)
	mustRun(t, s, `
loop3b := func() int { n := 0; for i := 0; i < 10; i++ { n++ }; return n }
answer := func() int { return 42 }
name := func(i int) string { return fmt.Sprint("v", i) }
type Counter struct{ n int }
func (c *Counter) Inc() int { c.n++; return c.n }
ctr := &Counter{}
inc := ctr.Inc
func named() int { return 7 }
adder := func(a int) func(int) int { return func(b int) int { return a + b } }
add3 := adder(3)`)
	calls := `fmt.Sprint(loop3b(), " ", answer(), " ", name(5), " ", named(), " ", add3(4), " ", adder(1)(1), " ", inc() > 0)`
	want := `"10 42 v5 7 7 2 true"`
	cases := []struct{ name, code string }{
		{"interpreted loop", "for {\n}"},
		{"loop in a function value", "forever := func() { for { } }\nforever()"},
		{"sleep", "time.Sleep(time.Hour)"},
		{"channel receive", "<-make(chan int)"},
		{"select", "select {\ncase <-make(chan int):\ncase <-time.After(time.Hour):\n}"},
		{"compiled poller", "spin.Spin()"},
		{"compiled block", "spin.Block()"},
	}
	for i, c := range cases {
		ctx, cancelCtx := context.WithTimeout(context.Background(), 150*time.Millisecond)
		_, err := s.Execute(ctx, c.code, Cell{Count: 10 + i})
		cancelCtx()
		var e *Error
		if !errors.As(err, &e) || e.EName() != "Interrupted" {
			t.Fatalf("%s: error %v, want Interrupted", c.name, err)
		}
		if c.name == "compiled block" {
			// The program is still in wg.Wait: the next cell waits for it,
			// and says so when interrupted meanwhile.
			ctx, cancelCtx := context.WithTimeout(context.Background(), 100*time.Millisecond)
			_, err := s.Execute(ctx, calls, Cell{Count: 99})
			cancelCtx()
			if !errors.As(err, &e) || e.EName() != "Interrupted" || !strings.Contains(e.EValue(), "still blocked in a compiled call") {
				t.Fatalf("a cell after the blocked one: %v, want an Interrupted error that says what still runs", err)
			}
			// Releasing the wait lets the interrupted program end.
			go func() {
				time.Sleep(50 * time.Millisecond)
				close(release)
			}()
		}
		b, err := s.Execute(context.Background(), calls, Cell{Count: 50 + i})
		if err != nil || text(b) != want {
			t.Fatalf("after interrupting %s: %q, %v; want %s", c.name, text(b), err, want)
		}
	}
}

// TestTimeStatement checks IPython's "%time STATEMENT": the statement runs
// where it stands, its variables live on, and the wall time is printed
// once, after it and before the next statement runs.
func TestTimeStatement(t *testing.T) {
	s, out := newTestSession(t, nil)
	mustRun(t, s, "%time x := 1+1")
	if got := out.sync(t); strings.Count(got, "wall time: ") != 1 {
		t.Fatalf("%%time x := 1+1 printed %q, want one wall time", got)
	}
	if got := text(mustRun(t, s, "x")); got != "2" {
		t.Fatalf("x = %s after %%time x := 1+1, want 2", got)
	}
	mustRun(t, s, "%time y := x*3\nfmt.Println(\"after\", y)")
	if got := out.sync(t); !regexp.MustCompile(`^wall time: .+\nafter 6\n$`).MatchString(got) {
		t.Fatalf("%%time on the first of two statements printed %q, want its wall time, then the second's output", got)
	}
	mustRun(t, s, "%time\nz := 1")
	if got := out.sync(t); strings.Count(got, "wall time: ") != 1 {
		t.Fatalf("%%time on its own line printed %q, want one wall time", got)
	}
}

// docSink records displays.
type docSink struct{ shown []display.Bundle }

func (d *docSink) Display(b display.Bundle, _ map[string]any, _ string, _ bool) {
	d.shown = append(d.shown, b)
}
func (d *docSink) ClearOutput(bool) {}

// TestDocAlsoDisplays checks that %doc and "name?" show the documentation
// as a display as well as in the pager, so that notebooks keep it.
func TestDocAlsoDisplays(t *testing.T) {
	s, _ := newTestSession(t, nil)
	sink := &docSink{}
	defer display.SetSink(display.SetSink(sink))
	var paged []display.Bundle
	cell := Cell{Count: 1, Page: func(b display.Bundle) { paged = append(paged, b) }}
	for _, code := range []string{"%doc strings.Split", "strings.Split?"} {
		sink.shown, paged = nil, nil
		if _, err := s.Execute(context.Background(), code, cell); err != nil {
			t.Fatalf("%s: %v", code, err)
		}
		if len(paged) != 1 || len(sink.shown) != 1 {
			t.Fatalf("%s: paged %d, displayed %d; want 1 and 1", code, len(paged), len(sink.shown))
		}
		if txt, _ := sink.shown[0]["text/plain"].(string); !strings.Contains(txt, "func Split(s, sep string) []string") {
			t.Fatalf("%s displayed %q", code, txt)
		}
	}
}

// A cell's time.Sleep that starts after the interrupt (a goroutine's panic
// can stop the cell before its code reaches the sleep) returns at once:
// the interrupt's wake-up has passed, its request stands.
func TestSleepAfterInterruptReturns(t *testing.T) {
	s, _ := newTestSession(t, nil)
	defer cancel.Clear()
	s.interrupt() // the wake-up comes first…
	cancel.Request()
	done := make(chan struct{})
	go func() { s.sleep(time.Hour); close(done) }() // …then the sleep starts
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a sleep that started after the interrupt is still sleeping")
	}
}
