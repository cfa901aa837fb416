package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// zmtpGreeting is a ZMTP 3.0 greeting for the NULL mechanism.
func zmtpGreeting() []byte {
	g := make([]byte, 64)
	g[0], g[9], g[10], g[11] = 0xff, 0x7f, 3, 0
	copy(g[12:], "NULL")
	return g
}

func zmtpProp(name, value string) []byte {
	b := []byte{byte(len(name))}
	b = append(b, name...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(value)))
	return append(b, value...)
}

// zmtpReady is the READY command frame of a DEALER.
func zmtpReady() []byte {
	body := append([]byte("\x05READY"), zmtpProp("Socket-Type", "DEALER")...)
	body = append(body, zmtpProp("Identity", "")...)
	return append([]byte{zmtpFlagCommand, byte(len(body))}, body...)
}

func longHeader(flags byte, size uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{flags | zmtpFlagLong}, size)
}

func shortFrame(flags byte, body string) []byte {
	return append([]byte{flags, byte(len(body))}, body...)
}

func TestZMTPParser(t *testing.T) {
	lim := Limits{MaxMessageBytes: 1000, MaxFrames: 3}.withDefaults()
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name    string
		stream  []byte
		wantErr error
		cmds    int
	}{
		{"greeting only", zmtpGreeting(), nil, 0},
		{"ready and a message", cat(zmtpGreeting(), zmtpReady(), shortFrame(zmtpFlagMore, "a"), shortFrame(0, "b")), nil, 1},
		{"long frame within limit", cat(zmtpGreeting(), longHeader(0, 1000), make([]byte, 1000)), nil, 0},
		{"long frame over limit", cat(zmtpGreeting(), zmtpReady(), longHeader(0, 1<<40)), ErrTooLarge, 1},
		{"huge size 2^63+", cat(zmtpGreeting(), longHeader(0, 1<<63+5)), ErrTooLarge, 0},
		{"command over limit", cat(zmtpGreeting(), longHeader(zmtpFlagCommand, 1001)), ErrTooLarge, 0},
		{"message total over limit", cat(zmtpGreeting(), longHeader(zmtpFlagMore, 600), make([]byte, 600), longHeader(0, 600)), ErrTooLarge, 0},
		{"too many frames", cat(zmtpGreeting(), shortFrame(1, "a"), shortFrame(1, "b"), shortFrame(1, "c"), shortFrame(0, "d")), ErrTooManyFrames, 0},
		{"counters reset per message", cat(zmtpGreeting(), shortFrame(1, "a"), shortFrame(0, "b"), shortFrame(1, "c"), shortFrame(1, "d"), shortFrame(0, "e")), nil, 0},
		{"empty frames", cat(zmtpGreeting(), shortFrame(1, ""), shortFrame(0, "")), nil, 0},
	}
	for _, tc := range tests {
		for _, chunk := range []int{1, 3, 1 << 20} {
			p := zmtpParser{lim: lim}
			var err error
			for s := tc.stream; len(s) > 0 && err == nil; {
				k := min(chunk, len(s))
				err = p.feed(s[:k])
				s = s[k:]
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Errorf("%s (chunks of %d): err %v, want %v", tc.name, chunk, err, tc.wantErr)
			}
			if tc.wantErr == nil && p.commands != tc.cmds {
				t.Errorf("%s (chunks of %d): %d commands, want %d", tc.name, chunk, p.commands, tc.cmds)
			}
		}
	}
}

// logSink collects log records for assertions.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func startGuardedRouter(t *testing.T, g *Guard) (zmq4.Socket, string) {
	t.Helper()
	scheme, err := RegisterGuard(g)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := zmq4.NewRouter(ctx, zmq4.WithLogger(log.New(io.Discard, "", 0)))
	if err := r.Listen(scheme + "://127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); cancel() })
	return r, r.Addr().String()
}

// recvWithin receives one message or fails after d (a guard against a hung
// test, not a speed assertion).
func recvWithin(t *testing.T, s zmq4.Socket, d time.Duration) zmq4.Msg {
	t.Helper()
	ch := make(chan zmq4.Msg, 1)
	go func() {
		m, err := s.Recv()
		if err != nil {
			m = zmq4.Msg{}
		}
		ch <- m
	}()
	select {
	case m := <-ch:
		return m
	case <-time.After(d):
		t.Fatalf("no message within %v", d)
		return zmq4.Msg{}
	}
}

func dealerRoundTrip(t *testing.T, router zmq4.Socket, addr, payload string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := zmq4.NewDealer(ctx, zmq4.WithLogger(log.New(io.Discard, "", 0)))
	defer d.Close()
	if err := d.Dial("tcp://" + addr); err != nil {
		t.Fatal(err)
	}
	if err := d.Send(zmq4.NewMsgString(payload)); err != nil {
		t.Fatal(err)
	}
	m := recvWithin(t, router, 10*time.Second)
	if len(m.Frames) != 2 || string(m.Frames[1]) != payload {
		t.Fatalf("router received %q, want [id %q]", m.Frames, payload)
	}
}

// expectClosed reads from c until the peer closes it.
func expectClosed(t *testing.T, c net.Conn) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the connection was not closed by the server")
	}
}

