package widgets

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/comm"
)

// Widget is a control or container: a model in the front end, kept in
// step with its Go value through a comm. Every widget of this package
// implements it; other types cannot (the interface is sealed).
type Widget interface {
	// ModelID is the model's id, also the id of its comm.
	ModelID() string
	// MIMEBundle is what displays the widget (see package doc).
	MIMEBundle() map[string]any
	// Close closes the widget's comms and drops its callbacks.
	Close()
	core() *base
}

// kind names a widget's front-end models in both dialects.
type kind struct {
	name           string // the Go type, for text/plain and messages
	model1, view1  string // jupyter-js-widgets ~2.1.4 ("" view: none)
	model2, view2  string // ipywidgets 8
	module2        string // controlsModule, baseModule or outputModule
	style1, style2 string // the style model's name, "" for none
	layout         bool   // has a Layout model
}

// control is what each widget type adds to base.
type control interface {
	// syncState returns the widget's synced keys in dialect p, without
	// the model names and the layout/style references. b.mu is held.
	syncState(p Protocol) map[string]any
	// applyState takes keys the front end sent. It returns the keys to
	// send back (a clamped value), the callbacks to run (after the lock
	// is released), or an error saying what was refused. b.mu is not held.
	applyState(st map[string]any) (resend []string, fire func(), err error)
}

// base is the part every widget shares: the comm, the dialect, the
// description and the disabled flag, layout and style models.
type base struct {
	mu       sync.Mutex
	k        *kind
	ctl      control
	p        Protocol
	c        *comm.Comm
	desc     string
	disabled bool
	layout   *base
	style    *base
	closed   bool
	onClick  []func() // Button's
	owned    []Widget // closed with this widget (Interact's output and button)
	cleanup  []func() // run when it closes (Interact's hooks on the controls)
}

func (b *base) core() *base { return b }

func (b *base) id() string {
	if b.c == nil {
		return ""
	}
	return b.c.ID()
}

// ModelID returns the model's id ("" for a widget never opened).
func (b *base) ModelID() string { return b.id() }

// Description returns the widget's label.
func (b *base) Description() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.desc
}

// SetDescription changes the widget's label.
func (b *base) SetDescription(s string) {
	b.mu.Lock()
	b.desc = s
	b.mu.Unlock()
	b.send("description")
}

// Disabled reports whether the user is kept from changing the widget.
func (b *base) Disabled() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.disabled
}

// SetDisabled greys the widget out (true) or enables it again.
func (b *base) SetDisabled(d bool) {
	b.mu.Lock()
	b.disabled = d
	b.mu.Unlock()
	b.send("disabled")
}

// Closed reports whether the widget was closed (by Close, CloseAll, or
// its comm being closed by the front end or the kernel).
func (b *base) Closed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// names returns the model/view names and modules of b in dialect p.
func (b *base) names(p Protocol) map[string]any {
	k := b.k
	if p == Protocol1 {
		st := map[string]any{
			"_model_name": k.model1, "_model_module": jsWidgetsModule, "_model_module_version": jsWidgetsVersion,
			"_view_module": jsWidgetsModule, "_view_module_version": jsWidgetsVersion, "msg_throttle": 1,
		}
		if k.view1 != "" {
			st["_view_name"] = k.view1
		} else {
			st["_view_name"] = nil
		}
		return st
	}
	module, version := k.module2, moduleVersion(k.module2)
	st := map[string]any{
		"_model_name": k.model2, "_model_module": module, "_model_module_version": version,
		"_view_module": module, "_view_module_version": version,
	}
	if k.view2 != "" {
		st["_view_name"] = k.view2
	} else {
		st["_view_name"] = nil
	}
	if k.model2 == "LayoutModel" || strings.HasSuffix(k.model2, "StyleModel") {
		// Layout and style views live in base, whatever the model's module.
		st["_view_module"], st["_view_module_version"] = baseModule, baseVersion
	}
	return st
}

func moduleVersion(module string) string {
	switch module {
	case baseModule:
		return baseVersion
	case outputModule:
		return outputVersion
	}
	return controlsVersion
}

// fullState returns every synced key of b. b.mu is held.
func (b *base) fullState() map[string]any {
	st := b.names(b.p)
	for k, v := range b.ctl.syncState(b.p) {
		st[k] = v
	}
	if b.layout != nil {
		st["layout"] = ref(b.layout)
	}
	if b.style != nil {
		st["style"] = ref(b.style)
	}
	return st
}

// ref is the JSON form of a reference to another model.
func ref(b *base) string { return "IPY_MODEL_" + b.id() }

// saved is b's entry in the saved widget state (model_name, model_module,
// model_module_version, state).
func (b *base) saved() map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.fullState()
	return map[string]any{
		"model_name": st["_model_name"], "model_module": st["_model_module"],
		"model_module_version": st["_model_module_version"], "state": st,
	}
}

