// Package cardtest holds the checks the HTML renderers' tests share:
// golden files and well-formed, self-contained markup.
package cardtest

import (
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// Golden compares got with testdata/name.golden; go test -update rewrites
// the file instead.
func Golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (go test -update rewrites it)\n got: %s\nwant: %s", name, path, got, want)
	}
}

// WellFormed parses s as XML inside a root element: tags closed and
// nested, attributes quoted, no undefined entity, no script element.
func WellFormed(s string) error {
	d := xml.NewDecoder(strings.NewReader("<root>" + s + "</root>"))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok && strings.EqualFold(se.Name.Local, "script") {
			line, _ := d.InputPos()
			return &xml.SyntaxError{Msg: "script element", Line: line}
		}
	}
}

// CheckHTML fails the test unless s is well-formed, at most 8 KiB, and
// free of styles sheets, classes and external references.
func CheckHTML(t *testing.T, s string) {
	t.Helper()
	if err := WellFormed(s); err != nil {
		t.Errorf("HTML not well-formed: %v\n%s", err, s)
	}
	if len(s) > 8<<10 {
		t.Errorf("HTML is %d bytes, want a few KB", len(s))
	}
	for _, bad := range []string{"<script", "<style", "href=", "src=", "class=", "url("} {
		if strings.Contains(s, bad) {
			t.Errorf("HTML contains %q", bad)
		}
	}
}
