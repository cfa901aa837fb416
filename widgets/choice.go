package widgets

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/graphnb/graphnb/comm"
)

var (
	kindCheckbox      = &kind{name: "Checkbox", model1: "CheckboxModel", view1: "CheckboxView", model2: "CheckboxModel", view2: "CheckboxView", module2: controlsModule, style2: "CheckboxStyleModel", layout: true}
	kindToggleButton  = &kind{name: "ToggleButton", model1: "ToggleButtonModel", view1: "ToggleButtonView", model2: "ToggleButtonModel", view2: "ToggleButtonView", module2: controlsModule, style2: "ToggleButtonStyleModel", layout: true}
	kindToggleButtons = &kind{name: "ToggleButtons", model1: "ToggleButtonsModel", view1: "ToggleButtonsView", model2: "ToggleButtonsModel", view2: "ToggleButtonsView", module2: controlsModule, style2: "ToggleButtonsStyleModel", layout: true}
	kindDropdown      = &kind{name: "Dropdown", model1: "DropdownModel", view1: "DropdownView", model2: "DropdownModel", view2: "DropdownView", module2: controlsModule, style2: "DescriptionStyleModel", layout: true}
	kindRadioButtons  = &kind{name: "RadioButtons", model1: "RadioButtonsModel", view1: "RadioButtonsView", model2: "RadioButtonsModel", view2: "RadioButtonsView", module2: controlsModule, style2: "DescriptionStyleModel", layout: true}
	kindButton        = &kind{name: "Button", model1: "ButtonModel", view1: "ButtonView", model2: "ButtonModel", view2: "ButtonView", module2: controlsModule, style1: "ButtonStyleModel", style2: "ButtonStyleModel", layout: true}
	kindText          = &kind{name: "Text", model1: "TextModel", view1: "TextView", model2: "TextModel", view2: "TextView", module2: controlsModule, style2: "TextStyleModel", layout: true}
	kindLabel         = &kind{name: "Label", model1: "LabelModel", view1: "LabelView", model2: "LabelModel", view2: "LabelView", module2: controlsModule, style2: "LabelStyleModel", layout: true}
	kindHTML          = &kind{name: "HTML", model1: "HTMLModel", view1: "HTMLView", model2: "HTMLModel", view2: "HTMLView", module2: controlsModule, style2: "HTMLStyleModel", layout: true}
)

// Toggle is a boolean control: a Checkbox or a ToggleButton.
type Toggle struct {
	base
	value bool
	w     watchers[bool]
}

// NewCheckbox returns a checkbox labelled description, ticked if value.
func NewCheckbox(description string, value bool) *Toggle {
	t := &Toggle{value: value}
	t.desc = description
	t.open(kindCheckbox, t)
	return t
}

// NewToggleButton returns a button labelled description that stays
// pressed (true) or not.
func NewToggleButton(description string, value bool) *Toggle {
	t := &Toggle{value: value}
	t.desc = description
	t.open(kindToggleButton, t)
	return t
}

func (t *Toggle) syncState(Protocol) map[string]any {
	st := map[string]any{"value": t.value, "description": t.desc, "disabled": t.disabled}
	if t.k == kindCheckbox {
		st["indent"] = true
	} else {
		st["tooltip"], st["icon"], st["button_style"] = "", "", ""
	}
	return st
}

func (t *Toggle) applyState(st map[string]any) ([]string, func(), error) {
	return applyValue(&t.base, &t.w, &t.value, st, asBool, nil)
}

func (t *Toggle) dropCallbacks() { t.mu.Lock(); t.w.dropCallbacks(); t.mu.Unlock() }

// Value reports whether the box is ticked (the button pressed).
func (t *Toggle) Value() bool { return get(&t.base, &t.value) }

// SetValue ticks (true) or clears the box.
func (t *Toggle) SetValue(v bool) { set(&t.base, &t.w, &t.value, v, "value") }

// OnChange adds f, called with the old and new value after each change.
func (t *Toggle) OnChange(f func(old, new bool)) { onChange(&t.base, &t.w, f) }

