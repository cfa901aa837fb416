package widgets

import (
	"reflect"
	"time"
)

var (
	kindIntSlider      = &kind{name: "IntSlider", model1: "IntSliderModel", view1: "IntSliderView", model2: "IntSliderModel", view2: "IntSliderView", module2: controlsModule, style1: "SliderStyleModel", style2: "SliderStyleModel", layout: true}
	kindFloatSlider    = &kind{name: "FloatSlider", model1: "FloatSliderModel", view1: "FloatSliderView", model2: "FloatSliderModel", view2: "FloatSliderView", module2: controlsModule, style1: "SliderStyleModel", style2: "SliderStyleModel", layout: true}
	kindIntRangeSlider = &kind{name: "IntRangeSlider", model1: "IntSliderModel", view1: "IntSliderView", model2: "IntRangeSliderModel", view2: "IntRangeSliderView", module2: controlsModule, style1: "SliderStyleModel", style2: "SliderStyleModel", layout: true}
	kindIntText        = &kind{name: "IntText", model1: "IntTextModel", view1: "IntTextView", model2: "IntTextModel", view2: "IntTextView", module2: controlsModule, style2: "DescriptionStyleModel", layout: true}
	kindFloatText      = &kind{name: "FloatText", model1: "FloatTextModel", view1: "FloatTextView", model2: "FloatTextModel", view2: "FloatTextView", module2: controlsModule, style2: "DescriptionStyleModel", layout: true}
	kindProgress       = &kind{name: "Progress", model1: "ProgressModel", view1: "ProgressView", model2: "IntProgressModel", view2: "ProgressView", module2: controlsModule, style1: "ProgressStyleModel", style2: "ProgressStyleModel", layout: true}
)

// sliderState is the state every slider shares. b.mu is held.
func sliderState(b *base, continuous bool, format string) map[string]any {
	return map[string]any{
		"description": b.desc, "disabled": b.disabled, "continuous_update": continuous,
		"orientation": "horizontal", "readout": true, "readout_format": format,
	}
}

// IntSlider is a slider over integers min…max in steps of step.
type IntSlider struct {
	base
	value, min, max, step int
	continuous            bool
	w                     watchers[int]
}

// NewIntSlider returns a slider labelled description over min…max (inclusive)
// in steps of step, set at value (clamped into the range):
//
//	scale := widgets.NewIntSlider("scale", 10, 24, 1, 16)
func NewIntSlider(description string, min, max, step, value int) *IntSlider {
	s := &IntSlider{continuous: true}
	s.desc = description
	s.min, s.max, s.step = checkBounds("IntSlider", min, max, step)
	s.value, _ = clamp(value, s.min, s.max)
	s.open(kindIntSlider, s)
	return s
}

func (s *IntSlider) syncState(p Protocol) map[string]any {
	st := sliderState(&s.base, s.continuous, "d")
	st["value"], st["min"], st["max"], st["step"] = s.value, s.min, s.max, s.step
	if p == Protocol1 {
		st["_range"] = false
	}
	return st
}

func (s *IntSlider) applyState(st map[string]any) ([]string, func(), error) {
	return applyValue(&s.base, &s.w, &s.value, st, asInt, s.clampValue)
}

// clampValue clamps v into min…max. s.mu is held.
func (s *IntSlider) clampValue(v int) (int, bool) { return clamp(v, s.min, s.max) }

func (s *IntSlider) dropCallbacks() { s.mu.Lock(); s.w.dropCallbacks(); s.mu.Unlock() }

// Value returns the slider's value.
func (s *IntSlider) Value() int { return get(&s.base, &s.value) }

// SetValue moves the slider to v, clamped into min…max; the front end
// follows and OnChange callbacks run when the value changed.
func (s *IntSlider) SetValue(v int) {
	s.mu.Lock()
	v, _ = clamp(v, s.min, s.max)
	s.mu.Unlock()
	set(&s.base, &s.w, &s.value, v, "value")
}

// OnChange adds f, called with the old and new value after each change
// (from the front end or SetValue), on the kernel's execution thread.
func (s *IntSlider) OnChange(f func(old, new int)) { onChange(&s.base, &s.w, f) }

// SetContinuousUpdate chooses whether the front end sends values while
// the slider is dragged (true, the default) or only when it is released.
func (s *IntSlider) SetContinuousUpdate(on bool) *IntSlider {
	set(&s.base, &watchers[bool]{}, &s.continuous, on, "continuous_update")
	return s
}

func (s *IntSlider) valueType() reflect.Type { return reflect.TypeFor[int]() }
func (s *IntSlider) current() any            { return s.Value() }
func (s *IntSlider) onAny(f func()) func()   { return hook(&s.base, &s.w, f) }

// FloatSlider is a slider over float64 values min…max in steps of step.
type FloatSlider struct {
	base
	value, min, max, step float64
	continuous            bool
	w                     watchers[float64]
}

