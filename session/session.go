package session

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/session/complete"
	"github.com/graphnb/graphnb/session/internal/rewrite"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/unsafe"
)

// Cell describes one execution. The kernel's Cell is an alias of it.
type Cell struct {
	// Count is the execution count the cell runs under; tracebacks name
	// the cell "cell[Count]".
	Count int
	// Silent: run the cell but return no execute_result.
	Silent bool
	// AsyncError reports a failure after Execute has returned: a panic in
	// a goroutine the cell started. nil: such failures are dropped.
	AsyncError func(err error)
	// Page shows data in the front end's pager (%doc, "name?"): the kernel
	// sends it as an execute_reply payload with source "page". The same
	// data is also displayed (a pager is not part of the notebook); with
	// no display sink, its text/plain form is printed to the cell's stdout.
	Page func(data display.Bundle)
}

// Options configures a Session. The zero value is a Go interpreter with
// the standard library only; cmd/graphnb adds graphnb's packages and
// magics (package magics) for the kernel and graphnb exec alike.
type Options struct {
	// Stdout and Stderr are where interpreted code prints (fmt.Print*,
	// println, os.Stdout, os.Stderr, log). nil means os.Stdout and
	// os.Stderr, which the kernel captures at the file-descriptor level
	// together with what compiled code prints. Tests pass pipes.
	Stdout, Stderr *os.File
	// Symbols are the compiled packages cells may use besides the
	// standard library, as yaegi extract generates them
	// ("import/path/name" → symbol name → value); graphnb's are package
	// symbols. Their names join the automatic imports. The checker knows
	// the types of graphnb's packages (package typedata); other packages
	// are checked from their symbols alone.
	Symbols map[string]map[string]reflect.Value
	// LineMagics and CellMagics add magics by name ("gpu" for %gpu,
	// "cuda" for %%cuda). A name of a built-in magic is refused by New.
	LineMagics map[string]LineMagic
	CellMagics map[string]CellMagic
}

// Session is one persistent yaegi interpreter running notebook cells.
//
// Execute, Complete, Inspect and IsComplete are meant to be called one at
// a time (the kernel calls them from one goroutine); the Scope methods may
// be called at any time.
type Session struct {
	// Added magics (Options), and the values cell magics bound, by name.
	lineMagics map[string]LineMagic
	cellMagics map[string]CellMagic
	boundMu    sync.Mutex
	bound      map[string]any

	in        *interp.Interpreter
	tables    *tables
	check     *checker // Go's type checker, in front of the interpreter
	stdout    *os.File
	stderr    *os.File
	stdoutVar *os.File      // the interpreted os.Stdout
	stderrVar *os.File      // the interpreted os.Stderr
	stdio     [2]cellStream // …their copies of stdout and stderr (stdio.go)
	filter    *stderrFilter
	anchor    token.Pos // a position in a file named "_.go", for generated code

	mu sync.Mutex // the interpreter: one cell (or Value) at a time

	meta        sync.RWMutex
	kinds       map[string]string           // names declared by cells → kind
	funcInts    map[string]rewrite.Tri      // …and whether the single result is an integer
	generics    map[string]*ast.FuncType    // generic functions declared in cells
	plainTypes  bool                        // cells declared a type that is neither a struct nor an interface
	renderNames map[string]bool             // render methods (String, HTML, …) declared in cells
	typeDecls   map[string]typeDecl         // type name → its definition
	imports     map[string]string           // package names bound in the interpreter → path
	sources     map[int]*cellSource         // serial → source, for tracebacks
	serial      int                         // serial number of the last cell
	goNext      int                         // next goroutine handle
	goroutines  map[int]goroutineStart      // running guarded goroutines
	current     atomic.Pointer[Cell]        // the cell running, or the last one
	running     atomic.Pointer[runningCell] // the cell Execute is running, or nil

	slots        *rewrite.Slots  // the cells' methods the interpreter holds ("T.M")
	recoverFuncs map[string]bool // the cells' functions that call recover themselves

	renderTypes  map[string]*renderCase        // struct types with render methods
	structTypes  map[string]bool               // types declared as structs
	renderDirty  bool                          // renderTypes changed
	renderSrc    string                        // the renderer's source
	renderFn     atomic.Pointer[reflect.Value] // the interpreted renderer
	prevRenderer func(any) display.Bundle      // what New replaced

	armed   bool            // the interpreter can be stopped (see arm)
	nop     *interp.Program // the program arm runs
	stalled *stalledProgram // an interrupted program still in a compiled call

	intrMu sync.Mutex
	intr   chan struct{} // closed when a cell is interrupted, then replaced

	stacks stackWatch // the goroutines whose stacks are watched (stack.go)

	closed atomic.Bool
}

// typeDecl remembers a type declaration, to refuse changing it.
type typeDecl struct {
	src   string
	label string
}

// goroutineStart is where a guarded goroutine was started.
type goroutineStart struct {
	serial, line int
	cell         *Cell
	callback     string // a guarded callback: the function it was given to (typed_callbacks.go)
	watch        int    // its key in the stack watch (stack.go), 0 if none
}

