package widgets

import (
	"os"
	"sync"

	"github.com/graphnb/graphnb/comm"
)

// Protocol is a dialect of Jupyter's widget messaging protocol.
type Protocol int

const (
	// Protocol2 is protocol 2.1 as ipywidgets 8 speaks it (JupyterLab,
	// Notebook 7, VS Code, Voilà, nbconvert's HTML): comm_open data
	// {state, buffer_paths} with metadata {version: "2.1.0"}, updates
	// {method: "update", state, buffer_paths}, models of
	// @jupyter-widgets/controls 2.0.0, @jupyter-widgets/base 2.0.0 and
	// @jupyter-widgets/output 1.0.0. It is the default.
	Protocol2 Protocol = 2
	// Protocol1 is what ipywidgets 6.0 speaks to the jupyter-js-widgets
	// ~2.1.4 front end of Debian 12's classic notebook: comm_open data is
	// the flat state, the kernel shows a widget with a {method:
	// "display"} comm message, the front end sends {method: "backbone",
	// sync_data} on a change and {method: "custom", content: {event:
	// "click"}} on a click, and models come from the module
	// "jupyter-js-widgets". Its Output model has no outputs state, so an
	// Output widget is drawn there as an HTML widget.
	Protocol1 Protocol = 1
)

func (p Protocol) String() string {
	switch p {
	case Protocol1:
		return "protocol 1 (ipywidgets 6, jupyter-js-widgets ~2.1.4)"
	case Protocol2:
		return "protocol 2 (ipywidgets 8, @jupyter-widgets 2.0.0)"
	}
	return "unknown widget protocol"
}

// Module names and versions of the models, per dialect (the front ends'
// registries load a model by name, module and version).
const (
	jsWidgetsModule  = "jupyter-js-widgets"
	jsWidgetsVersion = "~2.1.4"
	controlsModule   = "@jupyter-widgets/controls"
	baseModule       = "@jupyter-widgets/base"
	outputModule     = "@jupyter-widgets/output"
	controlsVersion  = "2.0.0"
	baseVersion      = "2.0.0"
	outputVersion    = "1.0.0"
	protocolVersion  = "2.1.0"
)

// The comm targets of the protocol.
const (
	// WidgetTarget is the front-end target every widget model opens.
	WidgetTarget = "jupyter.widget"
	// VersionTarget is the kernel target jupyter-js-widgets 2.x opens to
	// check versions; its arrival selects Protocol1.
	VersionTarget = "jupyter.widget.version"
	// ControlTarget is the kernel target ipywidgets 8 front ends open to
	// ask for every model's state at once; its arrival selects Protocol2.
	ControlTarget = "jupyter.widget.control"
)

var proto = struct {
	sync.Mutex
	current Protocol
	forced  bool // SetProtocol or GRAPHNB_WIDGETS chose it: handshakes do not change it
}{current: Protocol2}

// SetProtocol makes p the dialect of widgets created from now on and
// returns the one it replaces; the front end's handshakes no longer
// change it. Widgets already open keep theirs.
func SetProtocol(p Protocol) (previous Protocol) {
	proto.Lock()
	defer proto.Unlock()
	previous = proto.current
	if p == Protocol1 || p == Protocol2 {
		proto.current, proto.forced = p, true
	}
	return previous
}

// CurrentProtocol returns the dialect new widgets speak.
//
// It is chosen by what the front end announces: Protocol2 by default;
// Protocol1 once a front end opens a comm to "jupyter.widget.version"
// (jupyter-js-widgets 2.x does when a notebook opens or its kernel
// reconnects, before any cell runs); Protocol2 again when one opens
// "jupyter.widget.control" (ipywidgets 8). The environment variable
// GRAPHNB_WIDGETS=1 or =2, read at start, fixes the dialect, as
// SetProtocol does.
func CurrentProtocol() Protocol {
	proto.Lock()
	defer proto.Unlock()
	return proto.current
}

// announce records the dialect a front end announced.
func announce(p Protocol) {
	proto.Lock()
	defer proto.Unlock()
	if !proto.forced {
		proto.current = p
	}
}

func init() {
	switch os.Getenv("GRAPHNB_WIDGETS") {
	case "1":
		SetProtocol(Protocol1)
	case "2":
		SetProtocol(Protocol2)
	}
	comm.Register(VersionTarget, openVersion)
	comm.Register(ControlTarget, openControl)
}

// openVersion answers jupyter-js-widgets' version check: the kernel sends
// the front-end range it expects and the front end replies whether it
// satisfies it ({validated, frontend_version}), which needs no answer.
func openVersion(c *comm.Comm, _ comm.Message) {
	announce(Protocol1)
	c.Send(comm.Message{Data: map[string]any{"version": jsWidgetsVersion}})
}

// openControl serves ipywidgets 8's control comm: {method:
// "request_states"} is answered with every open model's state.
func openControl(c *comm.Comm, _ comm.Message) {
	announce(Protocol2)
	c.OnMessage(func(m comm.Message) {
		if m.Data["method"] != "request_states" {
			return
		}
		states := map[string]any{}
		for _, w := range liveWidgets() {
			states[w.id()] = w.saved()
		}
		c.Send(comm.Message{Data: map[string]any{"method": "update_states", "states": states, "buffer_paths": []any{}}})
	})
}
