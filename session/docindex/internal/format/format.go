// Package format is the on-disk form of the documentation index that
// package docindex embeds: a multi-member gzip stream of JSON documents.
package format

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Entry is one exported symbol. Name is "Name" for package-level symbols
// and "Type.Name" for methods and struct fields (and interface methods).
type Entry struct {
	Kind      string `json:"kind"` // func, method, type, field, var, const
	Name      string `json:"name"`
	Signature string `json:"sig"`
	Doc       string `json:"doc,omitempty"`
}

// Package is the documentation of one package.
type Package struct {
	Path     string  `json:"path"`
	Name     string  `json:"name"`
	Synopsis string  `json:"synopsis,omitempty"`
	Doc      string  `json:"doc,omitempty"`
	Entries  []Entry `json:"entries"`
}

// Header is the first member of the index file: the Go version the
// standard-library part was generated from, and where each package's member
// starts (Off, in bytes after the end of the header member) and how long it
// is (Len, bytes).
type Header struct {
	Go       string      `json:"go"`
	Packages []PkgHeader `json:"packages"`
}

// PkgHeader locates one package in the index.
type PkgHeader struct {
	Path     string `json:"path"`
	Name     string `json:"name"`
	Synopsis string `json:"synopsis,omitempty"`
	Std      bool   `json:"std,omitempty"`
	Off      int64  `json:"off"`
	Len      int64  `json:"len"`
}

// Write encodes the index: a multi-member gzip stream whose first member is
// the JSON Header and each further member one package's JSON. `zcat` on the
// file shows one JSON document per line; a reader decompresses only the
// members it needs. std tells which paths are standard library. Write
// sorts pkgs by import path, in place.
func Write(w io.Writer, goVersion string, pkgs []*Package, std map[string]bool) error {
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Path < pkgs[j].Path })
	var body bytes.Buffer
	h := Header{Go: goVersion}
	for _, p := range pkgs {
		off := int64(body.Len())
		if err := member(&body, p); err != nil {
			return err
		}
		h.Packages = append(h.Packages, PkgHeader{Path: p.Path, Name: p.Name, Synopsis: p.Synopsis, Std: std[p.Path], Off: off, Len: int64(body.Len()) - off})
	}
	var head bytes.Buffer
	if err := member(&head, h); err != nil {
		return err
	}
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	_, err := w.Write(body.Bytes())
	return err
}

func member(b *bytes.Buffer, v any) error {
	zw, err := gzip.NewWriterLevel(b, gzip.BestCompression)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return zw.Close()
}

// ReadHeader decodes the header member at the start of data and returns it
// with the offset in data where the package members begin (member offsets
// in the header are relative to it).
func ReadHeader(data string) (Header, int64, error) {
	var h Header
	r := strings.NewReader(data)
	zr, err := gzip.NewReader(r) // a strings.Reader is a ByteReader: no read-ahead
	if err != nil {
		return h, 0, fmt.Errorf("docindex: header: %w", err)
	}
	zr.Multistream(false)
	if err := json.NewDecoder(zr).Decode(&h); err != nil {
		return h, 0, fmt.Errorf("docindex: header: %w", err)
	}
	if _, err := io.Copy(io.Discard, zr); err != nil { // reach the member's trailer
		return h, 0, fmt.Errorf("docindex: header: %w", err)
	}
	return h, int64(len(data) - r.Len()), nil
}

// ReadPackage decodes one package member.
func ReadPackage(member string) (*Package, error) {
	zr, err := gzip.NewReader(strings.NewReader(member))
	if err != nil {
		return nil, fmt.Errorf("docindex: %w", err)
	}
	zr.Multistream(false)
	var p Package
	if err := json.NewDecoder(zr).Decode(&p); err != nil {
		return nil, fmt.Errorf("docindex: %w", err)
	}
	return &p, nil
}
