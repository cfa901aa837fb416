package session

import (
	"fmt"
	"go/parser"
	"reflect"
	"strings"
	"time"
)

// helperPath is the import path of the compiled helpers the prelude and
// the rewrites use (imported as __gnb).
const helperPath = "graphnb.kernel/gnb"

// ordered is the constraint of the prelude's min and max: Go's ordered
// types (cmp.Ordered).
const ordered = "~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string"

// preludeSource supplies the Go 1.21 builtins yaegi lacks: min and max as
// generic interpreted functions (a NaN argument gives NaN, as in Go), and
// clear through a compiled helper.
var preludeSource = `package main

import __gnb "` + helperPath + `"

func min[__gnb_T ` + ordered + `](x __gnb_T, y ...__gnb_T) __gnb_T {
	m := x
	if m != m {
		return m
	}
	for _, v := range y {
		if v != v {
			return v
		}
		if v < m {
			m = v
		}
	}
	return m
}

func max[__gnb_T ` + ordered + `](x __gnb_T, y ...__gnb_T) __gnb_T {
	m := x
	if m != m {
		return m
	}
	for _, v := range y {
		if v != v {
			return v
		}
		if v > m {
			m = v
		}
	}
	return m
}

var clear = __gnb.Clear
`

// loadPrelude compiles and runs the prelude.
func (s *Session) loadPrelude() error {
	f, err := parser.ParseFile(s.in.FileSet(), "prelude/_.go", preludeSource, parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("session: prelude: %w", err)
	}
	prog, err := s.in.CompileAST(f)
	if err != nil {
		return fmt.Errorf("session: prelude: %w", err)
	}
	if _, err := s.in.Execute(prog); err != nil {
		return fmt.Errorf("session: prelude: %w", err)
	}
	s.imports["__gnb"] = helperPath
	return nil
}

// clearValue is the prelude's clear: it deletes every entry of a map and
// zeroes every element of a slice, as Go's clear does; nil is a no-op.
func clearValue(x any) {
	if x == nil {
		return
	}
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		v.Clear()
	default:
		panic(fmt.Sprintf("invalid argument: clear(%T): argument must be a map or a slice", x))
	}
}

// goStart records a guarded goroutine about to start (see goStmt) and
// returns its handle.
func (s *Session) goStart(serial, line int) int {
	s.meta.Lock()
	defer s.meta.Unlock()
	s.goNext++
	s.goroutines[s.goNext] = goroutineStart{serial: serial, line: line, cell: s.current.Load()}
	return s.goNext
}

// goEnd is deferred by a guarded goroutine: r is what recover returned.
// A panic while a cell runs fails that cell (it would end a program); a
// panic between cells is reported through the AsyncError of the cell
// that started the goroutine. The process carries on.
func (s *Session) goEnd(h int, r any) {
	s.meta.Lock()
	g, ok := s.goroutines[h]
	delete(s.goroutines, h)
	s.meta.Unlock()
	s.unwatch(g.watch)
	if r == nil || !ok {
		return
	}
	frames := s.filter.take()
	e := s.panicError(r, frames)
	e.Name = "panic"
	started := s.describe(position{serial: g.serial, line: g.line})
	if g.callback != "" {
		e.Value = "in a " + g.callback + " callback: " + e.Value
		e.Trace = append(e.Trace, "callback given to "+g.callback+" at "+started)
	} else {
		e.Value = "in a goroutine: " + e.Value
		e.Trace = append(e.Trace, "goroutine started at "+started)
	}
	e.Trace[0] = "panic: " + e.Value
	if rc := s.running.Load(); rc != nil {
		rc.fail(e)
		return
	}
	if g.cell != nil && g.cell.AsyncError != nil {
		g.cell.AsyncError(e)
	}
}

// formatWall renders %time's measure: "1.23 ms" below a second, else
// "4.567 s".
func formatWall(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3f s", d.Seconds())
}

// dialectNotes is the Go dialect of cells, for %help (the package doc
// says the same).
const dialectNotes = `Cells are Go: each is checked by Go's type checker (the Go 1.22 language,
the interpreter yaegi v0.16.1's) and runs as Go would, or is refused before
anything runs with Go's message, or with one naming what the interpreter
cannot run ("Unsupported: …") and how to write it instead:
  - a cell may mix imports, declarations and statements; its last
    expression is shown as the cell's result
  - the standard library and graphnb's packages need no import line
    (rand is math/rand/v2, template text/template, scanner text/scanner)
  - declaring a name again: the latest definition is what later code
    sees; what uses the name is checked and compiled again (a refusal
    says which declaration no longer fits); values are not recomputed
  - a method's signature, a type's definition are fixed once declared
  - func main runs when called; defer at a cell's top level is refused
  - refused: a standard library newer than Go 1.22 (slices.Sort, maps.Keys);
    reflect's methods and names of the cells' types; fmt of a cell's
    Stringer inside a slice or map, %+v of its unexported fields, %#v;
    finalizers written as function literals; runtime.Callers and FuncForPC;
    types defined through themselves (type T []T); errors.As with a
    cell's type as target
  - a panic in a goroutine fails the cell running then; the kernel survives
  - interrupting stops interpreted code, time.Sleep and graphnb's
    algorithms (they poll cancel.Check); every variable and function value
    survives; a compiled call that cannot stop holds the next cell`

const displayNotes = `Display (package display, no import needed):
  display.HTML(s), Markdown(s), SVG(s), LaTeX(s), Text(s), JSON(v),
  PNG(b), JPEG(b), Image(img), Show(v)
  h := display.NewDisplay(v); h.Update(v2)   update in place
  p := display.NewProgress("label", total); p.Add(n); p.Done()
  display.Clear(wait)
  v, err := display.Input("name? ")      ask the user (Password hides it);
  reading os.Stdin (fmt.Scanln, bufio) asks too
A value shows itself with every MIME type it offers through
HTML() string, Markdown() string, SVG() string, PNG() []byte or
MIMEBundle() map[string]any.`

const magicHelp = `Magics (a line starting with %):
  %help            this text
  %time            time the rest of the cell ("wall time: 1.23 ms")
  %time STATEMENT  time one statement (%time x := f())
  %doc NAME        Go documentation of NAME, in the pager and the output (also: NAME?)
  %env             list environment variables
  %env NAME        show one; %env NAME=value sets it
  %%time           time the whole cell`

// helpText is what %help prints.
func (s *Session) helpText() string {
	magics := magicHelp
	if added := s.magicUsage(); added != "" {
		magics += "\n" + added
	}
	return strings.Join([]string{magics, dialectNotes, displayNotes}, "\n\n") + "\n"
}
