package session

import (
	"bytes"
	"fmt"
	"go/scanner"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/graphnb/graphnb/session/internal/rewrite"
)

// Error is a cell that failed: Jupyter's error fields. It implements the
// kernel's CellError interface (EName, EValue, Traceback).
//
// Name is one of:
//
//	CompileError  the cell does not parse or type-check
//	panic         a panic in the cell, or in a goroutine it started
//	Interrupted   the cell was interrupted (its variables are kept)
//	RuntimeError  the interpreter failed while running the cell
//	Unsupported   a Go feature yaegi, the interpreter, lacks
//	InternalError the interpreter itself failed on the cell
//	MagicError    an unknown or unavailable %magic
type Error struct {
	Name  string
	Value string
	// Trace is the traceback: "Name: Value" first, then one line per
	// location, innermost first, e.g. "cell[7] line 3: x := s[3]".
	Trace []string
}

func (e *Error) Error() string       { return e.Name + ": " + e.Value }
func (e *Error) EName() string       { return e.Name }
func (e *Error) EValue() string      { return e.Value }
func (e *Error) Traceback() []string { return e.Trace }

// newError returns an error whose traceback is its header followed by the
// given location lines.
func newError(name, value string, locs ...string) *Error {
	return &Error{Name: name, Value: value, Trace: append([]string{name + ": " + value}, locs...)}
}

// Source positions. Every run of a cell is parsed under a line directive
// naming the file "cellN/_.go" (N is the session's serial number of the
// cell), so yaegi's messages carry cell coordinates. All files share the
// base name "_.go" because yaegi scopes imports by base file name.

// cellFile is the file name of the cell with the given serial number.
var cellFile = rewrite.CellFile

// cellPosRE finds cell positions anywhere in a message.
var cellPosRE = rewrite.CellPosRE

// generatedFile is the file name of code the rewriter writes.
const generatedFile = rewrite.GeneratedFile

// position is a location in a cell.
type position struct {
	serial int // 0: not in a cell
	line   int
	col    int
}

// splitPos separates a yaegi message "file:L:C: text" into its position
// and text. Without a leading position it returns the message as is.
func splitPos(msg string) (position, string) {
	m := cellPosRE.FindStringSubmatchIndex(msg)
	if m == nil || m[0] != 0 || !strings.HasPrefix(msg[m[1]:], ": ") {
		return position{}, msg
	}
	serial, _ := strconv.Atoi(msg[m[2]:m[3]])
	line, _ := strconv.Atoi(msg[m[4]:m[5]])
	col, _ := strconv.Atoi(msg[m[6]:m[7]])
	return position{serial, line, col}, msg[m[1]+2:]
}

// cellSource is what the session keeps of an executed cell to quote it in
// tracebacks.
type cellSource struct {
	count int
	lines []string
	funcs []funcExtent
}

// funcExtent is where a function of a cell is.
type funcExtent struct {
	name     string // "" for a function literal
	from, to int    // lines
}

// function returns the innermost function of the cell around line.
func (c *cellSource) function(line int) (funcExtent, bool) {
	var best funcExtent
	found := false
	for _, f := range c.funcs {
		if f.from <= line && line <= f.to && (!found || f.to-f.from < best.to-best.from) {
			best, found = f, true
		}
	}
	return best, found
}

// label is "cell[7]" for execution count 7.
func (c *cellSource) label() string { return "cell[" + strconv.Itoa(c.count) + "]" }

// describe renders a position as "cell[7] line 3: <source line>".
func (s *Session) describe(p position) string {
	c := s.source(p.serial)
	if c == nil {
		return fmt.Sprintf("line %d", p.line)
	}
	where := c.label() + " line " + strconv.Itoa(p.line)
	if p.line >= 1 && p.line <= len(c.lines) {
		return where + ": " + strings.TrimSpace(c.lines[p.line-1])
	}
	return where
}

// cleanMessage replaces the internal file names left inside a message by
// cell labels ("cell3/_.go:2:5" → "cell[7]:2:5").
func (s *Session) cleanMessage(msg string) string {
	return cellPosRE.ReplaceAllStringFunc(msg, func(m string) string {
		sub := cellPosRE.FindStringSubmatch(m)
		serial, _ := strconv.Atoi(sub[1])
		if c := s.source(serial); c != nil {
			return c.label() + ":" + sub[2] + ":" + sub[3]
		}
		return m
	})
}

// compileError turns a parse or yaegi compile error into an Error.
func (s *Session) compileError(err error) *Error {
	if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
		var locs []string
		first := list[0]
		for i, e := range list {
			if i == 3 {
				break
			}
			p := position{line: e.Pos.Line, col: e.Pos.Column}
			if m := cellPosRE.FindStringSubmatch(e.Pos.Filename + ":1:1"); m != nil {
				p.serial, _ = strconv.Atoi(m[1])
			}
			loc := s.describe(p)
			if i > 0 {
				loc += "  (" + e.Msg + ")"
			}
			locs = append(locs, loc)
		}
		return newError("CompileError", first.Msg, locs...)
	}
	msg := err.Error()
	// yaegi wraps some errors: "cellN/_.go:1:7: CFG post-order panic: cellN/_.go:1:7: text".
	p, text := splitPos(msg)
	for {
		q, inner := splitPos(strings.TrimPrefix(text, "CFG post-order panic: "))
		if q.serial == 0 || inner == text {
			break
		}
		p, text = q, inner
	}
	text = s.cleanMessage(text)
	if p.serial == 0 {
		return newError("CompileError", text)
	}
	return newError("CompileError", text, s.describe(p))
}