func TestGuardClosesOversizeFrame(t *testing.T) {
	var logs logSink
	g := &Guard{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	router, addr := startGuardedRouter(t, g)

	cases := []struct {
		name   string
		stream []byte
	}{
		{"message frame of 2^40 bytes", bytes.Join([][]byte{zmtpGreeting(), zmtpReady(), longHeader(0, 1<<40)}, nil)},
		{"command of 2^40 bytes during handshake", bytes.Join([][]byte{zmtpGreeting(), longHeader(zmtpFlagCommand, 1<<40)}, nil)},
		{"size 2^64-1", bytes.Join([][]byte{zmtpGreeting(), zmtpReady(), longHeader(zmtpFlagMore, 1<<64-1)}, nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Write(tc.stream); err != nil {
				t.Fatal(err)
			}
			expectClosed(t, c)
			// The socket still serves other clients.
			dealerRoundTrip(t, router, addr, "after "+tc.name)
		})
	}
	if !bytes.Contains([]byte(logs.String()), []byte("frame announces")) {
		t.Errorf("no log line about the oversize frame; log:\n%s", logs.String())
	}
}

func TestGuardSilentPeerDoesNotBlockAccept(t *testing.T) {
	g := &Guard{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), HandshakeTimeout: 300 * time.Millisecond}
	router, addr := startGuardedRouter(t, g)
	// One peer says nothing, another sends only the signature and stalls.
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	stalled, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	if _, err := stalled.Write(zmtpGreeting()[:10]); err != nil {
		t.Fatal(err)
	}
	dealerRoundTrip(t, router, addr, "hello")
	// Both are eventually closed by the handshake deadline.
	expectClosed(t, silent)
	expectClosed(t, stalled)
	dealerRoundTrip(t, router, addr, "still alive")
}

func TestGuardAddr(t *testing.T) {
	g := &Guard{}
	for in, want := range map[string]string{
		"127.0.0.1:5555": "127.0.0.1:5555",
		"*:5555":         "0.0.0.0:5555",
		"127.0.0.1:*":    "127.0.0.1:0",
		"[::1]:7":        "[::1]:7",
	} {
		got, err := g.Addr(in)
		if err != nil || got != want {
			t.Errorf("Addr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := g.Addr("no-port"); err == nil {
		t.Error("Addr without a port: no error")
	}
}

// recordingConn records the Write calls that reach the network.
type recordingConn struct {
	net.Conn
	writes [][]byte
}

func (r *recordingConn) Write(p []byte) (int, error) {
	r.writes = append(r.writes, bytes.Clone(p))
	return len(p), nil
}

func TestGuardCoalescesWrites(t *testing.T) {
	rec := &recordingConn{}
	c := &guardConn{Conn: rec, g: &Guard{}, handshakeDone: true}
	var all bytes.Buffer
	write := func(p []byte) {
		all.Write(p)
		if n, err := c.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	// The greeting goes out whole.
	write(zmtpGreeting())
	if len(rec.writes) != 1 {
		t.Fatalf("%d writes after the greeting, want 1", len(rec.writes))
	}
	// A command written as header then body: one write.
	ready := zmtpReady()
	write(ready[:2])
	write(ready[2:])
	if len(rec.writes) != 2 {
		t.Fatalf("%d writes after READY, want 2", len(rec.writes))
	}
	// A three-frame message written frame by frame, header and body apart.
	for i, body := range []string{"id", "", "payload"} {
		flags := byte(zmtpFlagMore)
		if i == 2 {
			flags = 0
		}
		write([]byte{flags, byte(len(body))})
		if body != "" {
			write([]byte(body))
		}
		if want := 2 + i/2; len(rec.writes) != want {
			t.Fatalf("after frame %d: %d writes, want %d", i, len(rec.writes), want)
		}
	}
	// A long frame larger than the buffer threshold is not held whole.
	write(longHeader(0, 3*flushAt))
	write(make([]byte, 3*flushAt))
	if got := bytes.Join(rec.writes, nil); !bytes.Equal(got, all.Bytes()) {
		t.Fatalf("the network saw %d bytes, want the %d written, in order", len(got), all.Len())
	}
}

func TestGuardRoundTripLargeMessage(t *testing.T) {
	router, addr := startGuardedRouter(t, &Guard{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The dealer dials through a guard too, so both directions coalesce.
	scheme, err := RegisterGuard(&Guard{})
	if err != nil {
		t.Fatal(err)
	}
	d := zmq4.NewDealer(ctx, zmq4.WithLogger(log.New(io.Discard, "", 0)))
	defer d.Close()
	if err := d.Dial(scheme + "://" + addr); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("0123456789"), 100_000)
	if err := d.Send(zmq4.NewMsgFrom([]byte("a"), big, []byte("z"))); err != nil {
		t.Fatal(err)
	}
	m := recvWithin(t, router, 10*time.Second)
	if len(m.Frames) != 4 || !bytes.Equal(m.Frames[2], big) || string(m.Frames[3]) != "z" {
		t.Fatalf("router got %d frames", len(m.Frames))
	}
	// And back, with SendMulti (writev in zmq4, one buffer per frame here).
	if err := router.SendMulti(zmq4.NewMsgFrom(m.Frames[0], []byte("reply"), big)); err != nil {
		t.Fatal(err)
	}
	r := recvWithin(t, d, 10*time.Second)
	if len(r.Frames) != 2 || string(r.Frames[0]) != "reply" || !bytes.Equal(r.Frames[1], big) {
		t.Fatalf("dealer got %d frames", len(r.Frames))
	}
}
