package session

import (
	"fmt"
	"go/token"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/session/complete"
)

// cellMagic reports whether the cell starts with a cell magic ("%%name
// args" on its first non-blank line) and returns that line without "%%".
func cellMagic(code string) (first string, ok bool) {
	trimmed := strings.TrimLeft(code, " \t\r\n")
	if !strings.HasPrefix(trimmed, "%%") {
		return "", false
	}
	first, _, _ = strings.Cut(trimmed, "\n")
	return strings.TrimSpace(first[2:]), true
}

// cellMagic runs a cell magic other than %%time: one of
// Options.CellMagics.
func (x *execution) cellMagic(first, code string) (display.Bundle, error) {
	name, args, _ := strings.Cut(first, " ")
	if b, ok, err := x.runCellMagic(name, args, code); ok {
		return b, err
	}
	return nil, newError("MagicError", fmt.Sprintf("unknown cell magic %%%%%s; %%help lists the magics", name))
}

// checkMagics validates the line magics of a cell before anything runs.
func (x *execution) checkMagics(ms []magic) error {
	for _, m := range ms {
		switch m.name {
		case "help":
		case "doc":
			if m.args == "" {
				return newError("MagicError", "%doc NAME: name a package, function, type or variable, e.g. %doc strings.Split")
			}
		case "time": // "%time" times the rest of the cell, "%time STATEMENT" that statement
		case "env":
			if name, _, ok := strings.Cut(m.args, "="); ok && strings.TrimSpace(name) == "" {
				return newError("MagicError", "%env NAME=value: the name is missing")
			}
		case "":
			return newError("MagicError", fmt.Sprintf("a lone %% on line %d is not a magic; %%help lists the magics", m.line))
		default:
			if _, ok := x.s.lineMagics[m.name]; !ok {
				return newError("MagicError", fmt.Sprintf("unknown magic %%%s (line %d); %%help lists the magics", m.name, m.line))
			}
		}
	}
	return nil
}

// lineMagic runs one line magic; output goes to the session's stdout.
func (x *execution) lineMagic(m magic) error {
	out := x.s.stdout
	switch m.name {
	case "help":
		fmt.Fprint(out, x.s.helpText())
	case "time":
		x.timer = time.Now()
		x.timed = true
		if m.stmt {
			x.timedLine = m.line
		}
	case "env":
		return envMagic(out, m.args)
	case "doc":
		return x.doc(m.args)
	default:
		v, err := x.s.lineMagics[m.name].Run(x.ctx, m.args)
		if err != nil {
			return err
		}
		if v != nil {
			display.Show(v)
		}
	}
	return nil
}

// doc shows the documentation of name (a package, pkg.Name,
// pkg.Type.Method or a variable), as %doc and "name?" do: in the pager
// when the front end has one (Cell.Page), and also as a display, because
// a pager payload is not part of the notebook (nbconvert, graphnb exec and
// a saved notebook would lose it). Without a display sink the text/plain
// form goes to the cell's stdout.
func (x *execution) doc(name string) error {
	name = strings.TrimSpace(name)
	data, found := complete.Inspect(name, utf8.RuneCountInString(name), 1, heldScope{x.s})
	if !found {
		return newError("MagicError", fmt.Sprintf("%%doc: nothing is known about %q; name a package (strings), a member (strings.Split) or a variable", name))
	}
	if x.cell.Page != nil {
		x.cell.Page(display.Bundle(data))
	}
	if sink := display.CurrentSink(); sink != nil {
		sink.Display(display.Bundle(data), nil, "", false)
		return nil
	}
	text, _ := data["text/plain"].(string)
	fmt.Fprintln(x.s.stdout, text)
	return nil
}

// docQuery reports whether code is IPython's help query, a lone name
// followed by "?" ("strings.Split?"), and returns the name.
func docQuery(code string) (name string, ok bool) {
	code = strings.TrimSpace(code)
	name, ok = strings.CutSuffix(code, "?")
	if !ok || name == "" {
		return "", false
	}
	for _, part := range strings.Split(name, ".") {
		if !token.IsIdentifier(part) {
			return "", false
		}
	}
	return name, true
}

// envMagic lists, shows or sets environment variables, as IPython's %env.
func envMagic(out *os.File, args string) error {
	if args == "" {
		env := os.Environ()
		sort.Strings(env)
		for _, kv := range env {
			fmt.Fprintln(out, kv)
		}
		return nil
	}
	name, value, set := strings.Cut(args, "=")
	if !set {
		name, value, set = strings.Cut(args, " ")
	}
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !set {
		v, ok := os.LookupEnv(name)
		if !ok {
			return newError("MagicError", "%env: "+name+" is not set")
		}
		fmt.Fprintln(out, v)
		return nil
	}
	if err := os.Setenv(name, value); err != nil {
		return newError("MagicError", "%env: "+err.Error())
	}
	fmt.Fprintf(out, "env: %s=%s\n", name, value)
	return nil
}
