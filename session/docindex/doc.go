// Package docindex is graphnb's offline Go documentation: the signatures and
// doc comments of the standard-library packages a notebook cell can use
// (those yaegi's stdlib.Symbols exposes) and of graphnb's own packages, for
// the kernel's inspect_request. Neither the kernel's machine nor the GPU
// machine needs a Go toolchain or network access: the index is embedded in
// the binary.
//
// The index (docindex.json.gz, about 0.7 MB) is written by
//
//	go generate ./session/docindex
//
// which runs ./gen over $(go env GOROOT)/src and the module's sources. It
// is a multi-member gzip stream of JSON documents: a header listing every
// package with its byte range, then one member per package, so `zcat`
// shows one JSON document per line. Nothing is decoded at start-up: the
// header is decoded on the first call (about 1 ms, 0.5 MB), and each
// package on its first lookup (0.5 ms for strings, 4 ms for net/http),
// then cached; all of them together take about 11 MB. Run the generator again
// after changing a documented graphnb package; TestIndexFresh fails when
// the embedded copy is stale.
//
// Each exported symbol is an Entry: functions, types, methods ("Type.Method",
// interface methods included), exported struct fields ("Type.Field"),
// variables and constants. Doc comments are kept to their first 40 lines
// (package docs 60) and long type declarations to 40 lines; signatures are
// otherwise whole.
package docindex
