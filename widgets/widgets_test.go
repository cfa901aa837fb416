package widgets

import (
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/comm"
	"github.com/graphnb/graphnb/display"
)

type schemaModel struct{ view, module, version, style, keys string }

// every makes one widget of each kind, in the current dialect.
func every() map[string]Widget {
	s := NewIntSlider("scale", 10, 24, 1, 16)
	return map[string]Widget{
		"IntSlider":      s,
		"FloatSlider":    NewFloatSlider("alpha", 0, 1, 0.05, 0.5),
		"IntRangeSlider": NewIntRangeSlider("levels", 0, 10, 1, 2, 5),
		"Checkbox":       NewCheckbox("cache", true),
		"ToggleButton":   NewToggleButton("restrict", false),
		"ToggleButtons":  NewToggleButtons("variant", []string{"a", "b"}, "b"),
		"Dropdown":       NewDropdown("variant", []string{"near-far", "bellman-ford"}, "near-far"),
		"RadioButtons":   NewRadioButtons("mode", []string{"x", "y"}, "x"),
		"Button":         NewButton("sweep"),
		"Text":           NewText("name", "g"),
		"IntText":        NewIntText("n", 3),
		"FloatText":      NewFloatText("x", 2.5),
		"Label":          NewLabel("hello"),
		"HTML":           NewHTML("<b>hi</b>"),
		"Output":         NewOutput(),
		"Progress":       NewProgress("done", 0, 10, 3),
		"HBox":           NewHBox(s),
		"VBox":           NewVBox(s),
		"Accordion":      NewAccordion([]string{"one"}, s),
		"Tab":            NewTab([]string{"one"}, s),
	}
}

// model2 is the ipywidgets 8 model each kind must open.
var model2 = map[string]string{
	"IntSlider": "IntSliderModel", "FloatSlider": "FloatSliderModel", "IntRangeSlider": "IntRangeSliderModel",
	"Checkbox": "CheckboxModel", "ToggleButton": "ToggleButtonModel", "ToggleButtons": "ToggleButtonsModel",
	"Dropdown": "DropdownModel", "RadioButtons": "RadioButtonsModel", "Button": "ButtonModel", "Text": "TextModel",
	"IntText": "IntTextModel", "FloatText": "FloatTextModel", "Label": "LabelModel", "HTML": "HTMLModel",
	"Output": "OutputModel", "Progress": "IntProgressModel", "HBox": "HBoxModel", "VBox": "VBoxModel",
	"Accordion": "AccordionModel", "Tab": "TabModel",
}

// TestProtocol2Shapes checks every comm_open against ipywidgets 8's
// published model state: model and view names, modules and versions, the
// style model, no attribute the schema lacks, and references that point
// at models opened before.
func TestProtocol2Shapes(t *testing.T) {
	fe, reports := setup(t, Protocol2)
	for name, w := range every() {
		m := fe.opened(w.ModelID())
		if m.target != WidgetTarget || m.metadata["version"] != "2.1.0" {
			t.Errorf("%s: target %q metadata %v, want jupyter.widget and version 2.1.0", name, m.target, m.metadata)
		}
		if _, ok := m.data["buffer_paths"].([]any); !ok {
			t.Errorf("%s: comm_open data has no buffer_paths list: %v", name, m.data)
		}
		st := stateOf(t, fe, Protocol2, w.ModelID())
		checkSchema(t, fe, name, model2[name], st)
	}
	if reports.Len() > 0 {
		t.Errorf("reports: %s", reports)
	}
}

func checkSchema(t *testing.T, fe *frontEnd, name, model string, st map[string]any) {
	t.Helper()
	want, ok := schema8[model]
	if !ok {
		t.Fatalf("%s: no schema entry for %s", name, model)
	}
	if st["_model_name"] != model || st["_view_name"] != want.view || st["_model_module"] != want.module ||
		st["_model_module_version"] != want.version {
		t.Errorf("%s: model %v %v %v view %v, want %s %s %s %s", name, st["_model_name"], st["_model_module"], st["_model_module_version"], st["_view_name"], model, want.module, want.version, want.view)
	}
	keys := strings.Fields(want.keys)
	for k := range st {
		if !slices.Contains(keys, k) {
			t.Errorf("%s (%s): attribute %q is not in the schema", name, model, k)
		}
	}
	for _, k := range []string{"layout", "style"} {
		r, ok := st[k].(string)
		if !ok {
			if k == "style" && want.style != "" {
				t.Errorf("%s: no style (the schema's is %s)", name, want.style)
			}
			continue
		}
		id, found := strings.CutPrefix(r, "IPY_MODEL_")
		if !found {
			t.Fatalf("%s: %s = %q, not a model reference", name, k, r)
		}
		sub := stateOf(t, fe, Protocol2, id)
		wantModel := want.style
		if k == "layout" {
			wantModel = "LayoutModel"
		}
		if sub["_model_name"] != wantModel {
			t.Errorf("%s: %s is a %v, want %s", name, k, sub["_model_name"], wantModel)
		}
		checkSchema(t, fe, name+"."+k, wantModel, sub)
	}
	if children, ok := st["children"].([]any); ok {
		for _, c := range children {
			id, _ := strings.CutPrefix(c.(string), "IPY_MODEL_")
			fe.opened(id) // opened before the box
		}
	}
}