// A frame is one line yaegi logs while a panic unwinds an interpreted
// function: "cell3/_.go:2:6: panic: main.g(...)".
type frame struct {
	pos  position
	fn   string // "main.g", "main" (top level), "main.func" (a literal)
	file string
}

// panicLineRE matches those lines.
var panicLineRE = regexp.MustCompile(`^(\S*?):?(\d+):(\d+): panic: (\S*)\(\.\.\.\)\n?$`)

// stderrFilter is the interpreter's standard error. It keeps the lines
// yaegi logs while a panic unwinds (they carry the only source positions
// of a panic) and passes everything else through.
type stderrFilter struct {
	out io.Writer

	mu     sync.Mutex
	frames []frame
}

func (f *stderrFilter) Write(p []byte) (int, error) {
	if bytes.HasSuffix(p, []byte("(...)\n")) && bytes.Contains(p, []byte(": panic: ")) {
		if m := panicLineRE.FindSubmatch(p); m != nil {
			fr := frame{file: string(m[1]), fn: string(m[4])}
			fr.pos.line, _ = strconv.Atoi(string(m[2]))
			fr.pos.col, _ = strconv.Atoi(string(m[3]))
			if c := cellPosRE.FindSubmatch(append(m[1], ":1:1"...)); c != nil {
				fr.pos.serial, _ = strconv.Atoi(string(c[1]))
			}
			f.mu.Lock()
			if len(f.frames) < 1000 {
				f.frames = append(f.frames, fr)
			}
			f.mu.Unlock()
			return len(p), nil
		}
	}
	return f.out.Write(p)
}

// take returns and forgets the frames logged so far.
func (f *stderrFilter) take() []frame {
	f.mu.Lock()
	defer f.mu.Unlock()
	fr := f.frames
	f.frames = nil
	return fr
}

// frameLines renders the panic frames of functions, innermost first. The
// frames of top-level code are left out: the caller knows the statement.
// yaegi logs a function's frame at the function's entry, not at the
// statement that panicked, so a frame names the function.
func (s *Session) frameLines(frames []frame) []string {
	var locs []string
	for _, fr := range frames {
		if fr.fn == "main" || fr.fn == "" || fr.file == generatedFile {
			continue
		}
		if fr.pos.serial == 0 {
			locs = append(locs, "in the kernel's prelude ("+strings.TrimPrefix(fr.fn, "main.")+")")
			continue
		}
		c := s.source(fr.pos.serial)
		if c == nil {
			continue
		}
		f, ok := c.function(fr.pos.line)
		switch {
		case !ok && strings.HasSuffix(fr.fn, ".func"):
			// A function literal the session generated.
		case !ok:
			locs = append(locs, fmt.Sprintf("%s in %s (line %d)", c.label(), strings.TrimPrefix(fr.fn, "main."), fr.pos.line))
		case f.name == "":
			locs = append(locs, fmt.Sprintf("%s in a function literal (line %d)", c.label(), f.from))
		default:
			locs = append(locs, fmt.Sprintf("%s in %s (declared at line %d)", c.label(), f.name, f.from))
		}
	}
	return locs
}

// panicError builds the error of a panic with value v.
func (s *Session) panicError(v any, frames []frame) *Error {
	return newError("panic", panicText(v), s.frameLines(frames)...)
}

// panicText is how Go prints a panic value.
func panicText(v any) (text string) {
	defer func() {
		if r := recover(); r != nil {
			text = fmt.Sprintf("(panic while printing the panic value: %v)", r)
		}
	}()
	// yaegi hands some panic values over as a reflect.Value (panic(err)
	// with an error from compiled code): print what it holds, not
	// "<error Value>".
	if rv, ok := v.(reflect.Value); ok {
		if !rv.IsValid() {
			return "nil"
		}
		if rv.CanInterface() {
			return panicText(rv.Interface())
		}
	}
	switch x := v.(type) {
	case error:
		return x.Error()
	case fmt.Stringer:
		return x.String()
	case string:
		return x
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%v", v)
}

// internalError translates a panic raised inside yaegi while it compiles
// a cell (never a panic of the user's code).
func (s *Session) internalError(v any, rw *rewrite.Cell, line int) *Error {
	p, msg := splitPos(panicText(v))
	msg = strings.TrimPrefix(msg, "CFG post-order panic: ")
	if q, inner := splitPos(msg); q.serial != 0 {
		p, msg = q, inner
	}
	msg = s.cleanMessage(msg)
	var locs []string
	if p.serial != 0 {
		locs = append(locs, s.describe(p))
	} else if line > 0 && rw != nil {
		locs = append(locs, s.describe(position{serial: rw.Serial(), line: line}))
	}
	if msg == "nil type" && rw != nil && rw.RangesLeft() > 0 {
		return newError("Unsupported",
			"yaegi, the interpreter, does not support range over an integer (Go 1.22) where the kernel cannot see that the operand is an integer; "+
				"write `for i := 0; i < n; i++` instead, or convert the operand: `for i := range int(n)`", locs...)
	}
	return newError("InternalError",
		"yaegi, the interpreter, failed on this code (internal error: "+msg+"); write the construct more plainly", locs...)
}
