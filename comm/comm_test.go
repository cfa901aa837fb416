package comm

import (
	"errors"
	"sync"
	"testing"
)

type sent struct {
	msgType string
	content map[string]any
	buffers [][]byte
}

type recorder struct {
	mu   sync.Mutex
	msgs []sent
}

func (r *recorder) Send(msgType string, content, metadata map[string]any, buffers [][]byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, sent{msgType, content, buffers})
	return nil
}

func install(t *testing.T) *recorder {
	r := &recorder{}
	prev := SetTransport(r)
	t.Cleanup(func() { SetTransport(prev) })
	return r
}

func TestKernelOpenedComm(t *testing.T) {
	r := install(t)
	c, err := Open("jupyter.widget", Message{Data: map[string]any{"state": 1}, Buffers: [][]byte{{1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := List("jupyter.widget"); got[c.ID()] != "jupyter.widget" {
		t.Errorf("List(jupyter.widget) = %v, want the comm", got)
	}
	if got := List("other"); len(got) != 0 {
		t.Errorf("List(other) = %v, want none", got)
	}
	var got []any
	c.OnMessage(func(m Message) { got = append(got, m.Data["x"]) })
	if !HandleMessage(c.ID(), Message{Data: map[string]any{"x": 7.0}}) {
		t.Fatal("HandleMessage: comm not found")
	}
	if len(got) != 1 || got[0] != 7.0 {
		t.Errorf("OnMessage saw %v", got)
	}
	if err := c.Send(Message{Data: map[string]any{"y": 1}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(Message{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(Message{}); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := c.Send(Message{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close: %v, want ErrClosed", err)
	}
	if HandleMessage(c.ID(), Message{}) {
		t.Error("a closed comm still receives")
	}
	if _, ok := List("")[c.ID()]; ok {
		t.Error("a closed comm is still listed")
	}
	types := []string{}
	for _, m := range r.msgs {
		types = append(types, m.msgType)
	}
	if want := []string{"comm_open", "comm_msg", "comm_close"}; len(types) != 3 || types[0] != want[0] || types[1] != want[1] || types[2] != want[2] {
		t.Fatalf("sent %v, want %v", types, want)
	}
	open := r.msgs[0].content
	if open["comm_id"] != c.ID() || open["target_name"] != "jupyter.widget" || open["data"].(map[string]any)["state"] != 1 || len(r.msgs[0].buffers) != 1 {
		t.Errorf("comm_open content %v buffers %v", open, r.msgs[0].buffers)
	}
	if d := r.msgs[2].content["data"]; d == nil {
		t.Error("comm_close without data: the spec makes data required")
	}
}

func TestFrontEndOpenedComm(t *testing.T) {
	install(t)
	if HandleOpen("id1", "graphnb.test", Message{}) {
		t.Fatal("opened a comm to an unregistered target")
	}
	var opened *Comm
	var closedWith any
	unregister := Register("graphnb.test", func(c *Comm, m Message) {
		opened = c
		c.OnClose(func(m Message) { closedWith = m.Data["why"] })
	})
	if !HandleOpen("id1", "graphnb.test", Message{}) || opened == nil || opened.ID() != "id1" {
		t.Fatal("the registered target did not get the comm")
	}
	if HandleOpen("id1", "graphnb.test", Message{}) {
		t.Error("an id in use was opened twice")
	}
	if !HandleClose("id1", Message{Data: map[string]any{"why": "bye"}}) || closedWith != "bye" || !opened.Closed() {
		t.Errorf("HandleClose: OnClose saw %v, closed %v", closedWith, opened.Closed())
	}
	if HandleClose("id1", Message{}) {
		t.Error("closed twice")
	}
	unregister()
	if HandleOpen("id2", "graphnb.test", Message{}) {
		t.Error("opened after unregister")
	}
}

func TestDetached(t *testing.T) {
	prev := SetTransport(nil)
	defer SetTransport(prev)
	c, err := Open("jupyter.widget", Message{})
	if err != nil || c.Send(Message{}) != nil || c.Close(Message{}) != nil {
		t.Fatalf("a comm without transport: %v", err)
	}
	if _, err := Open("", Message{}); err == nil {
		t.Error("Open with no target name succeeded")
	}
}

// TestOwners: comms belong to the owner set when they open, callbacks
// open comms under their comm's owner, CloseOwned closes one owner's
// (sending comm_close, calling OnClose), CloseAll forgets the rest.
func TestOwners(t *testing.T) {
	r := install(t)
	defer SetOwner(SetOwner("cell:a"))
	a, _ := Open("t", Message{})
	var child *Comm
	a.OnMessage(func(Message) { child, _ = Open("t", Message{}) })
	closedA := 0
	a.OnClose(func(Message) { closedA++ })
	SetOwner("cell:b")
	b, _ := Open("t", Message{})
	SetOwner("")
	HandleMessage(a.ID(), Message{})
	if child == nil || child.Owner() != "cell:a" || a.Owner() != "cell:a" || b.Owner() != "cell:b" {
		t.Fatalf("owners: a %q, child %v, b %q", a.Owner(), child, b.Owner())
	}
	r.mu.Lock()
	r.msgs = nil
	r.mu.Unlock()
	if n := Owned("cell:a"); n != 2 {
		t.Errorf("Owned(cell:a) = %d, want 2", n)
	}
	if n := CloseOwned("cell:a"); n != 2 {
		t.Errorf("CloseOwned closed %d comms, want 2", n)
	}
	if !a.Closed() || !child.Closed() || b.Closed() || closedA != 1 {
		t.Errorf("closed: a %v child %v b %v; a's OnClose called %d times", a.Closed(), child.Closed(), b.Closed(), closedA)
	}
	r.mu.Lock()
	if len(r.msgs) != 2 || r.msgs[0].msgType != "comm_close" {
		t.Errorf("sent %v, want two comm_close", r.msgs)
	}
	r.msgs = nil
	r.mu.Unlock()
	if n := CloseOwned(""); n != 0 {
		t.Errorf("CloseOwned(\"\") closed %d", n)
	}
	if n := CloseAll(); n != 1 || !b.Closed() || len(List("")) != 0 {
		t.Errorf("CloseAll: %d, b closed %v, left %v", n, b.Closed(), List(""))
	}
	if len(r.msgs) != 0 {
		t.Errorf("CloseAll sent %v", r.msgs)
	}
}