// New starts an interpreter with the standard library, graphnb's packages
// and the prelude (min, max, clear). It takes a few milliseconds.
func New(opts Options) (*Session, error) {
	s := &Session{
		stdout: opts.Stdout, stderr: opts.Stderr,
		kinds: map[string]string{}, funcInts: map[string]rewrite.Tri{},
		renderNames: map[string]bool{}, typeDecls: map[string]typeDecl{},
		imports: map[string]string{}, sources: map[int]*cellSource{},
		goroutines: map[int]goroutineStart{}, intr: make(chan struct{}),
		renderTypes: map[string]*renderCase{}, structTypes: map[string]bool{},
		bound: map[string]any{}, lineMagics: opts.LineMagics, cellMagics: opts.CellMagics, slots: rewrite.NewSlots(), recoverFuncs: map[string]bool{},
	}
	for name := range opts.LineMagics {
		if builtinMagic(name) {
			return nil, fmt.Errorf("session: %%%s is a built-in magic and cannot be replaced", name)
		}
	}
	for name := range opts.CellMagics {
		if builtinMagic(name) {
			return nil, fmt.Errorf("session: %%%%%s is a built-in magic and cannot be replaced", name)
		}
	}
	if s.stdout == nil {
		s.stdout = os.Stdout
	}
	if s.stderr == nil {
		s.stderr = os.Stderr
	}
	s.stdio = [2]cellStream{{name: "/dev/stdout", target: s.stdout, v: &s.stdoutVar}, {name: "/dev/stderr", target: s.stderr, v: &s.stderrVar}}
	s.stdio[0].refresh()
	s.stdio[1].refresh()
	s.filter = &stderrFilter{out: s.stderr}
	s.in = interp.New(interp.Options{Stdout: s.stdout, Stderr: s.filter, Unrestricted: true})
	for _, syms := range []interp.Exports{stdlib.Symbols, unsafe.Symbols, opts.Symbols} {
		if len(syms) == 0 {
			continue
		}
		if err := s.in.Use(syms); err != nil {
			return nil, fmt.Errorf("session: loading symbols: %w", err)
		}
	}
	if len(opts.Symbols) > 0 {
		s.tables = newTables(opts.Symbols)
	} else {
		s.tables = defaultTables()
	}
	helpers := rewrite.Helpers() // what the rewritten code calls; the session's own:
	for name, v := range map[string]any{
		"Clear": clearValue,
		// Print and Println are the builtins print and println (typed_print.go).
		"Print":   rewrite.PrintHelper(s.stderr, false),
		"Println": rewrite.PrintHelper(s.stderr, true),
		"GoStart": s.goStart,
		"GoEnd":   s.goEnd,
		// The guards of callbacks run on goroutines of their own (typed_callbacks.go).
		"GuardFunc":      s.guardFunc,
		"GuardFinalizer": s.guardFinalizer,
		// Guarded goroutines' stacks are watched (stack.go).
		"GoWatch": s.goWatch,
		// Bound hands the values cell magics bind to the interpreter.
		"Bound": s.boundValue,
	} {
		helpers[name] = reflect.ValueOf(v)
	}
	err := s.in.Use(interp.Exports{
		"os/os":               {"Stdout": reflect.ValueOf(&s.stdoutVar).Elem(), "Stderr": reflect.ValueOf(&s.stderrVar).Elem()},
		"time/time":           {"Sleep": reflect.ValueOf(s.sleep)},
		"runtime/runtime":     {"Breakpoint": reflect.ValueOf(breakpoint)},
		"runtime/debug/debug": {"SetMaxStack": reflect.ValueOf(setMaxStack)},
		helperPath + "/gnb":   helpers,
	})
	if err == nil {
		err = s.in.Use(interp.Exports{"sort/sort": sortSymbols}) // sortstop.go
	}
	if err != nil {
		return nil, fmt.Errorf("session: loading helpers: %w", err)
	}
	f, err := parser.ParseFile(s.in.FileSet(), "_.go", "package main", parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	s.anchor = f.Package
	checkSyms := map[string]map[string]reflect.Value{helperPath + "/gnb": helpers}
	for k, v := range opts.Symbols {
		checkSyms[k] = v
	}
	if s.check, err = newChecker(s.in.FileSet(), checkSyms, s.importPath); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if err := s.loadPrelude(); err != nil {
		return nil, err
	}
	s.prevRenderer = display.SetRenderer(s.render)
	return s, nil
}

// Close ends the session: later calls of Execute fail, and the renderer
// New installed is replaced by the one it replaced. Goroutines that cells
// started are not stopped.
func (s *Session) Close() {
	if !s.closed.Swap(true) {
		display.SetRenderer(s.prevRenderer)
	}
}

// Execute runs a cell and returns the bundle of its final expression (nil
// when the cell does not end with an expression that has a value, or is
// silent). A failure is an *Error. Cancelling ctx interrupts the cell:
// interpreted code stops at once, time.Sleep returns, compiled graphnb
// code stops at its next cancel.Check; the error is then an Interrupted
// *Error and every variable survives.
//
// Execute is where every front end (the kernel through cmd/graphnb,
// graphnb exec) gets the cell's cancellation point cleared before the
// cell runs (enter) and a panic that escapes the interpreter turned into
// an *Error named "panic" (recoverPanic): they need not do either.
func (s *Session) Execute(ctx context.Context, code string, cell Cell) (b display.Bundle, err error) {
	if s.closed.Load() {
		return nil, errors.New("session: Execute after Close")
	}
	defer recoverPanic(&b, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	if cell.AsyncError == nil {
		cell.AsyncError = func(error) {}
	}
	s.current.Store(&cell)
	ctx, rc, leave := s.enter(ctx)
	defer leave()
	if err := s.drainStalled(ctx); err != nil {
		return nil, err
	}

	x := &execution{s: s, ctx: ctx, cell: cell, serial: s.register(code, cell.Count)}
	defer s.updateRenderer()
	defer x.forget()
	b, err = x.run(code)
	if gerr := rc.failure(); gerr != nil {
		return nil, gerr
	}
	return b, err
}

// enter prepares a run of the cells' code (a cell, or a callback given
// to compiled code) under s.mu. It returns the run's context, which ends
// on an interrupt or when a goroutine of the cells panics (rc records the
// panic), and leave, to call when the run ends.
func (s *Session) enter(ctx context.Context) (_ context.Context, rc *runningCell, leave func()) {
	s.stdio[0].refresh()
	s.stdio[1].refresh()
	// A goroutine that panics while the cell runs fails the cell, as it
	// would end a program: the cell is stopped, and the panic is its error.
	ctx, cancelCell := context.WithCancelCause(ctx)
	rc = &runningCell{cancel: cancelCell}
	s.running.Store(rc)
	// An interrupt requests cancellation of compiled code (cancel.Check
	// fails) and wakes time.Sleep. This is cancel.Bind, plus waiting for
	// the request to be made before the cell returns, so that it cannot
	// land after the next cell's cancel.Clear. While an interrupted
	// program is still in a compiled call (drain), its request stands.
	if s.stalled != nil {
		cancel.Request()
	} else {
		cancel.Clear()
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		cancel.Request()
		s.interrupt()
		close(fired)
	})
	s.filter.take()
	return ctx, rc, func() {
		if !stop() {
			<-fired
		}
		s.running.Store(nil)
		cancelCell(nil)
	}
}

// drainStalled waits, as drain, for an interrupted program still in a
// compiled call, then clears the cancellation point.
func (s *Session) drainStalled(ctx context.Context) error {
	if s.stalled == nil {
		return nil
	}
	if err := s.drain(ctx); err != nil {
		return err
	}
	// A request made by an interrupt of this run meanwhile has ended
	// ctx, which the run sees.
	cancel.Clear()
	return nil
}

// recoverPanic, deferred by Execute, turns a panic that escaped the
// interpreter into the cell's error: the process carries on.
func recoverPanic(b *display.Bundle, err *error) {
	if r := recover(); r != nil {
		v := fmt.Sprint(r)
		*b, *err = nil, &Error{Name: "panic", Value: v, Trace: []string{"panic: " + v}}
	}
}

// runningCell is the cell Execute is running, for the goroutines that
// panic meanwhile.
type runningCell struct {
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	err    *Error // the first goroutine panic
}

// fail records a goroutine's panic and stops the cell.
func (rc *runningCell) fail(e *Error) {
	rc.mu.Lock()
	if rc.err == nil {
		rc.err = e
	}
	rc.mu.Unlock()
	rc.cancel(e)
}

func (rc *runningCell) failure() *Error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.err
}

