package complete

import (
	"go/token"
	"reflect"
	"sort"
	"strings"

	"github.com/graphnb/graphnb/session/docindex"
)

// MagicLister is implemented by a Scope that knows the kernel's magics:
// name (with its % or %%) → one line of description. Without it,
// DefaultMagics is used.
type MagicLister interface {
	Magics() map[string]string
}

// Complete returns completion matches for code at cursor (a position in
// Unicode code points) and the code-point range [start, end) they replace.
//
// Matches depend on what precedes the identifier under the cursor:
// nothing → names declared by earlier cells, Go keywords, predeclared
// identifiers and package names; `pkg.` (a package name not shadowed by a
// cell's name) → the package's exported members; `x.` or `x.f.g.` (x a
// variable, f and g exported fields) → the exported fields and methods of
// the value's type, through pointers, pointer-receiver methods included.
// `pkg.Var.` and `pkg.Type.` work the same way. No expression is evaluated:
// after a call or an index (`f().`, `xs[0].`) there are no matches. At the
// start of a line, `%` completes magics. Inside comments and string
// literals there are no matches.
//
// Matches are deduplicated and ordered: the exact name first, then names
// with the fragment as case-sensitive prefix, then case-insensitive ones,
// each group alphabetically. [start, end) covers the whole identifier
// around the cursor (its part before the cursor filters the matches).
// With no matches, matches is empty (not nil) and start == end == cursor.
func Complete(code string, cursor int, sc Scope) (matches []string, start, end int) {
	b := byteOffset(code, cursor)
	cursor = codePoints(code, b)
	none := func() ([]string, int, int) { return []string{}, cursor, cursor }
	if inCellMagicBody(code, b) {
		return none()
	}
	if ws, we, ok := magicLine(code, b); ok && b >= ws && b <= we {
		var names []string
		for m := range magics(sc) {
			names = append(names, m)
		}
		if m := rank(names, code[ws:b]); len(m) > 0 {
			return m, codePoints(code, ws), codePoints(code, we)
		}
		return none()
	}
	s, e := identBefore(code, b), identAfter(code, b)
	if s < e && !isIdent(code[s:e]) {
		return none() // a number
	}
	if inCommentOrString(code, b) {
		return none()
	}
	chain, ok := selectorChain(code, s)
	if !ok {
		return none()
	}
	var cands []string
	if chain == nil {
		cands = scopeWords(sc)
	} else if tt, ok := resolveTyped(chain, sc); ok {
		cands = tt.memberNames()
	} else {
		t, ok := resolve(chain, sc)
		if !ok {
			return none()
		}
		cands = t.memberNames(sc)
	}
	m := rank(cands, code[s:b])
	if len(m) == 0 {
		return none()
	}
	return m, codePoints(code, s), codePoints(code, e)
}

// Inspect returns documentation for the symbol at cursor as a MIME bundle
// (text/plain, optionally text/markdown); found is false when there is
// nothing to show. detail is inspect_request's detail_level (0 or 1).
//
// The symbol is the identifier under or just before the cursor with the
// selector chain before it; with none there (`strings.Split(|`), the
// function of the innermost open call. It is shown as follows:
// `pkg.Name`, `pkg.Type.Method`, `pkg.Type.Field` → the declaration and its
// doc comment from package docindex (plus the value of a package variable
// or constant); a package name → the package doc; a variable, or fields of
// one → its type, a short summary of its value (at most about 500 bytes,
// never the whole of a big slice or map) and the doc of its type when the
// index has it; a method of a variable → the method's declaration and doc;
// a keyword or predeclared identifier → one line; a magic → one line.
// detail 0 keeps docs to their first paragraphs (about 12 lines); detail 1
// shows the whole indexed doc, the methods of a type and the names of a
// package. text/markdown puts declarations in ```go blocks.
func Inspect(code string, cursor, detail int, sc Scope) (data map[string]any, found bool) {
	return inspect(code, cursor, detail, sc)
}

// IsComplete reports whether code is "complete", "incomplete" (with the
// suggested indent of the next line) or "invalid". Nothing is run: the
// cell is scanned (go/scanner), then parsed (go/parser) as the session
// parses it — cut into runs of declarations, parsed as a file, and runs
// of statements, parsed as a function body.
//
// Incomplete: brackets left open (indent: one Indent per line holding an
// open bracket), an unterminated raw string or block comment (indent ""),
// a last token that needs a continuation — a binary or unary operator, an
// assignment, `,`, `.`, `:`, a keyword other than break, continue,
// fallthrough and return (indent: at least one Indent) — or a final
// func/if/for/switch/select header with no body yet (indent ""), provided
// that what comes before the end parses. Invalid: an illegal character or
// bad literal, an unterminated "…" or '…' literal, a closing bracket with
// no matching opener, or a syntax error that more input cannot repair
// (`x := := 7`). Magic lines (%… at the top of the cell, or in column 1
// anywhere outside raw strings and comments) are ignored, a help query
// ("strings.Split?") is complete, the body of a %%time cell is Go and
// checked, any other %% cell magic is complete, and an empty cell is
// complete.
func IsComplete(code string) (status, indent string) {
	return isComplete(code)
}

func magics(sc Scope) map[string]string {
	if ml, ok := sc.(MagicLister); ok {
		if m := ml.Magics(); m != nil {
			return m
		}
	}
	return DefaultMagics
}

// scopeWords lists what a bare identifier may complete to.
func scopeWords(sc Scope) []string {
	var out []string
	out = append(out, sc.Names()...)
	for k := range keywords {
		out = append(out, k)
	}
	for k := range builtins {
		out = append(out, k)
	}
	for name := range sc.Packages() {
		out = append(out, name)
	}
	return out
}