// model1 is what ipywidgets 6.0 opens for each kind (its Python sources),
// and the style model it gives (none for most).
var model1 = map[string][3]string{
	"IntSlider": {"IntSliderModel", "IntSliderView", "SliderStyleModel"}, "FloatSlider": {"FloatSliderModel", "FloatSliderView", "SliderStyleModel"},
	"IntRangeSlider": {"IntSliderModel", "IntSliderView", "SliderStyleModel"}, "Checkbox": {"CheckboxModel", "CheckboxView", ""},
	"ToggleButton": {"ToggleButtonModel", "ToggleButtonView", ""}, "ToggleButtons": {"ToggleButtonsModel", "ToggleButtonsView", ""},
	"Dropdown": {"DropdownModel", "DropdownView", ""}, "RadioButtons": {"RadioButtonsModel", "RadioButtonsView", ""},
	"Button": {"ButtonModel", "ButtonView", "ButtonStyleModel"}, "Text": {"TextModel", "TextView", ""},
	"IntText": {"IntTextModel", "IntTextView", ""}, "FloatText": {"FloatTextModel", "FloatTextView", ""},
	"Label": {"LabelModel", "LabelView", ""}, "HTML": {"HTMLModel", "HTMLView", ""},
	"Output": {"HTMLModel", "HTMLView", ""}, "Progress": {"ProgressModel", "ProgressView", "ProgressStyleModel"},
	"HBox": {"HBoxModel", "HBoxView", ""}, "VBox": {"VBoxModel", "VBoxView", ""},
	"Accordion": {"AccordionModel", "AccordionView", ""}, "Tab": {"TabModel", "TabView", ""},
}

// TestProtocol1Shapes checks the comm_opens of the classic notebook's
// dialect: the flat state as comm_open data, module jupyter-js-widgets
// ~2.1.4 (what jupyter-js-widgets 2.1.4 loads), ipywidgets 6's names,
// and its encodings of a range, options and titles.
func TestProtocol1Shapes(t *testing.T) {
	fe, reports := setup(t, Protocol1)
	all := every()
	for name, w := range all {
		m := fe.opened(w.ModelID())
		st := m.data
		if _, nested := st["state"]; nested {
			t.Errorf("%s: protocol 1 comm_open data nests a state: %v", name, st)
		}
		want := model1[name]
		if st["_model_name"] != want[0] || st["_view_name"] != want[1] || st["_model_module"] != "jupyter-js-widgets" ||
			st["_model_module_version"] != "~2.1.4" || st["_view_module"] != "jupyter-js-widgets" || st["_view_module_version"] != "~2.1.4" {
			t.Errorf("%s: %v", name, st)
		}
		layout, _ := st["layout"].(string)
		if id, ok := strings.CutPrefix(layout, "IPY_MODEL_"); !ok || stateOf(t, fe, Protocol1, id)["_model_name"] != "LayoutModel" {
			t.Errorf("%s: layout %q is not a LayoutModel", name, layout)
		}
		style, _ := st["style"].(string)
		if want[2] == "" && style != "" {
			t.Errorf("%s: a style %q that ipywidgets 6 does not have", name, style)
		}
		if want[2] != "" {
			id, _ := strings.CutPrefix(style, "IPY_MODEL_")
			if s := stateOf(t, fe, Protocol1, id); s["_model_name"] != want[2] || s["_view_name"] != "StyleView" {
				t.Errorf("%s: style %v, want %s", name, s, want[2])
			}
		}
	}
	st := stateOf(t, fe, Protocol1, all["IntRangeSlider"].ModelID())
	if st["_range"] != true || !reflect.DeepEqual(st["value"], []any{2.0, 5.0}) {
		t.Errorf("range slider: _range %v value %v", st["_range"], st["value"])
	}
	st = stateOf(t, fe, Protocol1, all["Dropdown"].ModelID())
	if st["value"] != "near-far" || !reflect.DeepEqual(st["_options_labels"], []any{"near-far", "bellman-ford"}) {
		t.Errorf("dropdown: value %v options %v, want the label", st["value"], st["_options_labels"])
	}
	st = stateOf(t, fe, Protocol1, all["Tab"].ModelID())
	if !reflect.DeepEqual(st["_titles"], map[string]any{"0": "one"}) || st["selected_index"] != 0.0 {
		t.Errorf("tab: _titles %v selected_index %v", st["_titles"], st["selected_index"])
	}
	if reports.Len() > 0 {
		t.Errorf("reports: %s", reports)
	}
}

