package complete

import (
	"fmt"
	"go/doc/comment"
	"go/scanner"
	"go/token"
	"reflect"
	"strings"

	"github.com/graphnb/graphnb/session/docindex"
)

// Limits of what Inspect shows.
const (
	shortDocLines = 12  // doc lines at detail 0
	maxValueBytes = 500 // value summary
)

// section is one part of an inspect reply.
type section struct {
	kind    int    // secCode, secDoc, secText
	text    string // Go code, a doc comment, or plain text
	pkgPath string // for secDoc: the package doc links refer to
}

const (
	secCode = iota // a Go declaration: ```go in Markdown
	secDoc         // a Go doc comment: rendered as Markdown
	secText        // plain text: ```text in Markdown when multi-line
)

type reply struct {
	secs []section
	sc   Scope
}

func (r *reply) code(s string) {
	if s != "" {
		r.secs = append(r.secs, section{kind: secCode, text: s})
	}
}

func (r *reply) doc(s, pkgPath string, detail int) {
	if detail == 0 {
		s = shortDoc(s, shortDocLines)
	}
	if s != "" {
		r.secs = append(r.secs, section{kind: secDoc, text: s, pkgPath: pkgPath})
	}
}

func (r *reply) text(s string) {
	if s != "" {
		r.secs = append(r.secs, section{kind: secText, text: s})
	}
}

func (r *reply) bundle() map[string]any {
	var plain, md []string
	for _, s := range r.secs {
		plain = append(plain, strings.TrimRight(s.text, "\n"))
		switch s.kind {
		case secCode:
			md = append(md, "```go\n"+strings.TrimRight(s.text, "\n")+"\n```")
		case secDoc:
			md = append(md, strings.TrimRight(markdown(s.text, s.pkgPath, r.sc), "\n"))
		default:
			md = append(md, "```text\n"+strings.TrimRight(s.text, "\n")+"\n```")
		}
	}
	return map[string]any{
		"text/plain":    strings.Join(plain, "\n\n") + "\n",
		"text/markdown": strings.Join(md, "\n\n") + "\n",
	}
}

func inspect(code string, cursor, detail int, sc Scope) (map[string]any, bool) {
	b := byteOffset(code, cursor)
	if inCellMagicBody(code, b) {
		return nil, false
	}
	r := &reply{sc: sc}
	if ws, we, ok := magicLine(code, b); ok && b >= ws && b <= we {
		if d, ok := magics(sc)[code[ws:we]]; ok {
			r.text(d)
			return r.bundle(), true
		}
		return nil, false
	}
	s, e := identBefore(code, b), identAfter(code, b)
	if s == e || !isIdent(code[s:e]) || inCommentOrString(code, b) {
		var ok bool
		if s, e, ok = enclosingCall(code, b); !ok {
			return nil, false
		}
	}
	chain, ok := selectorChain(code, s)
	if !ok {
		return nil, false
	}
	chain = append(chain, code[s:e])
	if !describe(r, chain, detail, sc) {
		return nil, false
	}
	return r.bundle(), true
}

// enclosingCall finds the function of the call that ends just before byte
// offset b ("f(x)|"), or else of the innermost open call ("strings.Split(s, |"
// → the offsets of Split).
func enclosingCall(code string, b int) (start, end int, ok bool) {
	head := code[:b]
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(head))
	var s scanner.Scanner
	s.Init(file, []byte(head), nil, 0)
	type open struct {
		tok        token.Token
		start, end int // the identifier before a "(", if any
	}
	var stack []open
	var prevTok token.Token
	var prevStart, prevEnd int
	closed := open{start: -1} // the call whose ")" is the last token
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // automatic
		}
		off := file.Offset(pos)
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			o := open{tok: tok, start: -1}
			if tok == token.LPAREN && prevTok == token.IDENT {
				o.start, o.end = prevStart, prevEnd
			}
			stack = append(stack, o)
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if len(stack) > 0 {
				closed = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		}
		if tok != token.RPAREN {
			closed = open{start: -1}
		}
		n := len(lit)
		if n == 0 {
			n = len(tok.String()) // operators have no literal
		}
		prevTok, prevStart, prevEnd = tok, off, off+n
	}
	switch {
	case closed.start >= 0 && prevTok == token.RPAREN && prevEnd == len(head):
		return closed.start, closed.end, true // "f(x)|"
	case len(stack) > 0 && stack[len(stack)-1].start >= 0:
		o := stack[len(stack)-1]
		return o.start, o.end, true // "f(x, |"
	}
	return 0, 0, false
}

