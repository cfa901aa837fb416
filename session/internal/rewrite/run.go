package rewrite

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
)

// RecvBase returns the base type name of a method's receiver.
func RecvBase(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// TopLevelDefs returns the identifiers that a cell's top-level statements
// define: they are the session's variables.
func TopLevelDefs(stmts []ast.Stmt) map[*ast.Ident]bool {
	ids := map[*ast.Ident]bool{}
	for _, st := range stmts {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, l := range st.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
						ids[id] = true
					}
				}
			}
		case *ast.DeclStmt:
			if g, ok := st.Decl.(*ast.GenDecl); ok {
				for _, sp := range g.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						for _, id := range sp.Names {
							if id.Name != "_" {
								ids[id] = true
							}
						}
					case *ast.TypeSpec:
						ids[sp.Name] = true
					}
				}
			}
		}
	}
	return ids
}

// DeclNames returns the package-level names a declaration declares.
func DeclNames(decl ast.Decl) []string {
	var names []string
	switch decl := decl.(type) {
	case *ast.FuncDecl:
		if decl.Recv == nil && decl.Name.Name != "_" && decl.Name.Name != "init" {
			names = append(names, decl.Name.Name)
		}
	case *ast.GenDecl:
		for _, sp := range decl.Specs {
			switch sp := sp.(type) {
			case *ast.TypeSpec:
				names = append(names, sp.Name.Name)
			case *ast.ValueSpec:
				for _, id := range sp.Names {
					if id.Name != "_" {
						names = append(names, id.Name)
					}
				}
			}
		}
	}
	return names
}

// WithRedo inserts into a cell's runs the earlier declarations the
// interpreter must compile again, because yaegi binds a name when it
// compiles its user: right after the declaration run or the statement
// that declares again a name they use (a statement run is cut there).
// redo maps a name the cell declares again to those declarations, parsed
// in fset.
func WithRedo(fset *token.FileSet, ps []*Run, redo map[string][]*ast.File) []*Run {
	if len(redo) == 0 {
		return ps
	}
	done := map[*ast.File]bool{}
	var out []*Run
	emit := func(names []string) bool {
		var files []*ast.File
		for _, n := range names {
			for _, f := range redo[n] {
				if !done[f] {
					done[f] = true
					files = append(files, f)
				}
			}
		}
		if len(files) == 0 {
			return false
		}
		merged := &ast.File{Name: files[0].Name, Package: files[0].Package}
		for _, f := range files {
			merged.Decls = append(merged.Decls, f.Decls...)
		}
		pos := fset.Position(merged.Decls[0].Pos())
		out = append(out, &Run{Span: Span{decl: true, line: pos.Line, col: pos.Column}, file: merged})
		return true
	}
	for _, p := range ps {
		if p.decl {
			out = append(out, p)
			var names []string
			for _, d := range p.file.Decls {
				names = append(names, DeclNames(d)...)
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
					base := RecvBase(fd)
					names = append(names, base, base+"."+fd.Name.Name)
				}
			}
			emit(names)
			continue
		}
		list := p.body.List
		start := 0
		for j, st := range list {
			var names []string
			for id := range TopLevelDefs([]ast.Stmt{st}) {
				names = append(names, id.Name)
			}
			before := len(out)
			out = append(out, p.slice(start, j+1))
			if emit(names) {
				start = j + 1
			} else {
				out = out[:before]
			}
		}
		if start == 0 {
			out = append(out, p)
		} else if start < len(list) {
			out = append(out, p.slice(start, len(list)))
		}
	}
	return out
}

// slice returns the statements [i, j) of a statement run as a run.
func (p *Run) slice(i, j int) *Run {
	list := p.body.List[i:j]
	q := *p
	q.body = &ast.BlockStmt{Lbrace: list[0].Pos(), List: list, Rbrace: list[len(list)-1].End()}
	return &q
}

// mainName is what the interpreter calls a cell's func main: yaegi runs a
// package's main after every program once it is declared, so a cell
// defining main would run it at once and every later cell would run it
// again. In a notebook, main is an ordinary function: it runs when called.
const mainName = "__gnb_main"

