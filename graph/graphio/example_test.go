package graphio_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/graphio"
)

func ExampleLoad() {
	g, err := graphio.Load("../../data/rome99.gr", graphio.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.NumVertices(), "vertices,", g.NumArcs(), "arcs, directed:", g.Directed)
	// The file's first arc, "a 2958 2959 535", with 0-based ids.
	fmt.Println(g.HasArc(2957, 2958))
	// Output:
	// 3353 vertices, 8859 arcs, directed: true
	// true
}

func ExampleSave() {
	dir, err := os.MkdirTemp("", "graphio")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	g, err := gen.RMAT(12, 16, gen.Seed(1))
	if err != nil {
		log.Fatal(err)
	}
	// The binary cache: raw arrays plus a checksum, fast to reload.
	path := filepath.Join(dir, "rmat12.gnb")
	if err := graphio.Save(path, g); err != nil {
		log.Fatal(err)
	}
	h, err := graphio.Load(path, graphio.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(h.NumVertices() == g.NumVertices(), h.NumArcs() == g.NumArcs(), h.Directed)
	// Output:
	// true true false
}

func ExampleReadDIMACS() {
	const gr = `c a triangle with a parallel arc
p sp 3 4
a 1 2 7
a 1 2 5
a 2 3 1
a 3 1 2
`
	g, err := graphio.ReadDIMACS(strings.NewReader(gr), graphio.ReadOptions{Name: "triangle.gr"})
	if err != nil {
		log.Fatal(err)
	}
	for u := range int32(g.NumVertices()) {
		for i, v := range g.Neighbors(u) {
			fmt.Printf("%d→%d weight %g\n", u, v, g.ArcWeight(g.Offsets[u]+int64(i)))
		}
	}

	// Errors name the file, line and column, and wrap a sentinel.
	_, err = graphio.ReadDIMACS(strings.NewReader("p sp 3 1\na 1 4 2\n"), graphio.ReadOptions{Name: "bad.gr"})
	var pe *graphio.ParseError
	fmt.Println(err)
	fmt.Println(errors.Is(err, graphio.ErrRange), errors.As(err, &pe) && pe.Line == 2 && pe.Column == 5)
	// Output:
	// 0→1 weight 5
	// 1→2 weight 1
	// 2→0 weight 2
	// graphio: bad.gr:2:5: value out of range: vertex id 4 is outside 1..3
	// true true
}
