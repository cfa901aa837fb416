package zmtp

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/graphnb/graphnb/kernel/zmtp/zmtptest"
)

// waitLimit only keeps a broken transport from hanging the tests.
const waitLimit = 20 * time.Second

type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testOptions returns options logging into a buffer the test can read.
func testOptions(t *testing.T) (Options, *logBuffer) {
	logs := &logBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("transport log:\n%s", logs)
		}
	})
	return Options{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}, logs
}

type closer interface {
	Close() error
	Addr() net.Addr
}

func start[S closer](t *testing.T, listen func(string, Options) (S, error), opt Options) S {
	t.Helper()
	s, err := listen("127.0.0.1:0", opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func dial(t *testing.T, s closer, readBuffer int) *zmtptest.Conn {
	t.Helper()
	c, err := zmtptest.Dial(s.Addr().String(), readBuffer)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func handshake(t *testing.T, c *zmtptest.Conn, socketType, identity string) {
	t.Helper()
	props, err := c.Handshake(socketType, identity)
	if err != nil {
		t.Fatalf("handshake as %s: %v", socketType, err)
	}
	if props["socket-type"] == "" {
		t.Fatalf("the server's READY has no Socket-Type: %v", props)
	}
}

func recvWithin(t *testing.T, c *zmtptest.Conn, d time.Duration) ([][]byte, error) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	defer c.SetReadDeadline(time.Time{})
	return c.Recv()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// expectClosed checks that the server closes c within d.
func expectClosed(t *testing.T, c net.Conn, d time.Duration) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	if isTimeout(err) {
		t.Fatalf("the connection is still open after %v", d)
	}
}

// waitLog waits until the log has a line containing text.
func waitLog(t *testing.T, logs *logBuffer, text string) {
	t.Helper()
	for deadline := time.Now().Add(waitLimit); !strings.Contains(logs.String(), text); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("no log line with %q", text)
			return
		}
	}
}

func routerRecv(t *testing.T, r *Router) [][]byte {
	t.Helper()
	ch := make(chan [][]byte, 1)
	go func() {
		m, err := r.Recv()
		if err != nil {
			m = nil
		}
		ch <- m
	}()
	select {
	case m := <-ch:
		if m == nil {
			t.Fatal("Recv failed")
		}
		return m
	case <-time.After(waitLimit):
		t.Fatal("no message arrived")
		return nil
	}
}

func quiet() zmq4.Option { return zmq4.WithLogger(log.New(io.Discard, "", 0)) }

func framesString(f [][]byte) string { return fmt.Sprintf("%q", f) }

// ---- interoperability with a ZeroMQ library (zmq4) ----

func TestRouterWithZMQ4Dealers(t *testing.T) {
	opt, _ := testOptions(t)
	r := start(t, ListenRouter, opt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	big := bytes.Repeat([]byte("b"), 3<<20)
	for _, id := range []string{"alice", "bob"} {
		d := zmq4.NewDealer(ctx, quiet(), zmq4.WithID(zmq4.SocketIdentity(id)))
		defer d.Close()
		if err := d.Dial("tcp://" + r.Addr().String()); err != nil {
			t.Fatal(err)
		}
		if err := d.SendMulti(zmq4.NewMsgFrom([]byte("hello"), []byte{}, big)); err != nil {
			t.Fatal(err)
		}
		m := routerRecv(t, r)
		if len(m) != 4 || string(m[0]) != id || string(m[1]) != "hello" || len(m[2]) != 0 || !bytes.Equal(m[3], big) {
			t.Fatalf("received %d frames from %s: %.40q", len(m), id, m)
		}
		if err := r.Send([][]byte{[]byte(id), []byte("reply to " + id), big}); err != nil {
			t.Fatal(err)
		}
		got, err := d.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Frames) != 2 || string(got.Frames[0]) != "reply to "+id || !bytes.Equal(got.Frames[1], big) {
			t.Fatalf("%s received %.40q", id, got.Frames)
		}
	}
	// A message for a peer that is not connected is dropped.
	if err := r.Send([][]byte{[]byte("nobody"), []byte("x")}); err != nil {
		t.Fatal(err)
	}
}

