package graph

import (
	"strings"
	"testing"
)

func TestCheckTree(t *testing.T) {
	cases := []struct {
		name    string
		parents []int32
		root    int32
		want    string // "" = valid
	}{
		{"path", []int32{0, 0, 1, 2}, 0, ""},
		{"star with an outsider", []int32{-1, 1, 1, 1}, 1, ""},
		{"single vertex", []int32{0}, 0, ""},
		{"root without itself", []int32{1, 1}, 0, "root 0 has parent 1"},
		{"root out of range", []int32{0}, 3, "root 3 is outside"},
		{"two-cycle", []int32{0, 0, 3, 2}, 0, "from vertex 2 loops at vertex 2"},
		{"self-loop", []int32{0, 1}, 0, "from vertex 1 loops at vertex 1"},
		{"long cycle feeding in", []int32{0, 2, 3, 1, 1}, 0, "loops at vertex 1"},
		{"parent out of range", []int32{0, 7}, 0, "vertex 1 has parent 7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckTree(c.parents, c.root)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("valid tree rejected: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}