// forget drops the source of a cell that later tracebacks cannot point
// into: one that declares no function and starts no goroutine.
func (x *execution) forget() {
	if x.rw != nil && x.rw.KeepSource() {
		return
	}
	x.s.meta.Lock()
	delete(x.s.sources, x.serial)
	x.s.meta.Unlock()
}

// register keeps the source of a cell for tracebacks and returns its
// serial number.
func (s *Session) register(code string, count int) int {
	s.meta.Lock()
	defer s.meta.Unlock()
	s.serial++
	s.sources[s.serial] = &cellSource{count: count, lines: strings.Split(code, "\n")}
	return s.serial
}

// source returns the cell with the given serial number.
func (s *Session) source(serial int) *cellSource {
	s.meta.RLock()
	defer s.meta.RUnlock()
	return s.sources[serial]
}

// interrupt wakes the time.Sleep calls of interpreted code.
func (s *Session) interrupt() {
	s.intrMu.Lock()
	close(s.intr)
	s.intr = make(chan struct{})
	s.intrMu.Unlock()
}

// sleep replaces time.Sleep for cells: it returns early when a cell is
// interrupted, or at once while an interrupt's request stands, so an
// interrupted cell leaves no goroutine behind.
func (s *Session) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	s.intrMu.Lock()
	ch := s.intr
	s.intrMu.Unlock()
	// An interrupt that came before this sleep (a goroutine's panic can
	// stop the cell before its code reaches time.Sleep) closed an earlier
	// channel; its request, made before the close, still stands.
	if cancel.Requested() {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ch:
	}
}

