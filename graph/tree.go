package graph

import (
	"fmt"

	"github.com/graphnb/graphnb/internal/par"
)

// CheckTree reports whether parents describes a tree rooted at root, as
// BFS and SSSP results do: parents[root] = root, every other entry is -1
// (not in the tree) or a vertex id, and following parents from any vertex
// in the tree reaches root without a cycle. The error names the first
// vertex (lowest id) whose walk loops. Work is O(N); memory 1 byte per
// vertex. An interrupt returns cancel's error.
func CheckTree(parents []int32, root int32) error {
	n := len(parents)
	if root < 0 || int(root) >= n {
		return fmt.Errorf("graph: root %d is outside [0,%d)", root, n)
	}
	if parents[root] != root {
		return fmt.Errorf("graph: root %d has parent %d, want itself", root, parents[root])
	}
	// state 1 = on the current walk, 2 = known to reach the root
	state := make([]uint8, n)
	state[root] = 2
	var path []int32
	for v := range int32(n) {
		if par.Cancelled(int(v)) {
			return interrupted("CheckTree")
		}
		if parents[v] < 0 || state[v] == 2 {
			continue
		}
		path = path[:0]
		u := v
		for state[u] == 0 {
			state[u] = 1
			path = append(path, u)
			u = parents[u]
			if u < 0 || int(u) >= n {
				return fmt.Errorf("graph: vertex %d has parent %d, outside [0,%d)", path[len(path)-1], u, n)
			}
		}
		if state[u] == 1 {
			return fmt.Errorf("graph: following parents from vertex %d loops at vertex %d without reaching root %d", v, u, root)
		}
		for _, w := range path {
			state[w] = 2
		}
	}
	return nil
}
