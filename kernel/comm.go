package kernel

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/graphnb/graphnb/comm"
	"github.com/graphnb/graphnb/kernel/wire"
	"github.com/graphnb/graphnb/kernel/zmtp"
)

// Comms (Jupyter messaging's comm_open, comm_msg, comm_close and
// comm_info_request) are kept by package comm; the kernel carries them.
//
// Outgoing: Serve installs commTransport, which publishes what cells and
// compiled packages send on IOPub, binary buffers as the frames after
// content, under the request being handled (the execute_request of the
// running cell, or the comm message whose callback sends).
//
// Incoming: comm_open, comm_msg and comm_close arrive on the shell
// channel and are served there, in arrival order with the cells, between
// busy and idle statuses parented to them (a front end throttles its
// widget updates on that idle). The callbacks run on the shell goroutine,
// one at a time, as a cell does: with output and displays parented to the
// comm message, the cancellation point cleared and a context that an
// interrupt_request cancels; through the Engine's RunCallback when it has
// one (the interpreter, so that an interrupt stops interpreted code). A
// panic or an interrupt becomes an IOPub error parented to the comm
// message; the kernel carries on. A comm_open to a target nobody
// registered is answered with a comm_close, as ipykernel does. When the
// kernel ends, every comm is forgotten (comm.CloseAll).

// commOwner is the key under which package comm records the comms that
// the cell of execute_request m opens: its front end's cell id (JupyterLab,
// Notebook 7 and VS Code send metadata.cellId; the classic notebook and
// nbclient send none: then "", and a cell's comms stay open when it runs
// again, as ipykernel's do). When the same cell runs again, the comms its
// earlier run opened are closed first (comm.CloseOwned: a comm_close to the
// front end, and their OnClose callbacks), so that re-running a cell of
// widgets does not leave the old ones and their callbacks behind.
func commOwner(m *wire.Message) string {
	if id, ok := m.Metadata["cellId"].(string); ok && id != "" {
		return "cell:" + id
	}
	return ""
}

// commTransport publishes comm messages on IOPub (comm.Transport).
type commTransport struct{ s *server }

var _ comm.Transport = commTransport{}

// Send publishes a comm message under the current parent, after the output
// printed before it.
func (t commTransport) Send(msgType string, content, metadata map[string]any, buffers [][]byte) error {
	s := t.s
	s.syncOutput()
	return s.pub.publishFrames(msgType, s.streams.currentParent(), content, metadata, buffers)
}

// commContent is the content of an incoming comm message.
type commContent struct {
	CommID     string         `json:"comm_id"`
	TargetName string         `json:"target_name"` // comm_open only
	Data       map[string]any `json:"data"`
}

// handleComm serves comm_open, comm_msg and comm_close from the front end.
func (s *server) handleComm(m *wire.Message) {
	t := m.Header.MsgType
	var c commContent
	if err := json.Unmarshal(m.Content, &c); err != nil || c.CommID == "" {
		if err == nil {
			err = fmt.Errorf("no comm_id")
		}
		s.log.Error("malformed comm message; ignoring it", "msg_type", t, "msg_id", m.Header.MsgID, "err", err)
		return
	}
	msg := comm.Message{Data: c.Data, Metadata: m.Metadata, Buffers: m.Buffers}
	if msg.Data == nil {
		msg.Data = map[string]any{}
	}
	if t == "comm_open" && commOpen(c.CommID) {
		// Answering with a comm_close would close the open comm of that id
		// in the front end too.
		s.log.Warn("a comm_open for a comm id already open; ignoring it", "comm_id", c.CommID, "target_name", c.TargetName)
		return
	}
	known := true
	err := s.runCallback(m, func() {
		switch t {
		case "comm_open":
			known = comm.HandleOpen(c.CommID, c.TargetName, msg)
		case "comm_msg":
			known = comm.HandleMessage(c.CommID, msg)
		case "comm_close":
			known = comm.HandleClose(c.CommID, msg)
		}
	})
	if err != nil || known {
		// After an error f may still run (a stalled compiled call): known
		// is read only when it has returned.
		return
	}
	switch t {
	case "comm_open":
		s.log.Warn("no such comm target; closing the comm", "target_name", c.TargetName, "comm_id", c.CommID)
		s.publish("comm_close", m.Header, map[string]any{"comm_id": c.CommID, "data": map[string]any{}})
	default:
		s.log.Debug("ignoring a message for a comm that is not open", "msg_type", t, "comm_id", c.CommID)
	}
}

