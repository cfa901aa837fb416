package rewrite

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
)

// Printing errors of the cells' types: yaegi hands fmt a value of a cell's
// type with the methods of fmt.Stringer and fmt.Formatter only, so fmt
// prints an error type by its fields (fmt.Println(E{}) prints {} where Go
// prints E{}.Error(), and String wins over Error). The pass converts such
// an operand, a value of a cell's type (or a cell's interface) that
// implements error, to error where fmt would call Error: every operand of
// Print, Println, Sprint, … and log's, and the operands of Printf-like
// functions whose verb is %v, %s, %q, %x, %X or %w in a constant format.
//
//	fmt.Println(e)  →  fmt.Println(func(__gnb_v E) error { return __gnb_v }(e))
func fixPrintedErrors(x *Cell, ps []*Run) error {
	errType := types.Universe.Lookup("error").Type()
	errIface := errType.Underlying().(*types.Interface)
	rewrite := map[ast.Expr]ast.Expr{}
	var err error
	inspect(ps, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || err != nil || call.Ellipsis.IsValid() {
			return err == nil
		}
		first, format := x.printedOperands(call)
		if first < 0 {
			return true
		}
		var verbs []rune
		if format >= 0 {
			tv := x.cc.Info.Types[call.Args[format]]
			if tv.Value == nil || tv.Value.Kind() != constant.String {
				return true
			}
			if verbs, ok = formatVerbs(constant.StringVal(tv.Value)); !ok {
				return true
			}
		}
		for i, a := range call.Args[first:] {
			if format >= 0 && (i >= len(verbs) || !strings.ContainsRune("vsqxXw", verbs[i])) {
				continue
			}
			t := x.cc.Info.Types[a].Type
			if t == nil || !types.Implements(t, errIface) || !(cellConcrete(t) || (declaredInCell(t) && types.IsInterface(t))) || !x.writableAt(t, a.Pos()) {
				continue
			}
			// A nil pointer or interface stays nil: fmt prints <nil> (a
			// pointer's Error would panic, which fmt reports so).
			body := "return __gnb_v"
			if _, isPtr := t.(*types.Pointer); isPtr || types.IsInterface(t) {
				body = "if __gnb_v == nil { return nil }; return __gnb_v"
			}
			var f ast.Expr
			if f, err = x.parseGenerated("func(__gnb_v "+types.TypeString(t, x.qualify)+") error { "+body+" }", a); err != nil {
				return false
			}
			rewrite[a] = &ast.CallExpr{Fun: f, Lparen: a.Pos(), Args: []ast.Expr{shallowCopy(a)}, Rparen: a.End()}
		}
		return true
	})
	if err != nil {
		return err
	}
	replaceAll(ps, rewrite)
	return nil
}

// printedOperands tells, for a call of a printing function of fmt or log,
// the index of its first printed operand and of its format (-1 when it
// has none); first is -1 for any other call.
func (x *Cell) printedOperands(call *ast.CallExpr) (first, format int) {
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return -1, -1
	}
	fn, ok := x.cc.Info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Type().(*types.Signature).Recv() != nil {
		return -1, -1
	}
	switch fn.Pkg().Path() + "." + fn.Name() {
	case "fmt.Print", "fmt.Println", "fmt.Sprint", "fmt.Sprintln",
		"log.Print", "log.Println", "log.Fatal", "log.Fatalln", "log.Panic", "log.Panicln":
		return 0, -1
	case "fmt.Fprint", "fmt.Fprintln":
		return 1, -1
	case "fmt.Printf", "fmt.Sprintf", "fmt.Errorf", "log.Printf", "log.Fatalf", "log.Panicf":
		return 1, 0
	case "fmt.Fprintf":
		return 2, 1
	}
	return -1, -1
}

// formatVerbs returns the verb of each operand a format consumes (a *
// width or precision takes an operand of its own, marked '*'); ok is false
// for a format with explicit argument indexes.
func formatVerbs(f string) (verbs []rune, ok bool) {
	spans, ok := formatVerbSpans(f)
	for _, sp := range spans {
		verbs = append(verbs, sp.verb)
	}
	return verbs, ok
}