func TestMIMEBundle(t *testing.T) {
	for _, p := range []Protocol{Protocol1, Protocol2} {
		t.Run(p.String(), func(t *testing.T) {
			fe, _ := setup(t, p)
			s := NewIntSlider("scale", 10, 24, 1, 16)
			fe.take()
			b := display.Render(s)
			view, ok := b["application/vnd.jupyter.widget-view+json"].(map[string]any)
			if !ok || view["model_id"] != s.ModelID() {
				t.Fatalf("bundle %v", b)
			}
			msgs := fe.take()
			if p == Protocol2 {
				if view["version_major"] != 2 || view["version_minor"] != 1 {
					t.Errorf("view %v, want version 2.1", view)
				}
				if want := `IntSlider(value=16, min=10, max=24, step=1, description="scale")`; b["text/plain"] != want {
					t.Errorf("text/plain %q, want %q", b["text/plain"], want)
				}
				if len(msgs) != 0 {
					t.Errorf("protocol 2 display sent %v", msgs)
				}
				return
			}
			if b["text/plain"] != "" {
				t.Errorf("protocol 1 text/plain %q, want empty (the classic notebook would print it)", b["text/plain"])
			}
			if len(msgs) != 1 || msgs[0].msgType != "comm_msg" || msgs[0].data["method"] != "display" {
				t.Errorf("protocol 1 display sent %v, want one {method: display}", msgs)
			}
		})
	}
}

// TestRoundTrip: values from the front end in both dialects reach Value
// and OnChange; SetValue sends an update in the dialect's form.
func TestRoundTrip(t *testing.T) {
	for _, p := range []Protocol{Protocol1, Protocol2} {
		t.Run(p.String(), func(t *testing.T) {
			fe, reports := setup(t, p)
			s := NewIntSlider("scale", 10, 24, 1, 16)
			var seen [][2]int
			s.OnChange(func(old, new int) { seen = append(seen, [2]int{old, new}) })
			fromFrontEnd(t, s, update(p, "value", 20))
			if s.Value() != 20 || !reflect.DeepEqual(seen, [][2]int{{16, 20}}) {
				t.Errorf("after an update to 20: value %d, OnChange saw %v", s.Value(), seen)
			}
			if ups := fe.updates(s.ModelID()); len(ups) != 0 {
				t.Errorf("an accepted update was sent back: %v", ups)
			}
			s.SetValue(12)
			ups := fe.updates(s.ModelID())
			if len(ups) != 1 || ups[0]["value"] != 12.0 || len(ups[0]) != 1 {
				t.Errorf("SetValue(12) sent %v", ups)
			}
			last := fe.all()[len(fe.all())-1].data
			if _, ok := last["buffer_paths"]; ok != (p == Protocol2) {
				t.Errorf("update %v: buffer_paths only in protocol 2", last)
			}
			if _, ok := last["buffers"]; ok != (p == Protocol1) {
				t.Errorf("update %v: buffers only in protocol 1", last)
			}
			s.SetValue(12) // no change: nothing sent, no callback
			if len(fe.updates(s.ModelID())) != 1 || len(seen) != 2 {
				t.Errorf("an unchanged SetValue sent or called back")
			}

			c := NewCheckbox("cache", false)
			fromFrontEnd(t, c, update(p, "value", true))
			d := NewDropdown("variant", []string{"a", "b", "c"}, "a")
			if p == Protocol1 {
				fromFrontEnd(t, d, update(p, "value", "c"))
			} else {
				fromFrontEnd(t, d, update(p, "index", 2))
			}
			r := NewIntRangeSlider("r", 0, 10, 1, 1, 2)
			fromFrontEnd(t, r, update(p, "value", []int{3, 7}))
			f := NewFloatSlider("f", 0, 1, 0.1, 0.5)
			fromFrontEnd(t, f, update(p, "value", 0.25))
			tx := NewText("name", "")
			fromFrontEnd(t, tx, update(p, "value", "abc"))
			tab := NewTab([]string{"a", "b"}, NewLabel("1"), NewLabel("2"))
			fromFrontEnd(t, tab, update(p, "selected_index", 1))
			if !c.Value() || d.Value() != "c" || d.Index() != 2 || r.Value() != [2]int{3, 7} || f.Value() != 0.25 || tx.Value() != "abc" || tab.SelectedIndex() != 1 {
				t.Errorf("values %v %q %v %v %q %d", c.Value(), d.Value(), r.Value(), f.Value(), tx.Value(), tab.SelectedIndex())
			}
			fromFrontEnd(t, s, map[string]any{"method": "request_state"})
			ups = fe.updates(s.ModelID())
			if full := ups[len(ups)-1]; full["_model_name"] != "IntSliderModel" || full["value"] != 12.0 {
				t.Errorf("request_state answered %v", full)
			}
			if reports.Len() > 0 {
				t.Errorf("reports: %s", reports)
			}
		})
	}
}

