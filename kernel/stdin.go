package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/kernel/wire"
)

// The stdin channel. A cell asks the front end for a line in two ways:
// display.Input and display.Password (the sink's Prompt), and by reading
// os.Stdin, which package input turns into questions while the cell runs
// (serveInput). Either way the kernel sends an input_request on the stdin
// socket, to the client that sent the execute_request and under that
// request, and waits for the input_reply whose parent is the question; an
// interrupt abandons the question. With allow_stdin false nothing is
// sent: Input fails with display.ErrNoInput, and a read of os.Stdin gets
// end of file after a line on the cell's stderr that says why — as
// ipykernel refuses input() with StdinNotImplementedError.

// noStdinNote is what a cell that reads os.Stdin shows when the front end
// does not accept input.
const noStdinNote = "graphnb: this cell reads standard input, but the front end does not accept input " +
	"(its execute_request has allow_stdin false): the read gets end of file; give the value in the code instead\n"

// askState is the execute_request whose cell may ask the front end.
type askState struct {
	req   *wire.Message
	allow bool
	noted atomic.Bool // noStdinNote was shown
}

// inputWaiter is the question waiting for its input_reply.
type inputWaiter struct {
	id string // the input_request's msg_id
	ch chan string
}

// stdinState is the server's part of the stdin channel.
type stdinState struct {
	asking   atomic.Pointer[askState]
	promptMu sync.Mutex // one question at a time
	waitMu   sync.Mutex
	waiter   *inputWaiter
}

// serveInput answers the cell's reads of os.Stdin while ctx lasts (a cell
// run); the function it returns waits until that has stopped.
func (s *server) serveInput(ctx context.Context) (wait func()) {
	if s.in == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.in.Serve(ctx, func(ctx context.Context) (string, error) { return s.prompt(ctx, "", false, true) })
	}()
	return func() { <-done }
}

// prompt asks the front end for a line under the execute_request being
// run and waits for the answer until ctx ends. raw is true for a read of
// os.Stdin (which shows noStdinNote when input is refused).
func (s *server) prompt(ctx context.Context, text string, password, raw bool) (string, error) {
	st := s.stdinSt.asking.Load()
	if st == nil {
		return "", fmt.Errorf("%w: no cell is running", display.ErrNoInput)
	}
	if !st.allow {
		if raw && !st.noted.Swap(true) {
			s.syncOutput()
			s.streams.write("stderr", []byte(noStdinNote))
		}
		return "", display.ErrNoInput
	}
	s.stdinSt.promptMu.Lock()
	defer s.stdinSt.promptMu.Unlock()
	if ctx.Err() != nil {
		return "", display.ErrInputInterrupted
	}
	// What the cell printed before asking (its prompt) shows first.
	s.syncOutput()
	h := s.newHeader("input_request")
	w := &inputWaiter{id: h.MsgID, ch: make(chan string, 1)}
	s.stdinSt.waitMu.Lock()
	s.stdinSt.waiter = w
	s.stdinSt.waitMu.Unlock()
	defer func() {
		s.stdinSt.waitMu.Lock()
		if s.stdinSt.waiter == w {
			s.stdinSt.waiter = nil
		}
		s.stdinSt.waitMu.Unlock()
	}()
	if err := s.sendStdin(st.req, h, map[string]any{"prompt": text, "password": password}); err != nil {
		return "", err
	}
	select {
	case v := <-w.ch:
		if v == "\x04" { // Ctrl-D in a console: end of input, as ipykernel
			return "", io.EOF
		}
		return v, nil
	case <-ctx.Done():
		return "", display.ErrInputInterrupted
	}
}

// sendStdin sends a message with header h on the stdin socket to the
// client that sent req, under req.
func (s *server) sendStdin(req *wire.Message, h wire.Header, content any) error {
	b, err := json.Marshal(content)
	if err != nil {
		return fmt.Errorf("kernel: encoding %s: %w", h.MsgType, err)
	}
	if len(req.Identities) == 0 {
		return errors.New("kernel: cannot ask for input: the request has no routing identity")
	}
	m := &wire.Message{Identities: req.Identities, Header: h, Parent: req.Header, Content: b}
	if s.opt.testTrace != nil {
		s.opt.testTrace("stdin:" + h.MsgType)
	}
	if err := s.stdin.Send(wire.Encode(m, s.signer)); err != nil {
		return fmt.Errorf("kernel: sending %s: %w", h.MsgType, err)
	}
	return nil
}

// handleStdin takes an input_reply to the question waiting (its parent is
// the input_request, or empty as jupyter_client sends it); anything else
// (a reply when no question waits, one to another question, another type)
// is logged and dropped.
func (s *server) handleStdin(m *wire.Message) {
	if m.Header.MsgType != "input_reply" {
		s.log.Warn("ignoring a stdin message", "msg_type", m.Header.MsgType)
		return
	}
	var c struct {
		Value *string `json:"value"`
	}
	if err := json.Unmarshal(m.Content, &c); err != nil || c.Value == nil {
		s.log.Error("malformed input_reply: no string value", "err", err)
		return
	}
	s.stdinSt.waitMu.Lock()
	w := s.stdinSt.waiter
	// jupyter_client's input() sends its reply with an empty parent
	// header (ipykernel takes the next reply whatever its parent): an
	// empty parent answers the question waiting, another one must be it.
	if w != nil && (m.Parent.MsgID == "" || w.id == m.Parent.MsgID) {
		s.stdinSt.waiter = nil
	} else {
		w = nil
	}
	s.stdinSt.waitMu.Unlock()
	if w == nil {
		s.log.Warn("dropping an input_reply that answers no waiting input_request", "parent", m.Parent.MsgID)
		return
	}
	w.ch <- *c.Value
}

// Prompt implements display.Prompter: display.Input and Password in a
// running cell ask the front end.
func (k sink) Prompt(prompt string, password bool) (string, error) {
	s := k.s
	s.runMu.Lock()
	ctx := s.runCtx
	s.runMu.Unlock()
	if ctx == nil {
		return "", fmt.Errorf("%w: no cell is running", display.ErrNoInput)
	}
	return s.prompt(ctx, prompt, password, false)
}

var _ display.Prompter = sink{}
