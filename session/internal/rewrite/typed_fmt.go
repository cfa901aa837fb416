package rewrite

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Printing the cells' types with fmt and log. yaegi builds a cell's type
// with reflect, which cannot give a type a name or methods: fmt sees a
// Celsius as a float64 and a struct type as struct { A int; Xskip int }
// (yaegi exports unexported fields under an X prefix). So %T prints the
// wrong name, a String method is not called, %+v and %#v print the wrong
// field names. The pass makes what it can right and refuses the rest,
// for every printed operand (Print, Println, Sprint, … and log's; the
// operands of Printf-like functions with a constant format):
//
//   - %T of an operand whose static type is concrete and involves a cell's
//     type: the format's verb becomes %s (same flags) and the operand the
//     type's name, as Go prints it ("main.Celsius", "[]main.P");
//   - %T of an interface operand that may hold a cell's type (one of them
//     implements the interface): refused;
//   - an operand of a cell's type with a String method (and no Error,
//     which fixPrintedErrors handles), where fmt would call it (%v %s %q
//     %x %X, and the print functions): converted to fmt.Stringer first,
//     which yaegi wraps with the method;
//   - a cell's type with String or Error inside the operand (elements,
//     keys, exported fields: fmt calls those methods too): refused;
//   - %+v and %#v of an operand holding a struct of a cell with unexported
//     fields, and %#v of any operand involving a cell's type: refused.
func fixPrintedCellTypes(x *Cell, ps []*Run) error {
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
		var spans []verbSpan
		var formatText string
		if format >= 0 {
			tv := x.cc.Info.Types[call.Args[format]]
			if tv.Value == nil || tv.Value.Kind() != constant.String {
				return true
			}
			formatText = constant.StringVal(tv.Value)
			if spans, ok = formatVerbSpans(formatText); !ok {
				return true
			}
		}
		var typeNames map[int]string // span index → the name %T prints
		for i, a := range call.Args[first:] {
			verb := 'v'
			if format >= 0 {
				if i >= len(spans) {
					continue
				}
				verb = spans[i].verb
			}
			t := x.cc.Info.Types[a].Type
			if t == nil || verb == '*' {
				continue
			}
			flags := ""
			if format >= 0 {
				flags = spans[i].flags
			}
			if e := x.checkPrinted(a, t, verb, flags); e != nil {
				err = e
				return false
			}
			switch {
			case verb == 'T' && involvesCellType(t) && !types.IsInterface(t):
				if typeNames == nil {
					typeNames = map[int]string{}
				}
				typeNames[i] = types.TypeString(t, func(p *types.Package) string { return p.Name() })
				rewrite[a] = &ast.BasicLit{ValuePos: a.Pos(), Kind: token.STRING, Value: strconv.Quote(typeNames[i])}
			case strings.ContainsRune("vsqxX", verb) && !(verb == 'v' && format >= 0 && strings.Contains(spans[i].flags, "#")) && x.stringerOnly(t) && x.writableAt(t, a.Pos()):
				f, e := x.parseGenerated("func(__gnb_v "+types.TypeString(t, x.qualify)+") fmt.Stringer { return __gnb_v }", a)
				if e != nil {
					err = e
					return false
				}
				x.typeImportsAdd("fmt", "fmt")
				rewrite[a] = &ast.CallExpr{Fun: f, Lparen: a.Pos(), Args: []ast.Expr{shallowCopy(a)}, Rparen: a.End()}
			}
		}
		if len(typeNames) > 0 {
			var b strings.Builder
			last := 0
			for i, sp := range spans {
				if _, ok := typeNames[i]; !ok {
					continue
				}
				b.WriteString(formatText[last : sp.end-1])
				b.WriteByte('s')
				last = sp.end
			}
			b.WriteString(formatText[last:])
			f := call.Args[format]
			rewrite[f] = &ast.BasicLit{ValuePos: f.Pos(), Kind: token.STRING, Value: strconv.Quote(b.String())}
		}
		return true
	})
	if err != nil {
		return err
	}
	replaceAll(ps, rewrite)
	return nil
}

// checkPrinted refuses a printed operand of static type t, with verb,
// that fmt would print otherwise than Go: see fixPrintedCellTypes.
func (x *Cell) checkPrinted(a ast.Expr, t types.Type, verb rune, flags string) error {
	refuse := func(what string) error {
		return newError("Unsupported", what+": yaegi, the interpreter, builds the cells' types with reflect, without their names, methods or unexported field names; "+
			"format the values yourself (call String or Error, print the fields), or use %v", x.at(a))
	}
	if verb == 'T' && types.IsInterface(t) && x.cellTypeImplements(t) {
		return refuse(fmt.Sprintf("%%T of a %s, which may hold a value of a type declared in a cell", types.TypeString(t, x.qualifyName)))
	}
	if inner := x.nestedPrintingMethods(t); inner != nil && strings.ContainsRune("vsqxX", verb) {
		return refuse(fmt.Sprintf("fmt would call the %s method of %s inside %s", inner.method, inner.typ, types.TypeString(t, x.qualifyName)))
	}
	switch {
	case verb == 'v' && strings.Contains(flags, "#") && involvesCellType(t):
		return refuse(fmt.Sprintf("%%#v of %s, which involves a type declared in a cell", types.TypeString(t, x.qualifyName)))
	case verb == 'v' && strings.Contains(flags, "+"):
		if s := cellStructWithUnexported(t); s != "" {
			return refuse(fmt.Sprintf("%%+v of %s, which holds %s, a struct declared in a cell with unexported fields", types.TypeString(t, x.qualifyName), s))
		}
	}
	return nil
}

