package rewrite

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// Method slots: a method declared in a cell can be declared again.
//
// yaegi keeps the first definition of a method: declaring it again
// compiles, and changes nothing. So a cell's method gets a slot, a
// variable of the method's function type that the method defers to once
// it is set:
//
//	var __gnb_m_T_M func(*T, int) string
//	func (r *T) M(a int) string {
//		if __gnb_m_T_M != nil {
//			return __gnb_m_T_M(r, a)
//		}
//		body
//	}
//
// Declaring M again assigns the slot:
//
//	__gnb_m_T_M = func(r *T, a int) string { new body }
//
// The first definition costs a test of the slot per call (about 15% of a
// method call in yaegi); a method declared again, a call through a
// function value (about twice a method call). The signature cannot change
// (the method the interpreter holds is fixed): that is refused. Methods of
// generic types keep the plain form (a function literal cannot be
// generic), and cannot be declared again.

// methodSlot is what the interpreter holds of a method of a cell.
type methodSlot struct {
	signature string // the method's type, as the checker prints it
	slotted   bool   // declared through a variable (not a generic type's method)
}

// slotDecl is a method declaration the interpreter compiles, and the slot
// the session records once it has.
type slotDecl struct {
	key  string // "T.M"
	slot methodSlot
}

// Slots are the methods of the cells the interpreter holds ("T.M"): the
// session keeps them from cell to cell.
type Slots struct{ m map[string]methodSlot }

// NewSlots returns an empty set of slots.
func NewSlots() *Slots { return &Slots{m: map[string]methodSlot{}} }

// RecordSlots records the methods of a declaration run once it has
// compiled.
func (x *Cell) RecordSlots(f *ast.File) {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			if sd, ok := x.slotted[fd]; ok {
				x.slots.m[sd.key] = sd.slot
			}
		}
	}
}

// slotMethods rewrites the method declarations of the cell's declaration
// runs (and of the earlier declarations compiled again) into slots. It
// returns the runs with, after each declaration run that declares
// methods, a statement run that assigns their bodies.
func (x *Cell) slotMethods(ps []*Run) ([]*Run, error) {
	var out []*Run
	for _, p := range ps {
		out = append(out, p)
		if !p.decl {
			continue
		}
		var keep []ast.Decl
		var assigns []ast.Stmt
		var names []ast.Decl
		for _, d := range p.file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				names = append(names, x.nameTypes(g)...)
			}
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Body == nil {
				keep = append(keep, d)
				continue
			}
			decls, assign, err := x.slot(fd)
			if err != nil {
				return nil, err
			}
			keep = append(keep, decls...)
			if assign != nil {
				assigns = append(assigns, assign)
			}
		}
		p.file.Decls = append(keep, names...)
		if len(assigns) > 0 {
			out = append(out, &Run{Span: Span{line: p.line, col: p.col}, body: &ast.BlockStmt{Lbrace: assigns[0].Pos(), List: assigns, Rbrace: assigns[len(assigns)-1].End()}})
		}
	}
	return out, nil
}