func TestPubWithZMQ4Sub(t *testing.T) {
	opt, _ := testOptions(t)
	p := start(t, ListenPub, opt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := zmq4.NewSub(ctx, quiet())
	defer sub.Close()
	if err := sub.Dial("tcp://" + p.Addr().String()); err != nil {
		t.Fatal(err)
	}
	if err := sub.SetOption(zmq4.OptionSubscribe, "status"); err != nil {
		t.Fatal(err)
	}
	got := make(chan zmq4.Msg, 100)
	go func() {
		for {
			m, err := sub.Recv()
			if err != nil {
				return
			}
			got <- m
		}
	}()
	// The subscription takes effect asynchronously: publish until it has.
	for deadline := time.Now().Add(waitLimit); ; {
		p.Send([][]byte{[]byte("stream"), []byte("not subscribed")})
		p.Send([][]byte{[]byte("status"), []byte("idle")})
		select {
		case m := <-got:
			if framesString(m.Frames) != framesString([][]byte{[]byte("status"), []byte("idle")}) {
				t.Fatalf("received %q", m.Frames)
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the subscriber received nothing")
		}
	}
}

func TestEchoWithZMQ4Req(t *testing.T) {
	opt, _ := testOptions(t)
	e := start(t, ListenEcho, opt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := zmq4.NewReq(ctx, quiet())
	defer req.Close()
	if err := req.Dial("tcp://" + e.Addr().String()); err != nil {
		t.Fatal(err)
	}
	for _, payload := range []string{"ping", "", strings.Repeat("x", 300)} {
		if err := req.Send(zmq4.NewMsgString(payload)); err != nil {
			t.Fatal(err)
		}
		m, err := req.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Frames) != 1 || string(m.Frames[0]) != payload {
			t.Errorf("sent %q, echoed %q", payload, m.Frames)
		}
	}
}

// ---- the protocol ----

func TestGreetingAndReady(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listen func(t *testing.T) closer
		peer   string
	}{
		{"ROUTER", func(t *testing.T) closer { o, _ := testOptions(t); return start(t, ListenRouter, o) }, "DEALER"},
		{"PUB", func(t *testing.T) closer { o, _ := testOptions(t); return start(t, ListenPub, o) }, "SUB"},
		{"REP", func(t *testing.T) closer { o, _ := testOptions(t); return start(t, ListenEcho, o) }, "REQ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.listen(t)
			c := dial(t, s, 0)
			c.Write(append(zmtptest.Greeting(1), zmtptest.Ready(tc.peer, "")...))
			g := make([]byte, 64)
			if _, err := io.ReadFull(c.R, g); err != nil {
				t.Fatal(err)
			}
			want := zmtptest.Greeting(1)
			if !bytes.Equal(g, want) {
				t.Errorf("greeting % x\nwant     % x", g, want)
			}
			name, data, err := c.RecvCommand()
			if err != nil || name != "READY" {
				t.Fatalf("%q %v", name, err)
			}
			props, err := parseMetadata(data)
			if err != nil || string(props["socket-type"]) != tc.name || len(props) != 1 {
				t.Errorf("READY properties %q (%v)", props, err)
			}
		})
	}
}

func TestRefusedPeers(t *testing.T) {
	opt, logs := testOptions(t)
	r := start(t, ListenRouter, opt)
	wrongMech := zmtptest.Greeting(0)
	copy(wrongMech[12:], "PLAIN")
	zmtp2 := zmtptest.Greeting(0)
	zmtp2[10] = 2
	for _, tc := range []struct {
		name, send, log string
		errorCmd        bool
	}{
		{"socket type", string(zmtptest.Greeting(0)) + string(zmtptest.Ready("PUB", "")), `PUB\" socket cannot connect to a ROUTER socket`, true},
		{"no socket type", string(zmtptest.Greeting(0)) + string(zmtptest.Command("READY", nil)), `a \"\" socket cannot connect`, true},
		{"mechanism", string(wrongMech) + string(zmtptest.Ready("DEALER", "")), `security mechanism \"PLAIN\"`, false},
		{"ZMTP 2", string(zmtp2), "speaks ZMTP 2.x", false},
		{"not ZMTP", "GET / HTTP/1.1\r\nHost: x\r\n\r\n" + strings.Repeat(" ", 64), "not a ZMTP 3 greeting", false},
		{"message before READY", string(zmtptest.Greeting(0)) + string(zmtptest.Message([]byte("hi"))), "a message before READY", false},
		{"other command", string(zmtptest.Greeting(0)) + string(zmtptest.Command("HELLO", nil)), "HELLO where READY was expected", true},
		{"long identity", string(zmtptest.Greeting(0)) + string(zmtptest.Ready("DEALER", strings.Repeat("i", 256))), "identity of 256 bytes", true},
		{"reserved flags", string(zmtptest.Greeting(0)) + "\x44\x00", "reserved flag bits", false},
		{"huge command", string(zmtptest.Greeting(0)) + "\x06" + string(binary.BigEndian.AppendUint64(nil, 1<<20)), "command of 1048576 bytes", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, r, 0)
			c.Write([]byte(tc.send))
			c.SetReadDeadline(time.Now().Add(waitLimit))
			all, err := io.ReadAll(c.R)
			if isTimeout(err) {
				t.Fatal("the connection was not closed")
			}
			if tc.errorCmd && !bytes.Contains(all, []byte("ERROR")) {
				t.Errorf("no ERROR command before closing: %q", all)
			}
			waitLog(t, logs, tc.log)
		})
	}
	// The socket still serves.
	c := dial(t, r, 0)
	handshake(t, c, "DEALER", "after")
	c.Send([]byte("still here"))
	if m := routerRecv(t, r); string(m[1]) != "still here" {
		t.Errorf("%q", m)
	}
}

