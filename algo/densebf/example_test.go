package densebf_test

import (
	"fmt"

	"github.com/graphnb/graphnb/algo/densebf"
	"github.com/graphnb/graphnb/graph"
)

func Example() {
	// 0→1 (4), 0→2 (1), 2→1 (2), 1→3 (-1); vertex 4 is unreachable.
	d := graph.NewDenseF32(5)
	set := func(i, j int, w float32) { d.F32[i*d.N+j] = w }
	set(0, 1, 4)
	set(0, 2, 1)
	set(2, 1, 2)
	set(1, 3, -1)
	r, err := densebf.Run(d, 0)
	if err != nil {
		panic(err)
	}
	if err := densebf.Check(d, 0, r); err != nil {
		panic(err)
	}
	fmt.Println("dist:", r.Dist)
	fmt.Println("pred:", r.Parents)
	fmt.Println("iterations:", r.Iterations)
	// Output:
	// dist: [0 3 1 2 +Inf]
	// pred: [0 2 0 1 -1]
	// iterations: 4
}

func ExampleRandomDense() {
	d, err := densebf.RandomDense(256, 0.1, 100, 1, true)
	if err != nil {
		panic(err)
	}
	r, err := densebf.Run(d, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(d.N, "vertices, check:", densebf.Check(d, 0, r))
	// Output:
	// 256 vertices, check: <nil>
}
