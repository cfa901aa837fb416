package session

import (
	"context"
	"fmt"
	"go/token"
	"reflect"
	"slices"
	"strings"

	"github.com/graphnb/graphnb/display"
)

// Magics that the program building a Session adds (Options.LineMagics,
// Options.CellMagics): cmd/graphnb adds %gpu and %%cuda (package magics),
// so the interpreter itself knows nothing of GPUs. The built-in magics
// (%help, %time, %%time, %doc, %env) cannot be replaced.

// A LineMagic runs "%NAME ARGS", a line of its own in a cell, before the
// cell's code. Its result, when not nil, is shown as display.Show shows
// it; an error fails the cell before its code runs.
type LineMagic struct {
	// Usage is the line %help shows, e.g. "%gpu             the GPUs".
	Usage string
	// Run does the work; args is the rest of the line, trimmed.
	Run func(ctx context.Context, args string) (any, error)
}

// A CellMagic runs a whole cell that starts with "%%NAME ARGS".
type CellMagic struct {
	// Usage is what %help shows (one or more lines).
	Usage string
	// Run does the work.
	Run func(ctx context.Context, c MagicCell) (MagicResult, error)
}

// MagicCell is the cell a CellMagic runs.
type MagicCell struct {
	// Count is the cell's execution count; errors name lines as
	// "cell[Count] line N".
	Count int
	// Args is the rest of the magic line, trimmed.
	Args string
	// Body is the cell below the magic line; BodyLine is the cell line of
	// its first line.
	Body     string
	BodyLine int
}

// MagicResult is what a CellMagic gives back.
type MagicResult struct {
	// Show is the cell's result (nil: none): a display.Bundle as it is,
	// anything else as display.Render renders it.
	Show any
	// Bind defines variables for later cells: name → value. A value's
	// dynamic type must be one cells can name (a type of the standard
	// library or of a package in Options.Symbols); a nil interface
	// cannot be bound, a typed nil pointer can.
	Bind map[string]any
}

// MagicError returns an error shown as "NAME: message" under the cell,
// with the given location lines ("cell[3] line 2: …") as its traceback:
// what a magic returns for its user's mistakes.
func MagicError(name, message string, locations ...string) error {
	return newError(name, message, locations...)
}

// runCellMagic runs the added cell magic name (ok false when there is
// none).
func (x *execution) runCellMagic(name, args, code string) (b display.Bundle, ok bool, err error) {
	m, ok := x.s.cellMagics[name]
	if !ok {
		return nil, false, nil
	}
	// The body starts on the line after the magic line.
	start := strings.Index(code, "%%")
	body, bodyLine := "", strings.Count(code[:start], "\n")+2
	if nl := strings.IndexByte(code[start:], '\n'); nl >= 0 {
		body = code[start+nl+1:]
	}
	res, err := m.Run(x.ctx, MagicCell{Count: x.cell.Count, Args: strings.TrimSpace(args), Body: body, BodyLine: bodyLine})
	if err != nil {
		return nil, true, err
	}
	for name, v := range res.Bind {
		if err := x.bind(name, v); err != nil {
			return nil, true, err
		}
	}
	switch v := res.Show.(type) {
	case nil:
		return nil, true, nil
	case display.Bundle:
		return v, true, nil
	}
	return display.Render(res.Show), true, nil
}

// bind defines the variable name, for later cells, holding v.
func (x *execution) bind(name string, v any) error {
	if !token.IsIdentifier(name) || token.IsKeyword(name) {
		return newError("MagicError", fmt.Sprintf("a magic cannot define %q: not a Go identifier", name))
	}
	t := reflect.TypeOf(v)
	if t == nil {
		return newError("MagicError", fmt.Sprintf("a magic cannot define %s as an untyped nil", name))
	}
	x.s.boundMu.Lock()
	x.s.bound[name] = v
	x.s.boundMu.Unlock()
	bind := &execution{s: x.s, ctx: x.ctx, cell: x.cell, serial: x.s.register(name, x.cell.Count)}
	_, err := bind.run(fmt.Sprintf("%s := __gnb.Bound(%q).(%s)", name, name, t.String()))
	return err
}

// boundValue hands a magic's bound value to the interpreter (__gnb.Bound).
func (s *Session) boundValue(name string) any {
	s.boundMu.Lock()
	defer s.boundMu.Unlock()
	return s.bound[name]
}

// magicUsage is the %help text of the added magics, sorted by name.
func (s *Session) magicUsage() string {
	var lines []string
	for _, name := range sortedKeys(s.lineMagics) {
		lines = append(lines, "  "+s.lineMagics[name].Usage)
	}
	for _, name := range sortedKeys(s.cellMagics) {
		lines = append(lines, "  "+strings.ReplaceAll(s.cellMagics[name].Usage, "\n", "\n  "))
	}
	return strings.Join(lines, "\n")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// builtinMagic reports whether name is a built-in magic.
func builtinMagic(name string) bool {
	switch name {
	case "help", "time", "doc", "env", "":
		return true
	}
	return false
}
