package notebook

import (
	"fmt"
	"regexp"
)

// cellIDRE is nbformat 4.5's pattern for cell ids (1 to 64 characters).
var cellIDRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Validate checks what nbformat 4 requires of a notebook held in memory:
// version 4, known cell and output types, well-formed and unique cell
// ids, and a stream name on stream outputs. Parse calls it.
func (nb *Notebook) Validate() error {
	if nb.NBFormat != 4 {
		return &FormatError{Msg: fmt.Sprintf("nbformat %d: graphnb handles nbformat 4 notebooks only", nb.NBFormat), Err: ErrVersion}
	}
	if nb.NBFormatMinor < 0 {
		return &FormatError{Msg: fmt.Sprintf("nbformat_minor %d is negative", nb.NBFormatMinor), Err: ErrInvalid}
	}
	ids := map[string]int{}
	for i, c := range nb.Cells {
		if c == nil {
			return &FormatError{Where: cellName(i, ""), Msg: "nil cell", Err: ErrInvalid}
		}
		bad := func(format string, a ...any) error {
			return &FormatError{Line: c.line, Column: c.col, Where: cellName(i, c.ID), Msg: fmt.Sprintf(format, a...), Err: ErrInvalid}
		}
		switch c.Type {
		case Code, Markdown, Raw:
		default:
			return bad(`unknown cell_type %q (want "code", "markdown" or "raw")`, c.Type)
		}
		if c.ID != "" {
			if !cellIDRE.MatchString(c.ID) {
				return bad("the id %q is not 1 to 64 letters, digits, '-' or '_'", c.ID)
			}
			if j, dup := ids[c.ID]; dup {
				return bad("the id %q is also the id of cell %d; cell ids must be unique", c.ID, j+1)
			}
			ids[c.ID] = i
		}
		if c.ExecutionCount < 0 {
			return bad("negative execution_count %d", c.ExecutionCount)
		}
		if c.Type != Code && len(c.Outputs) > 0 {
			return bad("a %s cell has outputs; only code cells have them", c.Type)
		}
		for j, o := range c.Outputs {
			if o == nil {
				return bad("output %d is nil", j+1)
			}
			badOut := func(format string, a ...any) error {
				e := bad(format, a...).(*FormatError)
				e.Where += fmt.Sprintf(", output %d", j+1)
				if o.line > 0 {
					e.Line, e.Column = o.line, o.col
				}
				return e
			}
			switch o.Type {
			case Stream:
				if o.Name == "" {
					return badOut("a stream output needs a name (stdout or stderr)")
				}
			case DisplayData, ExecuteResult, Error:
			default:
				return badOut(`unknown output_type %q (want "stream", "display_data", "execute_result" or "error")`, o.Type)
			}
		}
	}
	return nil
}