// describe fills r for the symbol chain; false when nothing is known.
func describe(r *reply, chain []string, detail int, sc Scope) bool {
	if len(chain) == 1 {
		name := chain[0]
		if describeTyped(r, name, sc) {
			return true
		}
		if v, ok := sc.Value(name); ok {
			describeValue(r, name, v, detail)
			return true
		}
		for _, n := range sc.Names() {
			if n == name {
				return false // a cell's function, type or constant: nothing known
			}
		}
		if path, ok := sc.Packages()[name]; ok {
			return describePackage(r, name, path, detail, sc)
		}
		if bi, ok := builtins[name]; ok {
			r.code(bi.sig)
			r.text(bi.doc)
			return true
		}
		if d, ok := keywords[name]; ok {
			r.text(d)
			return true
		}
		return false
	}
	t, ok := resolve(chain[:len(chain)-1], sc)
	if !ok {
		return false
	}
	last := chain[len(chain)-1]
	switch {
	case t.isPkg():
		return describeMember(r, t, last, detail, sc)
	case t.isType:
		if t.typ.Name() != "" && t.typ.PkgPath() != "" {
			if e, ok := docindex.Lookup(t.typ.PkgPath(), t.typ.Name()+"."+last); ok {
				r.code(e.Signature)
				r.doc(e.Doc, t.typ.PkgPath(), detail)
				return true
			}
		}
		return describeMethod(r, t.typ, last, detail) || describeMethod(r, reflect.PointerTo(t.typ), last, detail)
	}
	base := t.typ
	if base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if base.Kind() == reflect.Struct {
		if f, ok := base.FieldByName(last); ok && f.IsExported() {
			ft, _ := t.selectField(last, sc)
			describeField(r, strings.Join(chain, "."), base, f, ft.val, detail)
			return true
		}
	}
	if describeMethod(r, t.typ, last, detail) {
		return true
	}
	return t.typ.Kind() != reflect.Pointer && t.typ.Kind() != reflect.Interface &&
		describeMethod(r, reflect.PointerTo(t.typ), last, detail)
}

// describeValue: a variable's type, value and its type's doc.
func describeValue(r *reply, name string, v reflect.Value, detail int) {
	if !v.IsValid() {
		r.code("var " + name + " = nil")
		return
	}
	if v.Kind() == reflect.Func && v.Type().Name() == "" {
		r.code("func " + name + strings.TrimPrefix(v.Type().String(), "func"))
		return
	}
	r.code("var " + name + " " + v.Type().String())
	r.text(summarize(v, maxValueBytes))
	describeType(r, v.Type(), detail)
}

// describeType adds the declaration and doc of t (through pointers) when
// the index documents it.
func describeType(r *reply, t reflect.Type, detail int) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" || t.PkgPath() == "" {
		return
	}
	e, ok := docindex.Lookup(t.PkgPath(), t.Name())
	if !ok {
		return
	}
	r.code(e.Signature)
	r.doc(e.Doc, t.PkgPath(), detail)
	if detail > 0 {
		r.methodList(t.PkgPath(), t.Name())
	}
}

// methodList adds the signatures of the indexed methods of type name.
func (r *reply) methodList(path, name string) {
	var sigs []string
	for _, n := range docindex.Names(path) {
		if strings.HasPrefix(n, name+".") {
			if e, ok := docindex.Lookup(path, n); ok && e.Kind == "method" {
				sigs = append(sigs, e.Signature)
			}
		}
	}
	r.code(strings.Join(sigs, "\n"))
}

func describePackage(r *reply, name, path string, detail int, sc Scope) bool {
	p, ok := docindex.Package(path)
	if !ok {
		if len(sc.Members(path)) == 0 {
			return false
		}
		r.code(fmt.Sprintf("package %s // import %q", name, path))
		r.text("(not in the offline documentation index)")
		return true
	}
	r.code(fmt.Sprintf("package %s // import %q", p.Name, p.ImportPath))
	r.doc(p.Doc, p.ImportPath, detail)
	if detail > 0 {
		var names []string
		for _, n := range docindex.Names(path) {
			if !strings.Contains(n, ".") {
				names = append(names, n)
			}
		}
		r.text("Names: " + strings.Join(names, ", "))
	}
	return true
}

