package complete

import (
	"bytes"
	"reflect"
	"strings"
	"time"

	"github.com/traefik/yaegi/stdlib"

	"github.com/graphnb/graphnb/graph"
)

// fakeScope is a map-backed Scope: packages from yaegi's real standard
// library tables plus a small hand-made table for graph.
type fakeScope struct {
	names  []string                 // declared by "earlier cells"
	values map[string]reflect.Value // the variables among them
	pkgs   map[string]string        // package name → import path
	magics map[string]string        // nil: no MagicLister behaviour
}

func (s *fakeScope) Names() []string             { return s.names }
func (s *fakeScope) Packages() map[string]string { return s.pkgs }

func (s *fakeScope) Members(path string) map[string]reflect.Value {
	if path == graphPath {
		return graphTable
	}
	name := path[strings.LastIndexByte(path, '/')+1:]
	return stdlib.Symbols[path+"/"+name]
}

func (s *fakeScope) Value(name string) (reflect.Value, bool) {
	v, ok := s.values[name]
	return v, ok
}

// magicScope adds MagicLister.
type magicScope struct{ *fakeScope }

func (s magicScope) Magics() map[string]string { return s.magics }

const graphPath = "github.com/graphnb/graphnb/graph"

// graphTable mimics the table `yaegi extract` makes for graph.
var graphTable = map[string]reflect.Value{
	"Build":        reflect.ValueOf(graph.Build),
	"CSR":          reflect.ValueOf((*graph.CSR)(nil)),
	"EdgeList":     reflect.ValueOf((*graph.EdgeList)(nil)),
	"BuildOptions": reflect.ValueOf((*graph.BuildOptions)(nil)),
	"InfI32":       reflect.ValueOf(graph.InfI32),
	"NotInIndex":   reflect.ValueOf(func(int) string { return "" }),
}

// Test types standing in for values of cells.
type inner struct {
	Label string
	Count int
	note  string
}

func (inner) Describe() string     { return "inner" }
func (*inner) Reset()              {}
func (i inner) unexported() string { return i.note }
func (p point) Norm() float64      { return float64(p.X*p.X + p.Y*p.Y) }
func (p *point) Scale(k int)       { p.X *= k; p.Y *= k }
func (b boom) String() string      { panic("no") }
func (e *oops) Error() string      { return "oops: " + e.what }
func (inner) Ünïcode() string      { return "" }

type point struct {
	X, Y  int
	Inner inner
	Ptr   *inner
	inner // embedded: promotes Label, Count, Describe, Reset
	hide  int
}

type boom struct{ N int }
type oops struct{ what string }

func newScope() *fakeScope {
	var buf bytes.Buffer
	g, err := graph.Build(graph.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}}, graph.BuildOptions{Symmetrize: true})
	if err != nil {
		panic(err)
	}
	big := make([]int, 100000)
	for i := range big {
		big[i] = i
	}
	p := &point{X: 3, Y: 4, Inner: inner{Label: "in", Count: 2}, inner: inner{Label: "emb"}}
	return &fakeScope{
		names: []string{"g", "buf", "p", "big", "größe", "strs", "fib", "Printer", "printed", "d", "b", "err", "nilp", "m", "sort", "sq"},
		values: map[string]reflect.Value{
			"g":     reflect.ValueOf(g),
			"buf":   reflect.ValueOf(&buf).Elem(), // an addressable bytes.Buffer
			"p":     reflect.ValueOf(p),
			"big":   reflect.ValueOf(big),
			"größe": reflect.ValueOf(42),
			"strs":  reflect.ValueOf([]string{"a", "b"}),
			"d":     reflect.ValueOf(90 * time.Minute),
			"b":     reflect.ValueOf(boom{N: 1}),
			"err":   reflect.ValueOf(error(&oops{what: "disk"})),
			"nilp":  reflect.ValueOf((*point)(nil)),
			"m":     reflect.ValueOf(map[string]int{"b": 2, "a": 1}),
			"sq":    reflect.ValueOf(func(x int) int { return x * x }),
			// "fib", "Printer", "printed" are a function, a type and a
			// constant of a cell: no value; "sort" shadows the package.
		},
		pkgs: map[string]string{
			"fmt": "fmt", "strings": "strings", "bytes": "bytes", "os": "os",
			"time": "time", "math": "math", "sort": "sort", "io": "io",
			"rand": "math/rand", "graph": graphPath, "errors": "errors",
		},
	}
}

func reflectValue(x any) reflect.Value { return reflect.ValueOf(x) }
