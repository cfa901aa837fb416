package graphio

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error a reader returns for bad input is a
// *ParseError whose Err wraps one of these, so callers can test the kind
// with errors.Is and the position with errors.As.
var (
	// ErrSyntax: a field is not a number, a line has the wrong number of
	// fields, or a line is of an unknown kind.
	ErrSyntax = errors.New("syntax error")
	// ErrHeader: the header (DIMACS p line, Matrix Market banner or size
	// line, binary header) is missing, repeated or malformed.
	ErrHeader = errors.New("bad header")
	// ErrUnsupported: a well-formed header names a variant this package
	// does not read (Matrix Market array, complex, hermitian,
	// skew-symmetric; a binary file of a later version).
	ErrUnsupported = errors.New("unsupported format variant")
	// ErrRange: a vertex id lies outside the range the header declares, or
	// a number does not fit its type (a weight that overflows float32).
	ErrRange = errors.New("value out of range")
	// ErrCount: the number of entries differs from the header's count.
	ErrCount = errors.New("entry count does not match the header")
	// ErrTooLarge: a declared or implied size exceeds the reader's limits
	// (ReadOptions.MaxVertices, ReadOptions.MaxEdges) or the input's size.
	ErrTooLarge = errors.New("size exceeds the limits")
	// ErrTruncated: the input ends inside a binary section.
	ErrTruncated = errors.New("input ends early")
	// ErrChecksum: a binary file's header or data checksum does not match.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrCorrupt: a binary file's arrays do not form a valid CSR.
	ErrCorrupt = errors.New("corrupt graph data")
	// ErrFormat: a file name's extension names no format this package
	// knows, or the Format value is not one of the constants.
	ErrFormat = errors.New("unknown graph format")
	// ErrWeight: a writer cannot represent a weight in the chosen format
	// (DIMACS takes whole numbers only).
	ErrWeight = errors.New("weight not representable in the format")
)

// ParseError reports bad input with its position, in the manner of
// encoding/csv.ParseError. Line and Column are 1-based; Line is 0 for
// errors that have no line (binary files), Column is 0 where no single
// field is at fault. Column counts bytes, not runes.
type ParseError struct {
	File   string // ReadOptions.Name, or "" when none was given
	Line   int    // 1-based line number, 0 if not applicable
	Column int    // 1-based byte column of the offending field, 0 if not applicable
	Err    error  // the cause; wraps one of the Err… sentinels
}

// Error renders the error as "graphio: FILE:LINE:COLUMN: cause", leaving
// out the parts that are unknown.
func (e *ParseError) Error() string {
	pos := e.File
	switch {
	case e.Line > 0 && e.Column > 0 && pos != "":
		pos = fmt.Sprintf("%s:%d:%d", pos, e.Line, e.Column)
	case e.Line > 0 && pos != "":
		pos = fmt.Sprintf("%s:%d", pos, e.Line)
	case e.Line > 0 && e.Column > 0:
		pos = fmt.Sprintf("line %d, column %d", e.Line, e.Column)
	case e.Line > 0:
		pos = fmt.Sprintf("line %d", e.Line)
	}
	if pos == "" {
		return "graphio: " + e.Err.Error()
	}
	return "graphio: " + pos + ": " + e.Err.Error()
}

// Unwrap returns the cause, so errors.Is(err, ErrSyntax) and the like work.
func (e *ParseError) Unwrap() error { return e.Err }

// perr builds a *ParseError whose cause reads "sentinel: message".
func perr(file string, line, col int, sentinel error, format string, args ...any) *ParseError {
	return &ParseError{File: file, Line: line, Column: col,
		Err: fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))}
}