// TestRefusals: out-of-range numbers are clamped and sent back, values of
// the wrong type and unknown options refused with a message, never a panic.
func TestRefusals(t *testing.T) {
	for _, p := range []Protocol{Protocol1, Protocol2} {
		t.Run(p.String(), func(t *testing.T) {
			fe, reports := setup(t, p)
			s := NewIntSlider("scale", 10, 24, 1, 16)
			var seen []int
			s.OnChange(func(old, new int) { seen = append(seen, new) })
			fromFrontEnd(t, s, update(p, "value", 99))
			ups := fe.updates(s.ModelID())
			if s.Value() != 24 || len(ups) != 1 || ups[0]["value"] != 24.0 || !slices.Equal(seen, []int{24}) {
				t.Errorf("99 on a 10…24 slider: value %d, sent back %v, OnChange %v", s.Value(), ups, seen)
			}
			for _, bad := range []any{"abc", 16.5, nil, true} {
				reports.Reset()
				fromFrontEnd(t, s, update(p, "value", bad))
				if s.Value() != 24 || !strings.Contains(reports.String(), `IntSlider "scale": value refused`) {
					t.Errorf("value %#v: value %d, report %q", bad, s.Value(), reports)
				}
			}
			s.SetValue(-5)
			if s.Value() != 10 {
				t.Errorf("SetValue(-5) on 10…24: %d", s.Value())
			}

			d := NewDropdown("variant", []string{"a", "b"}, "a")
			reports.Reset()
			if p == Protocol1 {
				fromFrontEnd(t, d, update(p, "value", "zzz"))
			} else {
				fromFrontEnd(t, d, update(p, "index", 7))
			}
			if d.Value() != "a" || !strings.Contains(reports.String(), "refused") {
				t.Errorf("unknown option: value %q, report %q", d.Value(), reports)
			}
			if err := d.SetValue("zzz"); err == nil || !strings.Contains(err.Error(), `"zzz" is not one of the options ["a", "b"]`) {
				t.Errorf("SetValue(zzz): %v", err)
			}
			reports.Reset()
			NewDropdown("variant", []string{"a"}, "q")
			NewIntSlider("bad", 5, 1, 0, 3)
			if r := reports.String(); !strings.Contains(r, `"q" is not one of the options`) || !strings.Contains(r, "swapped") || !strings.Contains(r, "step 0 is not positive") {
				t.Errorf("bad constructor input reported %q", r)
			}
			r := NewIntRangeSlider("r", 0, 10, 1, 8, 2)
			if r.Value() != [2]int{2, 8} {
				t.Errorf("range (8, 2): %v", r.Value())
			}
			fromFrontEnd(t, r, update(p, "value", []int{-3, 50}))
			if r.Value() != [2]int{0, 10} {
				t.Errorf("range [-3, 50] on 0…10: %v", r.Value())
			}
			reports.Reset()
			fromFrontEnd(t, s, map[string]any{"method": "bogus"})
			if !strings.Contains(reports.String(), `unknown method "bogus"`) {
				t.Errorf("unknown method reported %q", reports)
			}
		})
	}
}

