// Package graphio reads and writes graphs: the DIMACS shortest-path
// format (.gr, the 9th DIMACS Challenge's road networks such as the
// rome99 graph of the APSP study, docs/studies.md §4), Matrix Market coordinate
// files (.mtx, the SuiteSparse collection), SNAP-style edge lists (.txt,
// .el, .edges, .snap), a binary CSR cache (.gnb) that reloads a
// scale-24 R-MAT graph in seconds, and the ECL suite's int32 CSR (.egr,
// ECL-MST's input; whole-number weights only).
//
// Load and Save pick the format from the file name (FormatOf) and handle a
// trailing ".gz"; ReadDIMACS, ReadMatrixMarket, ReadEdgeList, ReadBinary
// and their Write counterparts work on any io.Reader or io.Writer. Each
// writer's output reads back to the same CSR (for DIMACS, an undirected
// graph needs ReadOptions.Symmetrize, and weights must be whole numbers).
//
// # Graphs
//
// Text readers collect the entries and call graph.Build, so the result
// has neighbour lists sorted by id, no self-loops, and one arc per
// ordered pair, keeping the minimum weight where a file repeats a pair
// (rome99.gr has 11 such parallel arcs). Vertex ids become 0-based.
// Weights are float32 unless ReadOptions.Float64 asks for float64.
//
// # Errors
//
// Bad input gives a *ParseError, modelled on encoding/csv.ParseError: it
// carries the file name (ReadOptions.Name), the 1-based line and the
// 1-based byte column of the offending field, and wraps one of the
// sentinels ErrSyntax, ErrHeader, ErrUnsupported, ErrRange, ErrCount,
// ErrTooLarge, ErrTruncated, ErrChecksum or ErrCorrupt:
//
//	var pe *graphio.ParseError
//	if errors.As(err, &pe) && errors.Is(err, graphio.ErrRange) { … pe.Line … }
//
// No input makes a reader panic.
//
// # Limits
//
// A header's counts are checked against ReadOptions.MaxVertices and
// MaxEdges before anything is allocated, and storage reserved from a
// declared count never exceeds what the input's size (when known) could
// hold; past that, slices grow with the data actually read. So a
// hostile header costs memory in proportion to the input, not to its
// claims. One claim cannot be checked that way: a text file may declare
// vertices that no line mentions (isolated vertices), and the CSR needs
// 8 bytes of offsets for each. With the default vertex limit a text file
// may therefore hold at most 2^20 vertices plus 16 per byte of input
// (a 1 MB file up to about 17 million); set MaxVertices to read a larger,
// sparser graph. Data lines longer than 1 MiB are refused.
//
// # Speed
//
// Text is read through a 1 MiB buffer and parsed field by field without
// per-line allocations, then built in parallel by graph.Build. The binary
// format stores the CSR arrays as raw little-endian data that is read
// straight into the slices and checked with CRC-32C while it streams; see
// ReadBinaryWith for its trust model.
//
// Long reads and writes poll cancel.Check and stop with its error
// (wrapped) when the user interrupts the cell.
package graphio
