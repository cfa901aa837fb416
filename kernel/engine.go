package kernel

import (
	"context"

	"github.com/graphnb/graphnb/display"
)

// Engine runs cells and answers the shell requests that need the
// interpreter. cmd/graphnb serves the interpreter session (package
// session) through it; tests use fakes.
//
// The server calls Execute, Complete, Inspect and IsComplete from one
// goroutine, one request at a time, and cancels Execute's context on an
// interrupt. An Engine may also implement CallbackRunner (comm.go) to run
// the callbacks of comms as it runs cells.
type Engine interface {
	// Execute runs one cell. It returns the bundle of the cell's final
	// expression for execute_result (nil when there is none) or an error;
	// an error that implements CellError becomes an IOPub error message
	// with its name, value and traceback. Output written to stdout/stderr
	// is captured by the server at the file-descriptor level; explicit
	// displays go through the display package's sink.
	Execute(ctx context.Context, code string, cell Cell) (display.Bundle, error)
	// Complete returns the matches for the code at cursor (a position in
	// Unicode code points, as protocol 5.3 defines it) and the range
	// [start, end) they replace.
	Complete(code string, cursor int) (matches []string, start, end int)
	// Inspect returns documentation of the symbol at cursor; detail 0 or 1
	// as in inspect_request. found is false when there is nothing to say.
	Inspect(code string, cursor, detail int) (data display.Bundle, found bool)
	// IsComplete says whether code is "complete", "incomplete" (then
	// indent is the suggested indentation of the next line) or "invalid".
	IsComplete(code string) (status, indent string)
	// LanguageInfo is kernel_info's language_info: name, version,
	// mimetype, file_extension, pygments_lexer, codemirror_mode.
	LanguageInfo() map[string]any
}

// Cell describes the execution the engine is asked for.
type Cell struct {
	// Count is the execution count the cell runs under.
	Count int
	// Silent: run the cell but return no execute_result.
	Silent bool
	// AsyncError reports a failure after Execute has returned (a panic in
	// a goroutine the cell started); the server publishes it as an IOPub
	// error under the cell's parent header.
	AsyncError func(err error)
	// Page shows data in the front end's pager (an execute_reply payload
	// with source "page").
	Page func(data display.Bundle)
}

// CellError is an error with Jupyter's error fields. Errors from Execute
// that do not implement it are shown with ename "Error".
type CellError interface {
	error
	// EName is the error's name, e.g. "panic", "CompileError",
	// "Interrupted".
	EName() string
	// EValue is the one-line message.
	EValue() string
	// Traceback is the lines to show, cell line numbers included; it may
	// use ANSI colours.
	Traceback() []string
}
