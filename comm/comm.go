// Package comm carries Jupyter comms: named two-way channels between code
// in the kernel and code in the front end (Jupyter messaging's comm_open,
// comm_msg and comm_close), on which widgets are built.
//
// Compiled packages and cells use it without importing the kernel, as
// they use package display: Open starts a comm to a front-end target,
// Register answers comms the front end opens to a kernel target, and a
// Comm's OnMessage and OnClose receive what the front end sends. The
// Jupyter kernel installs a Transport (SetTransport) that publishes on
// IOPub and calls HandleOpen, HandleMessage and HandleClose as messages
// arrive on the shell channel, one at a time; the callbacks run there, on
// the kernel's execution thread. With no transport (a plain program,
// tests) comms still open, keep their callbacks and send nothing.
package comm

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// Message is the payload of a comm message: the JSON object data,
// optional metadata, and optional binary buffers (the extra frames of a
// Jupyter message).
type Message struct {
	Data     map[string]any
	Metadata map[string]any
	Buffers  [][]byte
}

// Transport sends comm messages to the front end. msgType is
// "comm_open", "comm_msg" or "comm_close"; content holds comm_id, data and,
// for comm_open, target_name. Implementations parent the message to the
// request being handled and may be called from any goroutine.
type Transport interface {
	Send(msgType string, content map[string]any, metadata map[string]any, buffers [][]byte) error
}

type transportBox struct{ t Transport }

var current atomic.Pointer[transportBox]

// SetTransport installs t and returns the transport it replaces (nil if
// none). A nil t detaches: comms keep working and send nothing.
func SetTransport(t Transport) (previous Transport) {
	old := current.Swap(&transportBox{t})
	if old == nil {
		return nil
	}
	return old.t
}

func send(msgType string, content, metadata map[string]any, buffers [][]byte) error {
	b := current.Load()
	if b == nil || b.t == nil {
		return nil
	}
	return b.t.Send(msgType, content, metadata, buffers)
}

// ErrClosed is returned by Send on a comm that either side closed.
var ErrClosed = errors.New("comm: the comm is closed")

// Comm is one open comm. Its methods may be called from any goroutine.
type Comm struct {
	id, target string
	owner      string // the cell that opened it (SetOwner), "" for none

	mu      sync.Mutex
	closed  bool
	onMsg   func(Message)
	onClose func(Message)
}

// registry holds the open comms and the kernel-side targets.
var registry = struct {
	sync.Mutex
	comms   map[string]*Comm
	targets map[string]*target
}{comms: map[string]*Comm{}, targets: map[string]*target{}}

type target struct{ open func(*Comm, Message) }

