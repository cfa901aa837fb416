package kernel

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/comm"
	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/kernel/wire"
)

// openComm is the fake engine's "commopen TARGET": a cell that opens a
// comm with state and a binary buffer, whose messages commHandler serves.
func (f *fakeEngine) openComm(target string) (display.Bundle, error) {
	c, err := comm.Open(target, comm.Message{
		Data:     map[string]any{"state": map[string]any{"value": 1}, "buffer_paths": []any{[]any{"data"}}},
		Metadata: map[string]any{"version": "2.0.0"},
		Buffers:  [][]byte{{1, 2, 3}},
	})
	if err != nil {
		return nil, err
	}
	f.handleComm(c)
	return display.Bundle{"text/plain": c.ID()}, nil
}

// handleComm sets c's callbacks: a comm_msg's data "do" says what to do.
//
//	echo    → sends back {"echo": data.x} with the message's buffers
//	panic   → panics
//	spin    → loops until cancel.Check fails (an interrupt)
//	print   → writes "from callback" to stdout and displays "shown"
//	open    → opens a comm to "test.child" from the callback
//	close   → closes the comm from the kernel's side
func (f *fakeEngine) handleComm(c *comm.Comm) {
	c.OnMessage(func(m comm.Message) {
		do, _ := m.Data["do"].(string)
		f.callbacks <- do
		switch do {
		case "echo":
			c.Send(comm.Message{Data: map[string]any{"echo": m.Data["x"]}, Buffers: m.Buffers})
		case "panic":
			panic("callback boom")
		case "spin":
			for cancel.Check() == nil {
				time.Sleep(time.Millisecond)
			}
		case "print":
			f.srv.streams.write("stdout", []byte("from callback\n"))
			display.CurrentSink().Display(display.Bundle{"text/plain": "shown"}, nil, "", false)
		case "open":
			child, _ := comm.Open("test.child", comm.Message{})
			f.handleComm(child)
		case "close":
			c.Close(comm.Message{Data: map[string]any{"bye": true}})
		}
	})
}

// sendMessage sends a request with metadata and binary buffers.
func (c *testClient) sendMessage(sock, msgType string, content map[string]any, metadata map[string]any, buffers [][]byte) wire.Header {
	c.t.Helper()
	h := c.header(msgType)
	c.sendFrames(sock, wire.Encode(&wire.Message{Header: h, Metadata: metadata, Content: mustJSON(c.t, content), Buffers: buffers}, c.signer))
	return h
}

// commMsg sends a comm_msg to id with data {"do": do, "x": x} and returns
// its IOPub messages, busy to idle.
func (c *testClient) commMsg(id, do string, x any, buffers [][]byte) (wire.Header, []*wire.Message) {
	c.t.Helper()
	h := c.sendMessage("shell", "comm_msg", map[string]any{"comm_id": id, "data": map[string]any{"do": do, "x": x}}, nil, buffers)
	return h, c.iopubFor(h.MsgID)
}

