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

// TestExecuteCallbackPrintsIntoOutput: what Interact's fn prints lands
// in its Output (saved in the widget state), not in the cell that runs
// it, both when the Interact's cell runs and when a later cell moves the
// slider; what the cells print around it stays theirs.
func TestExecuteCallbackPrintsIntoOutput(t *testing.T) {
	nb := notebookOf(`import "github.com/graphnb/graphnb/widgets"
fmt.Println("before")
s := widgets.NewIntSlider("n", 0, 10, 1, 1)
ui, _ := widgets.Interact(func(n int) int { fmt.Println("printed", n); return n * 10 }, s)
fmt.Println("after")
ui`, `s.SetValue(7)
fmt.Println("moved")`)
	if ce := run(t, nb, ExecOptions{}); ce != nil {
		t.Fatalf("%v: %s", ce, ce.EValue)
	}
	c0, c1 := nb.Cells[0].Outputs, nb.Cells[1].Outputs
	if k := kinds(c0); len(k) != 2 || k[0] != "stream:stdout" || c0[0].Text != "before\nafter\n" || k[1] != ExecuteResult {
		t.Errorf("the Interact's cell: %v %q", k, c0[0].Text)
	}
	if k := kinds(c1); len(k) != 1 || k[0] != "stream:stdout" || c1[0].Text != "moved\n" {
		t.Errorf("the cell that moves the slider: %v", k)
	}
	var ws struct {
		State map[string]struct {
			ModelName string `json:"model_name"`
			State     struct {
				Outputs []map[string]any `json:"outputs"`
			} `json:"state"`
		} `json:"state"`
	}
	var widgets map[string]json.RawMessage
	if ok, err := nb.Metadata.Get("widgets", &widgets); !ok || err != nil {
		t.Fatalf("no widgets metadata (%v)", err)
	}
	if err := json.Unmarshal(widgets[WidgetStateMIME], &ws); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range ws.State {
		if m.ModelName != "OutputModel" {
			continue
		}
		found = true
		outs := m.State.Outputs
		if len(outs) != 2 || outs[0]["output_type"] != "stream" || outs[0]["text"] != "printed 7\n" ||
			outs[1]["output_type"] != "display_data" {
			t.Errorf("the Output's saved outputs %v", outs)
		}
	}
	if !found {
		t.Errorf("no OutputModel in the saved state %s", widgets[WidgetStateMIME])
	}
}
