package densebf_test

import (
	"fmt"

	"github.com/graphnb/graphnb/algo/densebf"
	"github.com/graphnb/graphnb/gpu"
)

// ExamplePrepare prepares one matrix for each of the study's GPU kernels
// and runs from vertex 0. gpu.Host() stands in for gpu.Default() so the
// output does not depend on the machine: on a GPU the distances,
// predecessors and iterations are the same (the kernels compute the CPU's
// result exactly), and Time and CopyTime are measured on the device.
func ExamplePrepare() {
	d, err := densebf.RandomDense(300, 0.05, 10, 1, true)
	if err != nil {
		panic(err)
	}
	for _, v := range densebf.SeedVariants() {
		p, err := densebf.Prepare(gpu.Host(), d, v.Options)
		if err != nil {
			panic(err)
		}
		r, err := p.Run(0)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-16s dist[299] = %v via %d after %d iterations, check: %v\n",
			p.Label(), r.Dist[299], r.Parents[299], r.Iterations, densebf.Check(d, 0, r))
		p.Close()
	}
	// Output:
	// BF_Naive         dist[299] = 4 via 33 after 8 iterations, check: <nil>
	// BF_Reduce        dist[299] = 4 via 33 after 8 iterations, check: <nil>
	// BF_Reduce_Coarse dist[299] = 4 via 33 after 8 iterations, check: <nil>
}

// ExampleRunGPU runs BF_Reduce_Coarse with 64 threads per vertex once.
func ExampleRunGPU() {
	d, err := densebf.RandomDense(256, 0.1, 100, 2, false)
	if err != nil {
		panic(err)
	}
	o := densebf.Options{Method: densebf.ReduceCoarse, GroupSize: 64}
	r, err := densebf.RunGPU(gpu.Host(), d, 3, o)
	if err != nil {
		panic(err)
	}
	fmt.Println(o.Label())
	fmt.Println("check:", densebf.Check(d, 3, r))
	// Output:
	// BF_Reduce_Coarse, M=64
	// check: <nil>
}
