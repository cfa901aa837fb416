package widgets

import (
	"fmt"
	"reflect"

	"github.com/graphnb/graphnb/display"
)

// valued is a control whose value Interact passes to fn.
type valued interface {
	Widget
	valueType() reflect.Type
	current() any
	onAny(f func()) (remove func())
}

var errorType = reflect.TypeFor[error]()

// Interact shows controls above an Output and calls fn with the controls'
// current values now and after every change, replacing the Output's
// content with what fn returns (any value display.Show renders: a chart,
// a result card, a table) and what it displays:
//
//	scale := widgets.NewIntSlider("scale", 10, 20, 1, 14)
//	cache := widgets.NewCheckbox("cache", true)
//	ui, err := widgets.Interact(func(s int, c bool) *plots.Chart { … }, scale, cache)
//	ui
//
// fn's parameters match the controls one for one in order: int for
// IntSlider and IntText, float64 for FloatSlider and FloatText,
// [2]int for IntRangeSlider, bool for Checkbox and ToggleButton, string
// for Dropdown, RadioButtons, ToggleButtons and Text. fn may return
// nothing, a value, an error, or a value and an error; a non-nil error
// and a panic are shown in the Output. A mismatch is refused with an
// error naming the parameter. The returned VBox holds the controls and
// the Output; closing it closes the Output.
func Interact(fn any, controls ...Widget) (*Box, error) {
	return interact("Interact", fn, controls, false)
}

// InteractManual is Interact for slow work: fn runs only when the "Run"
// button under the controls is clicked, with their values then.
func InteractManual(fn any, controls ...Widget) (*Box, error) {
	return interact("InteractManual", fn, controls, true)
}

func interact(name string, fn any, controls []Widget, manual bool) (*Box, error) {
	f := reflect.ValueOf(fn)
	if !f.IsValid() || f.Kind() != reflect.Func || f.IsNil() {
		return nil, fmt.Errorf("widgets.%s: fn is %T, not a function", name, fn)
	}
	t := f.Type()
	if t.IsVariadic() {
		return nil, fmt.Errorf("widgets.%s: fn is variadic (%v); give it one parameter per control", name, t)
	}
	if t.NumIn() != len(controls) {
		return nil, fmt.Errorf("widgets.%s: fn takes %d parameters (%v) but %d controls were given", name, t.NumIn(), t, len(controls))
	}
	if t.NumOut() > 2 || (t.NumOut() == 2 && t.Out(1) != errorType) {
		return nil, fmt.Errorf("widgets.%s: fn returns %v; return nothing, a value, an error, or a value and an error", name, t)
	}
	vs := make([]valued, len(controls))
	for i, c := range controls {
		if unopened(c) {
			return nil, fmt.Errorf("widgets.%s: control %d is nil", name, i+1)
		}
		v, ok := c.(valued)
		if !ok {
			return nil, fmt.Errorf("widgets.%s: control %d (%s) has no value to pass to fn", name, i+1, c.core().k.name)
		}
		if want := t.In(i); !v.valueType().AssignableTo(want) {
			return nil, fmt.Errorf("widgets.%s: parameter %d of fn is %v, but control %d (%s %q) gives %v", name, i+1, want, i+1, c.core().k.name, c.core().Description(), v.valueType())
		}
		vs[i] = v
	}
	out := NewOutput()
	run := func() {
		args := make([]reflect.Value, len(vs))
		for i, v := range vs {
			args[i] = reflect.ValueOf(v.current()).Convert(t.In(i))
		}
		out.mu.Lock()
		out.reset()
		closed := out.closed
		out.mu.Unlock()
		if closed {
			return
		}
		out.Capture(func() {
			if err := showResults(f.Call(args)); err != nil {
				out.add(errorOutput("error", err.Error()), "")
			}
		})
	}
	children := append([]Widget{}, controls...)
	var owned []Widget
	var unhooks []func()
	if manual {
		b := NewButton("Run")
		b.OnClick(run)
		children = append(children, b)
		owned = append(owned, b)
	} else {
		for _, v := range vs {
			unhooks = append(unhooks, v.onAny(run))
		}
	}
	children = append(children, out)
	owned = append(owned, out)
	box := NewVBox(children...)
	box.owned, box.cleanup = owned, unhooks
	if !manual {
		run()
	}
	return box, nil
}

// showResults displays what fn returned, leaving out nil values, and
// returns its error.
func showResults(res []reflect.Value) error {
	if n := len(res); n > 0 && res[n-1].Type() == errorType {
		if !res[n-1].IsNil() {
			return res[n-1].Interface().(error)
		}
		res = res[:n-1]
	}
	for _, r := range res {
		if isNil(r) {
			continue
		}
		display.Show(r.Interface())
	}
	return nil
}

func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}
