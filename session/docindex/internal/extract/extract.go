// Package extract reads Go documentation out of package sources with
// go/build, go/parser and go/doc. The generator (../../gen) and docindex's
// staleness test share it, so both produce the same entries.
package extract

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/graphnb/graphnb/session/docindex/internal/format"
)

// Entry and Package are the index's records.
type (
	Entry   = format.Entry
	Package = format.Package
)

// Limits applied while extracting (lines of text).
const (
	// MaxDocLines is how many lines of a symbol's doc comment are kept.
	MaxDocLines = 40
	// MaxPackageDocLines is how many lines of a package doc are kept.
	MaxPackageDocLines = 60
	// MaxTypeLines is how many lines of a printed type declaration are
	// kept (struct fields and interface methods beyond are elided).
	MaxTypeLines = 40
	// maxGroupLines: a const/var group printed at most this long is shown
	// whole as each member's signature; longer groups show the member's
	// own spec only.
	maxGroupLines = 12
)

// Context returns the fixed build context used for every package, so the
// index does not depend on the machine it is generated on: linux/amd64,
// cgo enabled, sources of goroot.
func Context(goroot string) build.Context {
	ctx := build.Default
	ctx.GOROOT = goroot
	ctx.GOOS = "linux"
	ctx.GOARCH = "amd64"
	ctx.CgoEnabled = true
	ctx.GOPATH = ""
	return ctx
}

// Dir extracts the documentation of the package in dir (non-test Go files
// selected by ctx's build constraints) under the given import path.
func Dir(ctx *build.Context, dir, importPath string) (*Package, error) {
	bp, err := ctx.ImportDir(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("extract: %s: %w", importPath, err)
	}
	names := append(append([]string(nil), bp.GoFiles...), bp.CgoFiles...)
	sort.Strings(names)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("extract: %s: %w", importPath, err)
		}
		files = append(files, f)
	}
	embeds := embedded(files) // before go/doc drops unexported fields
	dp, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		return nil, fmt.Errorf("extract: %s: %w", importPath, err)
	}
	p := fromDoc(fset, dp)
	more, err := promoted(ctx, dir, embeds, dp)
	if err != nil {
		return nil, fmt.Errorf("extract: %s: %w", importPath, err)
	}
	if len(more) > 0 {
		p.Entries = append(p.Entries, more...)
		sort.SliceStable(p.Entries, func(i, j int) bool { return p.Entries[i].Name < p.Entries[j].Name })
	}
	return p, nil
}

func fromDoc(fset *token.FileSet, dp *doc.Package) *Package {
	p := &Package{
		Path:     dp.ImportPath,
		Name:     dp.Name,
		Synopsis: dp.Synopsis(dp.Doc),
		Doc:      trimLines(dp.Doc, MaxPackageDocLines),
	}
	add := func(e Entry) { p.Entries = append(p.Entries, e) }
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, e := range valueEntries(fset, v) {
				add(e)
			}
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			add(Entry{Kind: "func", Name: f.Name, Signature: funcSig(fset, f.Decl), Doc: trimLines(f.Doc, MaxDocLines)})
		}
	}
	values(dp.Consts)
	values(dp.Vars)
	funcs(dp.Funcs)
	for _, t := range dp.Types {
		add(Entry{Kind: "type", Name: t.Name, Signature: typeSig(fset, t.Decl), Doc: trimLines(t.Doc, MaxDocLines)})
		values(t.Consts)
		values(t.Vars)
		funcs(t.Funcs)
		for _, m := range t.Methods {
			add(Entry{Kind: "method", Name: t.Name + "." + m.Name, Signature: funcSig(fset, m.Decl), Doc: trimLines(m.Doc, MaxDocLines)})
		}
		for _, e := range memberEntries(fset, t) {
			add(e)
		}
	}
	sort.SliceStable(p.Entries, func(i, j int) bool { return p.Entries[i].Name < p.Entries[j].Name })
	// Drop duplicates (a method promoted twice, a field named like a
	// method): the first wins.
	out := p.Entries[:0]
	for i, e := range p.Entries {
		if i > 0 && e.Name == p.Entries[i-1].Name {
			continue
		}
		out = append(out, e)
	}
	p.Entries = out
	return p
}

// memberEntries lists the exported fields of a struct type and the methods
// of an interface type as "Type.Name" entries.
func memberEntries(fset *token.FileSet, t *doc.Type) []Entry {
	var spec *ast.TypeSpec
	for _, s := range t.Decl.Specs {
		if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == t.Name {
			spec = ts
		}
	}
	if spec == nil {
		return nil
	}
	var out []Entry
	switch st := spec.Type.(type) {
	case *ast.StructType:
		for _, f := range st.Fields.List {
			typ := node(fset, f.Type)
			names := f.Names
			if len(names) == 0 { // embedded: the field is named after its type
				if n := embeddedName(f.Type); n != "" {
					names = []*ast.Ident{ast.NewIdent(n)}
				}
			}
			for _, n := range names {
				if !n.IsExported() {
					continue
				}
				sig := n.Name + " " + typ
				if len(f.Names) == 0 {
					sig = typ + " // embedded"
				}
				out = append(out, Entry{Kind: "field", Name: t.Name + "." + n.Name, Signature: sig, Doc: trimLines(fieldDoc(f), MaxDocLines)})
			}
		}
	case *ast.InterfaceType:
		for _, f := range st.Methods.List {
			ft, ok := f.Type.(*ast.FuncType)
			if !ok || len(f.Names) == 0 {
				continue // embedded interface or type constraint
			}
			for _, n := range f.Names {
				if !n.IsExported() {
					continue
				}
				sig := "func (" + t.Name + ") " + n.Name + strings.TrimPrefix(node(fset, ft), "func")
				out = append(out, Entry{Kind: "method", Name: t.Name + "." + n.Name, Signature: sig, Doc: trimLines(fieldDoc(f), MaxDocLines)})
			}
		}
	}
	return out
}