// TestCallbacksPanic: a panicking OnChange or OnClick is reported, the
// other callbacks still run, and the widget keeps working.
func TestCallbacksPanic(t *testing.T) {
	_, reports := setup(t, Protocol2)
	s := NewIntSlider("scale", 0, 10, 1, 0)
	var after []int
	s.OnChange(func(old, new int) { panic("boom") })
	s.OnChange(func(old, new int) { after = append(after, new) })
	fromFrontEnd(t, s, update(Protocol2, "value", 3))
	fromFrontEnd(t, s, update(Protocol2, "value", 4))
	if !slices.Equal(after, []int{3, 4}) || s.Value() != 4 {
		t.Errorf("after a panicking callback: %v, value %d", after, s.Value())
	}
	if strings.Count(reports.String(), "IntSlider OnChange callback panicked: boom") != 2 || !strings.Contains(reports.String(), "widgets_test.go") {
		t.Errorf("reports %q", reports)
	}
	b := NewButton("go")
	clicks := 0
	b.OnClick(func() { clicks++; panic(fmt.Errorf("click %d", clicks)) })
	b.OnClick(func() { clicks += 10 })
	click := map[string]any{"method": "custom", "content": map[string]any{"event": "click"}}
	fromFrontEnd(t, b, click)
	fromFrontEnd(t, b, click)
	b.Click()
	if clicks != 33 || strings.Count(reports.String(), "Button OnClick panicked: click") != 3 {
		t.Errorf("clicks %d, reports %q", clicks, reports)
	}
}

func TestOutputCapture(t *testing.T) {
	for _, p := range []Protocol{Protocol1, Protocol2} {
		t.Run(p.String(), func(t *testing.T) {
			fe, _ := setup(t, p)
			o := NewOutput()
			prev := display.CurrentSink()
			err := o.Capture(func() {
				display.HTML("<b>x</b>")
				h := display.NewDisplay("first")
				h.Update("second")
				if display.CurrentSink() == prev {
					t.Error("the sink was not swapped during Capture")
				}
			})
			if err != nil || display.CurrentSink() != prev {
				t.Fatalf("Capture: %v; sink restored: %v", err, display.CurrentSink() == prev)
			}
			o.Print("a line\n")
			o.Print("more\n")
			err = o.Capture(func() { panic("oops") })
			if err == nil || !strings.Contains(err.Error(), "oops") || display.CurrentSink() != prev {
				t.Fatalf("a panic in Capture: %v", err)
			}
			outs := o.Outputs()
			if len(outs) != 4 || outs[0]["data"].(map[string]any)["text/html"] != "<b>x</b>" ||
				outs[1]["data"].(map[string]any)["text/plain"] != `"second"` || outs[2]["text"] != "a line\nmore\n" || outs[3]["output_type"] != "error" {
				t.Fatalf("outputs %v", outs)
			}
			nbformat := map[any][]string{ // the keys nbformat 4 allows in each output
				"display_data": {"data", "metadata", "output_type"},
				"stream":       {"name", "output_type", "text"},
				"error":        {"ename", "evalue", "output_type", "traceback"},
			}
			for _, out := range outs {
				keys := slices.Sorted(maps.Keys(out))
				if want := nbformat[out["output_type"]]; !slices.Equal(keys, want) {
					t.Errorf("output keys %v, want nbformat's %v", keys, want)
				}
			}
			ups := fe.updates(o.ModelID())
			last := ups[len(ups)-1]
			if p == Protocol2 {
				sent, _ := last["outputs"].([]any)
				if len(sent) != 4 || sent[0].(map[string]any)["output_type"] != "display_data" {
					t.Errorf("protocol 2 outputs sent %v", last)
				}
			} else if html, _ := last["value"].(string); !strings.Contains(html, "<b>x</b>") || !strings.Contains(html, "oops") || !strings.Contains(html, "a line") {
				t.Errorf("protocol 1 HTML sent %q", html)
			}
			o.Clear()
			if len(o.Outputs()) != 0 {
				t.Error("Clear left outputs")
			}
			o.Capture(func() { display.Text("a"); display.Clear(true); display.Text("b") })
			if outs := o.Outputs(); len(outs) != 1 || outs[0]["data"].(map[string]any)["text/plain"] != "b" {
				t.Errorf("clear_output(wait) then a display: %v", outs)
			}
		})
	}
}

