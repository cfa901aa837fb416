package gpu_test

import (
	"errors"
	"fmt"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// Default picks the first CUDA device, else the host; DefaultReason says
// which ("NVIDIA H100 80GB HBM3 (device 0)", or "no GPU: …; running on
// the CPU").
func ExampleDefault() {
	d := gpu.Default()
	fmt.Println(d.Name(), d.IsHost())
	fmt.Println(gpu.DefaultReason())
}

// The host device runs the same buffer code as a GPU, on Go slices;
// CUDA-only operations say they need a GPU.
func ExampleHost() {
	h := gpu.Host()
	x, _ := h.Float32sFrom([]float32{1, 2, 3})
	x.Fill(0.5)
	v, _ := x.ToHost()
	fmt.Println(v, x.Len(), x.Bytes())
	_, err := h.Compile("k", `extern "C" __global__ void k() {}`)
	fmt.Println(errors.Is(err, gpu.ErrHost))
	// Output:
	// [0.5 0.5 0.5] 3 12
	// true
}

const saxpy = `
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}
`

// Compile a kernel from a string and launch it with typed arguments.
func ExampleDevice_Compile() {
	d := gpu.Default()
	m, err := d.Compile("saxpy", saxpy)
	if err != nil {
		fmt.Println(err) // the host: "gpu: Compile(saxpy) needs a CUDA device, …"
		return
	}
	f, _ := m.Function("saxpy")
	x, _ := d.Float32sFrom([]float32{1, 2, 3})
	y, _ := d.Float32sFrom([]float32{10, 20, 30})
	if err := f.Launch(gpu.Blocks(3, 128), gpu.D1(128), 0, float32(2), x, y, 3); err != nil {
		fmt.Println(err)
		return
	}
	out, _ := y.ToHost()
	fmt.Println(out) // [12 24 36]
}

// A launch loop belongs in one Exec: the Thread's methods call the driver
// directly, and each launch polls the cancellation point.
func ExampleDevice_Exec() {
	d := gpu.Default()
	m, err := d.Compile("saxpy", saxpy)
	if err != nil {
		return
	}
	f, _ := m.Function("saxpy")
	n := 1 << 20
	x, _ := d.AllocFloat32s(n)
	y, _ := d.AllocFloat32s(n)
	x.Fill(1)
	err = d.Exec(func(t *gpu.Thread) error {
		for i := 0; i < 100; i++ {
			if err := t.Launch(f, gpu.Blocks(n, 256), gpu.D1(256), 0, float32(1), x, y, n); err != nil {
				return err // cancel.ErrInterrupted after a notebook interrupt
			}
		}
		return t.Synchronize()
	})
	fmt.Println(err)
}

// A graph uploaded once stays on the device across cells.
func ExampleDevice_Upload() {
	g, _ := graph.Build(graph.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, Weights: []float32{0.5, 2}},
		graph.BuildOptions{Symmetrize: true})
	dg, _ := gpu.Host().Upload(g)
	defer dg.Close()
	fmt.Println(dg.N, dg.Arcs, dg.Bytes())
	back, _ := dg.Download()
	fmt.Println(back.Offsets, back.Adj, back.Weights)
	// Output:
	// 3 4 64
	// [0 1 3 4] [1 0 2 1] [0.5 0.5 2 2]
}

func ExampleBlocks() {
	fmt.Println(gpu.Blocks(1000, 256), gpu.Blocks(1024, 256), gpu.D2(4, 3))
	// Output: 4 4 4×3
}