// NewFloatSlider returns a slider labelled description over min…max in
// steps of step, set at value (clamped into the range).
func NewFloatSlider(description string, min, max, step, value float64) *FloatSlider {
	s := &FloatSlider{continuous: true}
	s.desc = description
	s.min, s.max, s.step = checkBounds("FloatSlider", min, max, step)
	s.value, _ = clamp(value, s.min, s.max)
	s.open(kindFloatSlider, s)
	return s
}

func (s *FloatSlider) syncState(p Protocol) map[string]any {
	st := sliderState(&s.base, s.continuous, ".2f")
	st["value"], st["min"], st["max"], st["step"] = s.value, s.min, s.max, s.step
	if p == Protocol1 {
		st["_range"] = false
	}
	return st
}

func (s *FloatSlider) applyState(st map[string]any) ([]string, func(), error) {
	return applyValue(&s.base, &s.w, &s.value, st, asFloat, s.clampValue)
}

// clampValue clamps v into min…max. s.mu is held.
func (s *FloatSlider) clampValue(v float64) (float64, bool) { return clamp(v, s.min, s.max) }

func (s *FloatSlider) dropCallbacks() { s.mu.Lock(); s.w.dropCallbacks(); s.mu.Unlock() }

// Value returns the slider's value.
func (s *FloatSlider) Value() float64 { return get(&s.base, &s.value) }

// SetValue moves the slider to v, clamped into min…max.
func (s *FloatSlider) SetValue(v float64) {
	s.mu.Lock()
	v, _ = clamp(v, s.min, s.max)
	s.mu.Unlock()
	set(&s.base, &s.w, &s.value, v, "value")
}

// OnChange adds f, called with the old and new value after each change.
func (s *FloatSlider) OnChange(f func(old, new float64)) { onChange(&s.base, &s.w, f) }

// SetContinuousUpdate chooses whether values are sent while dragging.
func (s *FloatSlider) SetContinuousUpdate(on bool) *FloatSlider {
	set(&s.base, &watchers[bool]{}, &s.continuous, on, "continuous_update")
	return s
}

func (s *FloatSlider) valueType() reflect.Type { return reflect.TypeFor[float64]() }
func (s *FloatSlider) current() any            { return s.Value() }
func (s *FloatSlider) onAny(f func()) func()   { return hook(&s.base, &s.w, f) }

// IntRangeSlider selects a range [lower, upper] of integers within min…max.
type IntRangeSlider struct {
	base
	value          [2]int
	min, max, step int
	continuous     bool
	w              watchers[[2]int]
}

// NewIntRangeSlider returns a range slider over min…max in steps of step,
// set at [lower, upper] (ordered and clamped into the range).
func NewIntRangeSlider(description string, min, max, step, lower, upper int) *IntRangeSlider {
	s := &IntRangeSlider{continuous: true}
	s.desc = description
	s.min, s.max, s.step = checkBounds("IntRangeSlider", min, max, step)
	s.value, _ = s.fix([2]int{lower, upper})
	s.open(kindIntRangeSlider, s)
	return s
}

// fix orders and clamps a range; true if it changed.
func (s *IntRangeSlider) fix(v [2]int) ([2]int, bool) {
	in := v
	if v[0] > v[1] {
		v[0], v[1] = v[1], v[0]
	}
	v[0], _ = clamp(v[0], s.min, s.max)
	v[1], _ = clamp(v[1], s.min, s.max)
	return v, v != in
}

func (s *IntRangeSlider) syncState(p Protocol) map[string]any {
	st := sliderState(&s.base, s.continuous, "d")
	st["value"], st["min"], st["max"], st["step"] = []int{s.value[0], s.value[1]}, s.min, s.max, s.step
	if p == Protocol1 {
		st["_range"] = true
	}
	return st
}

func (s *IntRangeSlider) applyState(st map[string]any) ([]string, func(), error) {
	return applyValue(&s.base, &s.w, &s.value, st, asIntPair, s.fix)
}

func (s *IntRangeSlider) dropCallbacks() { s.mu.Lock(); s.w.dropCallbacks(); s.mu.Unlock() }

// Value returns the selected range [lower, upper].
func (s *IntRangeSlider) Value() [2]int { return get(&s.base, &s.value) }

// SetValue selects [lower, upper], ordered and clamped into min…max.
func (s *IntRangeSlider) SetValue(v [2]int) {
	s.mu.Lock()
	v, _ = s.fix(v)
	s.mu.Unlock()
	set(&s.base, &s.w, &s.value, v, "value")
}

// OnChange adds f, called with the old and new range after each change.
func (s *IntRangeSlider) OnChange(f func(old, new [2]int)) { onChange(&s.base, &s.w, f) }

// SetContinuousUpdate chooses whether values are sent while dragging.
func (s *IntRangeSlider) SetContinuousUpdate(on bool) *IntRangeSlider {
	set(&s.base, &watchers[bool]{}, &s.continuous, on, "continuous_update")
	return s
}

func (s *IntRangeSlider) valueType() reflect.Type { return reflect.TypeFor[[2]int]() }
func (s *IntRangeSlider) current() any            { return s.Value() }
func (s *IntRangeSlider) onAny(f func()) func()   { return hook(&s.base, &s.w, f) }