func TestGeneratedIdentities(t *testing.T) {
	opt, _ := testOptions(t)
	r := start(t, ListenRouter, opt)
	ids := map[string]*zmtptest.Conn{}
	for i := range 3 {
		c := dial(t, r, 0)
		handshake(t, c, "DEALER", "")
		c.Send([]byte(fmt.Sprint(i)))
		m := routerRecv(t, r)
		if len(m[0]) != 5 || m[0][0] != 0 {
			t.Fatalf("generated identity %q: want 5 bytes, the first zero", m[0])
		}
		ids[string(m[0])] = c
	}
	if len(ids) != 3 {
		t.Fatalf("%d distinct identities for 3 peers", len(ids))
	}
	for id, c := range ids {
		r.Send([][]byte{[]byte(id), []byte("for " + id)})
		if m, err := recvWithin(t, c, waitLimit); err != nil || string(m[0]) != "for "+id {
			t.Fatalf("%q %v", m, err)
		}
	}
}

func TestDuplicateIdentity(t *testing.T) {
	opt, logs := testOptions(t)
	r := start(t, ListenRouter, opt)
	a := dial(t, r, 0)
	handshake(t, a, "DEALER", "same")
	a.Send([]byte("from a"))
	routerRecv(t, r)
	b := dial(t, r, 0)
	handshake(t, b, "DEALER", "same")
	b.Send([]byte("from b")) // dropped: a holds the identity
	a.Send([]byte("from a again"))
	if m := routerRecv(t, r); string(m[1]) != "from a again" {
		t.Fatalf("received %q, want a's second message (b's is dropped)", m)
	}
	r.Send([][]byte{[]byte("same"), []byte("for a")})
	if m, err := recvWithin(t, a, waitLimit); err != nil || string(m[0]) != "for a" {
		t.Fatalf("a: %q %v", m, err)
	}
	if m, err := recvWithin(t, b, 300*time.Millisecond); !isTimeout(err) {
		t.Fatalf("b received %q (%v), want nothing", m, err)
	}
	if !strings.Contains(logs.String(), "a second connection announces a routing identity") {
		t.Errorf("no log line about the second connection")
	}

	// When a leaves, b's next message claims the identity.
	a.Close()
	deadline := time.Now().Add(waitLimit)
	for {
		b.Send([]byte("from b"))
		m, err := recvWithinRouter(r, 100*time.Millisecond)
		if err == nil && string(m[1]) == "from b" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("b's messages are still dropped after a left")
		}
	}
	r.Send([][]byte{[]byte("same"), []byte("for b")})
	if m, err := recvWithin(t, b, waitLimit); err != nil || string(m[0]) != "for b" {
		t.Fatalf("b: %q %v", m, err)
	}
}

func recvWithinRouter(r *Router, d time.Duration) ([][]byte, error) {
	select {
	case m := <-r.s.in:
		r.s.budget.give(m.held)
		return m.frames, nil
	case <-time.After(d):
		return nil, errors.New("timeout")
	}
}