func fieldDoc(f *ast.Field) string {
	if f.Doc != nil {
		return f.Doc.Text()
	}
	if f.Comment != nil {
		return f.Comment.Text()
	}
	return ""
}

func embeddedName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return embeddedName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.IndexExpr:
		return embeddedName(x.X)
	case *ast.IndexListExpr:
		return embeddedName(x.X)
	}
	return ""
}

// valueEntries makes one entry per name of a const or var group.
func valueEntries(fset *token.FileSet, v *doc.Value) []Entry {
	kind := "var"
	if v.Decl.Tok == token.CONST {
		kind = "const"
	}
	group := ""
	if len(v.Decl.Specs) > 1 {
		g := *v.Decl
		g.Doc = nil
		group = node(fset, &g)
		if strings.Count(group, "\n")+1 > maxGroupLines {
			group = ""
		}
	}
	var out []Entry
	for _, s := range v.Decl.Specs {
		vs, ok := s.(*ast.ValueSpec)
		if !ok {
			continue
		}
		sig := group
		if sig == "" {
			c := *vs
			c.Doc = nil
			sig = node(fset, &ast.GenDecl{Tok: v.Decl.Tok, Specs: []ast.Spec{&c}})
		}
		d := v.Doc
		if vs.Doc != nil {
			d = vs.Doc.Text()
		} else if d == "" && vs.Comment != nil {
			d = vs.Comment.Text()
		}
		for _, n := range vs.Names {
			if !n.IsExported() {
				continue
			}
			out = append(out, Entry{Kind: kind, Name: n.Name, Signature: sig, Doc: trimLines(d, MaxDocLines)})
		}
	}
	return out
}

func funcSig(fset *token.FileSet, d *ast.FuncDecl) string {
	c := *d
	c.Doc = nil
	c.Body = nil
	return node(fset, &c)
}

func typeSig(fset *token.FileSet, d *ast.GenDecl) string {
	c := *d
	c.Doc = nil
	if len(c.Specs) == 1 {
		// Print "type T …" rather than a one-element group.
		c.Lparen, c.Rparen = token.NoPos, token.NoPos
		if ts, ok := c.Specs[0].(*ast.TypeSpec); ok && ts.Doc != nil {
			t := *ts
			t.Doc = nil
			c.Specs = []ast.Spec{&t}
		}
	}
	s := node(fset, &c)
	lines := strings.Split(s, "\n")
	if len(lines) > MaxTypeLines {
		keep := lines[:MaxTypeLines-2]
		s = strings.Join(keep, "\n") + fmt.Sprintf("\n\t// … %d more lines\n", len(lines)-len(keep)-1) + lines[len(lines)-1]
	}
	return s
}

var printCfg = printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}

func node(fset *token.FileSet, n any) string {
	var b bytes.Buffer
	if err := printCfg.Fprint(&b, fset, n); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return b.String()
}

// trimLines keeps the first max lines of s (without trailing blank lines)
// and marks the cut with a line "…".
func trimLines(s string, max int) string {
	s = strings.TrimRight(s, " \t\n")
	lines := strings.Split(s, "\n")
	if len(lines) <= max {
		return s
	}
	keep := lines[:max]
	for len(keep) > 0 && strings.TrimSpace(keep[len(keep)-1]) == "" {
		keep = keep[:len(keep)-1]
	}
	return strings.Join(keep, "\n") + "\n…"
}

// Module is graphnb's module path.
const Module = "github.com/graphnb/graphnb"

// GraphnbPackages are the graphnb packages the index documents, relative to
// the module root.
var GraphnbPackages = []string{
	"cancel", "comm", "display",
	"graph", "graph/gen", "graph/graphio", "graph/spec",
	"algo/bfs", "algo/sssp", "algo/mst", "algo/apsp", "algo/densebf", "bench", "plots", "trace", "gpu", "widgets",
}

// Graphnb extracts GraphnbPackages from the module rooted at root.
func Graphnb(ctx *build.Context, root string) ([]*Package, error) {
	var out []*Package
	for _, rel := range GraphnbPackages {
		p, err := Dir(ctx, filepath.Join(root, filepath.FromSlash(rel)), Module+"/"+rel)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// ModuleRoot walks up from dir to the directory whose go.mod declares
// Module.
func ModuleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && modfile(b) == Module {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("extract: no go.mod of %s above %s", Module, dir)
		}
		d = parent
	}
}

func modfile(b []byte) string {
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// StdPaths turns the keys of yaegi's stdlib.Symbols ("path/name") into the
// sorted import paths of the standard-library packages they expose,
// leaving out yaegi's own pseudo-packages and internal packages.
func StdPaths(keys []string) []string {
	var paths []string
	for _, key := range keys {
		i := strings.LastIndexByte(key, '/')
		if i < 0 {
			continue // "." holds yaegi's MapTypes
		}
		path := key[:i]
		if strings.Contains(path, ".") || strings.Contains(path, "internal") || strings.HasPrefix(path, "vendor/") {
			continue // github.com/traefik/yaegi/stdlib, internal packages
		}
		paths = append(paths, path)
	}
	sort.Strings(paths)
	return paths
}