// IntText is a box to type an integer in.
type IntText struct {
	base
	value int
	w     watchers[int]
}

// NewIntText returns an integer field labelled description holding value.
func NewIntText(description string, value int) *IntText {
	t := &IntText{value: value}
	t.desc = description
	t.open(kindIntText, t)
	return t
}

func (t *IntText) syncState(Protocol) map[string]any {
	return map[string]any{"value": t.value, "description": t.desc, "disabled": t.disabled, "continuous_update": false, "step": 1}
}

func (t *IntText) applyState(st map[string]any) ([]string, func(), error) {
	return applyValue(&t.base, &t.w, &t.value, st, asInt, nil)
}

func (t *IntText) dropCallbacks() { t.mu.Lock(); t.w.dropCallbacks(); t.mu.Unlock() }

// Value returns the field's value.
func (t *IntText) Value() int { return get(&t.base, &t.value) }

// SetValue puts v in the field.
func (t *IntText) SetValue(v int) { set(&t.base, &t.w, &t.value, v, "value") }

// OnChange adds f, called with the old and new value after each change.
func (t *IntText) OnChange(f func(old, new int)) { onChange(&t.base, &t.w, f) }

func (t *IntText) valueType() reflect.Type { return reflect.TypeFor[int]() }
func (t *IntText) current() any            { return t.Value() }
func (t *IntText) onAny(f func()) func()   { return hook(&t.base, &t.w, f) }

// FloatText is a box to type a number in.
type FloatText struct {
	base
	value float64
	w     watchers[float64]
}

// NewFloatText returns a number field labelled description holding value.
func NewFloatText(description string, value float64) *FloatText {
	t := &FloatText{value: value}
	t.desc = description
	t.open(kindFloatText, t)
	return t
}

func (t *FloatText) syncState(Protocol) map[string]any {
	return map[string]any{"value": t.value, "description": t.desc, "disabled": t.disabled, "continuous_update": false}
}

func (t *FloatText) applyState(st map[string]any) ([]string, func(), error) {
	return applyValue(&t.base, &t.w, &t.value, st, asFloat, nil)
}

func (t *FloatText) dropCallbacks() { t.mu.Lock(); t.w.dropCallbacks(); t.mu.Unlock() }

// Value returns the field's value.
func (t *FloatText) Value() float64 { return get(&t.base, &t.value) }

// SetValue puts v in the field.
func (t *FloatText) SetValue(v float64) { set(&t.base, &t.w, &t.value, v, "value") }

// OnChange adds f, called with the old and new value after each change.
func (t *FloatText) OnChange(f func(old, new float64)) { onChange(&t.base, &t.w, f) }

func (t *FloatText) valueType() reflect.Type { return reflect.TypeFor[float64]() }
func (t *FloatText) current() any            { return t.Value() }
func (t *FloatText) onAny(f func()) func()   { return hook(&t.base, &t.w, f) }

// Progress is a progress bar showing value within min…max.
type Progress struct {
	base
	value, min, max int
	w               watchers[int]
	lastSent        time.Time // Callback's last update sent
}

// progressInterval is the least time between two updates Callback sends.
const progressInterval = 100 * time.Millisecond

// NewProgress returns a bar labelled description over min…max at value
// (clamped).
func NewProgress(description string, min, max, value int) *Progress {
	p := &Progress{}
	p.desc = description
	p.min, p.max, _ = checkBounds("Progress", min, max, 1)
	p.value, _ = clamp(value, p.min, p.max)
	p.open(kindProgress, p)
	return p
}

func (p *Progress) syncState(Protocol) map[string]any {
	return map[string]any{"value": p.value, "min": p.min, "max": p.max, "description": p.desc, "orientation": "horizontal", "bar_style": ""}
}

func (p *Progress) applyState(map[string]any) ([]string, func(), error) { return nil, nil, nil }

// Value returns the bar's value.
func (p *Progress) Value() int { return get(&p.base, &p.value) }

// SetValue moves the bar to v, clamped into min…max.
func (p *Progress) SetValue(v int) {
	p.mu.Lock()
	v, _ = clamp(v, p.min, p.max)
	p.mu.Unlock()
	set(&p.base, &p.w, &p.value, v, "value")
}

// Callback returns a function for compiled code that reports progress
// (the func(done, total int64) of display.Progress.Callback, which
// graphnb's sweeps take), safe from any goroutine: it sets max to total
// when total > 0 and the bar to done, sending at most ten updates a
// second to the front end; the last one (done ≥ total) is always sent.
func (p *Progress) Callback() func(done, total int64) {
	return func(done, total int64) {
		p.mu.Lock()
		if total > 0 && int(total) != p.max {
			p.max = int(total)
		}
		p.value, _ = clamp(int(done), p.min, p.max)
		now := time.Now()
		final := p.value >= p.max
		due := final || now.Sub(p.lastSent) >= progressInterval
		if due {
			p.lastSent = now
		}
		p.mu.Unlock()
		if due {
			p.send("value", "max")
		}
	}
}
