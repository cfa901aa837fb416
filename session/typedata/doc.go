// Package typedata gives Go's type checker the real types of every package
// a notebook cell can import — the standard-library packages of yaegi's
// tables and graphnb's packages — without a Go toolchain: their export
// data is embedded in the binary (exports.gz, about 0.75 MB).
//
// The file is written by
//
//	go generate ./session/typedata
//
// which runs ./gen (go/packages and golang.org/x/tools/go/gcexportdata) on
// the toolchain's standard library and the module's packages. It is a
// multi-member gzip stream: a JSON header listing each package's path,
// name and member size, then one member per package holding
// gcexportdata.Write's output (no positions). Nothing is decoded at
// start-up; a package is decoded on its first import (about 1 ms for fmt)
// and kept. Run the generator again after changing the exported API of a
// graphnb package; TestFresh fails while the embedded copy is stale.
//
// The data describes the toolchain's standard library (Go 1.26 when this
// was written), which is newer than yaegi's tables (Go 1.22): the checker
// that uses it must refuse what the tables lack (Importer.Has tells).
package typedata
