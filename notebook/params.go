package notebook

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// Tags of the parameter cells, as papermill names them.
const (
	ParametersTag         = "parameters"
	InjectedParametersTag = "injected-parameters"
)

// ErrParameter is wrapped by every error about parameters: a malformed
// name=value, a notebook with no parameters cell, a name the parameters
// cell does not assign.
var ErrParameter = errors.New("bad notebook parameter")

// Param is a parameter override: Name is a Go identifier the parameters
// cell assigns; Value is a Go literal (an int, a float, true or false, a
// quoted string) or, when it is none of these, a bare word that stands
// for the string itself (rmat:16 means "rmat:16").
type Param struct {
	Name, Value string
}

// ParseParam parses "name=value".
func ParseParam(s string) (Param, error) {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok {
		return Param{}, fmt.Errorf("%w: %q: want name=value", ErrParameter, s)
	}
	if !token.IsIdentifier(name) || name == "_" {
		return Param{}, fmt.Errorf("%w: %q: %q is not a Go identifier", ErrParameter, s, name)
	}
	return Param{Name: name, Value: value}, nil
}

// Literal returns the Go expression the value stands for: the value
// itself when it is a Go int, float or string literal (a sign allowed on
// numbers) or true or false, else the value quoted as a string.
func (p Param) Literal() string {
	v := strings.TrimSpace(p.Value)
	if e, err := parser.ParseExpr(v); err == nil {
		if u, ok := e.(*ast.UnaryExpr); ok && (u.Op == token.SUB || u.Op == token.ADD) {
			if lit, ok := u.X.(*ast.BasicLit); ok && (lit.Kind == token.INT || lit.Kind == token.FLOAT) {
				return v
			}
		}
		switch x := e.(type) {
		case *ast.BasicLit:
			if x.Kind == token.INT || x.Kind == token.FLOAT || x.Kind == token.STRING {
				return v
			}
		case *ast.Ident:
			if x.Name == "true" || x.Name == "false" {
				return v
			}
		}
	}
	return strconv.Quote(p.Value)
}

// InjectParameters inserts, right after the first code cell tagged
// "parameters", a code cell tagged "injected-parameters" that assigns the
// parameters (papermill's convention): "name = value" for a variable,
// "const name = value" for a constant, so that a value keeps the type the
// parameters cell gave its variable (-p density=1 sets a float64 to 1.0).
// Cells tagged "injected-parameters" by an earlier run are removed first.
// A later parameter of the same name wins. Every name must be assigned
// by the parameters cell (with :=, =, var or const at its top level);
// errors wrap ErrParameter and leave nb unchanged.
func InjectParameters(nb *Notebook, params []Param) error {
	if len(params) == 0 {
		return nil
	}
	at := -1
	for i, c := range nb.Cells {
		if c.Type == Code && c.HasTag(ParametersTag) {
			at = i
			break
		}
	}
	if at < 0 {
		return fmt.Errorf(`%w: the notebook has no code cell tagged %q to override (add the tag to the cell that sets the defaults, or leave out -p)`, ErrParameter, ParametersTag)
	}
	pc := nb.Cells[at]
	names, consts, err := assignedNames(pc.Source)
	if err != nil {
		return fmt.Errorf("%w: the parameters cell (%s) does not parse: %v", ErrParameter, cellName(at, pc.ID), err)
	}
	var order []string
	values := map[string]Param{}
	for _, p := range params {
		if !token.IsIdentifier(p.Name) || p.Name == "_" {
			return fmt.Errorf("%w: %q is not a Go identifier", ErrParameter, p.Name)
		}
		if !slices.Contains(names, p.Name) {
			valid := "no names"
			if len(names) > 0 {
				valid = strings.Join(names, ", ")
			}
			return fmt.Errorf("%w: %s is not set by the parameters cell, %s, which sets %s", ErrParameter, p.Name, cellName(at, pc.ID), valid)
		}
		if _, seen := values[p.Name]; !seen {
			order = append(order, p.Name)
		}
		values[p.Name] = p
	}
	var src strings.Builder
	src.WriteString("// Parameters injected by graphnb exec\n")
	for _, name := range order {
		if consts[name] {
			src.WriteString("const ")
		}
		fmt.Fprintf(&src, "%s = %s\n", name, values[name].Literal())
	}
	cell := NewCode(strings.TrimSuffix(src.String(), "\n"))
	_ = cell.Metadata.Set("tags", []string{InjectedParametersTag})

	var cells []*Cell
	ids := map[string]bool{}
	for i, c := range nb.Cells {
		if c.Type == Code && c.HasTag(InjectedParametersTag) && i != at {
			continue
		}
		cells = append(cells, c)
		ids[c.ID] = true
		if c == pc {
			cells = append(cells, cell)
		}
	}
	if nb.NBFormatMinor >= 5 {
		cell.ID = InjectedParametersTag
		for k := 2; ids[cell.ID]; k++ {
			cell.ID = fmt.Sprintf("%s-%d", InjectedParametersTag, k)
		}
	}
	nb.Cells = cells
	return nil
}

// assignedNames returns the names a cell's top level assigns (:=, =, var,
// const), in order, and which of them are constants. Magic lines are
// ignored.
func assignedNames(src string) (names []string, consts map[string]bool, err error) {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "%") {
			lines[i] = ""
		}
	}
	src = strings.Join(lines, "\n")
	consts = map[string]bool{}
	add := func(name string, isConst bool) {
		if name == "_" {
			return
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		consts[name] = isConst
	}
	decl := func(d *ast.GenDecl) {
		if d.Tok != token.VAR && d.Tok != token.CONST {
			return
		}
		for _, s := range d.Specs {
			for _, id := range s.(*ast.ValueSpec).Names {
				add(id.Name, d.Tok == token.CONST)
			}
		}
	}
	fset := token.NewFileSet()
	// A cell of declarations only parses as a file; one with statements
	// as the body of a function.
	if f, ferr := parser.ParseFile(fset, "", "package p\n"+src, parser.SkipObjectResolution); ferr == nil {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok {
				decl(g)
			}
		}
		return names, consts, nil
	}
	f, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+src+"\n}", parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, cellLines(err)
	}
	for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
		switch st := st.(type) {
		case *ast.DeclStmt:
			decl(st.Decl.(*ast.GenDecl))
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE || st.Tok == token.ASSIGN {
				for _, l := range st.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						add(id.Name, false)
					}
				}
			}
		}
	}
	return names, consts, nil
}

// cellLines reports the first parse error at its cell line (the wrapped
// source starts two lines below the cell).
func cellLines(err error) error {
	if el, ok := err.(scanner.ErrorList); ok && len(el) > 0 {
		return fmt.Errorf("line %d: %s", el[0].Pos.Line-2, el[0].Msg)
	}
	return err
}
