package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// Switches on interface values and boolean switches: yaegi converts an
// interface tag to the type of each case ("reflect.Value.Convert: value
// of type interface {} cannot be converted to type int"), takes an
// interface case of a switch without tag for a bool ("call of
// reflect.Value.Bool on interface Value"), and tests only the first
// expression of a case list when the tag is a boolean or missing (switch
// { case x == 1, x == 3: } never takes the case for 3). The pass writes
// such a switch with the comparisons Go defines it by, the tag evaluated
// once, and a case list as a disjunction:
//
//	switch init; x { case 1, "a": … }  →  { init; switch __gnb_tag := x; { case (__gnb_tag == 1) || (__gnb_tag == "a"): … } }
//	switch { case i: … }               →  switch { case i == true: … }
//	switch { case a, b: … }            →  switch { case (a) || (b): … }
//
// Values of a type declared in a cell are values of its underlying type
// to yaegi once in an interface (an F(1) equals float64(1)): a switch on
// an interface whose cases have two such types is refused. So is a
// fallthrough out of a default clause that is not the last (yaegi ends
// the switch there).
func fixSwitches(x *Cell, ps []*Run) error {
	var err error
	rewriteStmtLists(ps, func(st ast.Stmt) ast.Stmt {
		if err != nil {
			return st
		}
		sw, ok := st.(*ast.SwitchStmt)
		if l, isLabel := st.(*ast.LabeledStmt); isLabel {
			sw, ok = l.Stmt.(*ast.SwitchStmt) // the label stays on the switch
		}
		if !ok {
			return st
		}
		if err = x.fallthroughDefault(sw); err != nil {
			return st
		}
		out := st
		if sw.Tag != nil {
			tv, ok := x.cc.Info.Types[sw.Tag]
			if !ok {
				return st
			}
			iface := types.IsInterface(tv.Type)
			if !iface && !(isBool(tv.Type) && hasCaseList(sw)) {
				return st
			}
			if iface {
				if err = x.confusableCases(sw); err != nil {
					return st
				}
			}
			pos := sw.Tag.Pos()
			// The comparisons are typed as Go would type them, for the
			// passes after this one (ifaces compares the cells' values).
			tag := func() *ast.Ident {
				id := &ast.Ident{Name: "__gnb_tag", NamePos: pos}
				x.cc.Info.Types[id] = tv
				return id
			}
			for _, c := range sw.Body.List {
				cc := c.(*ast.CaseClause)
				for i, e := range cc.List {
					cmp := &ast.BinaryExpr{X: tag(), OpPos: e.Pos(), Op: token.EQL, Y: e}
					x.cc.Info.Types[cmp] = types.TypeAndValue{Type: types.Typ[types.UntypedBool]}
					cc.List[i] = cmp
				}
			}
			init := sw.Init
			sw.Init = &ast.AssignStmt{Lhs: []ast.Expr{tag()}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{sw.Tag}}
			sw.Tag = nil
			if init != nil {
				// The init statement's names stay scoped to the switch.
				out = &ast.BlockStmt{Lbrace: st.Pos(), List: []ast.Stmt{init, st}, Rbrace: st.End()}
			}
		}
		x.compareTaglessInterfaces(sw)
		x.joinCases(sw)
		return out
	})
	return err
}

// isBool reports whether t's underlying type is a boolean.
func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

// hasCaseList reports whether a clause of the switch lists several
// expressions.
func hasCaseList(sw *ast.SwitchStmt) bool {
	for _, c := range sw.Body.List {
		if len(c.(*ast.CaseClause).List) > 1 {
			return true
		}
	}
	return false
}

// joinCases writes the expressions a clause of a switch without tag lists
// as one disjunction (yaegi tests only the first): case a, b → case a ||
// b, evaluated as Go does, left to right up to the first true one (its
// expressions are of type bool: a tag of another boolean type became
// comparisons).
func (x *Cell) joinCases(sw *ast.SwitchStmt) {
	for _, c := range sw.Body.List {
		cc := c.(*ast.CaseClause)
		if len(cc.List) < 2 {
			continue
		}
		var or ast.Expr
		for _, e := range cc.List {
			e = &ast.ParenExpr{Lparen: e.Pos(), X: e, Rparen: e.End()}
			if or == nil {
				or = e
				continue
			}
			or = &ast.BinaryExpr{X: or, OpPos: e.Pos(), Op: token.LOR, Y: e}
		}
		cc.List = []ast.Expr{or}
	}
}

