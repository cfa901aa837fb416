package notebook

import (
	"encoding/base64"
	"encoding/json"
	"sync"

	"github.com/graphnb/graphnb/comm"
)

// Widget state. A notebook saved with widgets keeps their last state in
// metadata.widgets["application/vnd.jupyter.widget-state+json"], so that
// nbconvert's HTML and GitHub show the widgets as they were instead of
// nothing. Jupyter's nbclient records it from the kernel's messages (its
// store_widget_state); graphnb exec, which has no front end, records the
// same from what the cells send (widgetRecorder, a comm.Transport).

// WidgetStateMIME is the metadata key of saved widget state.
const WidgetStateMIME = "application/vnd.jupyter.widget-state+json"

// widgetTarget is the comm target of Jupyter widgets.
const widgetTarget = "jupyter.widget"

// widgetRecorder records the state of the open "jupyter.widget" comms as
// nbclient does: a comm_open's data.state, merged with the state of each
// later comm_msg (method "update", or "echo_update"), key by key; binary
// buffers kept under their data.buffer_paths, base64-encoded. A closed
// comm drops out (nbclient 0.7 keeps it). Safe for concurrent use.
type widgetRecorder struct {
	mu     sync.Mutex
	models map[string]*widgetModel // by comm id
	done   bool
}

type widgetModel struct {
	state   map[string]any
	buffers map[string]map[string]any // by the JSON of the path: {data, encoding, path}
	order   []string                  // the paths, in the order first seen
}

var _ comm.Transport = (*widgetRecorder)(nil)

func newWidgetRecorder() *widgetRecorder {
	return &widgetRecorder{models: map[string]*widgetModel{}}
}

// Send records a comm message the cells send (comm.Transport); it never
// fails.
func (w *widgetRecorder) Send(msgType string, content, _ map[string]any, buffers [][]byte) error {
	id, _ := content["comm_id"].(string)
	data := snapshot(content["data"])
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	switch msgType {
	case "comm_open":
		if content["target_name"] != widgetTarget {
			return nil
		}
		m := &widgetModel{state: map[string]any{}, buffers: map[string]map[string]any{}}
		w.models[id] = m
		m.apply(data, buffers)
	case "comm_msg":
		m := w.models[id]
		if m == nil {
			return nil
		}
		switch data["method"] {
		case nil, "update", "echo_update":
			m.apply(data, buffers)
		}
	case "comm_close":
		delete(w.models, id)
	}
	return nil
}

// snapshot returns a JSON round trip of v as a JSON object (nil when it is
// none): the values as the kernel would have sent them at this moment.
func snapshot(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out map[string]any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

// apply merges data.state into the model and keeps the buffers named by
// data.buffer_paths.
func (m *widgetModel) apply(data map[string]any, buffers [][]byte) {
	state, ok := data["state"].(map[string]any)
	if !ok {
		return
	}
	for k, v := range state {
		m.state[k] = v
	}
	paths, _ := data["buffer_paths"].([]any)
	for i, p := range paths {
		if i >= len(buffers) {
			break
		}
		key, err := json.Marshal(p)
		if err != nil {
			continue
		}
		if _, seen := m.buffers[string(key)]; !seen {
			m.order = append(m.order, string(key))
		}
		m.buffers[string(key)] = map[string]any{
			"data": base64.StdEncoding.EncodeToString(buffers[i]), "encoding": "base64", "path": p,
		}
	}
}

// store stops recording and writes the state into nb's metadata, as
// nbclient's set_widgets_metadata does: models without a _model_name are
// left out. With no widget open, a widget state an earlier run saved is
// removed (its models no longer exist).
func (w *widgetRecorder) store(nb *Notebook) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if len(w.models) == 0 {
		var widgets map[string]json.RawMessage
		if ok, err := nb.Metadata.Get("widgets", &widgets); ok && err == nil {
			delete(widgets, WidgetStateMIME)
			if len(widgets) == 0 {
				delete(nb.Metadata, "widgets")
			} else {
				_ = nb.Metadata.Set("widgets", widgets)
			}
		}
		return
	}
	states := map[string]any{}
	for id, m := range w.models {
		if _, ok := m.state["_model_name"]; !ok {
			continue
		}
		entry := map[string]any{
			"model_name":           m.state["_model_name"],
			"model_module":         m.state["_model_module"],
			"model_module_version": m.state["_model_module_version"],
			"state":                m.state,
		}
		if len(m.order) > 0 {
			bufs := make([]any, len(m.order))
			for i, k := range m.order {
				bufs[i] = m.buffers[k]
			}
			entry["buffers"] = bufs
		}
		states[id] = entry
	}
	widgets := map[string]json.RawMessage{}
	_, _ = nb.Metadata.Get("widgets", &widgets) // other keys stay; a malformed value is replaced
	if widgets == nil {
		widgets = map[string]json.RawMessage{}
	}
	raw, err := json.Marshal(map[string]any{"version_major": 2, "version_minor": 0, "state": states})
	if err != nil {
		return
	}
	widgets[WidgetStateMIME] = raw
	_ = nb.Metadata.Set("widgets", widgets)
}
