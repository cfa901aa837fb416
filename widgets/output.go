package widgets

import (
	"fmt"
	"html"
	"maps"
	"slices"
	"strings"

	"github.com/graphnb/graphnb/display"
)

// Under protocol 1 an Output is an HTML model (jupyter-js-widgets 2.x's
// Output model only mirrors messages the browser routes to it and has no
// outputs state); under protocol 2 it is @jupyter-widgets/output's
// OutputModel with its "outputs" list, which the front end renders and
// the notebook's widget state saves.
var kindOutput = &kind{name: "Output", model1: "HTMLModel", view1: "HTMLView", model2: "OutputModel", view2: "OutputView", module2: outputModule, layout: true}

// Output is an area that shows what code displays into it: the displays
// of a callback run by Capture (display.Show, a chart, a card, …), text
// from Print, a panic as an error. Interact shows its results in one.
//
// The outputs are nbformat output dicts ({"output_type": "display_data",
// "data": bundle, "metadata": {}}, "stream" and "error" ones), kept in the
// model's state: they render in both protocols and are saved with the
// notebook's widget state. Text printed inside Capture (fmt.Println)
// becomes stream outputs of the area, as does Print.
type Output struct {
	base
	outputs   []map[string]any
	ids       []string // the display id of each output ("" for none)
	clearNext bool     // ClearOutput(wait=true) seen: clear before the next output
}

// NewOutput returns an empty output area.
func NewOutput() *Output {
	o := &Output{}
	o.open(kindOutput, o)
	return o
}

func (o *Output) syncState(p Protocol) map[string]any {
	if p == Protocol1 {
		return map[string]any{"value": outputsHTML(o.outputs), "description": "", "placeholder": "\u200b"}
	}
	outs := make([]any, len(o.outputs))
	for i, x := range o.outputs {
		outs[i] = x
	}
	return map[string]any{"outputs": outs, "msg_id": ""}
}

// applyState ignores what the front end sends: the kernel owns the
// outputs (a protocol 2 front end may echo them back).
func (o *Output) applyState(map[string]any) ([]string, func(), error) { return nil, nil, nil }

// Outputs returns a copy of the output dicts shown now.
func (o *Output) Outputs() []map[string]any {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]map[string]any, len(o.outputs))
	for i, x := range o.outputs {
		out[i] = maps.Clone(x)
	}
	return out
}

// syncOutputs sends the outputs to the front end.
func (o *Output) syncOutputs() { o.send("outputs", "value") }

// reset empties the outputs. o.mu is held.
func (o *Output) reset() { o.outputs, o.ids, o.clearNext = nil, nil, false }

// add appends an output dict shown under display id id ("" for none),
// replacing the outputs if a clear is pending. It does not send.
func (o *Output) add(out map[string]any, id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.clearNext {
		o.reset()
	}
	// Consecutive text on one stream joins, as notebooks save it.
	if n := len(o.outputs); n > 0 && out["output_type"] == "stream" {
		last := o.outputs[n-1]
		if last["output_type"] == "stream" && last["name"] == out["name"] {
			last["text"] = last["text"].(string) + out["text"].(string)
			return
		}
	}
	o.outputs = append(o.outputs, out)
	o.ids = append(o.ids, id)
}

// Clear empties the output area.
func (o *Output) Clear() {
	o.mu.Lock()
	o.reset()
	o.mu.Unlock()
	o.syncOutputs()
}

// Print appends text to the area as standard output.
func (o *Output) Print(a ...any) {
	o.add(map[string]any{"output_type": "stream", "name": "stdout", "text": fmt.Sprint(a...)}, "")
	o.syncOutputs()
}

// Show appends v, rendered as display.Show renders it (a chart, a table,
// a card, any value with render methods).
func (o *Output) Show(v any) {
	o.Capture(func() { display.Show(v) })
}

