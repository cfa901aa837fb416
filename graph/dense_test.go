package graph

import (
	"math"
	"strings"
	"testing"
)

func TestDenseFromCSR(t *testing.T) {
	g, _ := Build(EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, Weights: []float32{4, 7}}, BuildOptions{})
	fd, err := g.Dense(false)
	if err != nil {
		t.Fatal(err)
	}
	id, err := g.Dense(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Dense{fd, id} {
		want := [][]float64{{0, 4, math.Inf(1)}, {math.Inf(1), 0, 7}, {math.Inf(1), math.Inf(1), 0}}
		for i := range 3 {
			for j := range 3 {
				if d.At(i, j) != want[i][j] {
					t.Fatalf("int=%v At(%d,%d) = %g, want %g", d.IsInt(), i, j, d.At(i, j), want[i][j])
				}
			}
		}
		c := d.Clone()
		if c.MemoryBytes() != 36 || c.N != 3 {
			t.Fatalf("clone %d bytes", c.MemoryBytes())
		}
		if c.IsInt() {
			c.I32[1] = 99
			if d.I32[1] == 99 {
				t.Fatal("Clone shares memory")
			}
		} else {
			c.F32[1] = 99
			if d.F32[1] == 99 {
				t.Fatal("Clone shares memory")
			}
		}
	}
}

func TestDenseErrors(t *testing.T) {
	frac, _ := Build(EdgeList{N: 2, Src: []int32{0}, Dst: []int32{1}, Weights: []float32{0.5}}, BuildOptions{})
	if _, err := frac.Dense(true); err == nil || !strings.Contains(err.Error(), "whole number") {
		t.Fatalf("err = %v, want a whole-number error", err)
	}
	huge, _ := Build(EdgeList{N: 3, Src: []int32{0}, Dst: []int32{1}, Weights: []float32{1e9}}, BuildOptions{})
	if _, err := huge.Dense(true); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Fatalf("err = %v, want an overflow error", err)
	}
	big := &CSR{Offsets: make([]int64, MaxDenseVertices+2)}
	if _, err := big.Dense(false); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("err = %v, want a size-limit error", err)
	}
}

func TestDenseInspect(t *testing.T) {
	nan := float32(math.NaN())
	cases := []struct {
		name string
		d    *Dense
		want string // "" = valid
		neg  bool
		max  float64
	}{
		{"float", &Dense{N: 2, F32: []float32{0, 3, float32(math.Inf(1)), 0}}, "", false, 3},
		{"negative int", &Dense{N: 2, I32: []int32{0, -4, InfI32, 0}}, "", true, 4},
		{"nil", nil, "no matrix", false, 0},
		{"both", &Dense{N: 1, F32: []float32{0}, I32: []int32{0}}, "exactly one", false, 0},
		{"short", &Dense{N: 2, F32: []float32{0}}, "holds 1 float32 entries", false, 0},
		{"NaN", &Dense{N: 1, F32: []float32{nan}}, "NaN", false, 0},
		{"-Inf", &Dense{N: 1, F32: []float32{float32(math.Inf(-1))}}, "-Inf", false, 0},
		{"below -InfI32", &Dense{N: 1, I32: []int32{-InfI32}}, "below", false, 0},
		{"overflowing paths", &Dense{N: 3, I32: []int32{0, -1, InfI32/2 + 1, 0, 0, 0, 0, 0, 0}}, "may leave", false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info, err := c.d.Inspect()
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("err = %v, want one containing %q", err, c.want)
				}
				return
			}
			if err != nil || info.Negative != c.neg || info.MaxAbs != c.max {
				t.Fatalf("Inspect = %+v, %v; want Negative %v, MaxAbs %g", info, err, c.neg, c.max)
			}
		})
	}
}
