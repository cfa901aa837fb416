package widgets

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/graphnb/graphnb/cancel"
)

// The value plumbing the controls share: typed OnChange callbacks, the
// hooks Interact adds, and the conversions of what the front end sends.

// watchers holds a control's OnChange callbacks and Interact's hooks.
type watchers[T any] struct {
	fs    []func(old, new T)
	hooks []*func()
}

func (w *watchers[T]) dropCallbacks() { w.fs, w.hooks = nil, nil }

// onChange adds f under b.mu.
func onChange[T any](b *base, w *watchers[T], f func(old, new T)) {
	if f == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		w.fs = append(w.fs, f)
	}
}

// hook adds f, run after every change of the value (Interact), and
// returns what removes it.
func hook[T any](b *base, w *watchers[T], f func()) (remove func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return func() {}
	}
	h := &f
	w.hooks = append(w.hooks, h)
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		w.hooks = slices.DeleteFunc(w.hooks, func(x *func()) bool { return x == h })
	}
}

// firing returns the function that runs w's callbacks for a change from
// old to new, one at a time, each guarded (a panic is reported and the
// others still run), stopping when an interrupt was requested (package
// cancel): the kernel's interrupt of a callback ends the chain too. b.mu
// is held; the returned function runs without it.
func firing[T any](b *base, w *watchers[T], old, new T) func() {
	fs := append([]func(old, new T){}, w.fs...)
	hooks := append([]*func(){}, w.hooks...)
	name := b.k.name
	return func() {
		for _, f := range fs {
			if cancel.Requested() {
				return
			}
			safely(name+" OnChange callback", func() { f(old, new) })
		}
		for _, h := range hooks {
			if cancel.Requested() {
				return
			}
			safely(name+" interact", *h)
		}
	}
}

// set stores v in *field under b.mu, and when it changed sends keys to
// the front end and runs the callbacks.
func set[T comparable](b *base, w *watchers[T], field *T, v T, keys ...string) {
	b.mu.Lock()
	old := *field
	*field = v
	var fire func()
	if old != v {
		fire = firing(b, w, old, v)
	}
	b.mu.Unlock()
	if fire == nil {
		return
	}
	b.send(keys...)
	fire()
}

// get reads *field under b.mu.
func get[T any](b *base, field *T) T {
	b.mu.Lock()
	defer b.mu.Unlock()
	return *field
}

// number is the value type of numeric controls.
type number interface{ ~int | ~float64 }

// checkBounds returns min, max and step fixed up where they make no
// sense (min > max: swapped; step ≤ 0 or NaN: 1), saying so on standard
// error.
func checkBounds[T number](name string, min, max, step T) (T, T, T) {
	if min > max {
		report("%s: min %v is above max %v; they are swapped", name, min, max)
		min, max = max, min
	}
	if !(step > 0) {
		report("%s: step %v is not positive; 1 is used", name, step)
		step = 1
	}
	return min, max, step
}

// clamp returns v within [min, max] and whether it had to move (NaN
// goes to min).
func clamp[T number](v, min, max T) (T, bool) {
	switch {
	case v < min || v != v:
		return min, true
	case v > max:
		return max, true
	}
	return v, false
}

// asInt converts a JSON number to an int; fractions and non-numbers are
// refused.
func asInt(v any) (int, error) {
	f, err := asFloat(v)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%v is not an integer", v)
	}
	return int(f), nil
}

// asFloat converts a JSON number (float64, json.Number or an integer) to
// a float64.
func asFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("%v is not a finite number", x)
		}
		return x, nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return 0, fmt.Errorf("%q is not a number", string(x))
		}
		return asFloat(f)
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.CanInt():
		return float64(rv.Int()), nil
	case rv.CanUint():
		return float64(rv.Uint()), nil
	}
	return 0, fmt.Errorf("%#v is not a number", v)
}

func asBool(v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%#v is not true or false", v)
	}
	return b, nil
}

func asString(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%#v is not a string", v)
	}
	return s, nil
}

// asIntPair converts a JSON array of two integers (a range slider's value).
func asIntPair(v any) ([2]int, error) {
	a, ok := v.([]any)
	if !ok || len(a) != 2 {
		return [2]int{}, fmt.Errorf("%#v is not a pair [lower, upper]", v)
	}
	lo, err := asInt(a[0])
	if err != nil {
		return [2]int{}, err
	}
	hi, err := asInt(a[1])
	if err != nil {
		return [2]int{}, err
	}
	return [2]int{lo, hi}, nil
}

// applyValue takes the front end's "value" from st into *field: parse
// converts it (an error refuses it, and the value in place is sent back),
// fix (nil: none) corrects it, e.g. clamps it into min…max, and reports
// whether it had to (the corrected value is then sent back). It returns
// what a control's applyState returns.
func applyValue[T comparable](b *base, w *watchers[T], field *T, st map[string]any, parse func(any) (T, error), fix func(T) (T, bool)) ([]string, func(), error) {
	x, ok := st["value"]
	if !ok {
		return nil, nil, nil
	}
	v, err := parse(x)
	if err != nil {
		return []string{"value"}, nil, fmt.Errorf("value refused: %v", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var resend []string
	if fix != nil {
		var fixed bool
		if v, fixed = fix(v); fixed {
			resend = []string{"value"}
		}
	}
	old := *field
	*field = v
	if old == v {
		return resend, nil, nil
	}
	return resend, firing(b, w, old, v), nil
}