// Capture runs f with the displays it makes (display.Show, display.HTML,
// a display.Handle's updates, display.Clear, …) and the text it prints to
// standard output and error (fmt.Println, log output, a child process's
// output) going to this area instead of the cell, and sends the new
// outputs to the front end once f returns. A panic in f is shown in the
// area as an error and returned; the widget keeps working. While f runs,
// displays and prints of other goroutines land here too.
//
// Printed text is captured by the host (the kernel or graphnb exec),
// which hands it to the display sink Capture installs (a
// display.Streamer) and flushes it (display.Flush) before Capture
// restores the previous sink; without such a host (a plain Go program)
// it goes to the process's standard output as usual.
func (o *Output) Capture(f func()) error {
	display.Flush() // what was printed before stays out
	prev := display.SetSink(outputSink{o})
	defer func() {
		display.Flush() // what f printed comes in
		display.SetSink(prev)
		o.syncOutputs()
	}()
	err := capturePanic(f)
	if err != nil {
		o.add(errorOutput("panic", err.Error()), "")
	}
	return err
}

// errorOutput is an nbformat error output.
func errorOutput(name, value string) map[string]any {
	return map[string]any{"output_type": "error", "ename": name, "evalue": value, "traceback": strings.Split(value, "\n")}
}

// capturePanic runs f and returns its panic as an error.
func capturePanic(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	f()
	return nil
}

// outputSink is the display sink Capture installs; as a
// display.Streamer it also takes the text the host captures.
type outputSink struct{ o *Output }

var _ display.Streamer = outputSink{}

func (s outputSink) Display(data display.Bundle, metadata map[string]any, displayID string, update bool) {
	display.Flush() // text printed before the display stays before it
	if metadata == nil {
		metadata = map[string]any{}
	}
	out := map[string]any{"output_type": "display_data", "data": map[string]any(maps.Clone(data)), "metadata": metadata}
	o := s.o
	if update {
		o.mu.Lock()
		defer o.mu.Unlock()
		for i, id := range o.ids {
			if id == displayID && id != "" {
				o.outputs[i] = out
			}
		}
		return
	}
	o.add(out, displayID)
}

// Stream appends printed text as a stream output (display.Streamer): the
// host calls it with what f prints while Capture runs.
func (s outputSink) Stream(name, text string) {
	s.o.add(map[string]any{"output_type": "stream", "name": name, "text": text}, "")
}

func (s outputSink) ClearOutput(wait bool) {
	display.Flush()
	o := s.o
	o.mu.Lock()
	defer o.mu.Unlock()
	if wait {
		o.clearNext = true
		return
	}
	o.reset()
}

// outputsHTML draws outputs as one HTML fragment (protocol 1's Output):
// the richest type each display offers that HTML can show, text in <pre>.
func outputsHTML(outputs []map[string]any) string {
	var b strings.Builder
	for _, out := range outputs {
		switch out["output_type"] {
		case "stream":
			text, _ := out["text"].(string)
			style := ""
			if out["name"] == "stderr" {
				style = ` style="background:#fdd"`
			}
			fmt.Fprintf(&b, "<pre%s>%s</pre>", style, html.EscapeString(text))
		case "error":
			evalue, _ := out["evalue"].(string)
			fmt.Fprintf(&b, `<pre style="background:#fdd">%s</pre>`, html.EscapeString(evalue))
		case "display_data":
			data, _ := out["data"].(map[string]any)
			b.WriteString(bundleHTML(data))
		}
	}
	return b.String()
}

// bundleHTML is the HTML of one display bundle.
func bundleHTML(data map[string]any) string {
	str := func(k string) (string, bool) {
		s, ok := data[k].(string)
		return s, ok
	}
	if s, ok := str("text/html"); ok {
		return "<div>" + s + "</div>"
	}
	if s, ok := str("image/svg+xml"); ok {
		return "<div>" + s + "</div>"
	}
	for _, mime := range []string{"image/png", "image/jpeg"} {
		if s, ok := str(mime); ok {
			return fmt.Sprintf(`<img src="data:%s;base64,%s">`, mime, s)
		}
	}
	for _, mime := range []string{"text/markdown", "text/latex", "text/plain"} {
		if s, ok := str(mime); ok {
			return "<pre>" + html.EscapeString(s) + "</pre>"
		}
	}
	keys := slices.Sorted(maps.Keys(data))
	return "<pre>" + html.EscapeString("["+strings.Join(keys, ", ")+"]") + "</pre>"
}
