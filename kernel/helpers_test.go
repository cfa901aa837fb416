package kernel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/kernel/wire"
)

// waitLimit bounds every wait in these tests; it only keeps a broken
// kernel from hanging the test run (the machine may be loaded).
const waitLimit = 20 * time.Second

const testKey = "0123456789abcdef-test-key"

// ---- fake engine ----

type testCellError struct{ name, value string }

func (e *testCellError) Error() string       { return e.name + ": " + e.value }
func (e *testCellError) EName() string       { return e.name }
func (e *testCellError) EValue() string      { return e.value }
func (e *testCellError) Traceback() []string { return []string{"tb: " + e.name, "tb: " + e.value} }

// fakeEngine interprets a tiny command language (see Execute).
type fakeEngine struct {
	srv *server // set by the test hook before serving starts

	started    chan string   // the code of every cell that starts
	callbacks  chan string   // the "do" of every comm callback that starts (comm_test.go)
	cancelSeen chan bool     // "sleep": cancel.Requested() when the context ended
	release    chan struct{} // "block" waits for it
	mu         sync.Mutex
	cells      []Cell
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{
		started:    make(chan string, 1000),
		callbacks:  make(chan string, 1000),
		cancelSeen: make(chan bool, 10),
		release:    make(chan struct{}),
	}
}

// Execute runs the fake command language:
//
//	1+1               → execute_result "2"
//	none              → no result
//	fail              → a CellError TestError: boom
//	plain error       → a plain error
//	panic             → panics
//	sleep             → waits for cancellation, then fails with Interrupted
//	out TEXT, err TEXT → TEXT+"\n" into the stream buffer (no fd capture)
//	lines N           → N lines into the stdout stream buffer
//	print TEXT        → fmt.Println(TEXT) (fd capture)
//	printerr TEXT     → fmt.Fprintln(os.Stderr, TEXT)
//	bigprint          → 1 MiB written to os.Stdout
//	bulk N            → N bytes of "x" into the stdout stream buffer, 64 KiB at a time
//	display ID TEXT   → display.Sink().Display, update ID TEXT updates
//	clear, clearwait  → ClearOutput
//	async             → reports an error through AsyncError after returning
//	waitqueue N       → waits until N requests are queued, then fails
//	cell              → returns the Cell it was given as text
//	page TEXT         → shows TEXT in the pager (Cell.Page)
//	commopen TARGET   → opens a comm (comm_test.go's commHandler); its id is the result
//	readline          → reads a line of os.Stdin (bufio): "got: LINE"
//	readtwo           → reads two words with fmt.Fscanln(os.Stdin, …)
//	input P, password P → display.Input(P), display.Password(P)
func (f *fakeEngine) Execute(ctx context.Context, code string, cell Cell) (display.Bundle, error) {
	f.mu.Lock()
	f.cells = append(f.cells, cell)
	f.mu.Unlock()
	select {
	case f.started <- code:
	default:
	}
	cmd, arg, _ := strings.Cut(code, " ")
	switch cmd {
	case "1+1":
		return display.Bundle{"text/plain": "2"}, nil
	case "none":
		return nil, nil
	case "fail":
		return nil, &testCellError{"TestError", "boom"}
	case "plain":
		return nil, errors.New("plain failure")
	case "panic":
		panic("fake engine panic")
	case "sleep":
		<-ctx.Done()
		f.cancelSeen <- cancel.Requested()
		return nil, &testCellError{"Interrupted", "the cell was interrupted"}
	case "block":
		<-f.release
		return nil, nil
	case "out":
		f.srv.streams.write("stdout", []byte(arg+"\n"))
		return nil, nil
	case "err":
		f.srv.streams.write("stderr", []byte(arg+"\n"))
		return nil, nil
	case "lines":
		n, _ := strconv.Atoi(arg)
		for i := range n {
			f.srv.streams.write("stdout", fmt.Appendf(nil, "line %d\n", i))
		}
		return nil, nil
	case "bulk":
		n, _ := strconv.Atoi(arg)
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for n > 0 {
			k := min(n, len(chunk))
			f.srv.streams.write("stdout", chunk[:k])
			n -= k
		}
		return nil, nil
	case "print":
		fmt.Println(arg)
		return nil, nil
	case "printerr":
		fmt.Fprintln(os.Stderr, arg)
		return nil, nil
	case "bigprint":
		os.Stdout.Write(bigOutput())
		return display.Bundle{"text/plain": "done"}, nil
	case "display", "update":
		id, text, _ := strings.Cut(arg, " ")
		display.CurrentSink().Display(display.Bundle{"text/plain": text}, nil, id, cmd == "update")
		return nil, nil
	case "clear", "clearwait":
		display.CurrentSink().ClearOutput(cmd == "clearwait")
		return nil, nil
	case "async":
		go func() {
			time.Sleep(20 * time.Millisecond)
			cell.AsyncError(&testCellError{"panic", "async boom"})
		}()
		return nil, nil
	case "waitqueue":
		n, _ := strconv.Atoi(arg)
		deadline := time.Now().Add(waitLimit)
		for len(f.srv.queue) < n && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		return nil, &testCellError{"TestError", "failed with requests queued"}
	case "commopen":
		return f.openComm(arg)
	case "page":
		cell.Page(display.Bundle{"text/plain": arg})
		return nil, nil
	case "cell":
		return display.Bundle{"text/plain": fmt.Sprintf("count=%d silent=%v", cell.Count, cell.Silent)}, nil
	case "readline":
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil {
			return nil, &testCellError{"ReadError", err.Error()}
		}
		return display.Bundle{"text/plain": "got: " + line}, nil
	case "readtwo":
		var a, b string
		if _, err := fmt.Fscanln(os.Stdin, &a); err != nil {
			return nil, &testCellError{"ReadError", err.Error()}
		}
		if _, err := fmt.Fscanln(os.Stdin, &b); err != nil {
			return nil, &testCellError{"ReadError", err.Error()}
		}
		return display.Bundle{"text/plain": a + "+" + b}, nil
	case "input", "password":
		ask := display.Input
		if cmd == "password" {
			ask = display.Password
		}
		v, err := ask(arg)
		if err != nil {
			return nil, &testCellError{"InputError", err.Error()}
		}
		return display.Bundle{"text/plain": "got: " + v}, nil
	}
	return display.Bundle{"text/plain": "ok: " + code}, nil
}

