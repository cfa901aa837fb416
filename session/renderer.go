package session

import (
	"context"
	"encoding/base64"
	"go/ast"
	"go/parser"
	"reflect"
	"sort"
	"strings"

	"github.com/graphnb/graphnb/display"
)

// Rendering values of types declared in cells when compiled code displays
// them (display.Show, display.NewDisplay, Handle.Update).
//
// Such a value reaches compiled code as a plain struct without methods, so
// display.Render cannot see its HTML method. The session installs a
// renderer (display.SetRenderer) that first asks an interpreted function,
// regenerated whenever cells declare render methods:
//
//	__gnb_render := func(v any) map[string]any {
//		b := map[string]any{}
//		switch x := v.(type) {
//		case card:
//			b["HTML"] = x.HTML()
//		case *card:
//			if x != nil { b["HTML"] = x.HTML() }
//		}
//		return b
//	}
//
// Only struct types take part: yaegi gives a named non-struct type the
// reflect type of its underlying type (a cell's `type celsius float64` is
// a float64 to compiled code), so every float64 would match. Two struct
// types declared with identical fields are one reflect type too; the
// first declared wins.

// renderCase is a struct type declared in a cell with render methods.
type renderCase struct {
	order   int
	methods map[string]bool
}

// receiverType returns the type name of a method's receiver.
func receiverType(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) != 1 {
		return ""
	}
	t := d.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// rendererSource is the interpreted renderer for the given types; the
// caller holds s.meta.
func (s *Session) rendererSource() string {
	var names []string
	for name := range s.renderTypes {
		if s.structTypes[name] {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Slice(names, func(i, j int) bool { return s.renderTypes[names[i]].order < s.renderTypes[names[j]].order })
	var b strings.Builder
	b.WriteString("__gnb_render := func(v any) map[string]any {\n\tb := map[string]any{}\n\tswitch x := v.(type) {\n")
	for _, name := range names {
		var ms []string
		for m := range s.renderTypes[name].methods {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		for _, ptr := range []bool{false, true} {
			if ptr {
				b.WriteString("\tcase *" + name + ":\n\t\tif x == nil {\n\t\t\tbreak\n\t\t}\n")
			} else {
				b.WriteString("\tcase " + name + ":\n")
			}
			for _, m := range ms {
				b.WriteString("\t\tb[\"" + m + "\"] = x." + m + "()\n")
			}
		}
	}
	b.WriteString("\t}\n\treturn b\n}\n")
	return b.String()
}

// updateRenderer regenerates the interpreted renderer after a cell
// declared render methods. A failure keeps the previous one.
func (s *Session) updateRenderer() {
	s.meta.Lock()
	if !s.renderDirty {
		s.meta.Unlock()
		return
	}
	s.renderDirty = false
	src := s.rendererSource()
	if src == "" || src == s.renderSrc {
		s.meta.Unlock()
		return
	}
	s.renderSrc = src
	s.meta.Unlock()
	f, err := parser.ParseFile(s.in.FileSet(), "_.go", "package main; func main() {\n//line render/_.go:1:1\n"+src+"\n}", parser.SkipObjectResolution)
	if err != nil {
		return
	}
	prog, err := s.compileNode(f.Decls[0].(*ast.FuncDecl).Body)
	if err != nil || prog == nil {
		return
	}
	if _, err, _ := s.runProgram(context.Background(), prog); err != nil {
		return
	}
	s.filter.take()
	v, err := s.evalIdent("__gnb_render")
	if err != nil {
		return
	}
	v = unwrap(v)
	if v.Kind() == reflect.Func && v.Type().NumIn() == 1 && v.Type().NumOut() == 1 {
		s.renderFn.Store(&v)
	}
}

// render is the renderer the session installs: display.Render plus what
// the render methods of types declared in cells give.
func (s *Session) render(v any) display.Bundle {
	b := display.Render(v)
	fn := s.renderFn.Load()
	if fn == nil || v == nil {
		return b
	}
	out := callRenderer(*fn, v)
	mergeRendered(b, out)
	return b
}

// callRenderer calls the interpreted renderer; a panic (a render method
// that fails) gives nothing.
func callRenderer(fn reflect.Value, v any) (out map[string]any) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	arg := reflect.ValueOf(&v).Elem()
	r := fn.Call([]reflect.Value{arg})
	out, _ = r[0].Interface().(map[string]any)
	return out
}

// mergeRendered adds render method results (by method name) to b.
func mergeRendered(b display.Bundle, out map[string]any) {
	if s, ok := out["String"].(string); ok {
		b["text/plain"] = s
	}
	if s, ok := out["Error"].(string); ok {
		b["text/plain"] = s
	}
	for m, mime := range map[string]string{"HTML": "text/html", "Markdown": "text/markdown", "SVG": "image/svg+xml"} {
		if s, ok := out[m].(string); ok {
			b[mime] = s
		}
	}
	if p, ok := out["PNG"].([]byte); ok && p != nil {
		b["image/png"] = base64.StdEncoding.EncodeToString(p)
	}
	if mb, ok := out["MIMEBundle"].(map[string]any); ok {
		for k, d := range mb {
			if raw, ok := d.([]byte); ok && strings.HasPrefix(k, "image/") && !strings.HasPrefix(k, "image/svg") {
				d = base64.StdEncoding.EncodeToString(raw)
			}
			b[k] = d
		}
	}
}
