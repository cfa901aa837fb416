// Package complete answers the editor's questions about Go code in a
// notebook: completion, inspection (signature and doc of the symbol at the
// cursor, available offline) and whether a cell is complete.
//
// It sees the live interpreter only through Scope (names, package tables,
// values of variables) and never evaluates code: completion after `x.`
// reads the value of the variable x by reflection, follows exported
// fields, and stops at calls and index expressions. Documentation comes
// from package docindex, embedded in the binary. IsComplete uses go/scanner
// only.
//
// Cursor positions and ranges are in Unicode code points, as Jupyter's
// messaging protocol (5.2 and later) defines cursor_pos.
package complete