func TestSubscriptions(t *testing.T) {
	opt, _ := testOptions(t)
	p := start(t, ListenPub, opt)
	c := dial(t, p, 0)
	handshake(t, c, "SUB", "")
	c.Send([]byte("\x01a"))                             // 3.0: subscribe to "a"
	c.Write(zmtptest.Command("SUBSCRIBE", []byte("b"))) // 3.1
	c.Write(zmtptest.Command("SUBSCRIBE", []byte("b"))) // twice: two cancels needed
	applied := func(topic string) {
		// Subscriptions are applied in order: once the last one took
		// effect, all did.
		deadline := time.Now().Add(waitLimit)
		for {
			p.s.mu.Lock()
			peers := *p.s.subscribers.Load()
			p.s.mu.Unlock()
			if len(peers) == 1 {
				peers[0].qmu.Lock()
				ok := peers[0].matches([]byte(topic))
				peers[0].qmu.Unlock()
				if ok {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("subscription %q never applied", topic)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	applied("b")
	for _, topic := range []string{"a1", "b1", "c1"} {
		p.Send([][]byte{[]byte(topic), []byte("x")})
	}
	c.Send([]byte("\x00a"))                          // cancel "a"
	c.Write(zmtptest.Command("CANCEL", []byte("b"))) // "b" still subscribed once
	c.Send([]byte("\x01zz"))
	applied("zz")
	for _, topic := range []string{"a2", "b2", "zz2"} {
		p.Send([][]byte{[]byte(topic), []byte("x")})
	}
	var got []string
	for range 4 {
		m, err := recvWithin(t, c, waitLimit)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(m[0]))
	}
	if want := "a1 b1 b2 zz2"; strings.Join(got, " ") != want {
		t.Errorf("received %v, want %s", got, want)
	}
}

func TestPing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listen func(t *testing.T) closer
		peer   string
	}{
		{"ROUTER", func(t *testing.T) closer { o, _ := testOptions(t); return start(t, ListenRouter, o) }, "DEALER"},
		{"PUB", func(t *testing.T) closer { o, _ := testOptions(t); return start(t, ListenPub, o) }, "SUB"},
		{"REP", func(t *testing.T) closer { o, _ := testOptions(t); return start(t, ListenEcho, o) }, "REQ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, tc.listen(t), 0)
			handshake(t, c, tc.peer, "")
			c.Write(zmtptest.Command("PING", []byte("\x00\x0actx-123")))
			c.SetReadDeadline(time.Now().Add(waitLimit))
			name, data, err := c.RecvCommand()
			if err != nil || name != "PONG" || string(data) != "ctx-123" {
				t.Errorf("got %q %q %v, want PONG ctx-123", name, data, err)
			}
		})
	}
}

// ---- no peer stalls the others ----

