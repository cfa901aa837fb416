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
	"github.com/graphnb/graphnb/kernel/complete"
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

// cellMagic fails a cell magic other than %%time: %%cuda needs the GPU
// runtime, which is not built in yet.
func (x *execution) cellMagic(first string) error {
	name, args, _ := strings.Cut(first, " ")
	args = strings.TrimSpace(args)
	switch name {
	case "cuda":
		what := "a CUDA cell"
		if args != "" {
			what = "CUDA module " + args
		}
		return newError("MagicError", "%%cuda: "+what+" needs the GPU runtime, and no GPU support is built into this graphnb yet; the cell was not compiled")
	}
	return newError("MagicError", fmt.Sprintf("unknown cell magic %%%%%s; %%help lists the magics", name))
}

// checkMagics validates the line magics of a cell before anything runs.
func (x *execution) checkMagics(ms []magic) error {
	for _, m := range ms {
		switch m.name {
		case "help", "gpu":
		case "doc":
			if m.args == "" {
				return newError("MagicError", "%doc NAME: name a package, function, type or variable, e.g. %doc strings.Split")
			}
		case "time":
			if m.args != "" {
				return newError("MagicError", "%time takes no argument: put it on its own line; it times the rest of the cell")
			}
		case "env":
			if name, _, ok := strings.Cut(m.args, "="); ok && strings.TrimSpace(name) == "" {
				return newError("MagicError", "%env NAME=value: the name is missing")
			}
		case "":
			return newError("MagicError", fmt.Sprintf("a lone %% on line %d is not a magic; %%help lists the magics", m.line))
		default:
			return newError("MagicError", fmt.Sprintf("unknown magic %%%s (line %d); %%help lists the magics", m.name, m.line))
		}
	}
	return nil
}

// lineMagic runs one line magic; output goes to the session's stdout.
func (x *execution) lineMagic(m magic) error {
	out := x.s.stdout
	switch m.name {
	case "help":
		fmt.Fprint(out, helpText())
	case "gpu":
		fmt.Fprintln(out, gpuNote)
	case "time":
		x.timer = time.Now()
		x.timed = true
	case "env":
		return envMagic(out, m.args)
	case "doc":
		return x.doc(m.args)
	}
	return nil
}

// doc shows the documentation of name (a package, pkg.Name,
// pkg.Type.Method or a variable) in the pager, as %doc and "name?" do.
func (x *execution) doc(name string) error {
	name = strings.TrimSpace(name)
	data, found := complete.Inspect(name, utf8.RuneCountInString(name), 1, x.s)
	if !found {
		return newError("MagicError", fmt.Sprintf("%%doc: nothing is known about %q; name a package (strings), a member (strings.Split) or a variable", name))
	}
	if x.cell.Page != nil {
		x.cell.Page(display.Bundle(data))
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

// gpuNote is what %gpu says until the GPU runtime exists.
const gpuNote = "No GPU support is built into this graphnb yet: cells and graphnb's algorithms run on the CPU."