// TestInteract: fn gets the controls' values at once and after each
// change, and its result replaces the Output's content.
func TestInteract(t *testing.T) {
	fe, reports := setup(t, Protocol2)
	scale := NewIntSlider("scale", 10, 20, 1, 14)
	cache := NewCheckbox("cache", true)
	var calls []string
	ui, err := Interact(func(s int, c bool) string {
		calls = append(calls, fmt.Sprint(s, c))
		return fmt.Sprintf("scale %d cache %v", s, c)
	}, scale, cache)
	if err != nil {
		t.Fatal(err)
	}
	if got := ui.String(); got != "VBox(IntSlider, Checkbox, Output)" {
		t.Errorf("the box's text form: %s", got)
	}
	children := ui.Children()
	out, ok := children[2].(*Output)
	if len(children) != 3 || children[0] != Widget(scale) || children[1] != Widget(cache) || !ok {
		t.Fatalf("children %v", children)
	}
	text := func() string {
		outs := out.Outputs()
		if len(outs) != 1 {
			t.Fatalf("outputs %v, want one", outs)
		}
		return outs[0]["data"].(map[string]any)["text/plain"].(string)
	}
	if got := text(); got != `"scale 14 cache true"` {
		t.Errorf("first result %s", got)
	}
	fromFrontEnd(t, scale, update(Protocol2, "value", 18))
	fromFrontEnd(t, cache, update(Protocol2, "value", false))
	if got := text(); got != `"scale 18 cache false"` || !slices.Equal(calls, []string{"14 true", "18 true", "18 false"}) {
		t.Errorf("after two changes: %s, calls %v", got, calls)
	}
	if st := fe.updates(out.ModelID()); len(st) != 3 {
		t.Errorf("%d output updates, want one per run", len(st))
	}

	_, err = Interact(func(s string, c bool) {}, scale, cache)
	if err == nil || !strings.Contains(err.Error(), `parameter 1 of fn is string, but control 1 (IntSlider "scale") gives int`) {
		t.Errorf("mismatch: %v", err)
	}
	if _, err := Interact(func(s int) {}, scale, cache); err == nil || !strings.Contains(err.Error(), "takes 1 parameters") {
		t.Errorf("count mismatch: %v", err)
	}
	if _, err := Interact(42, scale); err == nil {
		t.Error("a non-function was accepted")
	}
	if _, err := Interact(func(s int) {}, NewButton("b")); err == nil {
		t.Error("a Button was accepted as a value")
	}

	// Errors and panics land in the Output; the controls keep working.
	ui2, err := Interact(func(s int) (int, error) {
		if s == 11 {
			panic("eleven")
		}
		if s == 12 {
			return 0, fmt.Errorf("twelve")
		}
		return s * 2, nil
	}, scale)
	if err != nil {
		t.Fatal(err)
	}
	out2 := ui2.Children()[1].(*Output)
	for v, want := range map[int]string{11: "panic: eleven", 12: "twelve"} {
		fromFrontEnd(t, scale, update(Protocol2, "value", v))
		outs := out2.Outputs()
		if len(outs) != 1 || outs[0]["output_type"] != "error" || !strings.Contains(outs[0]["evalue"].(string), want) {
			t.Errorf("value %d: outputs %v", v, outs)
		}
	}
	if reports.Len() > 0 {
		t.Errorf("reports: %s", reports)
	}
	ui.Close()
	if !out.Closed() || scale.Closed() {
		t.Errorf("closing the interact box: output closed %v, control closed %v", out.Closed(), scale.Closed())
	}
	if len(scale.w.hooks) != 1 || len(cache.w.hooks) != 0 {
		t.Errorf("after closing one of two Interacts: %d and %d hooks left, want 1 and 0", len(scale.w.hooks), len(cache.w.hooks))
	}
}

func TestInteractManual(t *testing.T) {
	setup(t, Protocol1)
	n := NewIntText("n", 2)
	runs := 0
	ui, err := InteractManual(func(n int) int { runs++; return n * n }, n)
	if err != nil {
		t.Fatal(err)
	}
	fromFrontEnd(t, n, update(Protocol1, "value", 5))
	if runs != 0 {
		t.Errorf("ran %d times before the click", runs)
	}
	children := ui.Children()
	run := children[1].(*Button)
	fromFrontEnd(t, run, map[string]any{"method": "custom", "content": map[string]any{"event": "click"}})
	outs := children[2].(*Output).Outputs()
	if runs != 1 || len(outs) != 1 || outs[0]["data"].(map[string]any)["text/plain"] != "25" {
		t.Errorf("after a click: runs %d outputs %v", runs, outs)
	}
}

