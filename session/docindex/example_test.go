package docindex_test

import (
	"fmt"

	"github.com/graphnb/graphnb/session/docindex"
)

func ExampleLookup() {
	e, ok := docindex.Lookup("strings", "Split")
	fmt.Println(ok, e.Kind)
	fmt.Println(e.Signature)
	m, _ := docindex.Lookup("github.com/graphnb/graphnb/graph", "CSR.NumVertices")
	fmt.Println(m.Kind, m.Signature)
	_, ok = docindex.Lookup("strings", "NoSuchFunc")
	fmt.Println(ok)
	// Output:
	// true func
	// func Split(s, sep string) []string
	// method func (g *CSR) NumVertices() int
	// false
}

func ExamplePackage() {
	p, _ := docindex.Package("math/rand")
	fmt.Println(p.Name, p.Std)
	fmt.Println(p.Synopsis)
	// Output:
	// rand true
	// Package rand implements pseudo-random number generators suitable for tasks such as simulation, but it should not be used for security-sensitive work.
}
