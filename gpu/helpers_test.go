package gpu

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/internal/card/cardtest"
)

// Helpers shared by the host tests, the fake-driver scenarios and the GPU
// tests.

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func wantErr(t *testing.T, err error, target error, substrings ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one (%v %q)", target, substrings)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("error %q does not wrap %v", err, target)
	}
	for _, s := range substrings {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}

// checkBuffers exercises every buffer type on d; everything is freed
// again.
func checkBuffers(t *testing.T, d *Device) {
	t.Helper()
	used := d.MemoryUsed()
	t.Run("int32", func(t *testing.T) {
		checkKind(t, d, d.AllocInt32s, d.Int32sFrom, []int32{-1, 0, 1, math.MaxInt32, math.MinInt32}, 42)
	})
	t.Run("uint32", func(t *testing.T) {
		checkKind(t, d, d.AllocUint32s, d.Uint32sFrom, []uint32{0, 1, math.MaxUint32, 7, 8}, 0xDEADBEEF)
	})
	t.Run("int64", func(t *testing.T) {
		checkKind(t, d, d.AllocInt64s, d.Int64sFrom, []int64{-1, 0, 1 << 40, math.MinInt64, 5}, -0x123456789)
	})
	t.Run("uint64", func(t *testing.T) {
		checkKind(t, d, d.AllocUint64s, d.Uint64sFrom, []uint64{0, math.MaxUint64, 1 << 63, 3, 4}, 0x0102030405060708)
	})
	t.Run("float32", func(t *testing.T) {
		checkKind(t, d, d.AllocFloat32s, d.Float32sFrom, []float32{0, -1.5, float32(math.Inf(1)), math.SmallestNonzeroFloat32, 3}, 0.25)
	})
	t.Run("float64", func(t *testing.T) {
		checkKind(t, d, d.AllocFloat64s, d.Float64sFrom, []float64{0, -1.5, math.Inf(-1), math.MaxFloat64, 1e-300}, math.Pi)
	})
	t.Run("uint8", func(t *testing.T) {
		checkKind(t, d, d.AllocUint8s, d.Uint8sFrom, []uint8{0, 1, 255, 128, 7}, 0xA5)
	})
	if d.MemoryUsed() != used {
		t.Errorf("MemoryUsed %d, want %d", d.MemoryUsed(), used)
	}
}

// buf is what every typed buffer offers (the test's view of them).
type buf[T any, B any] interface {
	Len() int
	Bytes() int64
	Ptr() uint64
	Device() *Device
	Upload([]T) error
	Download([]T) error
	ToHost() ([]T, error)
	Fill(T) error
	CopyFrom(B) error
	Free() error
	String() string
	HostData() []T
}

func checkKind[T comparable, B buf[T, B]](t *testing.T, d *Device, alloc func(int) (B, error), from func([]T) (B, error), vals []T, fill T) {
	t.Helper()
	used := d.MemoryUsed()
	var zero T
	size := int64(reflect.TypeOf(zero).Size())
	a, err := alloc(len(vals))
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != len(vals) || a.Bytes() != size*int64(len(vals)) || a.Device() != d {
		t.Errorf("Len %d Bytes %d Device %v", a.Len(), a.Bytes(), a.Device())
	}
	if d.MemoryUsed() != used+a.Bytes() {
		t.Errorf("MemoryUsed %d, want %d", d.MemoryUsed(), used+a.Bytes())
	}
	if (a.Ptr() == 0) != d.IsHost() || (a.HostData() == nil) != !d.IsHost() {
		t.Errorf("Ptr %x HostData %v on %v", a.Ptr(), a.HostData(), d)
	}
	got, err := a.ToHost()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range got {
		if v != zero {
			t.Fatalf("a new buffer is not zeroed: %v", got)
		}
	}
	if err := a.Upload(vals); err != nil {
		t.Fatal(err)
	}
	out := make([]T, len(vals))
	if err := a.Download(out); err != nil || !reflect.DeepEqual(out, vals) {
		t.Errorf("Download %v %v, want %v", out, err, vals)
	}
	b, err := from(vals)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Fill(fill); err != nil {
		t.Fatal(err)
	}
	for _, v := range must[[]T](t)(b.ToHost()) {
		if v != fill {
			t.Fatalf("Fill(%v) left %v", fill, v)
		}
	}
	if err := b.CopyFrom(a); err != nil {
		t.Fatal(err)
	}
	if got := must[[]T](t)(b.ToHost()); !reflect.DeepEqual(got, vals) {
		t.Errorf("CopyFrom: %v", got)
	}
	wantErr(t, a.Upload(vals[:2]), nil, "the host slice has 2 elements but the buffer 5", "Len()")
	wantErr(t, a.Download(make([]T, 9)), nil, "9 elements")
	short, _ := alloc(1)
	wantErr(t, b.CopyFrom(short), nil, "the source has 1 elements")
	short.Free()
	if !strings.Contains(a.String(), "[5] on "+d.String()) {
		t.Errorf("String %q", a)
	}
	if err := a.Free(); err != nil || a.Free() != nil {
		t.Errorf("Free: %v", err)
	}
	wantErr(t, a.Upload(vals), nil, "freed")
	_, err = a.ToHost()
	wantErr(t, err, nil, "freed")
	wantErr(t, a.Fill(fill), nil, "freed")
	if !strings.Contains(a.String(), "(freed)") {
		t.Errorf("String %q", a)
	}
	b.Free()
	empty, err := alloc(0)
	if err != nil || empty.Len() != 0 || empty.Upload(nil) != nil || empty.Fill(fill) != nil {
		t.Errorf("empty buffer: %v", err)
	}
	empty.Free()
	_, err = alloc(-1)
	wantErr(t, err, nil, "negative length")
	if d.MemoryUsed() != used {
		t.Errorf("MemoryUsed %d, want %d", d.MemoryUsed(), used)
	}
}