func bigOutput() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "big output line %07d\n", i)
	}
	return b.Bytes()
}

func (f *fakeEngine) Complete(code string, cursor int) ([]string, int, int) {
	if strings.Contains(code, "panic-complete") {
		panic("fake completion panic")
	}
	before := []rune(code)[:cursor]
	if strings.HasSuffix(string(before), "fm") {
		return []string{"fmt"}, cursor - 2, cursor
	}
	return nil, 0, 0
}

func (f *fakeEngine) Inspect(code string, cursor, detail int) (display.Bundle, bool) {
	if strings.Contains(code, "fmt") {
		return display.Bundle{"text/plain": fmt.Sprintf("package fmt (detail %d, cursor %d)", detail, cursor)}, true
	}
	return nil, false
}

func (f *fakeEngine) IsComplete(code string) (string, string) {
	switch {
	case strings.HasSuffix(code, "{"):
		return "incomplete", "\t"
	case strings.HasPrefix(code, "}"):
		return "invalid", ""
	}
	return "complete", ""
}

var _ Engine = (*fakeEngine)(nil)

// ---- a running kernel ----

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type testKernel struct {
	ci       ConnectionInfo
	eng      *fakeEngine
	srv      *server
	logs     *syncBuffer
	cancel   context.CancelFunc
	done     chan error
	stopOnce sync.Once
}

