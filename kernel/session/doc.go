// Package session runs notebook cells: one persistent yaegi interpreter
// (github.com/traefik/yaegi v0.16.1) per kernel, with the standard library
// and graphnb's compiled packages (through the generated tables of
// kernel/symbols).
//
// *Session implements the kernel's Engine (Execute, Complete, Inspect,
// IsComplete) structurally — Execute takes a session.Cell, which has the
// fields of kernel.Cell, so the kernel converts with session.Cell(c) — and
// complete.Scope (Names, Packages, Members, Value). Failures are *Error
// values with Jupyter's ename, evalue and traceback.
//
// # Cells
//
// A cell may mix imports, declarations and statements. yaegi picks how to
// compile a source by its first token, so the session cuts each cell with
// go/scanner, at brace depth 0, into runs of declarations (import, const,
// var, type, func and method declarations; "func(){…}()" at the start of a
// line is a statement) and runs of statements. Every run is parsed under a
// line directive naming the cell, so every position yaegi reports is a
// cell position. The whole cell is parsed, rewritten and compiled before
// any of it runs: a syntax or compile error runs nothing. Declaration runs
// compile as one program each; statements one by one, so that a panic is
// located at its top-level statement. Each program runs under the cell's
// context.
//
// The value of a final expression statement is the cell's result
// (execute_result). Whether it has a value, and how many, is decided from
// the code and the symbol tables, not from what yaegi's Eval returns (stale
// after an if statement, only the first value of a multi-value call): a
// call without results shows nothing, one with several shows "(a, b)", and
// fmt's Print functions show nothing. text/plain is display.Render's (%v;
// strings quoted; errors their message; "nil"); rich MIME types come from
// display.Render for compiled values and, for values of types declared in
// cells (whose methods compiled code cannot see), from calling their
// String, Error, HTML, Markdown, SVG, PNG and MIMEBundle methods in the
// interpreter. The session also installs a display renderer
// (display.SetRenderer) so that display.Show and display handles render
// struct types declared in cells.
//
// # Automatic imports
//
// A selector pkg.X whose pkg is not declared by the cell or an earlier one,
// and is not imported yet, imports pkg's path first. The table
// (AutoImports) holds every package of yaegi's standard library tables by
// its name, and graphnb's packages: graph, gen, graphio, spec, bfs, sssp,
// mst, apsp, densebf, cancel, display. Names that several standard
// packages share are resolved deliberately:
//
//	rand      math/rand/v2   (not math/rand, not crypto/rand)
//	template  text/template  (not html/template)
//	scanner   text/scanner   (not go/scanner)
//	pprof     runtime/pprof  (not net/http/pprof)
//
// An explicit import always wins: import "crypto/rand" binds rand for the
// rest of the session (yaegi cannot rebind a package name, so a later
// import of another rand is refused with a message that suggests an alias).
// Importing a package twice is harmless; importing a package outside the
// tables (iter, unique, third-party modules) is a clear CompileError.
//
// # Go features yaegi lacks, supplied
//
//   - min, max: generic functions of a prelude (ordered types, NaN as in
//     Go); clear: a compiled helper (maps and slices).
//   - range over an integer: rewritten into a three-clause loop when the
//     operand is clearly an integer (literal, constant, len/cap, integer
//     conversion, arithmetic of those, a function or method with a single
//     integer result, a variable whose declaration or current value is an
//     integer). Otherwise yaegi fails and the cell reports "Unsupported"
//     with the fix: write the 3-clause loop, or convert: range int(n).
//   - per-iteration loop variables: a loop whose body has a function
//     literal using a loop variable, or takes its address (&v, v[:] of an
//     array, a pointer method), gets fresh copies of the variables each
//     iteration (typed_loopvar.go: the checker's objects say which
//     identifiers are the variable); a three-clause loop whose body may
//     change its variable copies it back at the end of the iteration.
//   - panics in goroutines: `go f(x)` evaluates f and x at the go statement
//     and runs the call under a recover that reports the panic through the
//     cell's AsyncError; the process survives.
//   - select statements: break and continue in select cases are rewritten
//     around yaegi bugs, and top-level code holding a select runs inside a
//     function literal.
//   - top-level definitions whose value yaegi cannot type (index.go): an
//     index of a compiled slice, array, pointer to an array or map, or of
//     a string (`root := g.Roots(1, 1)[0]`, `p := s[1]`), and a call of a
//     generic function (`lo := min(a, b)`), in x := …, var x = … and the
//     init statements of top-level if, for and switch statements, are
//     converted to their type, inferred from the symbol tables, the cell's
//     declarations and the values of earlier cells (`int32(…)`,
//     `mst.Edge(…)`, importing the package when needed); under & the
//     operand is converted instead, so the element stays addressable.
//     What the session cannot type is left, and yaegi's error replaced by
//     an "Unsupported" one that names the expression and the fix.
//   - method values of compiled pointer types (methodvalue.go): yaegi
//     types `bb.String` (bb a *bytes.Buffer) as func(*bytes.Buffer)
//     string, so assigning, returning or passing it fails; anywhere in
//     the cell, such a value becomes a closure bound to the receiver when
//     evaluated, its types printed from the inferred receiver type
//     (function parameters, var declarations, definitions and range
//     variables are followed into bodies). Where the receiver cannot be
//     typed, yaegi's error is replaced by one that spells the closure.
//   - definitions of several variables from one value: a top-level
//     comma-ok definition (v, ok := m[k], <-ch, x.(T)) becomes a call of a
//     function literal returning (V, bool); a compound top-level statement
//     (if, for, switch, block) holding such a definition, or a, b := f(),
//     runs inside a function literal (yaegi declares nothing there
//     otherwise).
//   - stale comma-ok values: after v, ok := m[k] or n, ok := x.(T) (and
//     the = forms) whose ok is false, v is set to the zero value (yaegi
//     keeps the old one, in loops too) when m and k have no side effects.
//   - var declarations that read a variable of an earlier cell (yaegi:
//     "variable definition loop") or call min or max (yaegi: the zero
//     value) run as definitions (var y T = x becomes y := T(x)), before
//     the declarations of their cell, or after them when they read one.
//
// defer in the top-level code of a cell is refused with a clear error:
// yaegi would run the deferred call again after every later cell.
//
// # Limitations left
//
//   - A type cannot be changed once declared (yaegi keeps the first
//     definition); declaring it again identically is fine, differently is
//     refused with a message ("Unsupported").
//   - Within one cell, `x := 1` then `x := 2` is accepted (Go refuses it).
//   - Panic tracebacks name the top-level statement and the functions the
//     panic went through, not the line inside a function (yaegi logs a
//     function's frame at its entry).
//   - yaegi's runtime messages differ from Go's in places (an index out of
//     range on a slice reads "reflect: slice index out of range").
//   - Generic functions of compiled packages are not exposed (yaegi
//     extract skips them), and the standard library is Go 1.22's (no iter,
//     no maps.Keys, slices' generic functions only in part).
//   - An interrupt stops interpreted code, time.Sleep and compiled code
//     that polls cancel.Check; a compiled call that does neither runs on in
//     the background (the cell returns after 500 ms). Interrupting also
//     stops goroutines that cells started.
//   - Two struct types declared with identical fields are one type to
//     compiled code; the display renderer uses the first one's methods.
//   - Compiled code does not see the methods of types declared in cells:
//     errors.As with such a target panics, and fmt prints them without
//     their String method when they sit inside compiled containers.
//   - A value of a type declared in a cell, stored in a variable of the
//     predeclared type error, loses its Error method in yaegi (calling
//     e.Error() panics); returning it from a function as an error and
//     showing it works (the cell's result reads its message).
//   - yaegi keeps a little memory per compiled cell (under 1 KB for "1+1").
//   - Every top-level definition adds a slot to yaegi's global frame that
//     later cells pay for: after some thousands of definitions, a cell
//     takes tens of microseconds and kilobytes more.
//   - The values of earlier cells tell their static types only until a
//     cell declares a type that is neither a struct nor an interface
//     (yaegi shows a `type ID int32` value as an int32); from then on an
//     index of such a variable in a top-level definition must be
//     converted by hand (the error says how). What the symbol tables type
//     (g.Roots(1, 1)[0], m.Edges[0]) is not affected.
//   - A generic function of a cell called with a value of a compiled type
//     (first(g.Roots(1, 1))) fails in yaegi, in functions too; so does
//     one with a variadic parameter given no variadic argument (the
//     prelude's min(x) is rewritten to min(x, x)).
//
// # Magics
//
// A line starting with % (column 1, outside strings and comments) is a
// magic; %% on the first line makes a cell magic. %help lists the magics,
// the dialect and the display API; %time (on its own line) times the rest
// of the cell and prints "wall time: 1.23 ms", %%time the whole cell; %env
// lists, shows or sets environment variables; %doc NAME (or NAME?) shows
// Go documentation in the pager; %gpu shows the GPUs (or why there is
// none); %%cuda NAME compiles the rest of the cell as CUDA C with NVRTC
// for the default GPU, reports compile errors at cell lines, and binds NAME
// to the *gpu.Module. An unknown magic is a MagicError.
//
// # Interrupts
//
// Cancelling Execute's context stops the running program: interpreted
// code at its next step, time.Sleep at once (the session replaces it),
// and graphnb's compiled algorithms at their next cancel.Check (the
// session requests cancellation, and clears the request before the next
// cell). The cell returns an Interrupted error; every variable survives.
package session