// openFromCell runs "commopen target" and returns the comm's id.
func openFromCell(t *testing.T, c *testClient, target string, metadata map[string]any) string {
	t.Helper()
	req := map[string]any{"code": "commopen " + target, "silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true}
	h := c.sendMessage("shell", "execute_request", req, metadata, nil)
	c.replyTo(c.shellCh, h.MsgID)
	var id string
	for _, m := range c.iopubFor(h.MsgID) {
		if m.Header.MsgType == "execute_result" {
			id, _ = content(t, m)["data"].(map[string]any)["text/plain"].(string)
		}
	}
	if id == "" {
		t.Fatal("the cell returned no comm id")
	}
	return id
}

func commInfo(t *testing.T, c *testClient, filter map[string]any) map[string]any {
	t.Helper()
	h := c.send("shell", "comm_info_request", filter)
	r := c.replyTo(c.shellCh, h.MsgID)
	got := content(t, r)
	if r.Header.MsgType != "comm_info_reply" || got["status"] != "ok" {
		t.Fatalf("comm_info: %s %v", r.Header.MsgType, got)
	}
	comms, _ := got["comms"].(map[string]any)
	return comms
}

// TestCommFromCell: a cell opens a comm (comm_open on IOPub under the
// execute_request, with its buffer); the front end's comm_msg reaches the
// callback between busy and idle parented to it, and the callback's reply
// carries the buffers back.
func TestCommFromCell(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	h, _, io := c.execute("commopen test.target", nil)
	if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "execute_input", "comm_open", "execute_result", "status:idle"}) {
		t.Fatalf("IOPub %v", tt)
	}
	open := io[2]
	oc := content(t, open)
	id, _ := oc["comm_id"].(string)
	if open.Parent.MsgID != h.MsgID || oc["target_name"] != "test.target" || len(id) != 32 {
		t.Errorf("comm_open parent %q content %v", open.Parent.MsgID, oc)
	}
	if !jsonEqual(t, oc["data"], map[string]any{"state": map[string]any{"value": 1}, "buffer_paths": []any{[]any{"data"}}}) {
		t.Errorf("comm_open data %v", oc["data"])
	}
	if len(open.Buffers) != 1 || !bytes.Equal(open.Buffers[0], []byte{1, 2, 3}) || fmt.Sprint(open.Metadata["version"]) != "2.0.0" {
		t.Errorf("comm_open buffers %v metadata %v", open.Buffers, open.Metadata)
	}

	bufs := [][]byte{{9, 8, 7}, bytes.Repeat([]byte{0xff}, 100000)}
	mh, io := c.commMsg(id, "echo", 42, bufs)
	if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "comm_msg", "status:idle"}) {
		t.Fatalf("IOPub for comm_msg %v", tt)
	}
	for _, m := range io {
		if m.Parent.MsgID != mh.MsgID {
			t.Errorf("%s parented to %q, want the comm_msg", m.Header.MsgType, m.Parent.MsgID)
		}
	}
	if got := content(t, io[1]); !jsonEqual(t, got, map[string]any{"comm_id": id, "data": map[string]any{"echo": 42}}) {
		t.Errorf("echo %v", got)
	}
	if len(io[1].Buffers) != 2 || !bytes.Equal(io[1].Buffers[0], bufs[0]) || !bytes.Equal(io[1].Buffers[1], bufs[1]) {
		t.Errorf("echo buffers: %d of them", len(io[1].Buffers))
	}
	// No reply on shell: the next reply is kernel_info's.
	ki := c.send("shell", "kernel_info_request", map[string]any{})
	c.replyTo(c.shellCh, ki.MsgID)

	// Output of a callback is parented to its comm_msg.
	mh, io = c.commMsg(id, "print", nil, nil)
	if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "stream:stdout", "display_data", "status:idle"}) {
		t.Fatalf("IOPub for a printing callback %v", tt)
	}
	if content(t, io[1])["text"] != "from callback\n" {
		t.Errorf("stream %v", content(t, io[1]))
	}

	// Closed from the kernel's side: comm_close, and the comm is gone.
	_, io = c.commMsg(id, "close", nil, nil)
	if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "comm_close", "status:idle"}) {
		t.Fatalf("IOPub for a closing callback %v", tt)
	}
	if got := content(t, io[1]); !jsonEqual(t, got, map[string]any{"comm_id": id, "data": map[string]any{"bye": true}}) {
		t.Errorf("comm_close %v", got)
	}
	if got := commInfo(t, c, map[string]any{}); len(got) != 0 {
		t.Errorf("comm_info after the close: %v", got)
	}
}