// describeMember: pkg.Name, from the index, with reflection as fallback.
func describeMember(r *reply, t target, name string, detail int, sc Scope) bool {
	m, inTable := sc.Members(t.pkgPath)[name]
	e, ok := docindex.Lookup(t.pkgPath, name)
	if !ok && !inTable {
		return false
	}
	if ok {
		r.code(e.Signature)
	} else {
		r.code(reflectSig(t.pkgName, name, m))
	}
	if inTable {
		switch k := classify(m); {
		case k == memberConst && isConstant(m) && m.CanInterface():
			r.text(fmt.Sprintf("%s.%s = %v", t.pkgName, name, m.Interface()))
		case k == memberConst || k == memberVar:
			r.text(t.pkgName + "." + name + " = " + summarize(m, maxValueBytes))
		}
	}
	if ok {
		r.doc(e.Doc, t.pkgPath, detail)
		if detail > 0 && e.Kind == "type" {
			r.methodList(t.pkgPath, name)
		}
	} else {
		r.text("(not in the offline documentation index)")
	}
	return true
}

// reflectSig describes a symbol-table entry that the index lacks.
func reflectSig(pkg, name string, m reflect.Value) string {
	switch classify(m) {
	case memberFunc:
		return "func " + pkg + "." + name + strings.TrimPrefix(m.Type().String(), "func")
	case memberType:
		return "type " + pkg + "." + name + " " + m.Type().Elem().Kind().String()
	case memberVar:
		return "var " + pkg + "." + name + " " + m.Type().String()
	}
	return "const " + pkg + "." + name
}

// describeMethod: method name of type t, if t's method set has it.
func describeMethod(r *reply, t reflect.Type, name string, detail int) bool {
	m, ok := t.MethodByName(name)
	if !ok || !m.IsExported() {
		return false
	}
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if base.Name() != "" && base.PkgPath() != "" {
		if e, ok := docindex.Lookup(base.PkgPath(), base.Name()+"."+name); ok {
			r.code(e.Signature)
			r.doc(e.Doc, base.PkgPath(), detail)
			return true
		}
	}
	// Not indexed (a promoted method, an interpreted type): the signature
	// from reflection. For a concrete type the method's type has the
	// receiver as first parameter.
	ft := m.Type
	var in []string
	first := 0
	if t.Kind() != reflect.Interface {
		first = 1
	}
	for i := first; i < ft.NumIn(); i++ {
		s := ft.In(i).String()
		if ft.IsVariadic() && i == ft.NumIn()-1 {
			s = "..." + ft.In(i).Elem().String()
		}
		in = append(in, s)
	}
	var out []string
	for i := 0; i < ft.NumOut(); i++ {
		out = append(out, ft.Out(i).String())
	}
	sig := "func (" + t.String() + ") " + name + "(" + strings.Join(in, ", ") + ")"
	switch len(out) {
	case 0:
	case 1:
		sig += " " + out[0]
	default:
		sig += " (" + strings.Join(out, ", ") + ")"
	}
	r.code(sig)
	return true
}

// describeField: a struct field, its doc (from the struct type that
// declares it, for promoted fields) and its value when known.
func describeField(r *reply, expr string, base reflect.Type, f reflect.StructField, v reflect.Value, detail int) {
	owner := base
	for _, i := range f.Index[:len(f.Index)-1] { // promoted: walk to the declaring struct
		owner = owner.Field(i).Type
		if owner.Kind() == reflect.Pointer {
			owner = owner.Elem()
		}
	}
	sig := "field " + f.Name + " " + f.Type.String()
	var doc, docPath string
	if owner.Name() != "" && owner.PkgPath() != "" {
		if e, ok := docindex.Lookup(owner.PkgPath(), owner.Name()+"."+f.Name); ok {
			sig = e.Signature + " // field of " + owner.String()
			doc, docPath = e.Doc, owner.PkgPath()
		}
	}
	r.code(sig)
	if v.IsValid() {
		r.text(expr + " = " + summarize(v, maxValueBytes))
	}
	r.doc(doc, docPath, detail)
}

// shortDoc keeps the first paragraphs of doc that fit in max lines (at
// least the first max lines), marking a cut with "…".
func shortDoc(doc string, max int) string {
	lines := strings.Split(strings.TrimRight(doc, "\n"), "\n")
	if len(lines) <= max {
		return strings.Join(lines, "\n")
	}
	cut := max
	for i := max; i > 0; i-- {
		if strings.TrimSpace(lines[i]) == "" {
			cut = i
			break
		}
	}
	return strings.Join(lines[:cut], "\n") + "\n…"
}