// renameMain renames the session's function main, where the cell declares
// or uses it.
func renameMain(x *Cell, _ []*Run) error {
	rename := func(id *ast.Ident, obj types.Object) {
		f, ok := obj.(*types.Func)
		if !ok || f.Name() != "main" || f.Pkg() == nil || f.Pkg().Path() != "main" || f.Type().(*types.Signature).Recv() != nil {
			return
		}
		if f.Parent() != nil && f.Parent() != f.Pkg().Scope() && f.Parent().Parent() != types.Universe {
			return
		}
		id.Name = mainName
	}
	for id, obj := range x.cc.Info.Defs {
		rename(id, obj)
	}
	for id, obj := range x.cc.Info.Uses {
		rename(id, obj)
	}
	return nil
}

// A Run is one run of a cell (Span), parsed.
type Run struct {
	Span
	file *ast.File      // declaration runs
	body *ast.BlockStmt // statement runs
	src  string         // the source parsed
}

func (p *Run) node() ast.Node {
	if p.decl {
		return p.file
	}
	return p.body
}

// Parse parses the run r of a cell's code in fset, under a line directive
// that names the cell's file (CellFile), so every position yaegi reports
// is a cell position.
func Parse(fset *token.FileSet, file, code string, r Span) (*Run, error) {
	text := code[r.start:r.end]
	var b strings.Builder
	if r.decl {
		b.WriteString("package main\n")
	} else {
		b.WriteString("package main; func main() {\n")
	}
	fmt.Fprintf(&b, "//line %s:%d:%d\n", file, r.line, r.col)
	b.WriteString(text)
	if !r.decl {
		b.WriteString("\n}")
	}
	f, err := parser.ParseFile(fset, "_.go", b.String(), parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	p := &Run{Span: r, src: b.String()}
	if r.decl {
		p.file = f
	} else {
		if len(f.Decls) != 1 {
			return nil, syntaxError(fset, f, "unexpected '}' closes the cell's statements")
		}
		fd, ok := f.Decls[0].(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			return nil, syntaxError(fset, f, "unexpected '}'")
		}
		p.body = fd.Body
	}
	return p, nil
}

// syntaxError reports a malformed statement run at its last declaration.
func syntaxError(fset *token.FileSet, f *ast.File, msg string) error {
	pos := fset.Position(f.Decls[len(f.Decls)-1].Pos())
	return fmt.Errorf("%s:%d:%d: %s", pos.Filename, pos.Line, pos.Column, msg)
}

// ValidRender reports whether a method declaration has the signature of
// a render method.
func ValidRender(d *ast.FuncDecl) bool {
	if !renderMethods[d.Name.Name] || d.Type.Params.NumFields() != 0 || d.Type.Results.NumFields() != 1 {
		return false
	}
	rt := d.Type.Results.List[0].Type
	switch d.Name.Name {
	case "PNG":
		a, ok := rt.(*ast.ArrayType)
		if !ok || a.Len != nil {
			return false
		}
		e, ok := a.Elt.(*ast.Ident)
		return ok && (e.Name == "byte" || e.Name == "uint8")
	case "MIMEBundle":
		m, ok := rt.(*ast.MapType)
		if !ok {
			return false
		}
		k, ok := m.Key.(*ast.Ident)
		if !ok || k.Name != "string" {
			return false
		}
		switch v := m.Value.(type) {
		case *ast.Ident:
			return v.Name == "any"
		case *ast.InterfaceType:
			return v.Methods.NumFields() == 0
		}
		return false
	}
	id, ok := rt.(*ast.Ident)
	return ok && id.Name == "string"
}

// renderMethods are the methods by which a value renders itself.
var renderMethods = map[string]bool{
	"String": true, "Error": true, "HTML": true, "Markdown": true, "SVG": true, "PNG": true, "MIMEBundle": true,
}

// Accessors of a run, for the session.

// Decl reports whether the run holds declarations (File) rather than
// statements (Body).
func (p *Run) Decl() bool { return p.decl }

// File is the parsed declarations of a declaration run.
func (p *Run) File() *ast.File { return p.file }

// Body is the parsed statements of a statement run.
func (p *Run) Body() *ast.BlockStmt { return p.body }

// Line is the run's first line in the cell.
func (p *Run) Line() int { return p.line }

// Src is the source parsed (with the wrapping the run needs).
func (p *Run) Src() string { return p.src }

// Node is the run's file or body.
func (p *Run) Node() ast.Node { return p.node() }