// TestHandshakes: the classic notebook's version comm selects protocol 1
// and gets the front-end range; ipywidgets 8's control comm selects
// protocol 2 and gets every state.
func TestHandshakes(t *testing.T) {
	fe, _ := setup(t, Protocol2)
	proto.Lock()
	proto.forced = false
	proto.Unlock()
	if !comm.HandleOpen("version-1", VersionTarget, comm.Message{}) {
		t.Fatal("the version target is not registered")
	}
	msgs := fe.take()
	if CurrentProtocol() != Protocol1 || len(msgs) != 1 || msgs[0].data["version"] != "~2.1.4" {
		t.Errorf("after the version comm: %v, sent %v", CurrentProtocol(), msgs)
	}
	comm.HandleMessage("version-1", comm.Message{Data: map[string]any{"validated": true, "frontend_version": "2.1.4"}})
	old := NewIntSlider("old", 0, 1, 1, 0)
	if !comm.HandleOpen("control-1", ControlTarget, comm.Message{}) || CurrentProtocol() != Protocol2 {
		t.Fatalf("the control comm: protocol %v", CurrentProtocol())
	}
	fe.take()
	s := NewIntSlider("new", 0, 1, 1, 1)
	comm.HandleMessage("control-1", comm.Message{Data: map[string]any{"method": "request_states"}})
	var states map[string]any
	for _, m := range fe.all() {
		if m.id == "control-1" && m.data["method"] == "update_states" {
			states, _ = m.data["states"].(map[string]any)
		}
	}
	entry, _ := states[s.ModelID()].(map[string]any)
	if entry["model_name"] != "IntSliderModel" || entry["model_module"] != controlsModule || entry["state"].(map[string]any)["value"] != 1.0 {
		t.Errorf("update_states entry %v", entry)
	}
	if e, _ := states[old.ModelID()].(map[string]any); e["model_module"] != jsWidgetsModule {
		t.Errorf("a widget keeps its dialect: %v", e)
	}
	comm.HandleClose("version-1", comm.Message{})
	comm.HandleClose("control-1", comm.Message{})
}

