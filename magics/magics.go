// Package magics holds the magics graphnb adds to its Go interpreter
// (package session): %gpu shows the GPUs, %%cuda compiles a cell of CUDA C
// with NVRTC. cmd/graphnb wires them into the kernel and graphnb exec
// through session.Options, so the interpreter itself knows nothing of
// GPUs.
package magics

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"strings"

	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/session"
)

// Line returns the line magics by name: "gpu".
func Line() map[string]session.LineMagic {
	return map[string]session.LineMagic{
		"gpu": {Usage: "%gpu             the GPUs (or why there is none)", Run: func(context.Context, string) (any, error) { return gpuReport{}, nil }},
	}
}

// Cell returns the cell magics by name: "cuda".
func Cell() map[string]session.CellMagic {
	return map[string]session.CellMagic{
		"cuda": {Usage: `%%cuda NAME      compile the cell as CUDA C; NAME becomes the module
                 (NAME.Function("k").Launch(grid, block, shared, args...)),
                 or nil without a GPU: check the errors, or test NAME == nil`, Run: cuda},
	}
}

// cuda compiles the body of a %%cuda NAME cell with NVRTC for the default
// GPU, reports compile errors at cell lines, and binds NAME to the
// *gpu.Module, whose functions cells launch: NAME.Function("k").Launch(…).
// Without a GPU the cell still runs, so a notebook written for one runs
// everywhere: NAME is bound to a nil module, which the cells that would
// launch from it test to take a CPU path.
func cuda(_ context.Context, c session.MagicCell) (session.MagicResult, error) {
	name := c.Args
	if !token.IsIdentifier(name) {
		return session.MagicResult{}, session.MagicError("MagicError", fmt.Sprintf("%%%%cuda NAME: the module needs a Go identifier as its name (got %q), e.g. %%%%cuda relax", name))
	}
	if strings.TrimSpace(c.Body) == "" {
		return session.MagicResult{}, session.MagicError("MagicError", "%%cuda "+name+": the cell has no CUDA C below the magic line")
	}
	dev := gpu.Default()
	if dev.IsHost() {
		var none *gpu.Module
		return session.MagicResult{
			Bind: map[string]any{name: none},
			Show: display.Bundle{"text/plain": fmt.Sprintf("%%%%cuda %s: not compiled, this kernel has no CUDA GPU (%s); %s is nil, so cells can test %s == nil and take a CPU path",
				name, gpu.DefaultReason(), name, name)},
		}, nil
	}
	mod, err := dev.Compile(name, c.Body)
	if err != nil {
		return session.MagicResult{}, compileError(err, c)
	}
	return session.MagicResult{Bind: map[string]any{name: mod}, Show: mod}, nil
}

// compileError turns NVRTC's diagnostics into an error whose lines are
// the cell's.
func compileError(err error, c session.MagicCell) error {
	var ce *gpu.CompileError
	if !errors.As(err, &ce) {
		return session.MagicError("CUDAError", strings.TrimPrefix(err.Error(), "gpu: "))
	}
	lines := strings.Split(c.Body, "\n")
	var trace []string
	first := ""
	for _, d := range ce.Diagnostics() {
		where := fmt.Sprintf("cell[%d]", c.Count)
		if d.Line > 0 {
			where += fmt.Sprintf(" line %d", d.Line+c.BodyLine-1)
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
	return session.MagicError("CUDACompileError", first, trace...)
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
