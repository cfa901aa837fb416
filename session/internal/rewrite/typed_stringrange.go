package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Range over a string.
//
// yaegi's range over a string counts runes instead of byte offsets when
// only the index is asked for (for i := range "héllo" gives 0 1 2 3 4),
// and steps over three bytes after an invalid one. The pass writes the
// loop Go defines, decoding with unicode/utf8:
//
//	for i, c := range s { body }
//	→
//	for __gnb_s, __gnb_i := string(s), 0; __gnb_i < len(__gnb_s); {
//		__gnb_r, __gnb_w := utf8.DecodeRuneInString(__gnb_s[__gnb_i:])
//		i, c := __gnb_i, __gnb_r      // or i, c = …, assigned as Go does
//		__gnb_i += __gnb_w
//		{ body }
//	}
//
// The variables of a definition are new in each iteration, as in Go 1.22.

// utf8Name is the name the cell imports unicode/utf8 under for the pass.
const utf8Name = "__gnb_unicode_utf8"

// rangeStrings rewrites every range over a string.
func rangeStrings(x *Cell, ps []*Run) error {
	for _, p := range ps {
		rewriteStmts(p.node(), func(st ast.Stmt, simple bool, depth int) ast.Stmt {
			rs, ok := st.(*ast.RangeStmt)
			if !ok {
				return nil
			}
			t := x.cc.Info.TypeOf(rs.X)
			if t == nil {
				return nil
			}
			if b, ok := t.Underlying().(*types.Basic); !ok || b.Info()&types.IsString == 0 {
				return nil
			}
			if r := x.stringRange(rs, depth); r != nil {
				return r
			}
			return nil
		})
	}
	return nil
}

// stringRange returns the loop that replaces a range over a string, or
// nil where it cannot be written.
func (x *Cell) stringRange(rs *ast.RangeStmt, depth int) ast.Stmt {
	if x.shadowed("string", "len") {
		return nil
	}
	pos := rs.For
	name := func(kind string) *ast.Ident { return ident(x.ci.tmpName(kind), pos) }
	s, i, r, w := name("s"), name("i"), name("r"), name("w")
	use := func(id *ast.Ident) *ast.Ident { return ident(id.Name, pos) }
	l := x.newLowering(pos, depth+1)
	key, value := rs.Key, rs.Value
	if key != nil && isBlank(key) {
		key = nil
	}
	if value != nil && isBlank(value) {
		value = nil
	}
	var lhs, vals []ast.Expr
	if key != nil {
		lhs, vals = append(lhs, key), append(vals, use(i))
	}
	if value != nil {
		lhs, vals = append(lhs, value), append(vals, use(r))
	}
	if len(lhs) > 0 {
		if rs.Tok == token.DEFINE {
			l.pre = append(l.pre, &ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.DEFINE, Rhs: vals})
		} else {
			l.assignValues(lhs, vals, nil)
		}
	}
	if !l.ok {
		return nil
	}
	rv := ast.Expr(use(r))
	if value == nil {
		rv = ident("_", pos)
	}
	x.useUTF8()
	x.ci.sawDefineX = true // top-level code holding the loop runs in a function
	decode := &ast.AssignStmt{Lhs: []ast.Expr{rv, use(w)}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{
		&ast.CallExpr{Fun: &ast.SelectorExpr{X: ident(utf8Name, pos), Sel: ident("DecodeRuneInString", pos)}, Lparen: pos, Rparen: pos,
			Args: []ast.Expr{&ast.SliceExpr{X: use(s), Lbrack: pos, Low: use(i), Rbrack: pos}}},
	}}
	advance := &ast.AssignStmt{Lhs: []ast.Expr{use(i)}, TokPos: pos, Tok: token.ADD_ASSIGN, Rhs: []ast.Expr{use(w)}}
	body := append([]ast.Stmt{decode}, l.pre...)
	body = append(body, advance, rs.Body)
	var init ast.Expr = rs.X
	if t := x.cc.Info.TypeOf(rs.X); t != types.Typ[types.String] && t != types.Typ[types.UntypedString] {
		init = &ast.CallExpr{Fun: ident("string", pos), Lparen: pos, Args: []ast.Expr{rs.X}, Rparen: pos}
	}
	return &ast.ForStmt{
		For:  pos,
		Init: &ast.AssignStmt{Lhs: []ast.Expr{s, i}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{init, &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}}},
		Cond: &ast.BinaryExpr{X: use(i), OpPos: pos, Op: token.LSS, Y: &ast.CallExpr{Fun: ident("len", pos), Lparen: pos, Args: []ast.Expr{use(s)}, Rparen: pos}},
		Body: &ast.BlockStmt{Lbrace: rs.Body.Lbrace, List: body, Rbrace: rs.Body.Rbrace},
	}
}

// useUTF8 has the cell import unicode/utf8 for the pass.
func (x *Cell) useUTF8() {
	if x.typeImports == nil {
		x.typeImports = map[string]string{}
	}
	x.typeImports[utf8Name] = "unicode/utf8"
}
