package format

import (
	"bytes"
	"compress/gzip"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	pkgs := []*Package{
		{Path: "b/two", Name: "two", Entries: []Entry{{Kind: "func", Name: "F", Signature: "func F()"}}},
		{Path: "a", Name: "a", Synopsis: "Package a …", Doc: "Package a …\n\nMore.", Entries: []Entry{
			{Kind: "type", Name: "T", Signature: "type T struct{ X int }", Doc: "T is ünïcode <html> & \"quotes\"."},
			{Kind: "field", Name: "T.X", Signature: "X int"},
		}},
	}
	var b bytes.Buffer
	if err := Write(&b, "go1.99", pkgs, map[string]bool{"a": true}); err != nil {
		t.Fatal(err)
	}
	data := b.String()
	h, base, err := ReadHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	if h.Go != "go1.99" || len(h.Packages) != 2 || h.Packages[0].Path != "a" || !h.Packages[0].Std || h.Packages[1].Std {
		t.Fatalf("header = %+v", h)
	}
	for i, ph := range h.Packages {
		p, err := ReadPackage(data[base+ph.Off : base+ph.Off+ph.Len])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, pkgs[i]) { // Write sorted pkgs by path
			t.Errorf("package %d = %+v, want %+v", i, p, pkgs[i])
		}
	}
	// The whole file is one multi-member gzip stream of JSON lines.
	zr, err := gzip.NewReader(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(all), "\n"); n != 3 {
		t.Errorf("zcat gives %d lines, want 3", n)
	}
}

func TestReadHeaderDamaged(t *testing.T) {
	for _, data := range []string{"", "not gzip", "\x1f\x8b\x08\x00garbage"} {
		if _, _, err := ReadHeader(data); err == nil {
			t.Errorf("ReadHeader(%q) succeeded", data)
		}
	}
	if _, err := ReadPackage("nope"); err == nil {
		t.Error("ReadPackage(garbage) succeeded")
	}
}
