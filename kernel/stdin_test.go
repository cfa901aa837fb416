package kernel

import (
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/kernel/wire"
)

// stdinClient dials a client and pumps its stdin socket.
func stdinClient(t *testing.T, k *testKernel) (*testClient, chan *wire.Message) {
	t.Helper()
	c := dialClient(t, k.ci)
	ch := make(chan *wire.Message, 100)
	go c.pump(c.stdin, ch)
	return c, ch
}

// startCell sends an execute_request without waiting for its reply.
func startCell(c *testClient, code string, allowStdin bool) wire.Header {
	c.t.Helper()
	return c.send("shell", "execute_request", map[string]any{
		"code": code, "silent": false, "store_history": true, "user_expressions": map[string]any{},
		"allow_stdin": allowStdin, "stop_on_error": false,
	})
}

// expectInputRequest waits for an input_request under parent and checks
// its content.
func expectInputRequest(t *testing.T, c *testClient, ch chan *wire.Message, parent wire.Header, prompt string, password bool) *wire.Message {
	t.Helper()
	m := c.next(ch)
	if m.Header.MsgType != "input_request" || m.Parent.MsgID != parent.MsgID {
		t.Fatalf("got %s under %q on stdin, want an input_request under %q", m.Header.MsgType, m.Parent.MsgID, parent.MsgID)
	}
	if got := content(t, m); got["prompt"] != prompt || got["password"] != password {
		t.Fatalf("input_request content %v, want prompt %q password %v", got, prompt, password)
	}
	return m
}

// answer sends an input_reply to the input_request req; with req nil, the
// reply has an empty parent header, as jupyter_client's input() sends it.
func answer(c *testClient, req *wire.Message, value string) {
	c.t.Helper()
	b := mustJSON(c.t, map[string]any{"value": value})
	m := &wire.Message{Header: c.header("input_reply"), Content: b}
	if req != nil {
		m.Parent = req.Header
	}
	c.sendFrames("stdin", wire.Encode(m, c.signer))
}

// resultText returns the text/plain execute_result of a cell's IOPub
// messages, or its error's evalue.
func resultText(t *testing.T, io []*wire.Message) string {
	t.Helper()
	for _, m := range io {
		switch m.Header.MsgType {
		case "execute_result":
			return content(t, m)["data"].(map[string]any)["text/plain"].(string)
		case "error":
			c := content(t, m)
			return c["ename"].(string) + ": " + c["evalue"].(string)
		}
	}
	return ""
}

// TestStdinAsks: a cell that reads os.Stdin, or calls display.Input or
// Password, sends input_request to the client under the execute_request
// and gets the input_reply's value (issue 13, case 9).
func TestStdinAsks(t *testing.T) {
	k := startKernel(t, nil)
	c, stdin := stdinClient(t, k)

	h := startCell(c, "readline", true)
	expectInputRequest(t, c, stdin, h, "", false)
	answer(c, nil, "hello") // no parent, as jupyter_client answers
	c.replyTo(c.shellCh, h.MsgID)
	if got := resultText(t, c.iopubFor(h.MsgID)); got != "got: hello\n" {
		t.Errorf("readline: %q", got)
	}

	// Two reads, two questions.
	h = startCell(c, "readtwo", true)
	answer(c, expectInputRequest(t, c, stdin, h, "", false), "one")
	answer(c, expectInputRequest(t, c, stdin, h, "", false), "two")
	c.replyTo(c.shellCh, h.MsgID)
	if got := resultText(t, c.iopubFor(h.MsgID)); got != "one+two" {
		t.Errorf("readtwo: %q", got)
	}

	for _, tc := range []struct {
		code, prompt string
		password     bool
	}{{"input Name? ", "Name? ", false}, {"password Key: ", "Key: ", true}} {
		h = startCell(c, tc.code, true)
		answer(c, expectInputRequest(t, c, stdin, h, tc.prompt, tc.password), "s3cret")
		c.replyTo(c.shellCh, h.MsgID)
		if got := resultText(t, c.iopubFor(h.MsgID)); got != "got: s3cret" {
			t.Errorf("%s: %q", tc.code, got)
		}
	}
}

// TestStdinRefused: with allow_stdin false nothing is asked: a read of
// os.Stdin gets end of file at once with a line on stderr saying why, and
// display.Input fails with ErrNoInput's message.
func TestStdinRefused(t *testing.T) {
	k := startKernel(t, nil)
	c, stdin := stdinClient(t, k)
	start := time.Now()
	h := startCell(c, "readline", false)
	c.replyTo(c.shellCh, h.MsgID)
	io := c.iopubFor(h.MsgID)
	if got := resultText(t, io); got != "ReadError: EOF" {
		t.Errorf("readline without stdin: %q, want ReadError: EOF", got)
	}
	var stderr string
	for _, m := range io {
		if m.Header.MsgType == "stream" && content(t, m)["name"] == "stderr" {
			stderr += content(t, m)["text"].(string)
		}
	}
	if !strings.Contains(stderr, "reads standard input") || !strings.Contains(stderr, "allow_stdin false") {
		t.Errorf("stderr %q does not say why the read got end of file", stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the refused read took %v", d)
	}
	_, _, io = c.execute("input Name? ", nil)
	if got := resultText(t, io); !strings.Contains(got, "allow_stdin is false") {
		t.Errorf("display.Input without stdin: %q", got)
	}
	select {
	case m := <-stdin:
		t.Errorf("a %s was sent although allow_stdin is false", m.Header.MsgType)
	default:
	}
}

// TestStdinInterrupt: an interrupt cancels a pending question (the read
// gets end of file and the cell ends), a late answer to it is dropped,
// and the next read asks again.
func TestStdinInterrupt(t *testing.T) {
	k := startKernel(t, nil)
	c, stdin := stdinClient(t, k)
	h := startCell(c, "readline", true)
	req := expectInputRequest(t, c, stdin, h, "", false)
	ih := c.send("control", "interrupt_request", map[string]any{})
	c.replyTo(c.controlCh, ih.MsgID)
	c.replyTo(c.shellCh, h.MsgID)
	if got := resultText(t, c.iopubFor(h.MsgID)); got != "ReadError: EOF" {
		t.Errorf("interrupted read: %q, want ReadError: EOF", got)
	}
	answer(c, req, "too late")

	h = startCell(c, "readline", true)
	answer(c, expectInputRequest(t, c, stdin, h, "", false), "again")
	c.replyTo(c.shellCh, h.MsgID)
	if got := resultText(t, c.iopubFor(h.MsgID)); got != "got: again\n" {
		t.Errorf("read after the interrupt: %q", got)
	}
	if !strings.Contains(k.logs.String(), "answers no waiting input_request") {
		t.Errorf("the late answer was not dropped with a log line")
	}
}