// open makes b's models in the front end: its layout and style first,
// then b itself, in the current dialect, under the current cell.
func (b *base) open(k *kind, ctl control) {
	b.k, b.ctl, b.p = k, ctl, CurrentProtocol()
	styleName := k.style2
	if b.p == Protocol1 {
		styleName = k.style1
	}
	if k.layout {
		b.layout = auxModel(&kind{name: "Layout", model1: "LayoutModel", view1: "LayoutView", model2: "LayoutModel", view2: "LayoutView", module2: baseModule}, b.p)
	}
	if styleName != "" {
		b.style = auxModel(&kind{name: "Style", model1: styleName, view1: "StyleView", model2: styleName, view2: "StyleView", module2: controlsModule}, b.p)
	}
	b.openComm()
}

// auxModel opens a layout or style model with its default state.
func auxModel(k *kind, p Protocol) *base {
	a := &base{k: k, ctl: noState{}, p: p}
	a.openComm()
	return a
}

// noState is the control of layout and style models: the front end's
// defaults are their state, and what it sends is ignored.
type noState struct{}

func (noState) syncState(Protocol) map[string]any { return map[string]any{} }
func (noState) applyState(map[string]any) ([]string, func(), error) {
	return nil, nil, nil
}

func (b *base) openComm() {
	b.mu.Lock()
	st := b.fullState()
	b.mu.Unlock()
	var m comm.Message
	if b.p == Protocol1 {
		m = comm.Message{Data: st}
	} else {
		m = comm.Message{Data: map[string]any{"state": st, "buffer_paths": []any{}}, Metadata: map[string]any{"version": protocolVersion}}
	}
	c, err := comm.Open(WidgetTarget, m)
	if err != nil {
		report("%s: opening its model in the front end: %v", b.k.name, err)
	}
	b.c = c
	c.OnMessage(b.handle)
	c.OnClose(func(comm.Message) { b.release(false) })
	track(b)
}

// send sends the given keys of b's state to the front end.
func (b *base) send(keys ...string) {
	b.mu.Lock()
	if b.closed || b.c == nil {
		b.mu.Unlock()
		return
	}
	all := b.fullState()
	st := make(map[string]any, len(keys))
	for _, k := range keys {
		if v, ok := all[k]; ok {
			st[k] = v
		}
	}
	p, c := b.p, b.c
	b.mu.Unlock()
	if len(st) == 0 {
		return
	}
	data := map[string]any{"method": "update", "state": st}
	if p == Protocol1 {
		data["buffers"] = []any{}
	} else {
		data["buffer_paths"] = []any{}
	}
	if err := c.Send(comm.Message{Data: data}); err != nil && !errors.Is(err, comm.ErrClosed) {
		report("%s: sending an update: %v", b.k.name, err)
	}
}

// handle receives a comm_msg from the front end, in either dialect.
func (b *base) handle(m comm.Message) {
	switch method, _ := m.Data["method"].(string); method {
	case "update", "backbone":
		key := "state"
		if method == "backbone" {
			key = "sync_data"
		}
		st, _ := m.Data[key].(map[string]any)
		if len(st) == 0 {
			return
		}
		resend, fire, err := b.ctl.applyState(st)
		if err != nil {
			report("%s %q: %v", b.k.name, b.Description(), err)
		}
		if len(resend) > 0 {
			b.send(resend...)
		}
		if fire != nil {
			fire()
		}
	case "request_state":
		b.mu.Lock()
		keys := make([]string, 0, 16)
		for k := range b.fullState() {
			keys = append(keys, k)
		}
		b.mu.Unlock()
		b.send(keys...)
	case "custom":
		content, _ := m.Data["content"].(map[string]any)
		if content["event"] == "click" {
			b.mu.Lock()
			fs := append([]func(){}, b.onClick...)
			b.mu.Unlock()
			for _, f := range fs {
				if cancel.Requested() {
					break
				}
				safely(b.k.name+" OnClick", f)
			}
		}
	case "echo_update":
		// ipywidgets 8 echoes; nothing to do
	default:
		report("%s: the front end sent a message with unknown method %q (ignored)", b.k.name, method)
	}
}

// MIMEBundle shows the widget: application/vnd.jupyter.widget-view+json
// {model_id, version_major, version_minor} with a text/plain fallback.
// Under Protocol1 it also asks the front end to display the widget (a
// {method: "display"} message, as jupyter-js-widgets 2.x expects) and
// leaves text/plain empty, which that front end would print under the
// widget.
func (b *base) MIMEBundle() map[string]any {
	b.mu.Lock()
	p, c, closed := b.p, b.c, b.closed
	text := b.plain()
	b.mu.Unlock()
	if c == nil {
		return map[string]any{"text/plain": text}
	}
	major, minor := 2, 1
	if p == Protocol1 {
		major, minor = 1, 0
		if !closed {
			c.Send(comm.Message{Data: map[string]any{"method": "display"}})
		}
		text = ""
	}
	return map[string]any{
		"application/vnd.jupyter.widget-view+json": map[string]any{"model_id": c.ID(), "version_major": major, "version_minor": minor},
		"text/plain": text,
	}
}

