package typedata

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"sort"
	"sync"

	"github.com/graphnb/graphnb/session/typedata/internal/format"
	"golang.org/x/tools/go/gcexportdata"
)

//go:embed exports.gz
var embedded []byte

// Importer imports packages from export data: the embedded file (New) or
// another one (NewFrom). It implements types.Importer and
// types.ImporterFrom, and is safe for concurrent use. Packages are
// canonical: importing a path twice returns the same *types.Package, and
// two packages that both use a third see the same one.
type Importer struct {
	data []byte

	once    sync.Once
	initErr error
	entries map[string]member

	mu       sync.Mutex
	fset     *token.FileSet
	packages map[string]*types.Package // decoded, complete or not
	complete map[string]bool           // decoded from their own member

	symState
}

// member locates a package's gzip member in data.
type member struct {
	name     string
	off, end int
}

var (
	defaultOnce     sync.Once
	defaultImporter *Importer
)

// Default returns the importer of the embedded data, shared by every
// caller (its packages are decoded once per process).
func Default() *Importer {
	defaultOnce.Do(func() { defaultImporter = NewFrom(embedded) })
	return defaultImporter
}

// NewFrom returns an importer of data in typedata's layout (see the
// package doc).
func NewFrom(data []byte) *Importer {
	return &Importer{data: data, fset: token.NewFileSet(), packages: map[string]*types.Package{}, complete: map[string]bool{}}
}

// index decodes the header.
func (im *Importer) index() error {
	im.once.Do(func() {
		r := bytes.NewReader(im.data)
		zr, err := gzip.NewReader(r)
		if err != nil {
			im.initErr = fmt.Errorf("typedata: %w", err)
			return
		}
		zr.Multistream(false)
		var h format.Header
		if err := json.NewDecoder(zr).Decode(&h); err != nil {
			im.initErr = fmt.Errorf("typedata: header: %w", err)
			return
		}
		// The reader has consumed exactly the first member.
		if _, err := io.Copy(io.Discard, zr); err != nil {
			im.initErr = fmt.Errorf("typedata: header: %w", err)
			return
		}
		off := len(im.data) - r.Len()
		im.entries = map[string]member{}
		for _, e := range h.Packages {
			im.entries[e.Path] = member{name: e.Name, off: off, end: off + e.Size}
			off += e.Size
		}
		if off != len(im.data) {
			im.initErr = fmt.Errorf("typedata: the header describes %d bytes, the file has %d", off, len(im.data))
		}
	})
	return im.initErr
}

// Paths returns the import paths the data holds, sorted.
func (im *Importer) Paths() []string {
	if im.index() != nil {
		return nil
	}
	paths := make([]string, 0, len(im.entries))
	for p := range im.entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// Name returns the package name of path, without decoding it ("" when the
// data does not hold path).
func (im *Importer) Name(path string) string {
	if im.index() != nil {
		return ""
	}
	return im.entries[path].name
}

// Import returns the package of path (see types.Importer).
func (im *Importer) Import(path string) (*types.Package, error) {
	return im.ImportFrom(path, "", 0)
}

// ImportFrom returns the package of path; dir and mode are ignored (there
// is no vendoring in the data).
func (im *Importer) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if err := im.index(); err != nil {
		return nil, err
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.complete[path] {
		return im.packages[path], nil
	}
	m, ok := im.entries[path]
	if !ok {
		return nil, fmt.Errorf("package %q is not in graphnb's type data", path)
	}
	zr, err := gzip.NewReader(bytes.NewReader(im.data[m.off:m.end]))
	if err != nil {
		return nil, fmt.Errorf("typedata: %s: %w", path, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("typedata: %s: %w", path, err)
	}
	pkg, err := gcexportdata.Read(bytes.NewReader(raw), im.fset, im.packages, path)
	if err != nil {
		return nil, fmt.Errorf("typedata: %s: %w", path, err)
	}
	im.complete[path] = true
	return pkg, nil
}

var _ types.ImporterFrom = (*Importer)(nil)
