// Package devcsr holds CUDA helpers that walk a CSR's arcs (csr.cuh):
// finding the row, or tail, of an arc. The device code of several kernels
// of a package (sssp's parent tree and its check) needs them; NVRTC takes
// no #include, so Prepend puts the text before a kernel file, and the fake
// GPU's sources (testdata/fake_*.cpp) include csr.cuh instead.
package devcsr

import (
	_ "embed"
)

//go:embed csr.cuh
var helpers string

// Prepend returns the text to compile for body, a .cu file that uses
// csr.cuh's helpers: the helpers, then body.
func Prepend(body string) string { return helpers + "\n" + body }