// TestCommFromFrontEnd: the front end opens a comm to a registered
// target, with buffers; the target's handler answers; comm_info lists it
// (with and without the target_name filter) until the front end closes it.
func TestCommFromFrontEnd(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	var closedWith []any
	unregister := comm.Register("test.kernel", func(cm *comm.Comm, m comm.Message) {
		cm.Send(comm.Message{Data: map[string]any{"got": m.Data["hello"], "n": len(m.Buffers)}, Buffers: m.Buffers})
		cm.OnClose(func(m comm.Message) { closedWith = append(closedWith, m.Data["why"]) })
		k.eng.handleComm(cm)
	})
	defer unregister()
	h := c.sendMessage("shell", "comm_open", map[string]any{"comm_id": "fe-1", "target_name": "test.kernel", "data": map[string]any{"hello": "world"}},
		map[string]any{"version": "2.1.0"}, [][]byte{[]byte("abc")})
	io := c.iopubFor(h.MsgID)
	if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "comm_msg", "status:idle"}) {
		t.Fatalf("IOPub %v", tt)
	}
	if got := content(t, io[1]); !jsonEqual(t, got, map[string]any{"comm_id": "fe-1", "data": map[string]any{"got": "world", "n": 1}}) || len(io[1].Buffers) != 1 || string(io[1].Buffers[0]) != "abc" {
		t.Errorf("answer %v %q", got, io[1].Buffers)
	}
	other := openFromCell(t, c, "test.other", nil)

	all := commInfo(t, c, map[string]any{})
	if !jsonEqual(t, all, map[string]any{"fe-1": map[string]any{"target_name": "test.kernel"}, other: map[string]any{"target_name": "test.other"}}) {
		t.Errorf("comm_info: %v", all)
	}
	if got := commInfo(t, c, map[string]any{"target_name": "test.kernel"}); !jsonEqual(t, got, map[string]any{"fe-1": map[string]any{"target_name": "test.kernel"}}) {
		t.Errorf("comm_info(test.kernel): %v", got)
	}
	if got := commInfo(t, c, map[string]any{"target_name": "nothing"}); len(got) != 0 {
		t.Errorf("comm_info(nothing): %v", got)
	}

	// The same id again is ignored (a comm_close would close the open
	// comm in the front end).
	h = c.send("shell", "comm_open", map[string]any{"comm_id": "fe-1", "target_name": "test.kernel", "data": map[string]any{}})
	if tt := types(t, c.iopubFor(h.MsgID)); !slices.Equal(tt, []string{"status:busy", "status:idle"}) {
		t.Errorf("a second open of fe-1: IOPub %v", tt)
	}

	h = c.send("shell", "comm_close", map[string]any{"comm_id": "fe-1", "data": map[string]any{"why": "done"}})
	if tt := types(t, c.iopubFor(h.MsgID)); !slices.Equal(tt, []string{"status:busy", "status:idle"}) {
		t.Errorf("comm_close: IOPub %v", tt)
	}
	if !slices.Equal(closedWith, []any{"done"}) {
		t.Errorf("OnClose saw %v", closedWith)
	}
	if got := commInfo(t, c, map[string]any{}); !jsonEqual(t, got, map[string]any{other: map[string]any{"target_name": "test.other"}}) {
		t.Errorf("comm_info after the close: %v", got)
	}
	// A message to the closed comm is ignored.
	if _, io := c.commMsg("fe-1", "echo", 1, nil); len(io) != 2 {
		t.Errorf("a message to a closed comm: IOPub %v", types(t, io))
	}
}

// TestCommCallbackPanic: a panicking callback is an IOPub error parented
// to its comm_msg; the kernel and the comm go on.
func TestCommCallbackPanic(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	id := openFromCell(t, c, "test.target", nil)
	mh, io := c.commMsg(id, "panic", nil, nil)
	if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "error", "status:idle"}) {
		t.Fatalf("IOPub %v", tt)
	}
	if got := content(t, io[1]); io[1].Parent.MsgID != mh.MsgID || got["ename"] != "panic" || got["evalue"] != "in a comm callback: callback boom" {
		t.Errorf("error %v parented to %q", got, io[1].Parent.MsgID)
	}
	if _, io := c.commMsg(id, "echo", 5, nil); !slices.Equal(types(t, io), []string{"status:busy", "comm_msg", "status:idle"}) {
		t.Errorf("the comm after the panic: IOPub %v", types(t, io))
	}
	if _, reply, _ := c.execute("1+1", nil); content(t, reply)["status"] != "ok" {
		t.Errorf("a cell after the panic: %v", content(t, reply))
	}
}

