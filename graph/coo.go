package graph

import (
	"errors"
	"fmt"

	"github.com/graphnb/graphnb/cancel"

	"github.com/graphnb/graphnb/internal/par"
)

// COO is the edge-list form of the SSSP study (docs/studies.md §1: the
// coordinate list): arrays startV, endV and weights in which every undirected
// pair {u, v} of the graph appears exactly once, so one GPU thread can
// relax both directions of an edge without reading it twice.
type COO struct {
	// N is the number of vertices.
	N int
	// Start and End are the study's startV and endV.
	Start, End []int32
	// Weights or Weights64 (at most one) hold the edge weights, or nil.
	Weights   []float32
	Weights64 []float64
}

// NumEdges returns the number of undirected edges, len(Start).
func (c *COO) NumEdges() int64 { return int64(len(c.Start)) }

// MemoryBytes returns the bytes held by the COO arrays.
func (c *COO) MemoryBytes() int64 {
	return int64(len(c.Start))*8 + int64(len(c.Weights))*4 + int64(len(c.Weights64))*8 + 80
}

// UndirectedCOO returns the COO view of an undirected graph: the arcs u→v
// with u < v, in CSR order (sorted by start vertex). It returns an error for
// a directed graph, whose arcs cannot be relaxed in both directions, and
// cancel's error when interrupted.
func (g *CSR) UndirectedCOO() (*COO, error) {
	if g.Directed {
		return nil, fmt.Errorf("graph: the COO view relaxes both directions of each edge, but this graph is directed (build it with Symmetrize)")
	}
	n := g.NumVertices()
	// count the kept arcs per vertex, then fill in parallel.
	upper := make([]int64, n+1)
	err := par.ForWeighted(g.Offsets, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			var c int64
			for _, v := range g.Neighbors(int32(u)) {
				if int(v) > u {
					c++
				}
			}
			upper[u] = c
		}
	})
	if err != nil {
		return nil, fmt.Errorf("graph: UndirectedCOO: %w", err)
	}
	at := prefixSum(upper)
	m := at[n]
	c := &COO{N: n, Start: make([]int32, m), End: make([]int32, m)}
	if g.Weights != nil {
		c.Weights = make([]float32, m)
	}
	if g.Weights64 != nil {
		c.Weights64 = make([]float64, m)
	}
	err = par.ForWeighted(g.Offsets, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			j := at[u]
			for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
				v := g.Adj[k]
				if int(v) <= u {
					continue
				}
				c.Start[j], c.End[j] = int32(u), v
				if c.Weights != nil {
					c.Weights[j] = g.Weights[k]
				}
				if c.Weights64 != nil {
					c.Weights64[j] = g.Weights64[k]
				}
				j++
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("graph: UndirectedCOO: %w", err)
	}
	return c, nil
}

// EdgeList returns the graph's edges as an edge list: every arc of a
// directed graph, or each pair u<v once for an undirected one (build it
// back with BuildOptions{Symmetrize: true}). It has no error result, so
// an interrupt (cancel.Request) makes it panic with an error wrapping
// cancel.ErrInterrupted.
func (g *CSR) EdgeList() EdgeList {
	el, err := g.edgeList()
	if err != nil {
		panic(fmt.Errorf("graph: EdgeList: %w", err))
	}
	return el
}

func (g *CSR) edgeList() (EdgeList, error) {
	if !g.Directed {
		c, err := g.UndirectedCOO()
		if err != nil {
			return EdgeList{}, err
		}
		return EdgeList{N: c.N, Src: c.Start, Dst: c.End, Weights: c.Weights, Weights64: c.Weights64}, nil
	}
	n := g.NumVertices()
	el := EdgeList{N: n, Src: make([]int32, g.NumArcs()), Dst: append([]int32(nil), g.Adj...)}
	if g.Weights != nil {
		el.Weights = append([]float32(nil), g.Weights...)
	}
	if g.Weights64 != nil {
		el.Weights64 = append([]float64(nil), g.Weights64...)
	}
	err := par.ForWeighted(g.Offsets, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
				el.Src[k] = int32(u)
			}
		}
	})
	if err != nil {
		return EdgeList{}, err
	}
	return el, nil
}

// Undirected returns the graph with every arc made two-way (the minimum
// weight kept where both directions existed with different weights). An
// undirected graph is returned as it is. It has no error result, so an
// interrupt (cancel.Request) makes it panic with an error wrapping
// cancel.ErrInterrupted.
func (g *CSR) Undirected() *CSR {
	if !g.Directed {
		return g
	}
	el, err := g.edgeList()
	var u *CSR
	if err == nil {
		u, err = Build(el, BuildOptions{Symmetrize: true})
	}
	if errors.Is(err, cancel.ErrInterrupted) {
		panic(fmt.Errorf("graph: Undirected: %w", err))
	}
	if err != nil {
		panic("graph: rebuilding a valid graph failed: " + err.Error())
	}
	return u
}

// WithFloat64Weights returns a copy of the graph's structure sharing
// Offsets and Adj, with its weights widened to float64 (unit weights for
// an unweighted graph). The studies' SSSP keeps distances in doubles.
// It has no error result, so an interrupt (cancel.Request) makes it panic
// with an error wrapping cancel.ErrInterrupted.
func (g *CSR) WithFloat64Weights() *CSR {
	if g.Weights64 != nil {
		return g
	}
	w := make([]float64, len(g.Adj))
	err := par.For(len(w), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			w[k] = g.ArcWeight(int64(k))
		}
	})
	if err != nil {
		panic(fmt.Errorf("graph: WithFloat64Weights: %w", err))
	}
	return &CSR{Offsets: g.Offsets, Adj: g.Adj, Weights64: w, Directed: g.Directed}
}
