package session

import (
	"maps"
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/unsafe"
)

// preferred resolves package names that several packages share.
// A cell that wants the other one imports it explicitly (an explicit
// import always wins: import crand "crypto/rand").
var preferred = map[string]string{
	"rand":     "math/rand/v2",          // not math/rand (the project uses v2) nor crypto/rand
	"template": "text/template",         // not html/template
	"scanner":  "text/scanner",          // not go/scanner
	"pprof":    "runtime/pprof",         // not net/http/pprof (imported for its side effects)
	"trace":    graphnbPrefix + "trace", // a run's steps (bfs.Options.Trace, …), not runtime/trace
}

// graphnbPrefix is the module path of graphnb's own packages.
const graphnbPrefix = "github.com/graphnb/graphnb/"

// tables is the symbol tables the interpreter is given, indexed for
// Members and the auto-import table.
type tables struct {
	// members maps an import path to its symbols.
	members map[string]map[string]reflect.Value
	// auto maps a package name to the import path a cell gets when it
	// uses name.X without declaring name.
	auto map[string]string
	// names maps an import path to its package name.
	names map[string]string
	// ambiguous lists names that several paths share and that preferred
	// does not resolve (resolved to the shortest path; a test keeps it
	// empty).
	ambiguous []string

	typesOnce sync.Once
	types     map[reflect.Type]typeRef // exported types → where the tables hold them
}

// typeRef names an exported type of the symbol tables.
type typeRef struct{ path, name string }

// typeRef returns the package path and name under which the tables
// export the type t (its own package preferred, then the shortest path).
func (t *tables) typeRef(rt reflect.Type) (typeRef, bool) {
	t.typesOnce.Do(func() {
		t.types = map[reflect.Type]typeRef{}
		for path, syms := range t.members {
			for name, v := range syms {
				if v.Kind() != reflect.Ptr || !v.IsNil() {
					continue
				}
				typ := v.Type().Elem()
				old, ok := t.types[typ]
				ref := typeRef{path, name}
				if !ok || better(ref, old, typ) {
					t.types[typ] = ref
				}
			}
		}
	})
	r, ok := t.types[rt]
	return r, ok
}

// better says whether a is a better name than b for the type typ.
func better(a, b typeRef, typ reflect.Type) bool {
	if (a.path == typ.PkgPath()) != (b.path == typ.PkgPath()) {
		return a.path == typ.PkgPath()
	}
	if (a.name == typ.Name()) != (b.name == typ.Name()) {
		return a.name == typ.Name()
	}
	if len(a.path) != len(b.path) {
		return len(a.path) < len(b.path)
	}
	return a.path+"."+a.name < b.path+"."+b.name
}

// newTables indexes the standard library's and graphnb's symbols, plus
// extra tables.
func newTables(extra map[string]map[string]reflect.Value) *tables {
	t := &tables{members: map[string]map[string]reflect.Value{}, auto: map[string]string{}, names: map[string]string{}}
	byName := map[string][]string{}
	add := func(key string, syms map[string]reflect.Value) {
		dir, name := path.Dir(key), path.Base(key)
		if key == "." || dir == "." || strings.HasPrefix(dir, "github.com/traefik/yaegi") {
			return
		}
		if t.members[dir] == nil {
			t.members[dir] = map[string]reflect.Value{}
			t.names[dir] = name
			byName[name] = append(byName[name], dir)
		}
		for k, v := range syms {
			if !strings.HasPrefix(k, "_") {
				t.members[dir][k] = v
			}
		}
	}
	for k, v := range stdlib.Symbols {
		add(k, v)
	}
	// unsafe: a notebook is the user's own process, as a program is.
	// (yaegi's table has Pointer, Add, Sizeof, Alignof and Offsetof; the
	// typed passes supply Slice, SliceData, String and StringData.)
	for k, v := range unsafe.Symbols {
		add(k, v)
	}
	for k, v := range extra {
		add(k, v)
	}
	for name, paths := range byName {
		if p, ok := preferred[name]; ok {
			t.auto[name] = p
			continue
		}
		sort.Slice(paths, func(i, j int) bool {
			// graphnb's packages first, then the shortest path.
			gi, gj := strings.HasPrefix(paths[i], graphnbPrefix), strings.HasPrefix(paths[j], graphnbPrefix)
			if gi != gj {
				return gi
			}
			if len(paths[i]) != len(paths[j]) {
				return len(paths[i]) < len(paths[j])
			}
			return paths[i] < paths[j]
		})
		if len(paths) > 1 {
			t.ambiguous = append(t.ambiguous, name)
		}
		t.auto[name] = paths[0]
	}
	sort.Strings(t.ambiguous)
	return t
}

// AutoImports returns the session's table of automatic imports: every
// package name a cell may use without an import line, mapped to the
// import path it gets. It holds every standard package of yaegi's symbol
// tables (by the last element of its path, with rand → math/rand/v2,
// template → text/template, scanner → text/scanner, pprof →
// runtime/pprof) and the packages of Options.Symbols (in graphnb: graph,
// gen, graphio, spec, bfs, sssp, mst, apsp, densebf, bench, plots, gpu,
// cancel, display).
func (s *Session) AutoImports() map[string]string {
	return maps.Clone(s.tables.auto)
}

var (
	tablesOnce   sync.Once
	sharedTables *tables
)

// defaultTables is the index of the built-in tables, built once.
func defaultTables() *tables {
	tablesOnce.Do(func() { sharedTables = newTables(nil) })
	return sharedTables
}

// pkgName returns the package name of an import path: the name its
// symbol table gives, else the last element of the path that is not a
// major version ("v2").
func (t *tables) pkgName(importPath string) string {
	if n, ok := t.names[importPath]; ok {
		return n
	}
	elems := strings.Split(importPath, "/")
	for i := len(elems) - 1; i > 0; i-- {
		e := elems[i]
		if len(e) < 2 || e[0] != 'v' || strings.Trim(e[1:], "0123456789") != "" {
			return e
		}
	}
	return elems[0]
}