// markdown renders a Go doc comment as Markdown. Links to symbols of
// standard-library packages point at pkg.go.dev; others stay plain text.
func markdown(doc, pkgPath string, sc Scope) string {
	names := map[string]bool{}
	for _, n := range docindex.Names(pkgPath) {
		names[n] = true
	}
	pkgs := sc.Packages()
	p := comment.Parser{
		LookupSym: func(recv, name string) bool {
			if recv != "" {
				name = recv + "." + name
			}
			return names[name]
		},
		LookupPackage: func(name string) (string, bool) {
			path, ok := pkgs[name]
			return path, ok
		},
	}
	pr := comment.Printer{
		HeadingLevel: 4,
		HeadingID:    func(*comment.Heading) string { return "" },
		DocLinkURL: func(l *comment.DocLink) string {
			path := l.ImportPath
			if path == "" {
				path = pkgPath
			}
			if d, ok := docindex.Package(path); !ok || !d.Std {
				return ""
			}
			u := "https://pkg.go.dev/" + path
			if l.Name != "" {
				u += "#"
				if l.Recv != "" {
					u += l.Recv + "."
				}
				u += l.Name
			}
			return u
		},
	}
	return string(pr.Markdown(p.Parse(doc)))
}

// summarize formats v like %v, but bounded: at most about max bytes, long
// slices, arrays and maps cut after the elements that fit, and String /
// Error methods that panic reported rather than propagated.
func summarize(v reflect.Value, max int) string {
	w := &limited{max: max}
	writeValue(w, v, 0)
	s := w.b.String()
	if w.cut {
		s += "…" + w.lenNote
	}
	return s
}

type limited struct {
	b       strings.Builder
	max     int
	cut     bool
	lenNote string // " (len N)" of a top-level slice or map that was cut
}

func (w *limited) full() bool { return w.cut || w.b.Len() >= w.max }

func (w *limited) write(s string) {
	if w.full() {
		w.cut = true
		return
	}
	if room := w.max - w.b.Len(); len(s) > room {
		// Cut at a rune boundary.
		for room > 0 && room < len(s) && s[room]&0xC0 == 0x80 {
			room--
		}
		s, w.cut = s[:room], true
	}
	w.b.WriteString(s)
}

func writeValue(w *limited, v reflect.Value, depth int) {
	if w.full() {
		w.cut = true
		return
	}
	if !v.IsValid() {
		w.write("<nil>")
		return
	}
	if s, ok := stringMethod(v); ok {
		w.write(s)
		return
	}
	if depth > 4 {
		w.write("…")
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			w.write("<nil>")
			return
		}
		if depth > 0 {
			w.write(fmt.Sprintf("0x%x", v.Pointer()))
			return
		}
		w.write("&")
		writeValue(w, v.Elem(), depth+1)
	case reflect.Interface:
		writeValue(w, v.Elem(), depth)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			w.write("[]")
			return
		}
		w.write("[")
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				w.write(" ")
			}
			if w.full() {
				w.cut = true
				break
			}
			writeValue(w, v.Index(i), depth+1)
		}
		w.write("]")
		if w.cut && depth == 0 {
			w.lenNote = fmt.Sprintf(" (len %d)", v.Len())
		}
	case reflect.Map:
		if v.Len() <= 64 && v.CanInterface() {
			w.write(fmt.Sprint(v.Interface())) // fmt sorts the keys
			return
		}
		w.write("map[")
		it := v.MapRange()
		for i := 0; it.Next(); i++ {
			if i > 0 {
				w.write(" ")
			}
			if w.full() {
				w.cut = true
				break
			}
			writeValue(w, it.Key(), depth+1)
			w.write(":")
			writeValue(w, it.Value(), depth+1)
		}
		w.write("]")
		if w.cut && depth == 0 {
			w.lenNote = fmt.Sprintf(" (%d entries)", v.Len())
		}
	case reflect.Struct:
		w.write("{")
		for i := 0; i < v.NumField(); i++ {
			if i > 0 {
				w.write(" ")
			}
			writeValue(w, v.Field(i), depth+1)
		}
		w.write("}")
	case reflect.String:
		w.write(v.String())
	default:
		if v.CanInterface() {
			w.write(fmt.Sprint(v.Interface()))
		} else {
			w.write(fmt.Sprint(v)) // fmt prints the value a reflect.Value holds
		}
	}
}

// stringMethod calls v's Error or String method, as %v would.
func stringMethod(v reflect.Value) (s string, ok bool) {
	if !v.CanInterface() {
		return "", false
	}
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return "", false
	}
	defer func() {
		if p := recover(); p != nil {
			s, ok = fmt.Sprintf("<%s: panic in String: %v>", v.Type(), p), true
		}
	}()
	switch x := v.Interface().(type) {
	case error:
		return x.Error(), true
	case fmt.Stringer:
		return x.String(), true
	}
	return "", false
}
