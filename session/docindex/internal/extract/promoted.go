package extract

import (
	"go/ast"
	"go/build"
	"go/doc"
	"path/filepath"
	"strconv"
	"strings"
)

// embedded maps each struct type of files to the types of other packages
// of the module it embeds: pkg.T, or a local alias of one (type base =
// prepared.Base). It must see the files before go/doc, which drops
// unexported fields.
func embedded(files []*ast.File) map[string][]ref {
	imports := map[string]string{} // local name → import path
	for _, f := range files {
		for _, is := range f.Imports {
			path, _ := strconv.Unquote(is.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if is.Name != nil {
				name = is.Name.Name
			}
			imports[name] = path
		}
	}
	qualified := func(e ast.Expr) (ref, bool) {
		if s, ok := e.(*ast.SelectorExpr); ok {
			if x, ok := s.X.(*ast.Ident); ok && strings.HasPrefix(imports[x.Name], Module+"/") {
				return ref{imports[x.Name], s.Sel.Name}, true
			}
		}
		return ref{}, false
	}
	var specs []*ast.TypeSpec
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok {
				for _, s := range g.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						specs = append(specs, ts)
					}
				}
			}
		}
	}
	aliases := map[string]ref{}
	for _, ts := range specs {
		if r, ok := qualified(ts.Type); ok && ts.Assign.IsValid() {
			aliases[ts.Name.Name] = r
		}
	}
	out := map[string][]ref{}
	for _, ts := range specs {
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			if len(f.Names) != 0 {
				continue
			}
			e := f.Type
			if star, ok := e.(*ast.StarExpr); ok {
				e = star.X
			}
			r, ok := qualified(e)
			if id, isIdent := e.(*ast.Ident); isIdent {
				r, ok = aliases[id.Name]
			}
			if ok {
				out[ts.Name.Name] = append(out[ts.Name.Name], r)
			}
		}
	}
	return out
}

// ref names a type of another package.
type ref struct{ path, name string }

// promoted returns the methods that the types of dp get from the types
// of other packages of the module they embed (see embedded), which
// go/doc does not see: "S.M" for each method M of an embedded T that S
// does not declare, with T's documentation. dir is dp's directory.
func promoted(ctx *build.Context, dir string, embeds map[string][]ref, dp *doc.Package) ([]Entry, error) {
	var root string
	loaded := map[string]*Package{}
	var out []Entry
	for _, t := range dp.Types {
		own := map[string]bool{}
		for _, m := range t.Methods {
			own[m.Name] = true
		}
		for _, r := range embeds[t.Name] {
			p := loaded[r.path]
			if p == nil {
				if root == "" {
					var err error
					if root, err = ModuleRoot(dir); err != nil {
						return nil, err
					}
				}
				rel := strings.TrimPrefix(r.path, Module+"/")
				var err error
				if p, err = Dir(ctx, filepath.Join(root, filepath.FromSlash(rel)), r.path); err != nil {
					return nil, err
				}
				loaded[r.path] = p
			}
			prefix := r.name + "."
			for _, m := range p.Entries {
				name, ok := strings.CutPrefix(m.Name, prefix)
				if m.Kind != "method" || !ok || own[name] {
					continue
				}
				own[name] = true
				m.Name = t.Name + "." + name
				m.Signature = strings.Replace(m.Signature, " *"+r.name+")", " *"+t.Name+")", 1)
				m.Signature = strings.Replace(m.Signature, " "+r.name+")", " "+t.Name+")", 1)
				out = append(out, m)
			}
		}
	}
	return out, nil
}