// An execution is one cell being run.
type execution struct {
	s      *Session
	ctx    context.Context
	cell   Cell
	serial int
	rw     *rewrite.Cell // the cell's rewriting, once it is parsed

	timer     time.Time // start of %time, if any
	timed     bool
	timedLine int               // line of the one statement "%time STATEMENT" times; 0: to the end of the cell
	here      map[string]string // packages this cell imports
	line      int               // line of the unit running

	srcs map[*token.File]string // the parsed sources of the cell's runs
	cc   *cellCheck             // what Go's type checker found
}

// sourceText returns the source between two positions of the cell's
// runs (false when they are not in one run).
func (x *execution) sourceText(from, to token.Pos) (string, bool) {
	fset := x.s.in.FileSet()
	f := fset.File(from)
	if f == nil || fset.File(to) != f && to != token.Pos(f.Base()+f.Size()) {
		return "", false
	}
	src, ok := x.srcs[f]
	a, b := fset.PositionFor(from, false).Offset, fset.PositionFor(to, false).Offset
	if !ok || a < 0 || a > b || b > len(src) {
		return "", false
	}
	return src[a:b], true
}

// setFuncs keeps where the cell's functions are, for tracebacks.
func (s *Session) setFuncs(serial int, funcs []funcExtent) {
	s.meta.Lock()
	defer s.meta.Unlock()
	s.sources[serial].funcs = funcs
}

// interrupted is the error of an interrupted cell.
func (x *execution) interrupted() *Error {
	where := x.s.source(x.serial).label() + " was interrupted before it started"
	if x.line > 0 {
		where = "interrupted at " + x.s.describe(position{serial: x.serial, line: x.line})
	}
	if x.s.stalled != nil {
		// runProgram left it running: see stop.go.
		return newError("Interrupted", stalledMessage, where)
	}
	return newError("Interrupted", "the cell was interrupted; every variable keeps the value it had", where)
}