func TestHandshakesAreConcurrent(t *testing.T) {
	opt, logs := testOptions(t)
	opt.HandshakeTimeout = 2 * time.Second
	r := start(t, ListenRouter, opt)
	var stalls []*zmtptest.Conn
	for _, b := range [][]byte{
		nil,
		zmtptest.Greeting(0)[:11],
		zmtptest.Greeting(0),
		append(zmtptest.Greeting(0), zmtptest.Ready("DEALER", "")[:6]...),
	} {
		c := dial(t, r, 0)
		c.Write(b)
		stalls = append(stalls, c)
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	c := dial(t, r, 0)
	handshake(t, c, "DEALER", "")
	c.Send([]byte("hi"))
	routerRecv(t, r)
	elapsed := time.Since(start)
	t.Logf("handshake and first message behind 4 stalled handshakes: %v", elapsed)
	if elapsed >= opt.HandshakeTimeout {
		t.Errorf("a new peer waited %v behind stalled handshakes (timeout %v)", elapsed, opt.HandshakeTimeout)
	}
	for _, s := range stalls {
		expectClosed(t, s, opt.HandshakeTimeout+waitLimit)
	}
	for deadline := time.Now().Add(waitLimit); strings.Count(logs.String(), "did not finish its handshake") < 4 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if n := strings.Count(logs.String(), "did not finish its handshake"); n != 4 {
		t.Errorf("%d log lines about handshakes not finished, want 4", n)
	}
}

func TestPubStalledSubscriber(t *testing.T) {
	opt, logs := testOptions(t)
	opt.SendHWMBytes = 1 << 20
	p := start(t, ListenPub, opt)
	fast := dial(t, p, 0)
	handshake(t, fast, "SUB", "")
	fast.Send([]byte{1})
	stalled := dial(t, p, 4096)
	handshake(t, stalled, "SUB", "")
	stalled.Send([]byte{1})
	for deadline := time.Now().Add(waitLimit); len(*p.s.subscribers.Load()) < 2 || !subscribed(p, 0) || !subscribed(p, 1); {
		if time.Now().After(deadline) {
			t.Fatal("subscriptions never applied")
		}
		time.Sleep(5 * time.Millisecond)
	}

	// The fast subscriber reads everything; the publisher waits for it to
	// keep up (so that its own queue never fills), never for the stalled
	// one.
	const n, size = 1000, 16 << 10
	var received atomic.Int64
	readErr := make(chan error, 1)
	go func() {
		for i := range n {
			m, err := recvWithin(t, fast, waitLimit)
			if err != nil {
				readErr <- err
				return
			}
			if want := fmt.Sprint(i); string(m[0]) != want {
				readErr <- fmt.Errorf("message %q, want %q", m[0], want)
				return
			}
			received.Add(1)
		}
		readErr <- nil
	}()
	body := bytes.Repeat([]byte("m"), size)
	var maxQueued int64
	// The stalled subscriber's peer, by its address: the subscribers are
	// listed in the order their handshakes completed, which a loaded
	// machine may swap.
	var stalledPeer *peer
	for _, sp := range *p.s.subscribers.Load() {
		if sp.remote == stalled.LocalAddr().String() {
			stalledPeer = sp
		}
	}
	if stalledPeer == nil {
		t.Fatalf("no subscriber at the stalled connection's address %s", stalled.LocalAddr())
	}
	for i := range n {
		for int64(i)-received.Load() > 16 {
			time.Sleep(100 * time.Microsecond)
		}
		p.Send([][]byte{[]byte(fmt.Sprint(i)), body})
		stalledPeer.qmu.Lock()
		maxQueued = max(maxQueued, stalledPeer.qBytes)
		stalledPeer.qmu.Unlock()
	}
	if err := <-readErr; err != nil {
		t.Fatalf("the reading subscriber: %v", err)
	}
	stalledPeer.qmu.Lock()
	dropped := stalledPeer.dropped
	stalledPeer.qmu.Unlock()
	t.Logf("the stalled subscriber: at most %d KiB queued, %d of %d messages dropped", maxQueued>>10, dropped, n)
	if maxQueued > opt.SendHWMBytes {
		t.Errorf("%d bytes queued for the stalled subscriber, above its bound %d", maxQueued, opt.SendHWMBytes)
	}
	if dropped == 0 {
		t.Errorf("nothing was dropped for a subscriber that reads nothing")
	}
	if !strings.Contains(logs.String(), "does not read what is sent to it") {
		t.Errorf("no log line about the stalled subscriber")
	}
}

func subscribed(p *Pub, i int) bool {
	peers := *p.s.subscribers.Load()
	if i >= len(peers) {
		return false
	}
	peers[i].qmu.Lock()
	defer peers[i].qmu.Unlock()
	return peers[i].matches(nil)
}

func TestEchoStalledPeer(t *testing.T) {
	opt, _ := testOptions(t)
	e := start(t, ListenEcho, opt)
	stalled := dial(t, e, 4096)
	handshake(t, stalled, "REQ", "")
	msg := zmtptest.Message([]byte{}, bytes.Repeat([]byte("p"), 64<<10))
	var sent atomic.Int64
	go func() {
		stalled.SetWriteDeadline(time.Now().Add(waitLimit))
		for sent.Load() < 256<<20 {
			n, err := stalled.Write(msg)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	for last, since := int64(-1), time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if n := sent.Load(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > 200*time.Millisecond {
			break
		}
		if sent.Load() >= 256<<20 {
			t.Fatal("the socket echoed 256 MiB to a peer that reads nothing")
		}
	}
	c := dial(t, e, 0)
	handshake(t, c, "REQ", "")
	for i := range 5 {
		ping := []byte(fmt.Sprint("ping ", i))
		c.Send([]byte{}, ping)
		if m, err := recvWithin(t, c, waitLimit); err != nil || len(m) != 2 || !bytes.Equal(m[1], ping) {
			t.Fatalf("echo %d: %q %v", i, m, err)
		}
	}
}

// ---- limits ----

func TestFrameLimits(t *testing.T) {
	opt, logs := testOptions(t)
	opt.MaxMessageBytes = 1 << 20
	opt.MaxFrames = 8
	r := start(t, ListenRouter, opt)
	for _, tc := range []struct {
		name string
		send []byte
		log  string
	}{
		{"frame", zmtptest.FrameHeader(false, 1<<40), "frame announces 1099511627776 bytes, the limit is 1048576"},
		{"message", append(zmtptest.Frame(true, make([]byte, 700<<10)), zmtptest.FrameHeader(false, 700<<10)...), "message grows to 1433600 bytes"},
		{"frames", bytes.Repeat(zmtptest.Frame(true, []byte("f")), 9), "message of more than 8 frames"},
		{"command", []byte("\x06\x00\x00\x00\x00\x00\x10\x00\x00"), "command of 1048576 bytes"},
		{"command in a message", append(zmtptest.Frame(true, []byte("f")), zmtptest.Command("PING", []byte("\x00\x00"))...), "a command inside a multipart message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, r, 0)
			handshake(t, c, "DEALER", "")
			c.Write(tc.send)
			expectClosed(t, c, waitLimit)
			waitLog(t, logs, tc.log)
		})
	}
	if u := r.s.budget.Used(); u != 0 {
		t.Errorf("the budget holds %d bytes after every message was refused", u)
	}
}

func TestBudget(t *testing.T) {
	opt, logs := testOptions(t)
	opt.MaxMessageBytes = 8 << 20
	opt.Budget = NewBudget(10 << 20)
	r := start(t, ListenRouter, opt)
	// A holds 6 MiB of a message it never finishes.
	a := dial(t, r, 0)
	handshake(t, a, "DEALER", "a")
	a.Write(append(zmtptest.FrameHeader(false, 6<<20), make([]byte, 1<<20)...))
	for deadline := time.Now().Add(waitLimit); r.s.budget.Used() < 6<<20; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the budget never counted a's frame")
		}
	}
	// B's 6 MiB frame would pass the budget: B is disconnected.
	b := dial(t, r, 0)
	handshake(t, b, "DEALER", "b")
	b.Write(zmtptest.FrameHeader(false, 6<<20))
	expectClosed(t, b, waitLimit)
	waitLog(t, logs, "past its limit of 10485760 bytes")
	// Small messages still pass.
	c := dial(t, r, 0)
	handshake(t, c, "DEALER", "c")
	c.Send(make([]byte, 512<<10))
	if m := routerRecv(t, r); len(m[1]) != 512<<10 {
		t.Fatalf("%d bytes", len(m[1]))
	}
	// When a leaves, its bytes are given back.
	a.Close()
	for deadline := time.Now().Add(waitLimit); r.s.budget.Used() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the budget still holds %d bytes", r.s.budget.Used())
		}
	}
}