// String returns the widget's text form, e.g. IntSlider(value=16,
// min=10, max=24, step=1, description="scale").
func (b *base) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.plain()
}

// plain is String's text. b.mu is held.
func (b *base) plain() string {
	st := b.ctl.syncState(Protocol2)
	keys := make([]string, 0, len(st))
	for k := range st {
		if k == "value" || k == "min" || k == "max" || k == "step" || k == "description" || k == "_options_labels" || k == "index" {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return plainOrder(keys[i]) < plainOrder(keys[j]) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := st[k]
		if s, ok := v.(string); ok {
			parts[i] = fmt.Sprintf("%s=%q", strings.TrimPrefix(k, "_options_"), s)
		} else {
			parts[i] = fmt.Sprintf("%s=%v", strings.TrimPrefix(k, "_options_"), v)
		}
	}
	if box, ok := b.ctl.(*Box); ok {
		for _, c := range box.children {
			parts = append(parts, c.core().k.name)
		}
	}
	if b.closed {
		parts = append(parts, "closed")
	}
	return b.k.name + "(" + strings.Join(parts, ", ") + ")"
}

func plainOrder(k string) int {
	return strings.Index("value index min max step _options_labels description", k)
}

// Close closes the widget: its comm and those of its layout and style
// (the front end removes its views), its callbacks are dropped, and the
// widgets Interact made for it are closed too. Its Go value keeps its
// last state; changing it sends nothing. Closing twice does nothing.
func (b *base) Close() { b.release(true) }

func (b *base) release(closeComm bool) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	b.onClick = nil
	owned, cleanup := b.owned, b.cleanup
	b.owned, b.cleanup = nil, nil
	aux := []*base{b.layout, b.style}
	b.mu.Unlock()
	if r, ok := b.ctl.(interface{ dropCallbacks() }); ok {
		r.dropCallbacks()
	}
	untrack(b)
	if closeComm && b.c != nil {
		b.c.Close(comm.Message{})
	}
	for _, a := range aux {
		if a != nil {
			a.release(true)
		}
	}
	for _, w := range owned {
		w.Close()
	}
	for _, f := range cleanup {
		f()
	}
}

// The open widgets, by model id.
var registry = struct {
	sync.Mutex
	live map[string]*base
}{live: map[string]*base{}}

func track(b *base) {
	registry.Lock()
	defer registry.Unlock()
	registry.live[b.id()] = b
}

func untrack(b *base) {
	registry.Lock()
	defer registry.Unlock()
	if registry.live[b.id()] == b {
		delete(registry.live, b.id())
	}
}

// liveWidgets returns the open models (layouts and styles included),
// sorted by id.
func liveWidgets() []*base {
	registry.Lock()
	defer registry.Unlock()
	out := make([]*base, 0, len(registry.live))
	for _, b := range registry.live {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id() < out[j].id() })
	return out
}

// OpenModels returns the number of open widget models, layout and style
// models included (a slider is three: itself, its layout, its style).
func OpenModels() int {
	registry.Lock()
	defer registry.Unlock()
	return len(registry.live)
}

// CloseAll closes every open widget (a kernel restart, the end of
// graphnb exec).
func CloseAll() {
	for _, b := range liveWidgets() {
		b.Close()
	}
}

// reportTo is where refused updates and failed callbacks are reported:
// standard error, which the kernel shows in the output of the cell the
// widget lives in. Tests replace it.
var reportTo = func() io.Writer { return os.Stderr }

// report writes one line about a problem to reportTo.
func report(format string, args ...any) {
	fmt.Fprintf(reportTo(), "widgets: "+format+"\n", args...)
}

// safely runs f, a user callback; a panic is reported with the stack of
// its first frames and returned as an error, and the widget keeps working.
func safely(what string, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s panicked: %v", what, r)
			report("%v\n%s", err, shortStack())
		}
	}()
	f()
	return nil
}

// shortStack is where a recovered panic happened: the first frames of the
// goroutine's stack below the call of panic.
func shortStack() string {
	lines := strings.Split(strings.TrimSpace(string(debug.Stack())), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			lines = lines[i+2:]
			break
		}
	}
	if len(lines) > 6 {
		lines = lines[:6]
	}
	return strings.Join(lines, "\n")
}

// unopened reports whether w is nil (a nil interface or a nil pointer of
// a widget type) or was never opened: nothing a box or Interact can use.
func unopened(w Widget) bool {
	if w == nil {
		return true
	}
	if v := reflect.ValueOf(w); v.Kind() == reflect.Pointer && v.IsNil() {
		return true
	}
	return w.core().c == nil
}
