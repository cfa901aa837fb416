package sssp

import (
	"fmt"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// Run with the study's two switches on. gpu.Default() would pick the GPU
// when there is one; the host device (used here so the output is fixed)
// runs the same method on the CPU.
func ExampleRun() {
	el := graph.EdgeList{N: 4,
		Src:     []int32{0, 1, 2, 0},
		Dst:     []int32{1, 2, 3, 3},
		Weights: []float32{1, 2, 3, 10}}
	g, _ := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	r, err := Run(gpu.Host(), g, 0, Options{TextureCache: true, Permute: true, Parents: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("dist:", r.Dist)
	fmt.Println("parents:", r.Parents)
	fmt.Println("check:", Check(g, r))
	// Output:
	// dist: [0 1 3 6]
	// parents: [0 0 1 2]
	// check: <nil>
}

// Prepare once (COO view, permutation, upload on a GPU), then run from
// several sources.
func ExamplePrepare() {
	el := graph.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, Weights: []float32{0.5, 0.25}}
	g, _ := graph.Build(el, graph.BuildOptions{Symmetrize: true})
	p, err := Prepare(gpu.Host(), g, Options{Method: NearFar})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	fmt.Printf("%s, Δ = %.4g\n", p.Label(), p.Delta())
	for _, src := range []int32{0, 2} {
		r, _ := p.Run(src)
		fmt.Println(src, r.Dist)
	}
	// Output:
	// near-far (Δ-stepping), Δ = 0.5625
	// 0 [0 0.5 0.75]
	// 2 [0.75 0.25 0]
}

// The curves of the SSSP study's figure, then the work-efficient methods.
func ExampleSeedVariants() {
	for _, v := range append(SeedVariants(), ModernVariants()...) {
		o := v.Options
		fmt.Printf("%-26s permute=%-5v texture cache=%-5v %v\n", v.Label, o.Permute, o.TextureCache, o.Method)
	}
	// Output:
	// cache && restrict on       permute=true  texture cache=true  edge sweep
	// cache off                  permute=false texture cache=true  edge sweep
	// restrict off               permute=true  texture cache=false edge sweep
	// cache && restrict off      permute=false texture cache=false edge sweep
	// near-far (Δ-stepping)      permute=false texture cache=false near-far
	// frontier (work-efficient)  permute=false texture cache=false frontier
}
