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
	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/session"
)

// Line returns the line magics by name: "gpu".
func Line() map[string]session.LineMagic {
	return map[string]session.LineMagic{
		"gpu": {Usage: "%gpu             the GPUs and their measured ceilings (or why there is no GPU)", Run: func(context.Context, string) (any, error) { return newGPUReport(), nil }},
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

// gpuReport is what %gpu shows: every device as a card beside the card
// of its ceilings (gpu.Device.Ceilings: measured on the first %gpu of a
// device, read from the cache after), or why there is no GPU, with
// gpu.Status and the ceilings as its text form. A device whose ceilings
// cannot be measured shows why and how to get them: %gpu never fails.
type gpuReport struct {
	devs     []*gpu.Device
	ceilings []ceilingsResult // of devs[i]
}

// ceilingsResult is one device's ceilings, or why there are none.
type ceilingsResult struct {
	c   gpu.Ceilings
	err error
}

// deviceCeilings is gpu.Device.Ceilings; tests stand in for it.
var deviceCeilings = (*gpu.Device).Ceilings

// newGPUReport lists the devices and gets their ceilings, once for both
// of the report's forms.
func newGPUReport() gpuReport {
	devs, err := gpu.Devices()
	if err != nil {
		return gpuReport{}
	}
	r := gpuReport{devs: devs}
	for _, d := range devs {
		c, err := deviceCeilings(d)
		r.ceilings = append(r.ceilings, ceilingsResult{c, err})
	}
	return r
}

func (r gpuReport) String() string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(gpu.Status(), "\n"))
	for i, d := range r.devs {
		b.WriteString("\n")
		cr := r.ceilings[i]
		if cr.err != nil {
			fmt.Fprintf(&b, "ceilings of %v: not measured: %s; %s", d, whyNoCeilings(d, cr.err), ceilingsHowTo)
			continue
		}
		b.WriteString(strings.Replace(cr.c.String(), "ceilings of "+cr.c.Device, "ceilings of "+d.String(), 1))
	}
	return b.String()
}

// whyNoCeilings is a failed measurement's error without what the report
// already says: the package and the device.
func whyNoCeilings(d *gpu.Device, err error) string {
	s := strings.TrimPrefix(err.Error(), "gpu: ")
	return strings.TrimPrefix(s, "measuring the ceilings of "+d.String()+": ")
}

// ceilingsHowTo says how to get ceilings that could not be measured.
const ceilingsHowTo = "%gpu measures them again when run again, and gpu.Default().MeasureCeilings() in a cell measures them on demand (GRAPHNB_CEILINGS=remeasure ignores the cached figures)"

func (r gpuReport) HTML() string {
	if len(r.devs) == 0 {
		return gpu.Host().HTML()
	}
	var b strings.Builder
	for i, d := range r.devs {
		b.WriteString("<div>")
		b.WriteString(d.HTML())
		b.WriteString(" ")
		if cr := r.ceilings[i]; cr.err != nil {
			b.WriteString(card.New("ceilings of "+d.String()).
				Row("not measured", whyNoCeilings(d, cr.err)).
				Row("to get them", ceilingsHowTo).
				HTML())
		} else {
			b.WriteString(cr.c.HTML())
		}
		b.WriteString("</div>")
	}
	return b.String()
}