// TestCommCallbackInterrupt: an interrupt_request stops a callback stuck
// in a loop (one that polls cancel.Check, as compiled callbacks do);
// the error is parented to the comm_msg and the next cell runs.
func TestCommCallbackInterrupt(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	id := openFromCell(t, c, "test.target", nil)
	mh := c.sendMessage("shell", "comm_msg", map[string]any{"comm_id": id, "data": map[string]any{"do": "spin"}}, nil, nil)
	select {
	case do := <-k.eng.callbacks:
		if do != "spin" {
			t.Fatalf("callback %q started", do)
		}
	case <-time.After(waitLimit):
		t.Fatal("the callback did not start")
	}
	ih := c.send("control", "interrupt_request", map[string]any{})
	c.replyTo(c.controlCh, ih.MsgID)
	io := c.iopubFor(mh.MsgID)
	if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "error", "status:idle"}) {
		t.Fatalf("IOPub %v", tt)
	}
	if got := content(t, io[1]); got["ename"] != "Interrupted" {
		t.Errorf("error %v", got)
	}
	if _, reply, _ := c.execute("1+1", nil); content(t, reply)["status"] != "ok" {
		t.Errorf("a cell after the interrupt: %v", content(t, reply))
	}
}

// TestCommLeaks: comms opened by a cell (and by their callbacks) are
// released when the same cell (metadata.cellId) runs again, and every
// comm when the kernel ends; no goroutine is left behind.
func TestCommLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	cellA := map[string]any{"cellId": "cell-a"}
	var ids []string
	for range 3 {
		id := openFromCell(t, c, "test.target", cellA)
		c.commMsg(id, "open", nil, nil) // a child comm, owned by cell-a too
		ids = append(ids, id)
	}
	keep := openFromCell(t, c, "test.target", map[string]any{"cellId": "cell-b"})
	anon := openFromCell(t, c, "test.target", nil)
	if got := comm.List(""); len(got) != 4 {
		t.Errorf("%d comms open after three runs of cell-a and one of cell-b, want 4 (cell-a's last, its child, cell-b's, the anonymous one): %v", len(got), got)
	}
	for _, id := range ids[:2] {
		if _, ok := comm.List("")[id]; ok {
			t.Errorf("comm %s of an earlier run of cell-a is still open", id)
		}
	}
	for _, id := range []string{ids[2], keep, anon} {
		if _, ok := comm.List("")[id]; !ok {
			t.Errorf("comm %s is closed", id)
		}
	}
	// Many messages leave nothing running.
	for i := range 50 {
		c.commMsg(keep, "echo", i, [][]byte{{byte(i)}})
	}
	k.stop(t)
	if got := comm.List(""); len(got) != 0 {
		t.Errorf("comms open after the kernel ended: %v", got)
	}
	c.close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the kernel ended, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestCommSignatureFailuresDropped: comm messages that fail the signature
// check never reach a callback.
func TestCommSignatureFailuresDropped(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	id := openFromCell(t, c, "test.target", nil)
	wrongKey, _ := wire.NewSigner("hmac-sha256", "not-the-key")
	for _, typ := range []string{"comm_msg", "comm_close", "comm_open"} {
		h := c.header(typ)
		c.sendFrames("shell", wire.Encode(&wire.Message{Header: h, Content: mustJSON(t, map[string]any{"comm_id": id, "target_name": "test.target", "data": map[string]any{"do": "panic"}})}, wrongKey))
	}
	ki := c.send("shell", "kernel_info_request", map[string]any{})
	c.replyTo(c.shellCh, ki.MsgID)
	select {
	case do := <-k.eng.callbacks:
		t.Errorf("a callback ran (%q) for an unsigned message", do)
	default:
	}
	if _, ok := comm.List("")[id]; !ok {
		t.Error("an unsigned comm_close closed the comm")
	}
	if n := strings.Count(k.logs.String(), "bad or missing signature"); n != 3 {
		t.Errorf("%d log lines about signatures, want 3", n)
	}
}