func (t *Toggle) valueType() reflect.Type { return reflect.TypeFor[bool]() }
func (t *Toggle) current() any            { return t.Value() }
func (t *Toggle) onAny(f func()) func()   { return hook(&t.base, &t.w, f) }

// Choice selects one of a list of options (strings): a Dropdown,
// RadioButtons or ToggleButtons.
type Choice struct {
	base
	options []string
	index   int // -1: none (no options)
	w       watchers[string]
}

func newChoice(k *kind, description string, options []string, value string) *Choice {
	c := &Choice{options: slices.Clone(options), index: -1}
	c.desc = description
	if len(options) == 0 {
		report("%s %q: no options given", k.name, description)
	} else if c.index = slices.Index(options, value); c.index < 0 {
		report("%s %q: %q is not one of the options %q; the first is selected", k.name, description, value, options)
		c.index = 0
	}
	c.open(k, c)
	return c
}

// NewDropdown returns a drop-down list of options with value selected
// (the first option if value is not one of them).
func NewDropdown(description string, options []string, value string) *Choice {
	return newChoice(kindDropdown, description, options, value)
}

// NewRadioButtons returns radio buttons for options with value selected.
func NewRadioButtons(description string, options []string, value string) *Choice {
	return newChoice(kindRadioButtons, description, options, value)
}

// NewToggleButtons returns a row of buttons for options, value pressed.
func NewToggleButtons(description string, options []string, value string) *Choice {
	return newChoice(kindToggleButtons, description, options, value)
}

func (c *Choice) syncState(p Protocol) map[string]any {
	labels := slices.Clone(c.options)
	if labels == nil {
		labels = []string{}
	}
	st := map[string]any{"_options_labels": labels, "description": c.desc, "disabled": c.disabled}
	if p == Protocol1 {
		st["value"] = c.label()
	} else if c.index >= 0 {
		st["index"] = c.index
	} else {
		st["index"] = nil
	}
	if c.k == kindToggleButtons {
		st["tooltips"], st["icons"], st["button_style"] = []string{}, []string{}, ""
	}
	return st
}

// label is the selected option, "" when none. c.mu is held.
func (c *Choice) label() string {
	if c.index < 0 {
		return ""
	}
	return c.options[c.index]
}

func (c *Choice) applyState(st map[string]any) ([]string, func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := -2
	if x, ok := st["index"]; ok { // protocol 2
		n, err := asInt(x)
		if err != nil || n < 0 || n >= len(c.options) {
			return []string{"index", "value"}, nil, fmt.Errorf("index %v refused: there are %d options", x, len(c.options))
		}
		i = n
	} else if x, ok := st["value"]; ok { // protocol 1: the label
		s, err := asString(x)
		if err == nil {
			i = slices.Index(c.options, s)
		}
		if i < 0 {
			return []string{"index", "value"}, nil, fmt.Errorf("%v refused: not one of the options %q", x, c.options)
		}
	}
	if i < 0 || i == c.index {
		return nil, nil, nil
	}
	old := c.label()
	c.index = i
	return nil, firing(&c.base, &c.w, old, c.label()), nil
}

func (c *Choice) dropCallbacks() { c.mu.Lock(); c.w.dropCallbacks(); c.mu.Unlock() }

// Value returns the selected option ("" when there are none).
func (c *Choice) Value() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.label()
}

// Index returns the position of the selected option, -1 when none.
func (c *Choice) Index() int { return get(&c.base, &c.index) }

// Options returns the options.
func (c *Choice) Options() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.options)
}

// SetValue selects the option v. An unknown option is refused with an
// error naming the options, and the selection stays.
func (c *Choice) SetValue(v string) error {
	c.mu.Lock()
	i := slices.Index(c.options, v)
	if i < 0 {
		c.mu.Unlock()
		return fmt.Errorf("widgets: %s %q: %q is not one of the options %s", c.k.name, c.desc, v, quoteAll(c.options))
	}
	old := c.label()
	c.index = i
	var fire func()
	if old != v {
		fire = firing(&c.base, &c.w, old, v)
	}
	c.mu.Unlock()
	if fire != nil {
		c.send("index", "value")
		fire()
	}
	return nil
}

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// OnChange adds f, called with the old and new option after each change.
func (c *Choice) OnChange(f func(old, new string)) { onChange(&c.base, &c.w, f) }