// fallthroughDefault refuses a fallthrough out of a default clause that
// is not the last: yaegi does not go on to the next clause.
func (x *Cell) fallthroughDefault(sw *ast.SwitchStmt) error {
	list := sw.Body.List
	for i, c := range list {
		cc := c.(*ast.CaseClause)
		if cc.List != nil || i == len(list)-1 || len(cc.Body) == 0 {
			continue
		}
		if b, ok := cc.Body[len(cc.Body)-1].(*ast.BranchStmt); ok && b.Tok == token.FALLTHROUGH {
			return newError("Unsupported", "fallthrough out of a default clause that is not the last: yaegi, the interpreter, does not go on to the next clause; "+
				"repeat the next clause's code in the default clause instead", x.at(b))
		}
	}
	return nil
}

// compareTaglessInterfaces writes the interface cases of a switch without
// tag as comparisons with true.
func (x *Cell) compareTaglessInterfaces(sw *ast.SwitchStmt) {
	for _, c := range sw.Body.List {
		cc := c.(*ast.CaseClause)
		for i, e := range cc.List {
			if tv, ok := x.cc.Info.Types[e]; ok && types.IsInterface(tv.Type) {
				cc.List[i] = &ast.BinaryExpr{X: e, OpPos: e.End(), Op: token.EQL, Y: &ast.Ident{Name: "true", NamePos: e.End()}}
			}
		}
	}
}

// confusableCases refuses a switch on an interface whose cases have two
// types yaegi does not tell apart in an interface: distinct types with
// one underlying type, one of them declared in a cell.
func (x *Cell) confusableCases(sw *ast.SwitchStmt) error {
	type seen struct {
		t types.Type
		e ast.Expr
	}
	var ts []seen
	for _, c := range sw.Body.List {
		for _, e := range c.(*ast.CaseClause).List {
			tv, ok := x.cc.Info.Types[e]
			if !ok || tv.IsNil() || types.IsInterface(tv.Type) {
				continue
			}
			t := types.Default(tv.Type)
			for _, s := range ts {
				if types.Identical(s.t, t) || !types.Identical(s.t.Underlying(), t.Underlying()) {
					continue
				}
				if !declaredInCell(s.t) && !declaredInCell(t) {
					continue
				}
				a, b := types.TypeString(s.t, x.qualifyName), types.TypeString(t, x.qualifyName)
				return newError("Unsupported", fmt.Sprintf("yaegi, the interpreter, cannot tell values of %s from values of %s once they are in an interface: "+
					"this switch on an interface value could take the wrong case; compare values of one type (take the value out of the interface first: v, ok := x.(%s))",
					a, b, b), x.at(e))
			}
			ts = append(ts, seen{t, e})
		}
	}
	return nil
}

// qualifyName names a package in a message: by its name, none for the
// session's own.
func (x *Cell) qualifyName(p *types.Package) string {
	if p.Path() == "main" {
		return ""
	}
	return p.Name()
}

// declaredInCell reports whether t is a named type declared in a cell.
func declaredInCell(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "main"
}

// rewriteStmtLists calls f on every statement of a statement list in the
// cell (blocks, case and select clauses, the top-level statements) and
// puts what it returns in its place; the result's statements are visited
// in turn.
func rewriteStmtLists(ps []*Run, f func(ast.Stmt) ast.Stmt) {
	each := func(list []ast.Stmt) {
		for i, st := range list {
			list[i] = f(st)
		}
	}
	inspect(ps, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			each(n.List)
		case *ast.CaseClause:
			each(n.Body)
		case *ast.CommClause:
			each(n.Body)
		}
		return true
	})
}