func (x *execution) run(code string) (b display.Bundle, err error) {
	if x.ctx.Err() != nil {
		return nil, x.interrupted()
	}
	defer func() {
		if x.timed {
			fmt.Fprintf(x.s.stdout, "wall time: %s\n", formatWall(time.Since(x.timer)))
		}
	}()
	if name, ok := docQuery(code); ok {
		return nil, x.doc(name)
	}
	if first, ok := cellMagic(code); ok {
		if name, _, _ := strings.Cut(first, " "); name != "time" {
			return x.cellMagic(first, code)
		}
		// %%time: time the whole cell; its first line becomes empty.
		x.timer, x.timed = time.Now(), true
		i := strings.Index(code, "%%")
		if j := strings.IndexByte(code[i:], '\n'); j >= 0 {
			code = code[:i] + code[i+j:]
		} else {
			code = code[:i]
		}
	}
	magics, rest := extractMagics(code)
	if err := x.checkMagics(magics); err != nil {
		return nil, err
	}
	var lines []int
	for _, m := range magics {
		lines = append(lines, m.line)
	}
	runs := rewrite.Split(rest, lines)

	// Parse everything first: a syntax error anywhere runs nothing.
	fset := x.s.in.FileSet()
	x.rw = rewrite.NewCell(rewriteEnv{x.s}, fset, x.serial, x.s.slots)
	file := cellFile(x.serial)
	var ps []*rewrite.Run
	x.srcs = map[*token.File]string{}
	for _, r := range runs {
		p, err := rewrite.Parse(fset, file, rest, r)
		if err != nil {
			return nil, x.s.compileError(err)
		}
		ps = append(ps, p)
		x.srcs[fset.File(p.Node().Pos())] = p.Src()
	}

	// Type-check everything: a cell Go rejects runs nothing.
	var decls []ast.Decl
	var stmts []ast.Stmt
	for _, p := range ps {
		if p.Decl() {
			decls = append(decls, p.File().Decls...)
		} else {
			stmts = append(stmts, p.Body().List...)
		}
	}
	cc, err := x.check(decls, stmts)
	if err != nil {
		return nil, err
	}
	x.cc = cc
	ps = rewrite.WithRedo(fset, ps, cc.redo)
	if ps, err = x.rw.Typed(ps, cc.Facts); err != nil {
		return nil, fromRewrite(err)
	}
	x.s.setFuncs(x.serial, funcExtents(x.rw.FuncExtents()))
	for _, p := range ps {
		if p.Decl() {
			if err := x.checkDecls(p.File()); err != nil {
				return nil, err
			}
		}
	}
	if err := x.rw.Syntactic(ps, x.here); err != nil {
		return nil, fromRewrite(err)
	}

	// Compile everything before running anything: a compile error runs
	// nothing. Declaration runs compile whole (their declarations may
	// refer to each other); statements one by one, so that a panic is
	// located at its statement.
	var units []*unit
	earlier := map[string]bool{} // variables that earlier units of the cell declare
	for i, p := range ps {
		if p.Decl() {
			before, after := x.rw.VarStmts(p.File(), earlier)
			for _, st := range before {
				units = append(units, &unit{node: x.block(st), stmt: st, line: x.s.in.FileSet().Position(st.Pos()).Line})
			}
			if len(p.File().Decls) > 0 {
				units = append(units, &unit{node: p.File(), file: p.File(), line: p.Line()})
			}
			for _, st := range after {
				units = append(units, &unit{node: x.block(st), stmt: st, line: x.s.in.FileSet().Position(st.Pos()).Line})
			}
			continue
		}
		for j, st := range p.Body().List {
			if a, ok := st.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
				for _, l := range a.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						earlier[id.Name] = true
					}
				}
			}
			u := &unit{stmt: st, line: x.s.in.FileSet().Position(st.Pos()).Line}
			es, isExpr := st.(*ast.ExprStmt)
			switch {
			case i == len(ps)-1 && j == len(p.Body().List)-1 && isExpr:
				x.planFinal(u, es)
			default:
				u.node = x.block(x.rw.TopStmt(st))
			}
			units = append(units, u)
		}
	}
	if err := x.autoImport(); err != nil {
		return nil, err
	}
	for _, u := range units {
		if u.node == nil {
			continue
		}
		prog, err := x.compile(u.node, u.line)
		if err != nil {
			return nil, err
		}
		u.prog = prog
		if u.file != nil {
			x.s.recordDecls(u.file, x.rw)
			x.cc.commit(u.file)
			x.rw.RecordSlots(u.file)
			for name, calls := range x.rw.RecoverFuncs() {
				x.s.recoverFuncs[name] = calls
			}
		} else {
			x.s.recordStmt(u.stmt)
			x.cc.commit(u.stmt)
		}
	}

	mi := 0
	doMagics := func(before int) error {
		for ; mi < len(magics) && magics[mi].line <= before; mi++ { // ==: "%time STATEMENT" runs before its statement
			if err := x.lineMagic(magics[mi]); err != nil {
				return err
			}
		}
		return nil
	}
	for _, u := range units {
		if err := doMagics(u.line); err != nil {
			return nil, err
		}
		if x.ctx.Err() != nil {
			return nil, x.interrupted()
		}
		x.line = u.line
		if u.final != nil {
			if b, err = x.runFinal(u); err != nil {
				return nil, err
			}
			continue
		}
		if _, err := x.execute(u.prog); err != nil {
			return nil, err
		}
		if u.file != nil {
			x.s.updateRenderer() // so that this cell's statements can display the types it declares
		}
		if x.timed && x.timedLine == u.line {
			fmt.Fprintf(x.s.stdout, "wall time: %s\n", formatWall(time.Since(x.timer)))
			x.timed = false
		}
	}
	if err := doMagics(1 << 30); err != nil {
		return nil, err
	}
	return b, nil
}

// A unit is what is compiled and run as one program: a declaration run,
// or one top-level statement.
type unit struct {
	node ast.Node
	file *ast.File // a declaration run
	stmt ast.Stmt  // a statement
	line int       // its first line in the cell
	prog *interp.Program

	final *finalPlan // the cell's final expression statement
}

// block wraps statements for CompileAST.
func (x *execution) block(list ...ast.Stmt) *ast.BlockStmt {
	return &ast.BlockStmt{Lbrace: list[0].Pos(), List: list, Rbrace: list[len(list)-1].End()}
}

// compile compiles a node, translating yaegi's errors and panics.
func (x *execution) compile(n ast.Node, line int) (prog *interp.Program, err error) {
	defer func() { // runs last: after the recover below
		if e, ok := err.(*Error); ok && x.rw != nil {
			if better := x.rw.Explain(n, e.Name, e.Value); better != nil {
				err = fromRewrite(better)
			}
		}
		// Go's checker accepted the cell: what yaegi refuses now is a gap
		// of the interpreter, not an error in the cell.
		if e, ok := err.(*Error); ok && e.Name == "CompileError" && x.cc != nil {
			e.Name = "Unsupported"
			e.Value = "yaegi, the interpreter, cannot compile this code, which Go accepts (" + e.Value + "); write the construct more plainly"
			e.Trace[0] = e.Name + ": " + e.Value
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, x.s.internalError(r, x.rw, line)
		}
	}()
	prog, err = x.s.in.CompileAST(n)
	dropRoots(x.s.in)
	if err != nil {
		return nil, x.s.translateCompileError(err, x.rw, n, line)
	}
	return prog, nil
}

