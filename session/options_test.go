package session

import (
	"maps"
	"reflect"

	"github.com/graphnb/graphnb/symbols"
)

// withGraphnb returns o with graphnb's packages (package symbols) added
// to its Symbols, as cmd/graphnb builds the session: the tests' cells use
// gen, bfs, display and the others.
func withGraphnb(o Options) Options {
	all := map[string]map[string]reflect.Value{}
	maps.Copy(all, symbols.Symbols)
	maps.Copy(all, o.Symbols)
	o.Symbols = all
	return o
}