// CallbackRunner is an Engine that runs the callbacks of comms itself,
// as it runs cells; the interpreter does, so that an interrupt stops
// interpreted code and a panic's traceback names cell lines.
//
// RunCallback calls f once on its goroutine or another, and returns when
// f has returned or has been stopped. Cancelling ctx (an interrupt) must
// stop f as it would stop a cell; the error is then a CellError named
// "Interrupted". A panic in f is returned as an error (a CellError named
// "panic"), never propagated. The server calls it from one goroutine, one
// callback or cell at a time.
type CallbackRunner interface {
	RunCallback(ctx context.Context, f func()) error
}

// runCallback runs f, which calls comm's handlers, as the comm message m's
// execution: see the comment at the top of this file. It returns the error
// it published, nil when f returned normally.
func (s *server) runCallback(m *wire.Message, f func()) error {
	prevAsk := s.stdinSt.asking.Swap(&askState{req: m, allow: false})
	defer s.stdinSt.asking.Store(prevAsk)
	s.streams.setParent(m.Header)
	err := s.interruptible(func(ctx context.Context) error {
		if r, ok := s.eng.(CallbackRunner); ok {
			return r.RunCallback(ctx, f)
		}
		return runCompiledCallback(ctx, f)
	})
	s.syncOutput()
	if err != nil {
		ename, evalue, tb := errorFields(err)
		s.log.Info("a comm callback failed", "msg_type", m.Header.MsgType, "ename", ename, "evalue", evalue)
		s.publish("error", m.Header, map[string]any{"ename": ename, "evalue": evalue, "traceback": tb})
	}
	return err
}

// runCompiledCallback runs f on the calling goroutine, for an Engine that
// is no CallbackRunner: compiled callbacks see an interrupt through
// cancel.Check.
func runCompiledCallback(ctx context.Context, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: "in a comm callback: " + fmt.Sprint(r)}
		}
	}()
	f()
	if ctx.Err() != nil {
		return &callbackInterrupted{}
	}
	return nil
}

// callbackInterrupted is the error of a compiled callback (run without a
// CallbackRunner) during which an interrupt came.
type callbackInterrupted struct{}

const callbackInterruptedText = "the comm callback was interrupted"

func (*callbackInterrupted) Error() string  { return "Interrupted: " + callbackInterruptedText }
func (*callbackInterrupted) EName() string  { return "Interrupted" }
func (*callbackInterrupted) EValue() string { return callbackInterruptedText }
func (*callbackInterrupted) Traceback() []string {
	return []string{"Interrupted: " + callbackInterruptedText}
}

// commOpen reports whether a comm of that id is open.
func commOpen(id string) bool {
	_, ok := comm.List("")[id]
	return ok
}

// handleCommInfo answers comm_info_request with the open comms, those to
// target_name only when it is given.
func (s *server) handleCommInfo(sock *zmtp.Router, m *wire.Message) {
	var c struct {
		TargetName string `json:"target_name"`
	}
	if !s.parseContent(sock, m, &c) {
		return
	}
	comms := map[string]any{}
	for id, target := range comm.List(c.TargetName) {
		comms[id] = map[string]any{"target_name": target}
	}
	s.reply(sock, m, "comm_info_reply", map[string]any{"status": "ok", "comms": comms})
}