// execute runs a compiled program under the cell's context.
func (x *execution) execute(prog *interp.Program) (reflect.Value, error) {
	if prog == nil {
		return reflect.Value{}, nil
	}
	v, err, interrupted := x.s.runProgram(x.ctx, prog)
	if interrupted {
		x.s.filter.take()
		return reflect.Value{}, x.interrupted()
	}
	if err != nil {
		frames := x.s.filter.take()
		top := x.s.describe(position{serial: x.serial, line: x.line})
		if err == errGoexit {
			return reflect.Value{}, newError("Goexit", "runtime.Goexit ended the cell: its deferred calls ran, the rest of the cell did not; every variable keeps its value", top)
		}
		var p interp.Panic
		if errors.As(err, &p) {
			e := x.s.panicError(p.Value, frames)
			e.Trace = append(e.Trace, top)
			return reflect.Value{}, e
		}
		return reflect.Value{}, newError("RuntimeError", x.s.cleanMessage(err.Error()), append(x.s.frameLines(frames), top)...)
	}
	return v, nil
}

// checkDecls checks the declarations of a run before it is compiled:
// imports of unknown packages, names already bound to another package,
// repeated imports (dropped: yaegi refuses them), and types redefined
// differently (yaegi would keep the old definition).
func (x *execution) checkDecls(f *ast.File) error {
	s := x.s
	var decls []ast.Decl
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			decls = append(decls, d)
			continue
		}
		switch g.Tok {
		case token.IMPORT:
			var specs []ast.Spec
			for _, sp := range g.Specs {
				is := sp.(*ast.ImportSpec)
				p, _ := strconv.Unquote(is.Path.Value)
				pos := s.in.FileSet().Position(is.Pos())
				where := s.describe(position{serial: x.serial, line: pos.Line, col: pos.Column})
				if s.tables.members[p] == nil {
					return newError("CompileError", fmt.Sprintf("package %q is not available: cells can import the standard library (as of Go 1.22, yaegi's tables) and graphnb's packages", p), where)
				}
				name := s.tables.pkgName(p)
				if is.Name != nil {
					name = is.Name.Name
				}
				if name == "_" || name == "." {
					specs = append(specs, sp)
					continue
				}
				if x.here == nil {
					x.here = map[string]string{}
				}
				if old, ok := x.here[name]; ok {
					if old != p {
						return newError("CompileError", fmt.Sprintf("%s imported twice, as %q and %q", name, old, p), where)
					}
					continue
				}
				x.here[name] = p
				if old := s.importPath(name); s.boundPackage(name) && old != p {
					return newError("CompileError", fmt.Sprintf("%s already names package %q in this session (yaegi cannot rebind it); import %q under another name, e.g. import %s%s %q",
						name, old, p, strings.ToLower(p[:1]), name, p), where)
				} else if s.boundPackage(name) {
					continue // already imported: yaegi refuses a second import
				}
				specs = append(specs, sp)
			}
			if len(specs) == 0 {
				continue
			}
			g.Specs = specs
		case token.TYPE:
			for _, sp := range g.Specs {
				ts := sp.(*ast.TypeSpec)
				src := x.nodeText(ts)
				s.meta.RLock()
				old, ok := s.typeDecls[ts.Name.Name]
				s.meta.RUnlock()
				if ok && old.src != src {
					pos := s.in.FileSet().Position(ts.Pos())
					return newError("Unsupported", fmt.Sprintf("yaegi, the interpreter, cannot change type %s once declared (in %s); run the same declaration again or declare a type with a new name",
						ts.Name.Name, old.label), s.describe(position{serial: x.serial, line: pos.Line, col: pos.Column}))
				}
			}
		}
		decls = append(decls, d)
	}
	f.Decls = decls
	return nil
}