// startKernel runs Serve with a fake engine on free loopback ports.
func startKernel(t testing.TB, mod func(*Options)) *testKernel {
	t.Helper()
	k := &testKernel{eng: newFakeEngine(), logs: &syncBuffer{}, done: make(chan error, 1)}
	opt := Options{
		Logger:    slog.New(slog.NewTextHandler(k.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		NoCapture: true,
		NoSignals: true,
		Version:   "test",
		testHook: func(s *server) {
			k.srv = s
			k.eng.srv = s
		},
	}
	if mod != nil {
		mod(&opt)
	}
	ready := make(chan ConnectionInfo, 1)
	opt.Ready = func(ci ConnectionInfo) { ready <- ci }
	ci := ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", Key: testKey, SignatureScheme: "hmac-sha256", KernelName: "graphnb"}
	ctx, cancel := context.WithCancel(context.Background())
	k.cancel = cancel
	go func() { k.done <- Serve(ctx, ci, k.eng, opt) }()
	select {
	case k.ci = <-ready:
	case err := <-k.done:
		t.Fatalf("Serve returned at start: %v", err)
	case <-time.After(waitLimit):
		t.Fatal("Serve did not become ready")
	}
	t.Cleanup(func() { k.stop(t) })
	return k
}

// stop cancels Serve and waits for it (once; later calls return at once).
func (k *testKernel) stop(t testing.TB) {
	k.stopOnce.Do(func() {
		k.cancel()
		select {
		case err, ok := <-k.done:
			if ok && err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(waitLimit):
			t.Errorf("Serve did not return after cancel")
		}
	})
}

// ---- a client ----

type testClient struct {
	t       testing.TB
	signer  *wire.Signer
	session string
	seq     int
	cancel  context.CancelFunc

	shell, control, stdin, iopub, hb zmq4.Socket
	shellCh, controlCh, iopubCh      chan *wire.Message
}

// clientIDs numbers the test clients: each has its own routing identity
// for its shell and stdin sockets (a ROUTER routes nothing to a second
// connection that announces a live one's identity).
var clientIDs atomic.Int64

func quietLogger() zmq4.Option { return zmq4.WithLogger(log.New(io.Discard, "", 0)) }

// dialClient connects to every channel of ci and waits until IOPub
// delivers messages.
func dialClient(t testing.TB, ci ConnectionInfo) *testClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	signer, err := wire.NewSigner(ci.SignatureScheme, ci.Key)
	if err != nil {
		t.Fatal(err)
	}
	clientID := zmq4.SocketIdentity("test-client-" + strconv.FormatInt(clientIDs.Add(1), 10))
	c := &testClient{
		t: t, signer: signer, session: "client-session", cancel: cancel,
		// shell and stdin share a routing identity, as jupyter_client's do:
		// the kernel sends input_request to the shell request's identity.
		shell: zmq4.NewDealer(ctx, quietLogger(), zmq4.WithID(clientID)), control: zmq4.NewDealer(ctx, quietLogger()),
		stdin: zmq4.NewDealer(ctx, quietLogger(), zmq4.WithID(clientID)), iopub: zmq4.NewSub(ctx, quietLogger()),
		hb:      zmq4.NewReq(ctx, quietLogger()),
		shellCh: make(chan *wire.Message, 1000), controlCh: make(chan *wire.Message, 1000),
		iopubCh: make(chan *wire.Message, 100000),
	}
	t.Cleanup(c.close)
	for _, d := range []struct {
		sock zmq4.Socket
		port int
	}{{c.shell, ci.ShellPort}, {c.control, ci.ControlPort}, {c.stdin, ci.StdinPort}, {c.iopub, ci.IOPubPort}, {c.hb, ci.HBPort}} {
		if err := d.sock.Dial(fmt.Sprintf("tcp://127.0.0.1:%d", d.port)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.iopub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	go c.pump(c.shell, c.shellCh)
	go c.pump(c.control, c.controlCh)
	go c.pump(c.iopub, c.iopubCh)

	// IOPub subscriptions take effect asynchronously: poke the kernel until
	// IOPub answers.
	deadline := time.Now().Add(waitLimit)
	for {
		h := c.send("shell", "kernel_info_request", map[string]any{})
		c.replyTo(c.shellCh, h.MsgID)
		select {
		case m := <-c.iopubCh:
			if m.Parent.MsgID == h.MsgID || m.Header.MsgType == "status" {
				c.drainIOPub(h.MsgID, 200*time.Millisecond)
				return c
			}
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("IOPub never delivered a message")
		}
	}
}

func (c *testClient) close() {
	for _, s := range []zmq4.Socket{c.shell, c.control, c.stdin, c.iopub, c.hb} {
		s.Close()
	}
	c.cancel()
}

func (c *testClient) pump(s zmq4.Socket, ch chan *wire.Message) {
	for {
		msg, err := s.Recv()
		if err != nil {
			if errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "closed") {
				return
			}
			continue
		}
		m, err := wire.Decode(msg.Frames, c.signer)
		if err != nil {
			m = &wire.Message{Header: wire.Header{MsgType: "client-decode-error: " + err.Error()}}
		}
		select {
		case ch <- m:
		default: // a test that does not read IOPub
		}
	}
}

func (c *testClient) sock(name string) zmq4.Socket {
	switch name {
	case "shell":
		return c.shell
	case "control":
		return c.control
	case "stdin":
		return c.stdin
	}
	c.t.Fatalf("no socket %q", name)
	return nil
}

// header returns a fresh request header.
func (c *testClient) header(msgType string) wire.Header {
	c.seq++
	return wire.Header{
		MsgID: fmt.Sprintf("req-%d", c.seq), Session: c.session, Username: "tester",
		Date: wire.Now(), MsgType: msgType, Version: wire.Version,
	}
}

// send signs and sends a request.
func (c *testClient) send(sock, msgType string, content any) wire.Header {
	c.t.Helper()
	h := c.header(msgType)
	b, err := json.Marshal(content)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendFrames(sock, wire.Encode(&wire.Message{Header: h, Content: b}, c.signer))
	return h
}

func (c *testClient) sendFrames(sock string, frames [][]byte) {
	c.t.Helper()
	if err := c.sock(sock).SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatal(err)
	}
}

// next returns the next message of ch.
func (c *testClient) next(ch chan *wire.Message) *wire.Message {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(waitLimit):
		c.t.Fatal("no message arrived")
		return nil
	}
}

