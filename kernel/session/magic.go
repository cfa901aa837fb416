package session

import (
	"errors"
	"fmt"
	"go/token"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/gpu"
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

// cellMagic runs a cell magic other than %%time: %%cuda NAME compiles
// the rest of the cell as CUDA C and binds NAME to the module.
func (x *execution) cellMagic(first, code string) (display.Bundle, error) {
	name, args, _ := strings.Cut(first, " ")
	if name == "cuda" {
		return x.cuda(strings.TrimSpace(args), code)
	}
	return nil, newError("MagicError", fmt.Sprintf("unknown cell magic %%%%%s; %%help lists the magics", name))
}

// cuda compiles the body of a %%cuda NAME cell with NVRTC for the default
// GPU, reports compile errors at cell lines, and binds NAME to the
// *gpu.Module, whose functions cells launch: NAME.Function("k").Launch(…).
func (x *execution) cuda(name, code string) (display.Bundle, error) {
	if !token.IsIdentifier(name) {
		return nil, newError("MagicError", fmt.Sprintf("%%%%cuda NAME: the module needs a Go identifier as its name (got %q), e.g. %%%%cuda relax", name))
	}
	// The body starts on the line after the magic line.
	start := strings.Index(code, "%%")
	nl := strings.IndexByte(code[start:], '\n')
	if nl < 0 || strings.TrimSpace(code[start+nl+1:]) == "" {
		return nil, newError("MagicError", "%%cuda "+name+": the cell has no CUDA C below the magic line")
	}
	body := code[start+nl+1:]
	firstLine := strings.Count(code[:start+nl+1], "\n") + 1 // cell line of the body's first line
	dev := gpu.Default()
	if dev.IsHost() {
		// Without a GPU the cell still runs, so a notebook written for
		// one runs everywhere: NAME is bound to a nil module, which the
		// cells that would launch from it test to take a CPU path.
		bind := &execution{s: x.s, ctx: x.ctx, cell: x.cell, serial: x.s.register(name, x.cell.Count)}
		if _, err := bind.run(fmt.Sprintf("%s := __gnb.CUDAModule(%q)", name, name)); err != nil {
			return nil, err
		}
		return display.Bundle{"text/plain": fmt.Sprintf("%%%%cuda %s: not compiled, this kernel has no CUDA GPU (%s); %s is nil, so cells can test %s == nil and take a CPU path",
			name, gpu.DefaultReason(), name, name)}, nil
	}
	mod, err := dev.Compile(name, body)
	if err != nil {
		var ce *gpu.CompileError
		if !errors.As(err, &ce) {
			return nil, newError("CUDAError", strings.TrimPrefix(err.Error(), "gpu: "))
		}
		lines := strings.Split(body, "\n")
		var trace []string
		first := ""
		for _, d := range ce.Diagnostics() {
			where := fmt.Sprintf("cell[%d]", x.cell.Count)
			if d.Line > 0 {
				where += fmt.Sprintf(" line %d", d.Line+firstLine-1)
			}
			msg := fmt.Sprintf("%s: %s: %s", where, d.Severity, d.Message)
			if first == "" && strings.Contains(d.Severity, "error") {
				first = msg
			}
			trace = append(trace, msg)
			if d.Line > 0 && d.Line <= len(lines) {
				trace = append(trace, "    "+strings.TrimSpace(lines[d.Line-1]))
			}
		}
		if first == "" {
			first = strings.TrimSpace(ce.Log)
		}
		e := newError("CUDACompileError", first)
		e.Trace = append([]string{e.Name + ": " + first}, trace...)
		return nil, e
	}
	x.s.cudaMu.Lock()
	x.s.cudaModules[name] = mod
	x.s.cudaMu.Unlock()
	bind := &execution{s: x.s, ctx: x.ctx, cell: x.cell, serial: x.s.register(name, x.cell.Count)}
	if _, err := bind.run(fmt.Sprintf("%s := __gnb.CUDAModule(%q)", name, name)); err != nil {
		return nil, err
	}
	return display.Render(mod), nil
}

// cudaModule returns the module a %%cuda cell compiled under name (the
// interpreter binds NAME through it).
func (s *Session) cudaModule(name string) *gpu.Module {
	s.cudaMu.Lock()
	defer s.cudaMu.Unlock()
	return s.cudaModules[name]
}

// gpuReport is what %gpu shows: every device as a card, or why there is
// none, with gpu.Status as its text form.
type gpuReport struct{}

func (gpuReport) String() string { return strings.TrimRight(gpu.Status(), "\n") }

func (gpuReport) HTML() string {
	devs, err := gpu.Devices()
	if err != nil || len(devs) == 0 {
		return gpu.Host().HTML()
	}
	var b strings.Builder
	for _, d := range devs {
		b.WriteString(d.HTML())
	}
	return b.String()
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
		case "time": // "%time" times the rest of the cell, "%time STATEMENT" that statement
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
		display.Show(gpuReport{})
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