// nodeText returns the source of a node of the cell, with spaces
// normalised.
func (x *execution) nodeText(n ast.Node) string {
	// The parsed source is gone; rebuild the text from the cell's lines.
	fset := x.s.in.FileSet()
	start, end := fset.Position(n.Pos()), fset.Position(n.End())
	c := x.s.source(x.serial)
	var b strings.Builder
	for l := start.Line; l <= end.Line && l <= len(c.lines); l++ {
		line := c.lines[l-1]
		from, to := 0, len(line)
		if l == start.Line && start.Column-1 <= len(line) {
			from = start.Column - 1
		}
		if l == end.Line && end.Column-1 <= len(line) {
			to = end.Column - 1
		}
		if from <= to {
			b.WriteString(line[from:to])
			b.WriteByte('\n')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// autoImport imports the packages the cell uses without declaring them,
// and those the index and method-value rewrites need (see rewrite/index.go and
// rewrite/methodvalue.go), under the names they chose.
func (x *execution) autoImport() error {
	s := x.s
	imports := x.rw.Imports(func(name string) string { return s.tables.auto[name] }) // name → path
	for name, p := range imports {
		if x.here[name] == p {
			delete(imports, name) // the cell imports it itself (yaegi refuses a second import)
		}
	}
	if len(imports) == 0 {
		return nil
	}
	names := make([]string, 0, len(imports))
	for name := range imports {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("package main\nimport (\n")
	for _, name := range names {
		p := imports[name]
		if name == s.tables.pkgName(p) {
			fmt.Fprintf(&b, "\t%q\n", p)
		} else {
			fmt.Fprintf(&b, "\t%s %q\n", name, p)
		}
	}
	b.WriteString(")\n")
	f, err := parser.ParseFile(s.in.FileSet(), "_.go", b.String(), parser.SkipObjectResolution)
	if err != nil {
		return newError("InternalError", "automatic import: "+err.Error())
	}
	prog, err := x.compile(f, 0)
	if err != nil {
		return err
	}
	s.recordImports(f)
	_, err = x.execute(prog)
	return err
}

// translateCompileError turns a yaegi compile error into an *Error. An
// error without a cell position is placed at the unit's line, or at the
// identifier it names; yaegi's "constant definition loop" (an undefined
// name in a top-level declaration) names the undefined identifier.
func (s *Session) translateCompileError(err error, rw *rewrite.Cell, n ast.Node, line int) error {
	e := s.compileError(err)
	if strings.Contains(e.Value, "constant definition loop") {
		if name, l := s.undefinedName(rw, n); name != "" {
			return newError("CompileError", "undefined: "+name, s.describe(position{serial: rw.Serial(), line: l}))
		}
	}
	if len(e.Trace) == 1 && line > 0 {
		l := line
		for _, prefix := range []string{"undefined: ", "undefined selector: ", "undefined selector "} {
			if name, ok := strings.CutPrefix(e.Value, prefix); ok {
				if found := s.findName(n, name); found > 0 {
					l = found
				}
			}
		}
		e.Trace = append(e.Trace, s.describe(position{serial: rw.Serial(), line: l}))
	}
	return e
}

// findName returns the line of the first identifier called name in n.
func (s *Session) findName(n ast.Node, name string) int {
	line := 0
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && id.Name == name && line == 0 {
			line = s.in.FileSet().Position(id.Pos()).Line
		}
		return line == 0
	})
	return line
}

// undefinedName finds an identifier of n that nothing declares.
func (s *Session) undefinedName(rw *rewrite.Cell, n ast.Node) (string, int) {
	var name string
	var line int
	skip := map[*ast.Ident]bool{}
	ast.Inspect(n, func(m ast.Node) bool {
		if name != "" {
			return false
		}
		switch m := m.(type) {
		case *ast.File:
			skip[m.Name] = true // package main
		case *ast.SelectorExpr:
			skip[m.Sel] = true
		case *ast.KeyValueExpr:
			if id, ok := m.Key.(*ast.Ident); ok {
				skip[id] = true
			}
		case *ast.BranchStmt:
			if m.Label != nil {
				skip[m.Label] = true
			}
		case *ast.LabeledStmt:
			skip[m.Label] = true
		case *ast.Ident:
			// The kernel's own names (__gnb_r, the result variable) are
			// defined by the statement, not missing from it.
			if skip[m] || m.Name == "_" || strings.HasPrefix(m.Name, "__gnb") || rw.UserName(m.Name) || s.importPath(m.Name) != "" || universe[m.Name] {
				return true
			}
			name = m.Name
			line = s.in.FileSet().Position(m.Pos()).Line
		}
		return true
	})
	return name, line
}

// universe holds Go's predeclared identifiers and the prelude's.
var universe = map[string]bool{"true": true, "false": true, "nil": true, "iota": true, "_": true}

func init() {
	for _, k := range rewrite.PredeclaredNames() {
		universe[k] = true
	}
	universe["comparable"] = true
}

// recordStmt notes the variables a compiled top-level statement declared.
func (s *Session) recordStmt(st ast.Stmt) {
	s.meta.Lock()
	defer s.meta.Unlock()
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, l := range st.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
					s.kinds[id.Name] = kindVar
					s.setGeneric(id.Name, nil)
				}
			}
		}
	case *ast.DeclStmt:
		if g, ok := st.Decl.(*ast.GenDecl); ok {
			s.recordGen(g, "", nil)
		}
	}
}

// recordDecls notes what a compiled declaration run declared.
func (s *Session) recordDecls(f *ast.File, rw *rewrite.Cell) {
	// What needs the session's lock is computed first.
	texts := map[*ast.TypeSpec]string{}
	ints := map[*ast.FuncDecl]rewrite.Tri{}
	x := &execution{s: s, serial: rw.Serial()}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.TYPE {
				for _, sp := range d.Specs {
					texts[sp.(*ast.TypeSpec)] = x.nodeText(sp)
				}
			}
		case *ast.FuncDecl:
			ints[d] = rw.ResultInt(d)
		}
	}
	s.meta.Lock()
	defer s.meta.Unlock()
	label := s.sources[rw.Serial()].label()
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				s.recordImportsLocked(d)
				continue
			}
			s.recordGen(d, label, texts)
		case *ast.FuncDecl:
			if d.Recv == nil {
				s.kinds[d.Name.Name] = kindFunc
				s.setGeneric(d.Name.Name, d.Type)
				s.funcInts[d.Name.Name] = ints[d]
				continue
			}
			m := d.Name.Name
			if rewrite.ValidRender(d) {
				s.renderNames[m] = true
				if t := receiverType(d); t != "" {
					rc := s.renderTypes[t]
					if rc == nil {
						rc = &renderCase{order: len(s.renderTypes), methods: map[string]bool{}}
						s.renderTypes[t] = rc
					}
					rc.methods[m] = true
					s.renderDirty = true
				}
			}
		}
	}
}