// ---- closing ----

func TestCloseDeliversQueuedAndLeaksNothing(t *testing.T) {
	runtime.GC()
	before := runtime.NumGoroutine()
	opt, _ := testOptions(t)
	r, err := ListenRouter("127.0.0.1:0", opt)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ListenPub("127.0.0.1:0", opt)
	if err != nil {
		t.Fatal(err)
	}
	e, err := ListenEcho("127.0.0.1:0", opt)
	if err != nil {
		t.Fatal(err)
	}
	var conns []*zmtptest.Conn
	connect := func(s closer, peer string, readBuffer int) *zmtptest.Conn {
		c := dial(t, s, readBuffer)
		if peer != "" {
			handshake(t, c, peer, "")
		}
		conns = append(conns, c)
		return c
	}
	d := connect(r, "DEALER", 0)
	d.Send([]byte("hi"))
	id := routerRecv(t, r)[0]
	stalledSub := connect(p, "SUB", 4096)
	stalledSub.Send([]byte{1})
	connect(e, "REQ", 0)
	connect(r, "", 0).Write(zmtptest.Greeting(0)) // stalled handshake
	for deadline := time.Now().Add(waitLimit); !subscribed(p, 0); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("subscription never applied")
		}
	}
	for range 200 {
		p.Send([][]byte{[]byte("topic"), make([]byte, 64<<10)})
	}
	r.Send([][]byte{id, []byte("last words")})

	start := time.Now()
	for _, s := range []closer{r, p, e} {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	if took := time.Since(start); took > 3*DefaultLinger+5*time.Second {
		t.Errorf("closing took %v", took)
	}
	if m, err := recvWithin(t, d, waitLimit); err != nil || string(m[0]) != "last words" {
		t.Errorf("a message queued before Close: %q %v", m, err)
	}
	for _, c := range conns {
		if c == stalledSub {
			// Closed too (FIN-WAIT-1), but what the kernel's send
			// buffer holds drains through its 4 KiB window for minutes.
			continue
		}
		expectClosed(t, c, waitLimit)
	}
	if _, err := r.Recv(); !errors.Is(err, ErrClosed) {
		t.Errorf("Recv after Close: %v", err)
	}
	if err := p.Send([][]byte{[]byte("x")}); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
	if _, err := net.Dial("tcp", r.Addr().String()); err == nil {
		t.Errorf("the port still accepts connections after Close")
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