// newID returns a fresh comm id: 32 hex digits, like a UUID's.
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Open opens a comm to the front-end target targetName (e.g.
// "jupyter.widget"), sending m with the comm_open. The comm is open when
// Open returns; a transport's send error is returned with the comm, which
// stays usable.
func Open(targetName string, m Message) (*Comm, error) {
	if targetName == "" {
		return nil, errors.New("comm: Open needs a target name (the front end's handler, e.g. \"jupyter.widget\")")
	}
	c := &Comm{id: newID(), target: targetName, owner: currentOwner()}
	registry.Lock()
	registry.comms[c.id] = c
	registry.Unlock()
	err := send("comm_open", map[string]any{"comm_id": c.id, "target_name": targetName, "data": data(m)}, m.Metadata, m.Buffers)
	return c, err
}

func data(m Message) map[string]any {
	if m.Data == nil {
		return map[string]any{}
	}
	return m.Data
}

// ID returns the comm's id.
func (c *Comm) ID() string { return c.id }

// Target returns the name of the target the comm was opened to.
func (c *Comm) Target() string { return c.target }

// Closed reports whether either side closed the comm.
func (c *Comm) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Send sends m to the front end as a comm_msg. It fails with ErrClosed
// once the comm is closed.
func (c *Comm) Send(m Message) error {
	if c.Closed() {
		return fmt.Errorf("%w (comm %s to %q)", ErrClosed, c.id, c.target)
	}
	return send("comm_msg", map[string]any{"comm_id": c.id, "data": data(m)}, m.Metadata, m.Buffers)
}

// Close closes the comm, sending m with the comm_close, and forgets it.
// Closing a closed comm does nothing. The comm's OnClose callback is not
// called: it reports a close by the front end.
func (c *Comm) Close(m Message) error {
	if !c.markClosed() {
		return nil
	}
	return send("comm_close", map[string]any{"comm_id": c.id, "data": data(m)}, m.Metadata, m.Buffers)
}

// markClosed closes c and removes it from the registry; false if it was
// already closed.
func (c *Comm) markClosed() bool {
	c.mu.Lock()
	was := c.closed
	c.closed = true
	c.onMsg = nil
	c.mu.Unlock()
	registry.Lock()
	if registry.comms[c.id] == c {
		delete(registry.comms, c.id)
	}
	registry.Unlock()
	return !was
}

// OnMessage sets the function called with each comm_msg the front end
// sends on c (nil: ignore them). It runs on the kernel's execution thread.
func (c *Comm) OnMessage(f func(Message)) {
	c.mu.Lock()
	c.onMsg = f
	c.mu.Unlock()
}

// OnClose sets the function called when the front end closes c.
func (c *Comm) OnClose(f func(Message)) {
	c.mu.Lock()
	c.onClose = f
	c.mu.Unlock()
}

// Register makes targetName a kernel-side target: when the front end
// opens a comm to it, open is called with the new comm and the comm_open's
// message, on the kernel's execution thread. Registering a name again
// replaces its handler. unregister removes this registration (not a later
// one of the same name); comms already open stay open.
func Register(targetName string, open func(c *Comm, m Message)) (unregister func()) {
	t := &target{open: open}
	registry.Lock()
	registry.targets[targetName] = t
	registry.Unlock()
	return func() {
		registry.Lock()
		defer registry.Unlock()
		if registry.targets[targetName] == t {
			delete(registry.targets, targetName)
		}
	}
}

// HandleOpen delivers a comm_open from the front end. It returns false,
// opening nothing, when no target of that name is registered (the kernel
// then answers with a comm_close) or the id is already in use.
func HandleOpen(id, targetName string, m Message) bool {
	registry.Lock()
	t := registry.targets[targetName]
	_, taken := registry.comms[id]
	if t == nil || taken || id == "" {
		registry.Unlock()
		return false
	}
	c := &Comm{id: id, target: targetName, owner: currentOwner()}
	registry.comms[id] = c
	registry.Unlock()
	if t.open != nil {
		t.open(c, m)
	}
	return true
}

// HandleMessage delivers a comm_msg from the front end to its comm's
// OnMessage callback. It returns false when no open comm has that id.
func HandleMessage(id string, m Message) bool {
	c := lookup(id)
	if c == nil {
		return false
	}
	c.mu.Lock()
	f := c.onMsg
	c.mu.Unlock()
	if f != nil {
		defer SetOwner(SetOwner(c.owner))
		f(m)
	}
	return true
}

// HandleClose delivers a comm_close from the front end: the comm is
// closed and its OnClose callback called. It returns false when no open
// comm has that id.
func HandleClose(id string, m Message) bool {
	c := lookup(id)
	if c == nil || !c.markClosed() {
		return false
	}
	c.mu.Lock()
	f := c.onClose
	c.onClose = nil
	c.mu.Unlock()
	if f != nil {
		defer SetOwner(SetOwner(c.owner))
		f(m)
	}
	return true
}

func lookup(id string) *Comm {
	registry.Lock()
	defer registry.Unlock()
	return registry.comms[id]
}

// List returns the open comms as id → target name, only those to
// targetName when it is not empty (comm_info_request's filter).
func List(targetName string) map[string]string {
	registry.Lock()
	defer registry.Unlock()
	out := make(map[string]string, len(registry.comms))
	for id, c := range registry.comms {
		if targetName == "" || c.target == targetName {
			out[id] = c.target
		}
	}
	return out
}

// Owners. A comm belongs to the cell that opened it, so that running the
// cell again can release what the earlier run made (its widgets): the
// kernel names the cell that runs (SetOwner, with the front end's cell id)
// and closes the comms of a cell before it runs again (CloseOwned). A comm
// opened by a callback belongs to the owner of the comm whose message or
// close is being handled; one opened by the front end, or while no cell
// runs, belongs to none.

var owner atomic.Pointer[string]

func currentOwner() string {
	if p := owner.Load(); p != nil {
		return *p
	}
	return ""
}

// SetOwner makes key the owner of the comms opened from now on ("" for
// none) and returns the previous owner. The kernel calls it around each
// cell.
func SetOwner(key string) (previous string) {
	if old := owner.Swap(&key); old != nil {
		return *old
	}
	return ""
}

// Owner returns the key of the cell that opened c ("" for none).
func (c *Comm) Owner() string { return c.owner }

// Owned returns how many open comms belong to key.
func Owned(key string) int {
	registry.Lock()
	defer registry.Unlock()
	n := 0
	for _, c := range registry.comms {
		if c.owner == key {
			n++
		}
	}
	return n
}

// CloseOwned closes every open comm that belongs to key as Close does,
// sending each a comm_close with empty data, then calls each one's
// OnClose callback with an empty Message (as if the front end had closed
// it), so that what holds the comm can release it; it returns how many it
// closed. An empty key closes nothing.
func CloseOwned(key string) int {
	if key == "" {
		return 0
	}
	var closed []*Comm
	for _, c := range open() {
		if c.owner == key && c.markClosed() {
			closed = append(closed, c)
		}
	}
	for _, c := range closed {
		_ = send("comm_close", map[string]any{"comm_id": c.id, "data": map[string]any{}}, nil, nil)
	}
	for _, c := range closed {
		c.mu.Lock()
		f := c.onClose
		c.onClose = nil
		c.mu.Unlock()
		if f != nil {
			f(Message{Data: map[string]any{}})
		}
	}
	return len(closed)
}

// CloseAll forgets every open comm, for a kernel that ends: each is marked
// closed (Send fails with ErrClosed) and its callbacks are dropped, not
// called; nothing is sent. It returns how many there were. Registered
// targets stay.
func CloseAll() int {
	n := 0
	for _, c := range open() {
		if c.markClosed() {
			n++
		}
		c.mu.Lock()
		c.onClose = nil
		c.mu.Unlock()
	}
	return n
}

// open returns the open comms, in no order.
func open() []*Comm {
	registry.Lock()
	defer registry.Unlock()
	out := make([]*Comm, 0, len(registry.comms))
	for _, c := range registry.comms {
		out = append(out, c)
	}
	return out
}