// replyTo returns the next message of ch and checks it answers msgID.
func (c *testClient) replyTo(ch chan *wire.Message, msgID string) *wire.Message {
	c.t.Helper()
	m := c.next(ch)
	if m.Parent.MsgID != msgID {
		c.t.Fatalf("got %s for %q, want a reply to %q", m.Header.MsgType, m.Parent.MsgID, msgID)
	}
	return m
}

// iopubFor returns the IOPub messages with parent msgID, up to and
// including its idle status; messages of other parents are skipped.
func (c *testClient) iopubFor(msgID string) []*wire.Message {
	c.t.Helper()
	var out []*wire.Message
	for {
		m := c.next(c.iopubCh)
		if m.Parent.MsgID != msgID {
			continue
		}
		out = append(out, m)
		if m.Header.MsgType == "status" && content(c.t, m)["execution_state"] == "idle" {
			return out
		}
	}
}

// drainIOPub discards IOPub messages until none arrives for quiet.
func (c *testClient) drainIOPub(_ string, quiet time.Duration) {
	for {
		select {
		case <-c.iopubCh:
		case <-time.After(quiet):
			return
		}
	}
}

// execute sends an execute_request and returns its reply and IOPub messages.
func (c *testClient) execute(code string, extra map[string]any) (wire.Header, *wire.Message, []*wire.Message) {
	c.t.Helper()
	req := map[string]any{"code": code, "silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true}
	for k, v := range extra {
		req[k] = v
	}
	h := c.send("shell", "execute_request", req)
	reply := c.replyTo(c.shellCh, h.MsgID)
	return h, reply, c.iopubFor(h.MsgID)
}

// content decodes a message's content.
func content(t testing.TB, m *wire.Message) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(m.Content, &v); err != nil {
		t.Fatalf("content of %s: %v", m.Header.MsgType, err)
	}
	return v
}

// types lists the msg_type of each message, with the stream name or
// execution state appended ("status:busy", "stream:stdout").
func types(t testing.TB, ms []*wire.Message) []string {
	var out []string
	for _, m := range ms {
		s := m.Header.MsgType
		switch s {
		case "status":
			s += ":" + fmt.Sprint(content(t, m)["execution_state"])
		case "stream":
			s += ":" + fmt.Sprint(content(t, m)["name"])
		}
		out = append(out, s)
	}
	return out
}

// jsonEqual compares a decoded JSON value with want after a JSON round trip.
func jsonEqual(t testing.TB, got any, want any) bool {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	return bytes.Equal(g, w)
}

func zmqMsg(s string) zmq4.Msg { return zmq4.NewMsgString(s) }

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func (f *fakeEngine) LanguageInfo() map[string]any {
	return map[string]any{"name": "go", "version": "1.22", "mimetype": "text/x-go", "file_extension": ".go"}
}