// rank keeps the candidates that start with prefix (case-insensitively),
// deduplicated, ordered: equal to prefix, case-sensitive prefix,
// case-insensitive prefix; alphabetically (ignoring case) within each.
func rank(cands []string, prefix string) []string {
	lp := strings.ToLower(prefix)
	tier := map[string]int{}
	for _, c := range cands {
		if c == "" {
			continue
		}
		switch {
		case c == prefix:
			tier[c] = 0
		case strings.HasPrefix(c, prefix):
			tier[c] = 1
		case strings.HasPrefix(strings.ToLower(c), lp):
			tier[c] = 2
		}
	}
	out := make([]string, 0, len(tier))
	for c := range tier {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if tier[a] != tier[b] {
			return tier[a] < tier[b]
		}
		la, lb := strings.ToLower(a), strings.ToLower(b)
		if la != lb {
			return la < lb
		}
		return a < b
	})
	return out
}

// target is what a selector chain denotes: a package, a type (from
// `pkg.Type`, for method expressions) or a value (typ, with val when it is
// known; val is invalid after a nil pointer).
type target struct {
	pkgPath string // set for a package
	pkgName string
	isType  bool
	typ     reflect.Type
	val     reflect.Value
}

func (t target) isPkg() bool { return t.pkgPath != "" }

// resolve follows chain ("x", "f", …) without evaluating anything but
// variable lookups and field reads.
func resolve(chain []string, sc Scope) (target, bool) {
	t, ok := resolveName(chain[0], sc)
	for _, name := range chain[1:] {
		if !ok {
			break
		}
		t, ok = t.selectField(name, sc)
	}
	return t, ok
}

func resolveName(name string, sc Scope) (target, bool) {
	if v, ok := sc.Value(name); ok {
		if !v.IsValid() {
			return target{}, false
		}
		return target{typ: v.Type(), val: v}, true
	}
	for _, n := range sc.Names() {
		if n == name {
			return target{}, false // a function, type or constant of a cell: unknown here
		}
	}
	if path, ok := sc.Packages()[name]; ok {
		return target{pkgPath: path, pkgName: name}, true
	}
	return target{}, false
}

// selectField moves along one selector that is not the last one: a
// package member that is a variable or a type, or a struct field.
func (t target) selectField(name string, sc Scope) (target, bool) {
	if t.isPkg() {
		m, ok := sc.Members(t.pkgPath)[name]
		if !ok {
			return target{}, false
		}
		switch classify(m) {
		case memberType:
			return target{typ: m.Type().Elem(), isType: true}, true
		case memberVar:
			return target{typ: m.Type(), val: m}, true
		}
		return target{}, false // functions and constants have no members
	}
	if t.isType || t.typ == nil {
		return target{}, false
	}
	base := t.typ
	if base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if base.Kind() != reflect.Struct {
		return target{}, false
	}
	f, ok := base.FieldByName(name)
	if !ok || !f.IsExported() {
		return target{}, false
	}
	out := target{typ: f.Type}
	if v := t.val; v.IsValid() {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return out, true
			}
			v = v.Elem()
		}
		if fv, err := v.FieldByIndexErr(f.Index); err == nil {
			out.val = fv
		}
	}
	return out, true
}

// Kinds of package members.
const (
	memberFunc = iota
	memberType
	memberVar
	memberConst
	memberInvalid
)

// classify tells what a symbol-table entry is, following the forms
// `yaegi extract` writes: reflect.ValueOf(pkg.Func), reflect.ValueOf((*pkg.T)(nil))
// for a type, reflect.ValueOf(&pkg.Var).Elem() (addressable) for a
// variable, reflect.ValueOf(pkg.TypedConst) or a go/constant.Value for a
// constant.
func classify(m reflect.Value) int {
	switch {
	case !m.IsValid():
		return memberInvalid
	case m.CanAddr():
		return memberVar
	case isConstant(m):
		return memberConst
	case m.Kind() == reflect.Pointer && m.IsNil():
		return memberType
	case m.Kind() == reflect.Func:
		return memberFunc
	}
	return memberConst
}

// isConstant reports whether v is one of yaegi's untyped constants (a
// go/constant.Value).
func isConstant(v reflect.Value) bool {
	t := v.Type()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == "go/constant"
}

// memberNames lists what may follow "chain.".
func (t target) memberNames(sc Scope) []string {
	var out []string
	if t.isPkg() {
		for name := range sc.Members(t.pkgPath) {
			if token.IsExported(name) {
				out = append(out, name)
			}
		}
		if len(out) == 0 { // no symbol table: fall back on the documentation
			for _, name := range docindex.Names(t.pkgPath) {
				if !strings.Contains(name, ".") {
					out = append(out, name)
				}
			}
		}
		return out
	}
	if t.isType { // method expressions; (*T).M listed too, for inspection
		return fieldsAndMethods(reflect.PointerTo(t.typ), false, false)
	}
	return fieldsAndMethods(t.typ, true, true)
}

// fieldsAndMethods lists the exported methods of a value of type t and,
// with fields, its exported fields (promoted ones included); addressable
// adds the pointer receivers of a non-pointer t (a variable is
// addressable).
func fieldsAndMethods(t reflect.Type, addressable, fields bool) []string {
	var out []string
	methods := func(t reflect.Type) {
		for i := 0; i < t.NumMethod(); i++ {
			if m := t.Method(i); m.IsExported() {
				out = append(out, m.Name)
			}
		}
	}
	methods(t)
	base := t
	if t.Kind() == reflect.Pointer {
		base = t.Elem()
	} else if addressable && t.Kind() != reflect.Interface {
		methods(reflect.PointerTo(t))
	}
	if fields && base.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(base) {
			if f.IsExported() {
				out = append(out, f.Name)
			}
		}
	}
	return out
}
