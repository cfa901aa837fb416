package magics

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/session"
	"github.com/graphnb/graphnb/symbols"
)

// newTestSession starts a session as cmd/graphnb does: graphnb's
// packages and these magics; its cells print to a discarded pipe.
func newTestSession(t *testing.T) *session.Session {
	t.Helper()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { null.Close() })
	s, err := session.New(session.Options{Stdout: null, Stderr: null, Symbols: symbols.Symbols, LineMagics: Line(), CellMagics: Cell()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func mustRun(t *testing.T, s *session.Session, code string) display.Bundle {
	t.Helper()
	b, err := s.Execute(context.Background(), code, session.Cell{Count: 1})
	if err != nil {
		t.Fatalf("%q: %v", code, err)
	}
	return b
}

func text(b display.Bundle) string {
	v, _ := b["text/plain"].(string)
	return v
}

// %gpu shows the GPUs, or the host device and why there is no GPU; %help
// lists the added magics.
func TestGPUMagicAndHelp(t *testing.T) {
	s := newTestSession(t)
	sink := &recordSink{}
	prev := display.SetSink(sink)
	defer display.SetSink(prev)
	mustRun(t, s, "%gpu")
	if len(sink.shown) != 1 || !strings.Contains(text(sink.shown[0]), "default: ") {
		t.Fatalf("%%gpu showed %v, want the GPU report naming the default device", sink.shown)
	}
	// Without a GPU there are no ceilings to show, and no line about them;
	// with one, each device's ceilings (or how to get them).
	shown := text(sink.shown[0])
	if !gpu.Default().IsHost() {
		t.Logf("%%gpu:\n%s", shown)
	}
	if gpu.Default().IsHost() != !strings.Contains(shown, "ceilings of ") {
		t.Errorf("%%gpu on %s showed:\n%s", gpu.DefaultReason(), shown)
	}
	if html, _ := sink.shown[0]["text/html"].(string); gpu.Default().IsHost() && strings.Contains(html, "ceilings") {
		t.Errorf("%%gpu without a GPU shows ceilings in its card:\n%s", html)
	}
}

// The report's ceilings: each device's figures beside its card, or why
// they are missing and how to get them; on the host, none are asked for.
func TestGPUReportCeilings(t *testing.T) {
	calls := 0
	defer func(f func(*gpu.Device) (gpu.Ceilings, error)) { deviceCeilings = f }(deviceCeilings)
	deviceCeilings = func(*gpu.Device) (gpu.Ceilings, error) {
		calls++
		return gpu.Ceilings{}, errors.New("gpu: the test says no")
	}
	r := newGPUReport()
	if devs, err := gpu.Devices(); calls != len(r.devs) || (err == nil && len(devs) != len(r.devs)) {
		t.Errorf("%d ceilings asked for %d devices", calls, len(r.devs))
	}
	if gpu.Default().IsHost() && r.String() != strings.TrimRight(gpu.Status(), "\n") {
		t.Errorf("without a GPU the report's text is not gpu.Status's:\n%s", r.String())
	}

	// Two stand-in devices: one measured, one not.
	dev := gpu.Host()
	c := gpu.Ceilings{Device: "Test GPU", CopyBandwidth: 2.6e12, CopyBytes: 400 << 20, PeakBandwidth: 3.35e12,
		Gather4InL2: 1e12, Gather4Beyond: 3e11, Gather8InL2: 2e12, Gather8Beyond: 5e11,
		LaunchLatency: 2 * time.Microsecond, LaunchHostCost: 3 * time.Microsecond, LaunchRoundTrip: 9 * time.Microsecond,
		Measured: time.Now(), MeasureTime: 300 * time.Millisecond}
	r = gpuReport{devs: []*gpu.Device{dev, dev}, ceilings: []ceilingsResult{{c: c}, {err: errors.New("gpu: measuring the ceilings of " + dev.String() + ": out of device memory: the measurement needs 330 MiB")}}}
	s := r.String()
	for _, want := range []string{
		"default: ",
		"ceilings of " + dev.String() + ": measured ",
		"device copy  2.6 TB/s read + written",
		"ceilings of " + dev.String() + ": not measured: out of device memory: the measurement needs 330 MiB; %gpu measures them again when run again",
		"MeasureCeilings()",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report text lacks %q:\n%s", want, s)
		}
	}
	h := r.HTML()
	for _, want := range []string{"ceilings: Test GPU", "2.6 TB/s", "not measured", "out of device memory", "to get them", "MeasureCeilings()"} {
		if !strings.Contains(h, want) {
			t.Errorf("report HTML lacks %q", want)
		}
	}
	if strings.Count(h, "<div>") != 2 || strings.Count(h, "host device (CPU)") != 2 {
		t.Errorf("report HTML: want two devices, each card beside its ceilings:\n%s", h)
	}
}

// recordSink keeps what cells display.
type recordSink struct{ shown []display.Bundle }

func (r *recordSink) Display(b display.Bundle, _ map[string]any, _ string, _ bool) {
	r.shown = append(r.shown, b)
}
func (r *recordSink) ClearOutput(bool) {}

// Without a GPU, a %%cuda cell says why it compiled nothing and binds its
// name to a nil module, so the notebook runs on and can test for it.
func TestCUDAMagicWithoutGPU(t *testing.T) {
	if !gpu.Default().IsHost() {
		t.Skip("a GPU is present: TestCUDAMagicOnGPU covers the cuda cell magic")
	}
	s := newTestSession(t)
	b := mustRun(t, s, "%%cuda vecadd\nextern \"C\" __global__ void add(float *a) { a[threadIdx.x] += 1; }")
	if !strings.Contains(text(b), "no CUDA GPU") || !strings.Contains(text(b), "vecadd is nil") {
		t.Fatalf("the %%%%cuda cell shows %q, want why nothing was compiled", text(b))
	}
	b = mustRun(t, s, "vecadd == nil")
	if text(b) != "true" {
		t.Fatalf("vecadd == nil shows %q, want true", text(b))
	}
	_, err := s.Execute(context.Background(), "_, err := vecadd.Function(\"add\")\nif err != nil {\n\tpanic(err)\n}", session.Cell{Count: 3})
	if err == nil || !strings.Contains(err.Error(), "on a nil *Module") {
		t.Fatalf("Function on the nil module: err = %v, want an error saying the module is nil", err)
	}
}

func TestCUDAMagicBadName(t *testing.T) {
	s := newTestSession(t)
	for _, code := range []string{"%%cuda 9lives\nx", "%%cuda\nx", "%%cuda relax"} {
		_, err := s.Execute(context.Background(), code, session.Cell{Count: 1})
		var e *session.Error
		if !errors.As(err, &e) || e.Name != "MagicError" || !strings.Contains(e.Value, "%%cuda") {
			t.Errorf("%q: err = %v, want a MagicError about %%%%cuda", code, err)
		}
	}
}

// On a GPU: a %%cuda cell compiles, binds its name, and a Go cell launches
// its kernel; a compile error points at the cell line.
func TestCUDAMagicOnGPU(t *testing.T) {
	if gpu.Default().IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	s := newTestSession(t)
	b := mustRun(t, s, "%%cuda scale\n"+
		"extern \"C\" __global__ void twice(float *x, int n) {\n"+
		"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"+
		"    if (i < n) x[i] *= 2;\n"+
		"}\n")
	if !strings.Contains(text(b), "twice") {
		t.Errorf("the %%%%cuda cell shows %q, want its kernels", text(b))
	}
	mustRun(t, s, "dev := gpu.Default()\nbuf, _ := dev.Float32sFrom([]float32{1, 2, 3})\nf, _ := scale.Function(\"twice\")")
	mustRun(t, s, "if err := f.Launch(gpu.Blocks(3, 128), gpu.D1(128), 0, buf, 3); err != nil {\n\tpanic(err)\n}")
	if got := text(mustRun(t, s, "out, _ := buf.ToHost()\nout")); got != "[2 4 6]" {
		t.Errorf("after the kernel: %s, want [2 4 6]", got)
	}
	_, err := s.Execute(context.Background(), "%%cuda broken\n\nextern \"C\" __global__ void k(float *x) {\n    x[0] = undefined_name;\n}\n", session.Cell{Count: 7})
	var e *session.Error
	if !errors.As(err, &e) || e.Name != "CUDACompileError" || !strings.Contains(e.Value, "cell[7] line 4") ||
		!strings.Contains(strings.Join(e.Trace, "\n"), "undefined_name") {
		t.Fatalf("compile error %v: want CUDACompileError at cell[7] line 4 naming undefined_name", err)
	}
}