// TestCloseAndLeaks: 100 widgets open 300 comms and no goroutine; closing
// them closes every comm and drops callbacks; a closed widget ignores the
// front end and sends nothing.
func TestCloseAndLeaks(t *testing.T) {
	fe, _ := setup(t, Protocol2)
	comms0, models0, goroutines0 := len(comm.List(WidgetTarget)), OpenModels(), runtime.NumGoroutine()
	var ws []*IntSlider
	called := 0
	for i := range 100 {
		s := NewIntSlider(fmt.Sprint("s", i), 0, 10, 1, 0)
		s.OnChange(func(int, int) { called++ })
		ws = append(ws, s)
	}
	if n := len(comm.List(WidgetTarget)) - comms0; n != 300 || OpenModels()-models0 != 300 {
		t.Errorf("100 sliders opened %d comms, %d models; want 300", n, OpenModels()-models0)
	}
	fe.take()
	for _, s := range ws {
		s.Close()
		s.Close()
	}
	closes := 0
	for _, m := range fe.take() {
		if m.msgType == "comm_close" {
			closes++
		}
	}
	if closes != 300 || len(comm.List(WidgetTarget)) != comms0 || OpenModels() != models0 {
		t.Errorf("closing: %d comm_close sent, %d comms and %d models left", closes, len(comm.List(WidgetTarget))-comms0, OpenModels()-models0)
	}
	if comm.HandleMessage(ws[0].ModelID(), comm.Message{Data: update(Protocol2, "value", 3)}) {
		t.Error("a closed widget's comm still receives")
	}
	ws[1].SetValue(5)
	if called != 0 || len(fe.take()) != 0 {
		t.Errorf("a closed widget: %d callbacks ran, messages sent", called)
	}
	if !strings.Contains(ws[1].String(), "closed") {
		t.Errorf("String of a closed widget: %s", ws[1])
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > goroutines0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > goroutines0 {
		t.Errorf("%d goroutines after, %d before", g, goroutines0)
	}

	// The front end closing a model releases the widget.
	s := NewIntSlider("x", 0, 1, 1, 0)
	comm.HandleClose(s.ModelID(), comm.Message{})
	if !s.Closed() || OpenModels() != models0 {
		t.Errorf("after the front end's close: closed %v, %d models left", s.Closed(), OpenModels()-models0)
	}
}

// TestReleasedByHost: when the host closes every comm a cell opened (the
// kernel does before running the cell again), in any order, each of the
// cell's widgets is released: closed, forgotten, its Interact hooks gone.
func TestReleasedByHost(t *testing.T) {
	setup(t, Protocol2)
	other := NewIntSlider("other cell", 0, 9, 1, 0)
	before := comm.List("")
	s := NewIntSlider("n", 0, 9, 1, 0)
	ui, err := Interact(func(n, m int) int { return n + m }, s, other)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for id := range comm.List("") {
		if _, ok := before[id]; !ok {
			ids = append(ids, id)
		}
	}
	if len(ids) != 7 { // slider, output, box, a layout for each, a style for the slider
		t.Fatalf("the cell opened %d comms, want 7", len(ids))
	}
	for _, id := range ids { // map order: any order
		comm.HandleClose(id, comm.Message{})
	}
	if !s.Closed() || !ui.Closed() || other.Closed() || OpenModels() != 3 || len(other.w.hooks) != 0 {
		t.Errorf("after the host closed the cell's comms: slider %v box %v other %v, %d models, %d hooks on the other cell's slider",
			s.Closed(), ui.Closed(), other.Closed(), OpenModels(), len(other.w.hooks))
	}
}

// TestInterruptEndsTheChain: after an interrupt request (the kernel's
// interrupt of a callback), the remaining callbacks of the change do not
// run; the next change runs them again.
func TestInterruptEndsTheChain(t *testing.T) {
	setup(t, Protocol2)
	t.Cleanup(cancel.Clear)
	s := NewIntSlider("n", 0, 9, 1, 0)
	var ran []string
	s.OnChange(func(int, int) { ran = append(ran, "first"); cancel.Request() })
	s.OnChange(func(int, int) { ran = append(ran, "second") })
	if _, err := Interact(func(int) { ran = append(ran, "interact") }, s); err != nil {
		t.Fatal(err)
	}
	ran = nil
	fromFrontEnd(t, s, update(Protocol2, "value", 1))
	if !slices.Equal(ran, []string{"first"}) {
		t.Errorf("with an interrupt requested by the first callback, ran %v", ran)
	}
	b := NewButton("b")
	b.OnClick(func() { ran = append(ran, "click") })
	ran = nil
	b.Click()
	cancel.Clear()
	b.Click()
	if !slices.Equal(ran, []string{"click"}) {
		t.Errorf("clicks while interrupted and after: %v", ran)
	}
}

// TestProgressCallback: compiled code's progress reports reach the bar,
// at most ten a second, the last one always.
func TestProgressCallback(t *testing.T) {
	fe, _ := setup(t, Protocol2)
	p := NewProgress("sweep", 0, 1, 0)
	report := p.Callback()
	for i := int64(0); i <= 1000; i++ {
		report(i, 1000)
	}
	ups := fe.updates(p.ModelID())
	last := ups[len(ups)-1]
	if p.Value() != 1000 || last["value"] != 1000.0 || last["max"] != 1000.0 || len(ups) > 3 {
		t.Errorf("value %d, %d updates, the last %v", p.Value(), len(ups), last)
	}
}

// TestMalformedMessagesNeverPanic sends every control messages of every
// odd shape a front end (or a bug) could produce: each is refused,
// ignored or (a valid value among them) taken, never a panic.
func TestMalformedMessagesNeverPanic(t *testing.T) {
	for _, p := range []Protocol{Protocol1, Protocol2} {
		setup(t, p)
		values := []any{nil, true, "x", 1.5, -1e300, 7.0, []any{}, []any{1.0}, []any{"a", "b"}, []any{9.0, 1.0}, map[string]any{"a": 1.0}}
		for name, w := range every() {
			for _, data := range []map[string]any{
				{}, {"method": 7.0}, {"method": "update"}, {"method": "update", "state": "x"}, {"method": "backbone", "sync_data": nil},
				{"method": "custom"}, {"method": "custom", "content": "click"}, {"method": "request_state", "state": 1.0},
			} {
				comm.HandleMessage(w.ModelID(), comm.Message{Data: data})
			}
			for _, key := range []string{"value", "index", "selected_index", "outputs", "children", "_options_labels"} {
				for _, v := range values {
					comm.HandleMessage(w.ModelID(), comm.Message{Data: update(p, key, v)})
				}
			}
			if w.core().Closed() {
				t.Errorf("%s: closed by malformed messages", name)
			}
		}
	}
}

// TestNilChildren: a nil widget given to a box or Interact is refused
// with a message, never a panic.
func TestNilChildren(t *testing.T) {
	_, reports := setup(t, Protocol2)
	var s *IntSlider
	b := NewHBox(nil, s, NewLabel("x"))
	if len(b.Children()) != 1 || strings.Count(reports.String(), "is nil; it is left out") != 2 {
		t.Errorf("children %v, reports %q", b.Children(), reports)
	}
	if _, err := Interact(func(int) {}, s); err == nil || !strings.Contains(err.Error(), "control 1 is nil") {
		t.Errorf("Interact with a nil slider: %v", err)
	}
	if _, err := Interact(func(int) {}, NewButton("b")); err == nil || !strings.Contains(err.Error(), "control 1 (Button) has no value") {
		t.Errorf("Interact with a button: %v", err)
	}
}
