package apsp_test

import (
	"fmt"

	"github.com/graphnb/graphnb/algo/apsp"
	"github.com/graphnb/graphnb/graph"
)

func Example() {
	// 0→1 (4), 0→2 (1), 2→1 (2), 1→3 (1), 3→0 (-3): a negative edge but no
	// negative cycle (0→2→1→3→0 weighs 1).
	d := graph.NewDenseI32(4)
	set := func(i, j int, w int32) { d.I32[i*d.N+j] = w }
	set(0, 1, 4)
	set(0, 2, 1)
	set(2, 1, 2)
	set(1, 3, 1)
	set(3, 0, -3)
	r, err := apsp.Blocked(d, 2)
	if err != nil {
		panic(err)
	}
	if err := apsp.Check(d, r, d.N, 1); err != nil {
		panic(err)
	}
	for i := 0; i < d.N; i++ {
		fmt.Println(r.Dist.I32[i*d.N : (i+1)*d.N])
	}
	p, _ := r.Path(0, 3)
	fmt.Println("path 0→3:", p, "length", r.Dist.At(0, 3))
	// Output:
	// [0 3 1 4]
	// [-2 0 -1 1]
	// [0 2 0 3]
	// [-3 0 -2 0]
	// path 0→3: [0 2 1 3] length 4
}