// typeImportsAdd records an import the written code needs.
func (x *Cell) typeImportsAdd(name, path string) {
	if x.env.BoundPackage(name) && x.env.ImportPath(name) == path {
		return
	}
	if x.typeImports == nil {
		x.typeImports = map[string]string{}
	}
	x.typeImports[name] = path
}

// involvesCellType reports whether t mentions a named type declared in a
// cell.
func involvesCellType(t types.Type) bool {
	found := false
	TypeParts(t, func(t types.Type) bool {
		found = found || declaredInCell(t)
		return !found
	})
	return found
}

// stringerOnly reports whether t is a cell's concrete type whose method
// set has String() string and neither Error nor Format (fmt calls Error
// first; a Formatter formats itself).
func (x *Cell) stringerOnly(t types.Type) bool {
	if !cellConcrete(t) {
		return false
	}
	ms := types.NewMethodSet(t)
	has := func(name string) bool { return ms.Lookup(nil, name) != nil || ms.Lookup(x.cc.Pkg, name) != nil }
	if has("Error") || has("Format") {
		return false
	}
	m := ms.Lookup(nil, "String")
	if m == nil {
		return false
	}
	sig := m.Obj().Type().(*types.Signature)
	return sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.String])
}

// printingMethod is a cell's type, inside a printed operand, whose method
// fmt would call.
type printingMethod struct {
	typ, method string
}

// nestedPrintingMethods finds, inside t (not t itself), a cell's type
// whose String, Error, Format or GoString method fmt would call: slice,
// array and map elements and keys, exported fields of structs, what
// pointers point to.
func (x *Cell) nestedPrintingMethods(t types.Type) *printingMethod {
	seen := map[types.Type]bool{}
	var walk func(t types.Type, depth int) *printingMethod
	walk = func(t types.Type, depth int) *printingMethod {
		if seen[t] || depth > 10 {
			return nil
		}
		seen[t] = true
		if depth > 0 && cellConcrete(t) {
			ms := types.NewMethodSet(t)
			for _, m := range []string{"Error", "String", "Format", "GoString"} {
				if ms.Lookup(nil, m) != nil {
					return &printingMethod{types.TypeString(t, x.qualifyName), m}
				}
			}
		}
		switch u := t.Underlying().(type) {
		case *types.Slice:
			return walk(u.Elem(), depth+1)
		case *types.Array:
			return walk(u.Elem(), depth+1)
		case *types.Map:
			if m := walk(u.Key(), depth+1); m != nil {
				return m
			}
			return walk(u.Elem(), depth+1)
		case *types.Pointer:
			if depth == 0 {
				return walk(u.Elem(), depth) // fmt prints &{…} of the pointed-to value
			}
		case *types.Struct:
			for i := 0; i < u.NumFields(); i++ {
				if f := u.Field(i); f.Exported() {
					if m := walk(f.Type(), depth+1); m != nil {
						return m
					}
				}
			}
		}
		return nil
	}
	return walk(t, 0)
}

// cellTypeImplements reports whether a concrete type declared in a cell
// implements the interface t (so that a value of t may hold one).
func (x *Cell) cellTypeImplements(t types.Type) bool {
	iface, ok := t.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	scope := x.cc.Pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || types.IsInterface(tn.Type()) {
			continue
		}
		if types.Implements(tn.Type(), iface) || types.Implements(types.NewPointer(tn.Type()), iface) {
			return true
		}
	}
	return false
}

// verbSpan is one verb of a format: its operand's verb, its flags, and
// the byte offsets of the whole directive ("%-8T": start at '%', end
// after 'T').
type verbSpan struct {
	start, end int
	verb       rune
	flags      string
}

// formatVerbSpans returns the directives of a format that consume an
// operand, in order (a * width or precision is a span of its own with
// verb '*'); ok is false for a format with explicit argument indexes.
func formatVerbSpans(f string) (spans []verbSpan, ok bool) {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		start := i
		i++
		fs := i
		for i < len(f) && strings.IndexByte("+-# 0", f[i]) >= 0 {
			i++
		}
		flags := f[fs:i]
		number := func() {
			if i < len(f) && f[i] == '*' {
				spans = append(spans, verbSpan{start: i, end: i + 1, verb: '*'})
				i++
				return
			}
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i++
			}
		}
		number()
		if i < len(f) && f[i] == '.' {
			i++
			number()
		}
		if i >= len(f) {
			break
		}
		if f[i] == '[' {
			return nil, false
		}
		r, size := utf8.DecodeRuneInString(f[i:])
		i += size - 1
		if r == '%' {
			continue
		}
		spans = append(spans, verbSpan{start: start, end: i + 1, verb: r, flags: flags})
	}
	return spans, true
}

// cellStructWithUnexported returns the name of a struct type declared in a
// cell, with unexported fields, that t holds (fmt's %+v prints its field
// names), or "".
func cellStructWithUnexported(t types.Type) string {
	seen := map[types.Type]bool{}
	var walk func(t types.Type) string
	walk = func(t types.Type) string {
		if seen[t] {
			return ""
		}
		seen[t] = true
		switch u := t.Underlying().(type) {
		case *types.Struct:
			for i := 0; i < u.NumFields(); i++ {
				f := u.Field(i)
				if !f.Exported() && declaredInCell(t) {
					return types.TypeString(t, func(*types.Package) string { return "" })
				}
				if s := walk(f.Type()); s != "" {
					return s
				}
			}
		case *types.Pointer:
			return walk(u.Elem())
		case *types.Slice:
			return walk(u.Elem())
		case *types.Array:
			return walk(u.Elem())
		case *types.Map:
			if s := walk(u.Key()); s != "" {
				return s
			}
			return walk(u.Elem())
		}
		return ""
	}
	return walk(t)
}