// recordGen notes the names of a var, const or type declaration.
func (s *Session) recordGen(g *ast.GenDecl, label string, texts map[*ast.TypeSpec]string) {
	for _, sp := range g.Specs {
		switch sp := sp.(type) {
		case *ast.ValueSpec:
			k := kindVar
			if g.Tok == token.CONST {
				k = kindConst
			}
			for _, id := range sp.Names {
				if id.Name != "_" {
					s.kinds[id.Name] = k
					s.setGeneric(id.Name, nil)
				}
			}
		case *ast.TypeSpec:
			s.kinds[sp.Name.Name] = kindType
			s.setGeneric(sp.Name.Name, nil)
			if rewrite.PlainType(sp) {
				s.plainTypes = true
			}
			if _, ok := sp.Type.(*ast.StructType); ok && sp.TypeParams == nil {
				s.structTypes[sp.Name.Name] = true
				s.renderDirty = true
			}
			if _, ok := s.typeDecls[sp.Name.Name]; !ok && texts != nil {
				s.typeDecls[sp.Name.Name] = typeDecl{src: texts[sp], label: label}
			}
		}
	}
}

// recordImports notes the package names an import declaration binds.
func (s *Session) recordImports(f *ast.File) {
	s.meta.Lock()
	defer s.meta.Unlock()
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			s.recordImportsLocked(g)
		}
	}
}

func (s *Session) recordImportsLocked(g *ast.GenDecl) {
	for _, sp := range g.Specs {
		is := sp.(*ast.ImportSpec)
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			continue
		}
		name := s.tables.pkgName(p)
		if is.Name != nil {
			name = is.Name.Name
			if name == "_" || name == "." {
				continue
			}
		}
		s.imports[name] = p
	}
}

// kind returns the kind of a name that a cell declared, or "".
func (s *Session) kind(name string) string {
	s.meta.RLock()
	defer s.meta.RUnlock()
	return s.kinds[name]
}

// boundPackage reports whether name is bound to a package in the
// interpreter (by an import, explicit or automatic).
func (s *Session) boundPackage(name string) bool {
	s.meta.RLock()
	defer s.meta.RUnlock()
	_, ok := s.imports[name]
	return ok
}

// importPath returns the package a bare name denotes in a cell: a bound
// import, or the automatic import.
func (s *Session) importPath(name string) string {
	s.meta.RLock()
	p, ok := s.imports[name]
	s.meta.RUnlock()
	if ok {
		return p
	}
	return s.tables.auto[name]
}

func (s *Session) funcInt(name string) (rewrite.Tri, bool) {
	s.meta.RLock()
	defer s.meta.RUnlock()
	t, ok := s.funcInts[name]
	return t, ok
}

// renderProbes returns the render methods cells declared, in the order
// they are probed.
func (s *Session) renderProbes(more map[string]bool) []string {
	s.meta.RLock()
	defer s.meta.RUnlock()
	if len(s.renderNames) == 0 && len(more) == 0 {
		return nil
	}
	var names []string
	for _, m := range []string{"String", "Error", "HTML", "Markdown", "SVG", "PNG", "MIMEBundle"} {
		if s.renderNames[m] || more[m] {
			names = append(names, m)
		}
	}
	return names
}

// Complete returns completions for code at cursor (see complete.Complete).
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	return complete.Complete(code, cursor, s)
}

// Inspect returns the documentation of the symbol at cursor (see
// complete.Inspect).
func (s *Session) Inspect(code string, cursor, detail int) (display.Bundle, bool) {
	data, found := complete.Inspect(code, cursor, detail, s)
	return display.Bundle(data), found
}

// IsComplete says whether code is a complete cell (see complete.IsComplete).
func (s *Session) IsComplete(code string) (status, indent string) {
	return complete.IsComplete(code)
}

var _ complete.Scope = (*Session)(nil)

// LanguageInfo returns the package's LanguageInfo.
func (s *Session) LanguageInfo() map[string]any { return LanguageInfo() }

// LanguageInfo is the Jupyter language_info of the cells a Session runs:
// Go, at the version graphnb was built with. The kernel announces it in
// kernel_info_reply, and `graphnb exec` writes it into a notebook's
// metadata.
func LanguageInfo() map[string]any {
	return map[string]any{
		"name":            "go",
		"version":         strings.TrimPrefix(runtime.Version(), "go"),
		"mimetype":        "text/x-go",
		"file_extension":  ".go",
		"pygments_lexer":  "go",
		"codemirror_mode": "go",
	}
}
