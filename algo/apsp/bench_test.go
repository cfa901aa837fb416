package apsp

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/graph"
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

// rome99 is the road graph of the APSP study (seeds.md §4: DIMACS 9th
// challenge, 3353 vertices, 8870 arcs, distances in metres), read from
// graph/graphio's test data by a minimal local DIMACS reader.
const rome99 = "../../graph/graphio/testdata/rome99.gr"

// readDIMACS reads "p sp N M" and "a U V W" lines (1-based ids) into an
// int32 matrix, keeping the lightest of parallel arcs.
func readDIMACS(path string) (*graph.Dense, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var d *graph.Dense
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 4 && fields[0] == "p":
			n, err := strconv.Atoi(fields[2])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			d = graph.NewDenseI32(n)
		case len(fields) == 4 && fields[0] == "a" && d != nil:
			var x [3]int
			for i := range x {
				if x[i], err = strconv.Atoi(fields[i+1]); err != nil {
					return nil, fmt.Errorf("%s:%d: %v", path, line, err)
				}
			}
			u, v := x[0]-1, x[1]-1
			if u < 0 || u >= d.N || v < 0 || v >= d.N {
				return nil, fmt.Errorf("%s:%d: arc %d→%d outside 1..%d", path, line, x[0], x[1], d.N)
			}
			if k := u*d.N + v; u != v && int32(x[2]) < d.I32[k] {
				d.I32[k] = int32(x[2])
			}
		}
	}
	if d == nil {
		return nil, fmt.Errorf("%s: no problem line", path)
	}
	return d, sc.Err()
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