func (c *Choice) valueType() reflect.Type { return reflect.TypeFor[string]() }
func (c *Choice) current() any            { return c.Value() }
func (c *Choice) onAny(f func()) func()   { return hook(&c.base, &c.w, f) }

// Button is a push button; OnClick callbacks run on each click.
type Button struct {
	base
}

// NewButton returns a button labelled description.
func NewButton(description string) *Button {
	b := &Button{}
	b.desc = description
	b.open(kindButton, b)
	return b
}

func (b *Button) syncState(Protocol) map[string]any {
	return map[string]any{"description": b.desc, "disabled": b.disabled, "tooltip": "", "icon": "", "button_style": ""}
}

func (b *Button) applyState(map[string]any) ([]string, func(), error) { return nil, nil, nil }

// OnClick adds f, called on each click in the front end, on the kernel's
// execution thread. A callback that panics is reported; the others and
// later clicks still run.
func (b *Button) OnClick(f func()) {
	if f == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.onClick = append(b.onClick, f)
	}
}

// Click runs the OnClick callbacks as a click in the front end does.
func (b *Button) Click() {
	b.handle(clickMessage())
}

// Text is a widget whose value is a string: Text (editable), Label and
// HTML (shown).
type Text struct {
	base
	value      string
	continuous bool
	w          watchers[string]
}

func newStr(k *kind, description, value string) *Text {
	s := &Text{value: value, continuous: true}
	s.desc = description
	s.open(k, s)
	return s
}

// NewText returns a one-line text field labelled description holding value.
func NewText(description, value string) *Text { return newStr(kindText, description, value) }

// NewLabel returns a line of plain text.
func NewLabel(value string) *Text { return newStr(kindLabel, "", value) }

// NewHTML returns a widget showing value as HTML.
func NewHTML(value string) *Text { return newStr(kindHTML, "", value) }

func (s *Text) syncState(Protocol) map[string]any {
	st := map[string]any{"value": s.value, "description": s.desc, "placeholder": "\u200b"}
	if s.k == kindText {
		st["disabled"], st["continuous_update"] = s.disabled, s.continuous
	}
	return st
}

func (s *Text) applyState(st map[string]any) ([]string, func(), error) {
	if s.k != kindText { // a Label or HTML: shown, not edited
		return nil, nil, nil
	}
	return applyValue(&s.base, &s.w, &s.value, st, asString, nil)
}

func (s *Text) dropCallbacks() { s.mu.Lock(); s.w.dropCallbacks(); s.mu.Unlock() }

// Value returns the text.
func (s *Text) Value() string { return get(&s.base, &s.value) }

// SetValue replaces the text.
func (s *Text) SetValue(v string) { set(&s.base, &s.w, &s.value, v, "value") }

// OnChange adds f, called with the old and new text after each change
// (typing in a Text sends each keystroke unless continuous update is off).
func (s *Text) OnChange(f func(old, new string)) { onChange(&s.base, &s.w, f) }

// SetContinuousUpdate chooses whether a Text sends each keystroke (true,
// the default) or only on Enter and when it loses focus.
func (s *Text) SetContinuousUpdate(on bool) *Text {
	set(&s.base, &watchers[bool]{}, &s.continuous, on, "continuous_update")
	return s
}

func (s *Text) valueType() reflect.Type { return reflect.TypeFor[string]() }
func (s *Text) current() any            { return s.Value() }
func (s *Text) onAny(f func()) func()   { return hook(&s.base, &s.w, f) }

func clickMessage() comm.Message {
	return comm.Message{Data: map[string]any{"method": "custom", "content": map[string]any{"event": "click"}}}
}
