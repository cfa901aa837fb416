// Package session runs notebook cells: one persistent yaegi interpreter
// (github.com/traefik/yaegi v0.16.1) per kernel, with the standard library
// and graphnb's compiled packages (through the generated tables of
// symbols).
//
// *Session implements the kernel's Engine (Execute, Complete, Inspect,
// IsComplete; the kernel's Cell is an alias of session.Cell), its
// CallbackRunner (RunCallback: a comm's callbacks run as cells do) and
// complete.Scope (Names, Packages, Members, Value); notebook's executor
// (graphnb exec) runs cells through the same Session. Failures are *Error
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
// its name, and every graphnb package of the symbols tables: graph,
// gen, graphio, spec, bfs, sssp, mst, apsp, densebf, bench, plots, gpu,
// cancel, display (and the packages of Options.Symbols). Names that
// several standard packages share are resolved deliberately:
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
// # Go's type checker in front of the interpreter
//
// Every cell is type-checked with go/types (check.go) before anything of
// it runs: as a file of the session's package main (declarations at
// package level, statements in a function body), against the objects
// earlier cells declared and the real types of the importable packages
// (package typedata: export data embedded in the binary), in the language
// of Go 1.22, the one yaegi implements. A cell Go rejects is a
// CompileError with Go's message at the cell's line; what yaegi refuses
// after Go accepted is Unsupported (an interpreter gap). Top-level
// variables need no use, the final expression is the result; within a
// cell Go's rules hold (x := 1 then x := 2 is refused).
//
// Redefinitions: a cell may declare any name again. The earlier
// declarations that use it (found from the checker's resolutions) are
// checked again with the new definition — a refusal names the one that no
// longer fits — and the interpreter compiles the dependent functions,
// constants and methods again right after the code that declares the name
// (yaegi binds a name when it compiles its user). Methods are compiled
// through slots (rewrite/methodslot.go: yaegi keeps a method's first definition),
// so a method's body can change, not its signature. func main is known to
// the interpreter as __gnb_main (yaegi runs a package's main after every
// program), so it runs when called.
//
// # Typed passes
//
// The checker's facts drive the rewrites that make yaegi run a cell as Go
// would, or the refusals of what it cannot run. The rewriter is a package
// of its own, session/internal/rewrite: the session hands it the cell's
// parsed runs and the checker's facts (rewrite.Cell) and answers its
// questions about earlier cells (rewrite.Env, env.go). Its passes.go
// lists the passes in order, each a named value with the one-line reason
// yaegi needs it, each typed pass in a file typed_NAME.go with the exact
// rewrite in its doc. Among them:
// constants written as their exact typed values; explicit type arguments;
// top-level definitions converted to their types; assignments of several
// values in Go's order; defer evaluating its call where it stands; exact
// per-iteration loop variables; range over strings and with outer
// variables; method expressions and values bound as Go binds them; type
// switches as the assertions Go defines them by; receives and composite
// literals stored; print and println to standard error with the
// runtime's formatting; recover returning Go's values and runtime errors;
// fmt, encoding/json and reflect seeing the cells' types as Go does, or a
// refusal; unsafe's constants; and the refusals of a standard library
// newer than Go 1.22, of reflect's view of the cells' methods, of
// finalizer literals, of runtime.Callers, of self-referencing types.
// Older syntactic passes (rewrite/rewrite.go, index.go, methodvalue.go,
// commaok.go, vars.go) run after them: min, max and clear from the
// prelude, range over an integer, goroutine guards, select fixes, the
// stale comma-ok values, var declarations that read earlier variables.
// defer in the top-level code of a cell is refused: yaegi would run the
// deferred call again after every later cell.
//
// docs/conformance measures the result on the Go distribution's own test
// programs.
//
// # Limitations left
//
//   - A type cannot be changed once declared (yaegi keeps the first
//     definition); declaring it again identically is fine, differently is
//     refused with a message ("Unsupported").
//   - Panic tracebacks name the top-level statement and the functions the
//     panic went through, not the line inside a function (yaegi logs a
//     function's frame at its entry); an unrecovered panic's message is
//     yaegi's, which differs from Go's in places (recovered values are
//     Go's runtime errors).
//   - A value of a cell's type in an interface{} loses the type's name and
//     methods to compiled code: fmt prints it by its fields, %T names its
//     structure; where the checker sees the cell's type statically it is
//     right, where it cannot (an interface operand that may hold one) %T
//     is refused; a Stringer stored in an any prints without String.
//   - Generic functions of compiled packages are not exposed (yaegi
//     extract skips them), and the standard library is Go 1.22's.
//   - yaegi keeps a little memory per compiled cell (under 1 KB for "1+1"),
//     and every top-level definition adds a slot to its global frame that
//     later cells pay for.
//   - An interrupted program blocked in a compiled call that does not poll
//     cancel.Check cannot be stopped: the next cell waits for it.
//
// # Magics
//
// A line starting with % (column 1, outside strings and comments) is a
// magic; %% on the first line makes a cell magic. %help lists the magics,
// the dialect and the display API; %time on its own line times the rest
// of the cell and prints "wall time: 1.23 ms", %time STATEMENT (IPython's
// form) times that one statement, which runs in place, and %%time the
// whole cell; %env lists, shows or sets environment variables; %doc NAME
// (or NAME?) shows Go documentation in the pager (Cell.Page) and also as
// a display, so that a saved or converted notebook keeps it; %gpu shows
// the GPUs (or why there is none); %%cuda NAME compiles the rest of the
// cell as CUDA C with NVRTC for the default GPU, reports compile errors at
// cell lines, and binds NAME to the *gpu.Module, or to nil on a machine
// without a CUDA GPU (the cell says so; the module's methods then return
// errors, so cells test NAME == nil or check them). An unknown magic is a
// MagicError.
//
// # Interrupts
//
// Cancelling Execute's context stops the running program: interpreted
// code at its next step, time.Sleep at once (the session replaces it),
// and graphnb's compiled algorithms at their next cancel.Check (the
// session requests cancellation, and clears the request before the next
// cell). The cell returns an Interrupted error; every variable survives,
// and so does every function value made before (stop.go restores the run
// id yaegi gave them once the stopped program has ended). A goroutine that
// panics while a cell runs fails that cell; one that panics between cells
// is reported through the AsyncError of the cell that started it.
//
// RunCallback (callback.go) runs a function that compiled code calls on
// the cells' behalf — a comm's OnMessage, a widget's OnChange, closures of
// the cells — the same way: one at a time with the cells, on a goroutine
// of its own, stopped by cancelling its context, a panic returned as an
// *Error whose traceback names the cell lines it went through.
package session
