package notebook

import (
	"encoding/json"
	"testing"

	"github.com/graphnb/graphnb/comm"
)

// widgetCell opens widgets as ipywidgets 7 does: a slider updated twice
// (the second update with a binary buffer), a widget closed before the
// end, a comm to another target, and a widget model without _model_name.
const widgetCell = `state := func(name string, value int) map[string]any {
	return map[string]any{"_model_name": name, "_model_module": "@jupyter-widgets/controls", "_model_module_version": "1.5.0", "value": value}
}
slider, _ := comm.Open("jupyter.widget", comm.Message{Data: map[string]any{"state": state("IntSliderModel", 1), "buffer_paths": []any{}}})
slider.Send(comm.Message{Data: map[string]any{"method": "update", "state": map[string]any{"value": 5}, "buffer_paths": []any{}}})
slider.Send(comm.Message{Data: map[string]any{"method": "update", "state": map[string]any{"value": 7, "data": nil}, "buffer_paths": []any{[]any{"data"}}}, Buffers: [][]byte{{1, 2, 3}}})
slider.Send(comm.Message{Data: map[string]any{"method": "custom", "content": map[string]any{"value": 99}}})
gone, _ := comm.Open("jupyter.widget", comm.Message{Data: map[string]any{"state": state("CheckboxModel", 0)}})
gone.Close(comm.Message{})
other, _ := comm.Open("other.target", comm.Message{Data: map[string]any{"state": state("OtherModel", 0)}})
bare, _ := comm.Open("jupyter.widget", comm.Message{Data: map[string]any{"state": map[string]any{"value": 1}}})
slider.ID()`

// TestExecuteSavesWidgetState: graphnb exec writes the open widgets' last
// state into the notebook's metadata, as nbclient does.
func TestExecuteSavesWidgetState(t *testing.T) {
	nb := notebookOf(widgetCell)
	_ = nb.Metadata.Set("widgets", map[string]any{"other": 1, WidgetStateMIME: map[string]any{"stale": true}})
	if ce := run(t, nb, ExecOptions{}); ce != nil {
		t.Fatalf("%v: %s", ce, ce.EValue)
	}
	id := text(t, nb.Cells[0].Outputs[0], "text/plain")
	id = id[1 : len(id)-1] // a quoted string
	var widgets map[string]json.RawMessage
	if ok, err := nb.Metadata.Get("widgets", &widgets); !ok || err != nil {
		t.Fatalf("no widgets metadata (%v)", err)
	}
	if string(widgets["other"]) != "1" {
		t.Errorf("metadata.widgets.other = %s, want 1 kept", widgets["other"])
	}
	var got any
	if err := json.Unmarshal(widgets[WidgetStateMIME], &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"version_major": 2, "version_minor": 0, "state": map[string]any{
		id: map[string]any{
			"model_name": "IntSliderModel", "model_module": "@jupyter-widgets/controls", "model_module_version": "1.5.0",
			"state": map[string]any{"_model_name": "IntSliderModel", "_model_module": "@jupyter-widgets/controls",
				"_model_module_version": "1.5.0", "value": 7, "data": nil},
			"buffers": []any{map[string]any{"data": "AQID", "encoding": "base64", "path": []any{"data"}}},
		},
	}}
	if g, _ := json.Marshal(got); string(g) != string(mustMarshal(t, want)) {
		t.Errorf("widget state\n got %s\nwant %s", g, mustMarshal(t, want))
	}
	if open := comm.List(""); len(open) != 0 {
		t.Errorf("comms still open after the run: %v", open)
	}

	// Run again without widgets: the saved state goes, other keys stay.
	nb.Cells[0].Source = "1"
	if ce := run(t, nb, ExecOptions{}); ce != nil {
		t.Fatal(ce)
	}
	widgets = nil
	if ok, _ := nb.Metadata.Get("widgets", &widgets); !ok || widgets[WidgetStateMIME] != nil || string(widgets["other"]) != "1" {
		t.Errorf("after a run without widgets: metadata.widgets = %v", widgets)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