// slot returns what replaces a method declaration: the declarations (the
// slot's variable and the method, the first time; nothing after) and the
// assignment of the body.
func (x *Cell) slot(fd *ast.FuncDecl) ([]ast.Decl, ast.Stmt, error) {
	base := RecvBase(fd)
	obj, _ := x.cc.Info.Defs[fd.Name].(*types.Func)
	if base == "" || obj == nil {
		return []ast.Decl{fd}, nil, nil
	}
	key := base + "." + fd.Name.Name
	sig := types.TypeString(obj.Type(), func(p *types.Package) string { return p.Path() })
	generic := false
	if named, ok := deref(obj.Type().(*types.Signature).Recv().Type()).(*types.Named); ok && named.TypeParams().Len() > 0 {
		generic = true
	}
	old, declared := x.slots.m[key]
	where := func() string {
		pos := x.fset.Position(fd.Pos())
		return x.describe(position{serial: x.serial, line: pos.Line, col: pos.Column})
	}
	switch {
	case declared && !old.slotted:
		return nil, nil, newError("Unsupported", fmt.Sprintf("yaegi, the interpreter, keeps the first definition of a method of a generic type: %s cannot be declared again; "+
			"restart the kernel to change it, or declare a method with a new name", key), where())
	case declared && old.signature != sig:
		return nil, nil, newError("Unsupported", fmt.Sprintf("yaegi, the interpreter, cannot change the signature of method %s once declared (it was %s); "+
			"its body can change: keep the signature, or declare a method with a new name (or restart the kernel)", key, strings.TrimPrefix(old.signature, "func")), where())
	case generic:
		x.slotted[fd] = slotDecl{key, methodSlot{signature: sig}}
		return []ast.Decl{fd}, nil, nil
	}

	// Names for every receiver and parameter, to pass them on.
	recv := fd.Recv.List[0]
	if len(recv.Names) == 0 || recv.Names[0].Name == "_" {
		recv.Names = []*ast.Ident{{Name: "__gnb_recv", NamePos: recv.Pos()}}
	}
	var args []string
	variadic := false
	if fd.Type.Params != nil {
		for i, f := range fd.Type.Params.List {
			if len(f.Names) == 0 {
				f.Names = []*ast.Ident{{NamePos: f.Pos()}}
			}
			for j, id := range f.Names {
				if id.Name == "" || id.Name == "_" {
					id.Name = "__gnb_a" + strconv.Itoa(i) + "_" + strconv.Itoa(j)
				}
				args = append(args, id.Name)
			}
			if _, ok := f.Type.(*ast.Ellipsis); ok {
				variadic = true
			}
		}
	}
	slotName := "__gnb_m_" + base + "_" + fd.Name.Name
	if declared {
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: fd.Type.Func, Params: &ast.FieldList{Opening: fd.Type.Params.Opening,
				List: append([]*ast.Field{recv}, fd.Type.Params.List...), Closing: fd.Type.Params.Closing}, Results: fd.Type.Results},
			Body: fd.Body,
		}
		return nil, &ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{Name: slotName, NamePos: fd.Pos()}}, TokPos: fd.Pos(), Tok: token.ASSIGN, Rhs: []ast.Expr{lit}}, nil
	}

	// The slot, and the method's prologue, as source. The slot's type
	// names no parameter: yaegi would take a parameter named like a
	// variable for a use of that variable (and report a "variable
	// definition loop").
	text := func(n ast.Node) string {
		var b bytes.Buffer
		printer.Fprint(&b, token.NewFileSet(), n)
		return b.String()
	}
	paramTypes := []string{text(recv.Type)}
	for _, f := range fd.Type.Params.List {
		for range f.Names {
			paramTypes = append(paramTypes, text(f.Type))
		}
	}
	var resultTypes []string
	if fd.Type.Results != nil {
		for _, f := range fd.Type.Results.List {
			for range max(1, len(f.Names)) {
				resultTypes = append(resultTypes, text(f.Type))
			}
		}
	}
	call := slotName + "(" + strings.Join(append([]string{recv.Names[0].Name}, args...), ", ")
	if variadic {
		call += "..."
	}
	call += ")"
	if len(resultTypes) > 0 {
		call = "return " + call
	} else {
		call += "; return"
	}
	// The prologue is placed at the body's brace, so that a panic in the
	// method is located in it.
	at := x.fset.Position(fd.Body.Lbrace)
	src := fmt.Sprintf("package main\nvar %s func(%s) (%s)\nfunc _() {\n//line %s:%d:%d\nif %s != nil { %s } }\n",
		slotName, strings.Join(paramTypes, ", "), strings.Join(resultTypes, ", "), at.Filename, at.Line, at.Column, slotName, call)
	f, err := parser.ParseFile(x.fset, GeneratedFile, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, newError("InternalError", "declaring method "+key+": "+err.Error(), where())
	}
	prologue := f.Decls[1].(*ast.FuncDecl).Body.List[0]
	fd.Body.List = append([]ast.Stmt{prologue}, fd.Body.List...)
	x.slotted[fd] = slotDecl{key, methodSlot{signature: sig, slotted: true}}
	return []ast.Decl{f.Decls[0], fd}, nil, nil
}

// deref returns the element type of a pointer, or t.
func deref(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}
