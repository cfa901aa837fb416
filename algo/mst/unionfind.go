package mst

// unionFind is a disjoint-set forest over the vertices [0, n) with path
// compression and union by rank: a sequence of m operations costs
// O(m α(n)).
type unionFind struct {
	parent []int32
	rank   []uint8
}

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int32, n), rank: make([]uint8, n)}
	for i := range u.parent {
		u.parent[i] = int32(i)
	}
	return u
}

// find returns the representative of x's set and points every vertex on
// the way straight at it.
func (u *unionFind) find(x int32) int32 {
	r := x
	for u.parent[r] != r {
		r = u.parent[r]
	}
	for u.parent[x] != r {
		next := u.parent[x]
		u.parent[x] = r
		x = next
	}
	return r
}

// union joins the sets of a and b and reports whether they were distinct.
func (u *unionFind) union(a, b int32) bool {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return false
	}
	switch {
	case u.rank[ra] < u.rank[rb]:
		u.parent[ra] = rb
	case u.rank[ra] > u.rank[rb]:
		u.parent[rb] = ra
	default:
		u.parent[rb] = ra
		u.rank[ra]++
	}
	return true
}
