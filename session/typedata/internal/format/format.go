// Package format is the layout of typedata's embedded file, shared by the
// generator and the reader.
package format

// Header is the first gzip member of the file: the packages, in the order
// of their members.
type Header struct {
	Packages []Entry `json:"packages"`
}

// Entry is one package: its import path, its name, and the size in bytes
// of its gzip member (which holds gcexportdata.Write's output).
type Entry struct {
	Path string `json:"path"`
	Name string `json:"name"`
	Size int    `json:"size"`
}
