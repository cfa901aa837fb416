package bfs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphnb/graphnb/graph"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

// sameErrors requires CheckMany's answers to be Check's, message for
// message, and returns how many results were rejected.
func sameErrors(t *testing.T, what string, g *graph.CSR, rs []*Result) int {
	t.Helper()
	got := CheckMany(g, rs)
	if len(got) != len(rs) {
		t.Fatalf("%s: %d errors for %d results", what, len(got), len(rs))
	}
	rejected := 0
	for i, r := range rs {
		want := Check(g, r)
		if fmt.Sprint(got[i]) != fmt.Sprint(want) {
			t.Errorf("%s, result %d: CheckMany says %v, Check %v", what, i, got[i], want)
		}
		if want != nil {
			rejected++
		}
	}
	return rejected
}

// TestCheckManyAgreesWithCheck gives CheckMany batches of 1 to 19 results
// (across its batches of eight) of random undirected graphs — lists
// sorted, in random order, with self-loops, directed, a path deeper than
// its packed table holds — most of them corrupted by one random change,
// and requires each answer to be Check's.
func TestCheckManyAgreesWithCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 29))
	rejected, total := 0, 0
	for i := range 200 {
		n := 2 + r.IntN(90)
		var g *graph.CSR
		switch i % 5 {
		case 0, 1:
			g = tg.Build(t, n, false, tg.Unweighted, tg.Random(r, n, 1+r.IntN(4*n), nil)...)
		case 2:
			g = shuffledLists(r, tg.Build(t, n, false, tg.Unweighted, tg.Random(r, n, 1+r.IntN(4*n), nil)...))
		case 3:
			g = tg.Build(t, n, true, tg.Unweighted, tg.Random(r, n, 1+r.IntN(4*n), nil)...)
		case 4:
			n = 62 + r.IntN(20) // deeper than 60 levels from vertex 0
			g = tg.Build(t, n, false, tg.Unweighted, tg.Path(n, nil)...)
		}
		rs := make([]*Result, 1+r.IntN(19))
		for k := range rs {
			res, err := TopDown(g, int32(r.IntN(n)))
			if err != nil {
				t.Fatal(err)
			}
			if r.IntN(3) > 0 {
				mutateRandomly(r, res)
			}
			rs[k] = res
		}
		rejected += sameErrors(t, fmt.Sprintf("graph %d (%d vertices)", i, n), g, rs)
		total += len(rs)
	}
	if rejected == 0 || rejected == total {
		t.Fatalf("%d of %d results rejected: the test does not exercise both answers", rejected, total)
	}
}

// TestCheckManyCatchesEveryMutation plants each kind of error of the
// device check's mutation tests, and a leaf cut off or hung a level too
// deep, in one lane of a full batch of R-MAT results (the other seven
// valid) and requires the packed pass to flag exactly that lane and
// CheckMany to reject exactly that result, with Check's message.
func TestCheckManyCatchesEveryMutation(t *testing.T) {
	g, _ := mutationGraph(t, 10)
	var sources []int32
	for v := int32(0); len(sources) < checkLanes; v++ {
		if g.Degree(v) > 0 {
			sources = append(sources, v)
		}
	}
	valid := make([]*Result, checkLanes)
	for i, s := range sources {
		res, err := TopDown(g, s)
		if err != nil {
			t.Fatal(err)
		}
		valid[i] = res
	}
	if failed, err := checkLanesOnce(g, valid); failed != 0 || err != nil {
		t.Fatalf("valid results not accepted by the packed pass: lanes %08b, %v", failed, err)
	}
	extra := []mutation{
		{"leaf cut off", "rule", func(g *graph.CSR, m *Result) bool {
			for v, l := range m.Levels {
				if l >= 1 && len(children(m, int32(v))) == 0 {
					m.Levels[v], m.Parents[v] = -1, -1
					m.FrontierSizes[l]--
					m.Reached--
					return true
				}
			}
			return false
		}},
		{"ComponentEdges+1", "ComponentEdges", func(g *graph.CSR, m *Result) bool { m.ComponentEdges++; return true }},
	}
	for k, mu := range append(slices.Clone(mutations), extra...) {
		lane := k % checkLanes
		rs := slices.Clone(valid)
		m := cloneResult(valid[lane])
		if !mu.plant(g, m) {
			t.Fatalf("%s: no place for it", mu.name)
		}
		rs[lane] = m
		// The packed pass itself must flag the lane (not only Check
		// behind it).
		if failed, err := checkLanesOnce(g, rs); failed != 1<<lane || err != nil {
			t.Errorf("%s in lane %d: the packed pass flags lanes %08b (%v)", mu.name, lane, failed, err)
		}
		errs := CheckMany(g, rs)
		for i, err := range errs {
			if (err != nil) != (i == lane) {
				t.Errorf("%s in lane %d: result %d: %v", mu.name, lane, i, err)
			}
		}
		sameErrors(t, mu.name, g, rs)
	}
}
