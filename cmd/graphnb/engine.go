package main

import (
	"context"

	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/kernel"
	"github.com/graphnb/graphnb/magics"
	"github.com/graphnb/graphnb/session"
	"github.com/graphnb/graphnb/symbols"
)

// The composition root: the interpreter (package session) knows nothing
// of graphnb's packages or GPUs, and the Jupyter server (package kernel)
// nothing of the interpreter. Both front ends — the kernel and graphnb
// exec — run cells in a session made from sessionOptions.

// sessionOptions is the interpreter as graphnb runs it: graphnb's
// packages for cells (package symbols) and the %gpu and %%cuda magics.
func sessionOptions() session.Options {
	return session.Options{Symbols: symbols.Symbols, LineMagics: magics.Line(), CellMagics: magics.Cell()}
}

// engine serves a session to the Jupyter server.
type engine struct{ *session.Session }

var _ kernel.Engine = engine{}

// The session runs comm callbacks as it runs cells (interruptible,
// panics with cell tracebacks).
var _ kernel.CallbackRunner = engine{}

// Execute runs a cell; kernel.Cell and session.Cell have the same fields.
func (e engine) Execute(ctx context.Context, code string, c kernel.Cell) (display.Bundle, error) {
	return e.Session.Execute(ctx, code, session.Cell(c))
}
