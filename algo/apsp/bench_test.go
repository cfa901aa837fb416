package apsp

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/graphio"
)

// benchMatrix is a random directed matrix: edge probability 0.05, whole
// weights 1..100 (int32 or float32). Floyd-Warshall's work does not depend
// on the density.
func benchMatrix(n int, integer bool) *graph.Dense {
	return randDense(rand.New(rand.NewPCG(uint64(n), 1)), n, 0.05, integer, ints(1, 100))
}

// benchAPSP runs f on n = 512 and 1024 in both element types, reporting
// Gupd/s: N³ relaxations per second.
func benchAPSP(b *testing.B, f func(*graph.Dense) (*Result, error), suffix string) {
	for _, n := range []int{512, 1024} {
		for _, integer := range []bool{true, false} {
			kind := "f32"
			if integer {
				kind = "i32"
			}
			b.Run(fmt.Sprintf("n%d_%s%s", n, kind, suffix), func(b *testing.B) {
				d := benchMatrix(n, integer)
				b.ResetTimer()
				for range b.N {
					if _, err := f(d); err != nil {
						b.Fatal(err)
					}
				}
				s := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(float64(n)*float64(n)*float64(n)/s/1e9, "Gupd/s")
			})
		}
	}
}

func BenchmarkFloydWarshall(b *testing.B) { benchAPSP(b, FloydWarshall, "") }

func BenchmarkBlocked(b *testing.B) {
	benchAPSP(b, func(d *graph.Dense) (*Result, error) { return Blocked(d, 64) }, "_t64")
	benchAPSP(b, func(d *graph.Dense) (*Result, error) { return Blocked(d, 32) }, "_t32")
}

// rome99 is the road graph of the APSP study (docs/studies.md §4: DIMACS 9th
// challenge, 3353 vertices, 8870 arcs, distances in metres), shipped in
// graph/graphio's test data.
const rome99 = "../../data/rome99.gr"

// readDIMACS reads a DIMACS file into an int32 matrix (directed, parallel
// arcs keep their minimum weight).
func readDIMACS(path string) (*graph.Dense, error) {
	g, err := graphio.Load(path, graphio.ReadOptions{})
	if err != nil {
		return nil, err
	}
	return g.Dense(true)
}

// BenchmarkRMAT times blocked Floyd-Warshall on the int32 matrices of R-MAT
// graphs (edge factor 16, weights 1..100) at scales 9 and 10.
func BenchmarkRMAT(b *testing.B) {
	for _, scale := range []int{9, 10} {
		b.Run(fmt.Sprintf("rmat_s%d_ef16_t64", scale), func(b *testing.B) {
			g, err := gen.RMAT(scale, 16, gen.Integer(100))
			if err != nil {
				b.Fatal(err)
			}
			d, err := g.Dense(true)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := Blocked(d, 64); err != nil {
					b.Fatal(err)
				}
			}
			n := float64(d.N)
			b.ReportMetric(n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gupd/s")
		})
	}
}

// BenchmarkRome99 times both algorithms on rome99 (the study: sequential
// 61.7 s, plain GPU 60.6 s, blocked GPU 11.9 s on a Tesla T10). Skipped
// when the file is absent.
func BenchmarkRome99(b *testing.B) {
	d, err := readDIMACS(rome99)
	if errors.Is(err, os.ErrNotExist) {
		b.Skip("rome99.gr not found")
	}
	if err != nil {
		b.Fatal(err)
	}
	for _, alg := range []struct {
		name string
		f    func(*graph.Dense) (*Result, error)
	}{
		{"fw", FloydWarshall},
		{"blocked_t64", func(d *graph.Dense) (*Result, error) { return Blocked(d, 64) }},
	} {
		b.Run(alg.name, func(b *testing.B) {
			for range b.N {
				r, err := alg.f(d)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := Check(d, r, 4, 1); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
