package complete

import (
	"go/token"
	"go/types"
	"sort"
	"strings"
)

// Typed is implemented by a Scope that knows the static types of the
// names cells declared (from Go's type checker). Completion and
// inspection then use them for those names: `x.` lists the methods of a
// type declared in a cell (which reflection cannot see) and its
// unexported fields, and inspecting a cell's type, function or constant
// shows its declaration.
type Typed interface {
	// Object returns what a cell declared under name (nil when no cell
	// did).
	Object(name string) types.Object
}

// typedObject returns the cell's object of name, if sc knows it.
func typedObject(sc Scope, name string) types.Object {
	if ts, ok := sc.(Typed); ok {
		return ts.Object(name)
	}
	return nil
}

// typedTarget is where a selector chain on a cell's name leads: a type
// whose fields and methods may follow, and whether the value is
// addressable (a variable) or the chain names the type itself.
type typedTarget struct {
	t       types.Type
	pkg     *types.Package // the cells' package, for unexported names
	isType  bool
	address bool
}

// resolveTyped follows chain from a name a cell declared, through fields.
func resolveTyped(chain []string, sc Scope) (typedTarget, bool) {
	obj := typedObject(sc, chain[0])
	if obj == nil {
		return typedTarget{}, false
	}
	tt := typedTarget{t: obj.Type(), pkg: obj.Pkg()}
	switch obj.(type) {
	case *types.Var:
		tt.address = true
	case *types.TypeName:
		tt.isType = true
	default:
		return typedTarget{}, false
	}
	for _, name := range chain[1:] {
		if tt.isType {
			return typedTarget{}, false
		}
		o, _, _ := types.LookupFieldOrMethod(tt.t, tt.address, tt.pkg, name)
		f, ok := o.(*types.Var)
		if !ok {
			return typedTarget{}, false // a method: calls are not followed
		}
		tt.t = f.Type()
		// A field of a variable is addressable; of a pointer, too.
		_, isPtr := tt.t.Underlying().(*types.Pointer)
		tt.address = tt.address || isPtr
	}
	return tt, true
}

// memberNames lists the fields and methods that may follow the target;
// for a type, its method expressions.
func (tt typedTarget) memberNames() []string {
	seen := map[string]bool{}
	var out []string
	add := func(name string, pkg *types.Package) {
		if seen[name] || (!token.IsExported(name) && (pkg == nil || tt.pkg == nil || pkg.Path() != tt.pkg.Path())) {
			return
		}
		seen[name] = true
		out = append(out, name)
	}
	t := tt.t
	if tt.isType || tt.address {
		if _, isPtr := t.Underlying().(*types.Pointer); !isPtr {
			if _, isIface := t.Underlying().(*types.Interface); !isIface {
				t = types.NewPointer(t)
			}
		}
	}
	ms := types.NewMethodSet(t)
	for i := 0; i < ms.Len(); i++ {
		m := ms.At(i).Obj()
		add(m.Name(), m.Pkg())
	}
	if tt.isType {
		sort.Strings(out)
		return out
	}
	// Fields, promoted ones included.
	var walk func(t types.Type, depth int)
	walk = func(t types.Type, depth int) {
		if depth > 8 {
			return
		}
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return
		}
		for i := 0; i < st.NumFields(); i++ {
			f := st.Field(i)
			add(f.Name(), f.Pkg())
			if f.Embedded() {
				walk(f.Type(), depth+1)
			}
		}
	}
	walk(tt.t, 0)
	sort.Strings(out)
	return out
}

// describeTyped fills r for a cell's function, type or constant: its
// declaration as Go writes it, and a type's methods. Variables are left to
// describeValue, which shows their values.
func describeTyped(r *reply, name string, sc Scope) bool {
	obj := typedObject(sc, name)
	if obj == nil {
		return false
	}
	qual := func(p *types.Package) string {
		if obj.Pkg() != nil && p.Path() == obj.Pkg().Path() {
			return ""
		}
		return p.Name()
	}
	switch obj := obj.(type) {
	case *types.TypeName:
		decl := "type " + obj.Name() + " " + types.TypeString(obj.Type().Underlying(), qual)
		if named, ok := obj.Type().(*types.Named); ok && named.NumMethods() > 0 {
			var ms []string
			for i := 0; i < named.NumMethods(); i++ {
				m := named.Method(i)
				sig := m.Type().(*types.Signature)
				recv := strings.TrimSpace(sig.Recv().Name() + " " + types.TypeString(sig.Recv().Type(), qual))
				ms = append(ms, "func ("+recv+") "+m.Name()+strings.TrimPrefix(types.TypeString(sig, qual), "func"))
			}
			sort.Strings(ms)
			decl += "\n\n" + strings.Join(ms, "\n")
		}
		r.code(decl)
		return true
	case *types.Func:
		r.code("func " + obj.Name() + strings.TrimPrefix(types.TypeString(obj.Type(), qual), "func"))
		return true
	case *types.Const:
		r.code("const " + obj.Name() + " " + types.TypeString(obj.Type(), qual) + " = " + obj.Val().ExactString())
		return true
	}
	return false
}
