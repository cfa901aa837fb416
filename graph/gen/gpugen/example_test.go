package gpugen_test

import (
	"fmt"
	"slices"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/gen/gpugen"
)

// A graph generated on the device is the host generator's graph; here on
// the host device (gpu.Default() picks the GPU where there is one).
func ExampleRMAT() {
	dev := gpu.Host()
	g, err := gpugen.RMAT(dev, 10, 16, gen.Seed(1), gen.Integer(100))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	got, err := g.Host() // a copy from the device, made on first use
	if err != nil {
		fmt.Println(err)
		return
	}
	want, _ := gen.RMAT(10, 16, gen.Seed(1), gen.Integer(100))
	fmt.Println(g.N, slices.Equal(got.Adj, want.Adj), slices.Equal(got.Weights, want.Weights))
	// Output: 1024 true true
}

func ExampleSSCA2() {
	g, err := gpugen.SSCA2(gpu.Host(), 12, gen.Seed(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	fmt.Println(g.N, g.Weights != nil)
	// Output: 4096 true
}

// A graph generated partitioned over a device group: rank r holds the
// rows of its block of vertices, the same rows as the whole graph's. Here
// a group of the host device (one part); gpu.NewGroup(devs...) with
// devs from gpu.Devices() spreads the graph over the GPUs.
func ExampleRMATParts() {
	g, err := gpu.NewGroup(gpu.Host())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	pg, err := gpugen.RMATParts(g, 10, 16, gen.PermuteVertices(true))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pg.Close()
	p := pg.Parts[0]
	fmt.Println(pg.N, len(pg.Parts), p.Lo, p.Hi, p.Adj.Len() == int(pg.Arcs))
	// Output: 1024 1 0 1024 true
}
