package typedata

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"sync"
)

// FromSymbols builds the types of a compiled package that the export data
// lacks from its yaegi symbol table (symbol name → value, as yaegi extract
// writes them: functions and variables by value and pointer, types as
// (*T)(nil), constants as constant.Value). It is what the checker uses for
// the extra packages a program passes to the session (tests do); the
// result is less precise than export data — constants are untyped,
// parameter names are lost — but every exported signature is right.
//
// Named types of packages the data holds resolve to the data's own types,
// so a symbol table's function taking a context.Context is checked against
// the real context.Context. Types of other packages are created once per
// Importer and shared.
func (im *Importer) FromSymbols(path, name string, syms map[string]reflect.Value) (*types.Package, error) {
	im.symMu.Lock()
	defer im.symMu.Unlock()
	if im.synthetic == nil {
		im.synthetic = map[string]*types.Package{}
		im.named = map[reflect.Type]*types.Named{}
	}
	pkg := im.synthetic[path]
	if pkg == nil {
		pkg = types.NewPackage(path, name)
		im.synthetic[path] = pkg
	}
	c := &converter{im: im}
	for sym, v := range syms {
		if !token.IsExported(sym) || pkg.Scope().Lookup(sym) != nil {
			continue
		}
		if !v.IsValid() {
			continue
		}
		var obj types.Object
		switch {
		case v.Kind() == reflect.Ptr && v.IsNil():
			t := v.Type().Elem()
			if t.Kind() == reflect.Interface && strings.HasPrefix(t.Name(), "_") {
				continue // yaegi's interface wrappers
			}
			conv := c.typ(t)
			if n, ok := conv.(*types.Named); ok && n.Obj().Name() == sym && n.Obj().Pkg() == pkg {
				obj = n.Obj()
			} else {
				obj = types.NewTypeName(token.NoPos, pkg, sym, conv) // an alias
			}
		case v.Type().Implements(constantValue):
			cv := v.Interface().(constant.Value)
			obj = types.NewConst(token.NoPos, pkg, sym, untypedOf(cv), cv)
		case v.Kind() == reflect.Func:
			sig, _ := c.typ(v.Type()).(*types.Signature)
			if sig == nil {
				continue
			}
			obj = types.NewFunc(token.NoPos, pkg, sym, sig)
		case v.Kind() == reflect.Ptr:
			obj = types.NewVar(token.NoPos, pkg, sym, c.typ(v.Type().Elem()))
		default:
			obj = types.NewVar(token.NoPos, pkg, sym, c.typ(v.Type()))
		}
		if c.err != nil {
			return nil, fmt.Errorf("typedata: %s.%s: %w", path, sym, c.err)
		}
		pkg.Scope().Insert(obj)
	}
	c.finish()
	pkg.MarkComplete()
	return pkg, nil
}

var constantValue = reflect.TypeOf((*constant.Value)(nil)).Elem()

// untypedOf returns the untyped basic type of a constant's kind.
func untypedOf(v constant.Value) types.Type {
	switch v.Kind() {
	case constant.Bool:
		return types.Typ[types.UntypedBool]
	case constant.String:
		return types.Typ[types.UntypedString]
	case constant.Int:
		return types.Typ[types.UntypedInt]
	case constant.Float:
		return types.Typ[types.UntypedFloat]
	case constant.Complex:
		return types.Typ[types.UntypedComplex]
	}
	return types.Typ[types.Invalid]
}

// converter turns reflect types into go/types types.
type converter struct {
	im      *Importer
	err     error
	pending []reflect.Type // named types whose methods are still to add
}

var basics = map[reflect.Kind]types.BasicKind{
	reflect.Bool: types.Bool, reflect.Int: types.Int, reflect.Int8: types.Int8, reflect.Int16: types.Int16,
	reflect.Int32: types.Int32, reflect.Int64: types.Int64, reflect.Uint: types.Uint, reflect.Uint8: types.Uint8,
	reflect.Uint16: types.Uint16, reflect.Uint32: types.Uint32, reflect.Uint64: types.Uint64,
	reflect.Uintptr: types.Uintptr, reflect.Float32: types.Float32, reflect.Float64: types.Float64,
	reflect.Complex64: types.Complex64, reflect.Complex128: types.Complex128, reflect.String: types.String,
	reflect.UnsafePointer: types.UnsafePointer,
}

var errorType = reflect.TypeOf((*error)(nil)).Elem()

func (c *converter) typ(t reflect.Type) types.Type {
	if t == errorType {
		return types.Universe.Lookup("error").Type()
	}
	if t.Name() != "" && t.PkgPath() != "" {
		return c.named(t)
	}
	if t.Name() != "" && t.PkgPath() == "" {
		if k, ok := basics[t.Kind()]; ok {
			if t == reflect.TypeOf(byte(0)) || t == reflect.TypeOf(rune(0)) || t.String() == t.Kind().String() {
				return types.Typ[k]
			}
		}
	}
	return c.structure(t)
}

