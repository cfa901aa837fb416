package graphio

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphnb/graphnb/graph"
)

// Format is a graph file format.
type Format int

// The formats, chosen from a file name by FormatOf.
const (
	FormatUnknown      Format = iota
	FormatDIMACS              // DIMACS shortest-path .gr
	FormatMatrixMarket        // Matrix Market coordinate .mtx
	FormatEdgeList            // SNAP-style edge list .txt, .el, .edges, .snap
	FormatBinary              // graphnb binary CSR .gnb
	FormatECL                 // the ECL suite's binary CSR .egr (int32, ECL-MST's input)
)

// String returns the format's name.
func (f Format) String() string {
	switch f {
	case FormatDIMACS:
		return "DIMACS"
	case FormatMatrixMarket:
		return "MatrixMarket"
	case FormatEdgeList:
		return "EdgeList"
	case FormatBinary:
		return "Binary"
	case FormatECL:
		return "ECL"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Extension returns the format's usual file extension (".gr", ".mtx",
// ".txt", ".gnb"), or "" for an unknown format.
func (f Format) Extension() string {
	switch f {
	case FormatDIMACS:
		return ".gr"
	case FormatMatrixMarket:
		return ".mtx"
	case FormatEdgeList:
		return ".txt"
	case FormatBinary:
		return ".gnb"
	case FormatECL:
		return ".egr"
	}
	return ""
}

var extensions = map[string]Format{
	".gr":    FormatDIMACS,
	".mtx":   FormatMatrixMarket,
	".txt":   FormatEdgeList,
	".el":    FormatEdgeList,
	".edges": FormatEdgeList,
	".snap":  FormatEdgeList,
	".gnb":   FormatBinary,
	".egr":   FormatECL,
}

// FormatOf returns the format a path's extension names (matched without
// regard to case), looking through a final ".gz": .gr is DIMACS, .mtx
// Matrix Market, .txt/.el/.edges/.snap an edge list, .gnb binary, .egr
// the ECL suite's binary CSR. Any
// other extension gives an error wrapping ErrFormat.
func FormatOf(path string) (Format, error) {
	base := strings.ToLower(filepath.Base(path))
	base = strings.TrimSuffix(base, ".gz")
	if f, ok := extensions[filepath.Ext(base)]; ok {
		return f, nil
	}
	return FormatUnknown, fmt.Errorf("graphio: %q: %w: known extensions are .gr (DIMACS), .mtx (Matrix Market), .txt, .el, .edges, .snap (edge list), .gnb (binary) and .egr (ECL), each optionally followed by .gz",
		path, ErrFormat)
}

func isGzip(path string) bool { return strings.EqualFold(filepath.Ext(path), ".gz") }

// Read reads a graph in format f from r.
func Read(r io.Reader, f Format, opt ReadOptions) (*graph.CSR, error) {
	switch f {
	case FormatDIMACS:
		return ReadDIMACS(r, opt)
	case FormatMatrixMarket:
		return ReadMatrixMarket(r, opt)
	case FormatEdgeList:
		return ReadEdgeList(r, opt)
	case FormatBinary:
		return ReadBinaryWith(r, opt)
	case FormatECL:
		return ReadECL(r, opt)
	}
	return nil, fmt.Errorf("graphio: reading %v: %w", f, ErrFormat)
}

// Write writes g to w in format f (comments are dropped by the binary
// formats).
func Write(w io.Writer, f Format, g *graph.CSR, comments ...string) error {
	switch f {
	case FormatDIMACS:
		return WriteDIMACS(w, g, comments...)
	case FormatMatrixMarket:
		return WriteMatrixMarket(w, g, comments...)
	case FormatEdgeList:
		return WriteEdgeList(w, g, comments...)
	case FormatBinary:
		return WriteBinary(w, g)
	case FormatECL:
		return WriteECL(w, g)
	}
	return fmt.Errorf("graphio: writing %v: %w", f, ErrFormat)
}

// Load reads the graph file at path, in the format FormatOf names,
// decompressing it first when the name ends in ".gz". opt.Name defaults
// to path. A binary file must end where its encoding ends.
//
//	g, err := graphio.Load("data/rome99.gr", graphio.ReadOptions{})
func Load(path string, opt ReadOptions) (*graph.CSR, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	if opt.Name == "" {
		opt.Name = path
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("graphio: %w", err)
	}
	defer file.Close()
	var r io.Reader = file
	if isGzip(path) {
		zr, err := gzip.NewReader(bufio.NewReaderSize(file, 1<<20))
		if err != nil {
			return nil, &ParseError{File: opt.Name, Err: fmt.Errorf("%w: not a gzip file: %w", ErrHeader, err)}
		}
		defer zr.Close()
		r = zr
	}
	g, err := Read(r, f, opt)
	if err != nil {
		return nil, err
	}
	if f == FormatBinary {
		var b [1]byte
		if n, err := io.ReadFull(r, b[:]); n > 0 {
			return nil, &ParseError{File: opt.Name, Err: fmt.Errorf("%w: data after the end of the binary graph", ErrCorrupt)}
		} else if err != io.EOF {
			return nil, fmt.Errorf("graphio: reading %s: %w", opt.Name, err)
		}
	} else if isGzip(path) {
		// Drain the stream so gzip checks its CRC and length trailer.
		if _, err := io.Copy(io.Discard, r); err != nil {
			return nil, fmt.Errorf("graphio: reading %s: %w", opt.Name, err)
		}
	}
	return g, nil
}

// savingErr reports a failure to save path. The file is written under a
// temporary name beside path and renamed, so the operating system's error
// names the temporary file; the message names path instead.
func savingErr(path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("graphio: writing %s: %w", path, err)
}

// Save writes g to path in the format FormatOf names, gzip-compressed
// when the name ends in ".gz". It writes a temporary file in the same
// directory and renames it over path only when everything was written,
// so path never holds a partial graph (the data is not fsynced). Text
// formats carry the comment "written by graphnb".
func Save(path string, g *graph.CSR) (err error) {
	f, err := FormatOf(path)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return savingErr(path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	var w io.Writer = tmp
	var zw *gzip.Writer
	if isGzip(path) {
		zw = gzip.NewWriter(tmp)
		w = zw
	}
	if err := Write(w, f, g, "written by graphnb"); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the temporary file's name means nothing to the caller
			return savingErr(path, err)
		}
		return err
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return savingErr(path, err)
		}
	}
	if err := tmp.Chmod(0o644); err != nil {
		return savingErr(path, err)
	}
	if err := tmp.Close(); err != nil {
		return savingErr(path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return savingErr(path, err)
	}
	return nil
}
