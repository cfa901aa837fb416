package apsp_test

import (
	"fmt"

	"github.com/graphnb/graphnb/algo/apsp"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// ExampleRun runs the blocked method on the host device, which stands in
// for a GPU with the CPU's Blocked; with gpu.Default() on a machine with
// a GPU the same call runs fw.cu's kernels.
func ExampleRun() {
	d := graph.NewDenseI32(4)
	set := func(i, j int, w int32) { d.I32[i*d.N+j] = w }
	set(0, 1, 5)
	set(1, 2, 1)
	set(0, 2, 9)
	set(2, 3, 2)
	r, err := apsp.Run(gpu.Host(), d, apsp.Options{Method: apsp.BlockedGPU, Tile: 32})
	if err != nil {
		panic(err)
	}
	if err := apsp.Check(d, r, d.N, 1); err != nil {
		panic(err)
	}
	p, _ := r.Path(0, 3)
	fmt.Println("0→3:", r.Dist.At(0, 3), "via", p)
	for _, v := range apsp.SeedVariants() {
		fmt.Println(v.Label)
	}
	// Output:
	// 0→3: 8 via [0 1 2 3]
	// plain GPU
	// blocked GPU
	// out-of-core blocked GPU
}