// structure converts the type literal that t is (or that underlies it).
func (c *converter) structure(t reflect.Type) types.Type {
	if k, ok := basics[t.Kind()]; ok {
		return types.Typ[k]
	}
	switch t.Kind() {
	case reflect.Array:
		return types.NewArray(c.typ(t.Elem()), int64(t.Len()))
	case reflect.Slice:
		return types.NewSlice(c.typ(t.Elem()))
	case reflect.Ptr:
		return types.NewPointer(c.typ(t.Elem()))
	case reflect.Map:
		return types.NewMap(c.typ(t.Key()), c.typ(t.Elem()))
	case reflect.Chan:
		dir := types.SendRecv
		switch t.ChanDir() {
		case reflect.SendDir:
			dir = types.SendOnly
		case reflect.RecvDir:
			dir = types.RecvOnly
		}
		return types.NewChan(dir, c.typ(t.Elem()))
	case reflect.Func:
		return c.signature(t, nil)
	case reflect.Struct:
		var fields []*types.Var
		var tags []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			var pkg *types.Package
			if f.PkgPath != "" {
				pkg = c.pkg(f.PkgPath)
			}
			fields = append(fields, types.NewField(token.NoPos, pkg, f.Name, c.typ(f.Type), f.Anonymous))
			tags = append(tags, string(f.Tag))
		}
		return types.NewStruct(fields, tags)
	case reflect.Interface:
		var methods []*types.Func
		for i := 0; i < t.NumMethod(); i++ {
			m := t.Method(i)
			var pkg *types.Package
			if m.PkgPath != "" {
				pkg = c.pkg(m.PkgPath)
			}
			methods = append(methods, types.NewFunc(token.NoPos, pkg, m.Name, c.signature(m.Type, nil)))
		}
		it := types.NewInterfaceType(methods, nil)
		it.Complete()
		return it
	}
	if c.err == nil {
		c.err = fmt.Errorf("cannot describe type %v", t)
	}
	return types.Typ[types.Invalid]
}

// signature converts a function type; recv, if any, becomes the receiver
// (and t's first parameter is skipped).
func (c *converter) signature(t reflect.Type, recv *types.Var) *types.Signature {
	var params, results []*types.Var
	first := 0
	if recv != nil {
		first = 1
	}
	for i := first; i < t.NumIn(); i++ {
		params = append(params, types.NewParam(token.NoPos, nil, "", c.typ(t.In(i))))
	}
	for i := 0; i < t.NumOut(); i++ {
		results = append(results, types.NewParam(token.NoPos, nil, "", c.typ(t.Out(i))))
	}
	return types.NewSignatureType(recv, nil, nil, types.NewTuple(params...), types.NewTuple(results...), t.IsVariadic())
}

// pkg returns the package of an import path: the data's, or a synthetic
// one.
func (c *converter) pkg(path string) *types.Package {
	if p, ok := c.im.packages[path]; ok && c.im.complete[path] {
		return p
	}
	if p := c.im.synthetic[path]; p != nil {
		return p
	}
	name := path[strings.LastIndexByte(path, '/')+1:]
	p := types.NewPackage(path, name)
	c.im.synthetic[path] = p
	return p
}

// named converts a named type: the data's own type when the data holds
// its package, else a new named type (with its exported methods) made
// once.
func (c *converter) named(t reflect.Type) types.Type {
	if n := c.im.named[t]; n != nil {
		return n
	}
	if _, ok := c.im.entries[t.PkgPath()]; ok {
		c.im.mu.Lock()
		complete := c.im.complete[t.PkgPath()]
		c.im.mu.Unlock()
		if !complete {
			if _, err := c.im.Import(t.PkgPath()); err != nil && c.err == nil {
				c.err = err
			}
		}
		c.im.mu.Lock()
		pkg := c.im.packages[t.PkgPath()]
		c.im.mu.Unlock()
		if pkg != nil {
			if obj, ok := pkg.Scope().Lookup(t.Name()).(*types.TypeName); ok {
				return obj.Type()
			}
		}
	}
	obj := types.NewTypeName(token.NoPos, c.pkg(t.PkgPath()), t.Name(), nil)
	n := types.NewNamed(obj, nil, nil)
	c.im.named[t] = n
	n.SetUnderlying(c.structure(t).Underlying())
	c.pending = append(c.pending, t)
	return n
}

// finish adds the methods of the named types made.
func (c *converter) finish() {
	for len(c.pending) > 0 {
		t := c.pending[0]
		c.pending = c.pending[1:]
		n := c.im.named[t]
		if t.Kind() == reflect.Interface {
			continue
		}
		ptr := reflect.PointerTo(t)
		for i := 0; i < ptr.NumMethod(); i++ {
			m := ptr.Method(i)
			_, onValue := t.MethodByName(m.Name)
			var recvType types.Type = n
			if !onValue {
				recvType = types.NewPointer(n)
			}
			recv := types.NewParam(token.NoPos, n.Obj().Pkg(), "", recvType)
			n.AddMethod(types.NewFunc(token.NoPos, n.Obj().Pkg(), m.Name, c.signature(m.Type, recv)))
		}
	}
}

// symState is the FromSymbols part of Importer.
type symState struct {
	symMu     sync.Mutex
	synthetic map[string]*types.Package
	named     map[reflect.Type]*types.Named
}