// checkGraphs uploads small graphs and checks bit-exact round trips.
func checkGraphs(t *testing.T, d *Device) {
	t.Helper()
	g := must[*graph.CSR](t)(gen.RMAT(10, 8, gen.Seed(3)))
	unweighted := must[*graph.CSR](t)(gen.RMAT(9, 4, gen.Unweighted()))
	directed := must[*graph.CSR](t)(graph.Build(graph.EdgeList{N: 4, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 3}}, graph.BuildOptions{}))
	for _, c := range []struct {
		name string
		g    *graph.CSR
	}{{"float32", g}, {"float64", g.WithFloat64Weights()}, {"unweighted", unweighted}, {"directed", directed}} {
		t.Run(c.name, func(t *testing.T) { checkGraph(t, d, c.g) })
	}
	_, err := d.Upload(nil)
	wantErr(t, err, nil, "empty graph")
}

func checkGraph(t *testing.T, d *Device, g *graph.CSR) {
	t.Helper()
	used := d.MemoryUsed()
	dg, err := d.Upload(g)
	if err != nil {
		t.Fatal(err)
	}
	if dg.N != g.NumVertices() || dg.Arcs != g.NumArcs() || dg.Directed != g.Directed || dg.Device() != d {
		t.Errorf("Graph header %v", dg)
	}
	want := int64(len(g.Offsets))*8 + int64(len(g.Adj))*4 + int64(len(g.Weights))*4 + int64(len(g.Weights64))*8
	if dg.Bytes() != want || d.MemoryUsed() != used+want {
		t.Errorf("Bytes %d MemoryUsed %d, want %d", dg.Bytes(), d.MemoryUsed(), want)
	}
	back, err := dg.Download()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, g) {
		t.Error("CSR round trip differs")
	}
	if !strings.Contains(dg.String(), "device graph on "+d.String()) {
		t.Errorf("String %q", dg)
	}
	cardtest.CheckHTML(t, dg.HTML())
	if err := dg.Close(); err != nil || dg.Close() != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := dg.Download(); err == nil {
		t.Error("Download after Close")
	}
	if !strings.Contains(dg.String(), "(closed)") {
		t.Errorf("String %q", dg)
	}
	if g.Directed {
		return
	}
	coo, err := g.UndirectedCOO()
	if err != nil {
		t.Fatal(err)
	}
	dc, err := d.UploadCOO(coo)
	if err != nil {
		t.Fatal(err)
	}
	if dc.N != coo.N || dc.Edges != coo.NumEdges() || dc.Device() != d {
		t.Errorf("COO header %v", dc)
	}
	cb, err := dc.Download()
	if err != nil || !reflect.DeepEqual(cb, coo) {
		t.Errorf("COO round trip differs (%v)", err)
	}
	cardtest.CheckHTML(t, dc.HTML())
	if !strings.Contains(dc.String(), card.Count(coo.NumEdges())+" edges") {
		t.Errorf("String %q", dc)
	}
	dc.Close()
	if err := dc.Close(); err != nil {
		t.Error(err)
	}
	if d.MemoryUsed() != used {
		t.Errorf("MemoryUsed %d, want %d", d.MemoryUsed(), used)
	}
}
