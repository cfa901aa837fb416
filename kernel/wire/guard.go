package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/transport"
)

// GuardScheme is the transport name under which the first Guard of the
// process is registered with zmq4 (RegisterGuard): sockets bind
// "gnbtcp://ip:port".
const GuardScheme = "gnbtcp"

// DefaultHandshakeTimeout bounds how long an accepted connection may take
// to send its ZMTP greeting and first command when Guard.HandshakeTimeout
// is zero.
const DefaultHandshakeTimeout = 10 * time.Second

// ZMTP 3.x framing constants.
const (
	zmtpGreetingLen  = 64
	zmtpSignatureLen = 10
	zmtpFlagMore     = 0x01
	zmtpFlagLong     = 0x02
	zmtpFlagCommand  = 0x04
)

// Guard is a zmq4 transport over TCP that protects the process from
// peers that announce huge ZMTP frames. zmq4 v0.17.0 allocates a buffer of
// whatever size a frame header declares (up to 2^63 bytes); Guard follows
// the byte stream of each connection (the 64-byte greeting, then frames:
// a flags byte, a 1- or 8-byte big-endian size, the body) and, as soon as
// a frame header declares more than Limits.MaxMessageBytes, or a
// multipart message grows past that total or past Limits.MaxFrames
// frames, logs an error and closes the connection before zmq4 reads the
// body. Other connections are not affected.
//
// zmq4 performs the handshake of each accepted connection on the socket's
// single accept goroutine, so one silent peer would stall every later
// client: Guard's listener waits for the first 10 greeting bytes on a
// goroutine of its own before handing a connection over, and bounds the
// rest of the handshake with a read deadline (HandshakeTimeout, counted
// from the hand-over) that is lifted once the peer's first ZMTP command
// (READY) has arrived. A peer that sends those 10 bytes and then stalls
// still delays later handshakes by up to HandshakeTimeout.
//
// Guard also coalesces what zmq4 writes: zmq4 sends every frame header
// and body with a separate write (one TCP segment each, with Nagle off),
// so a connection buffers the bytes of one greeting, command or whole
// multipart message and writes them with one system call (larger messages
// go out every 256 KiB).
//
// A Guard is registered with RegisterGuard; its fields must not change
// afterwards.
type Guard struct {
	// Limits bound frames and messages; zero fields take DefaultLimits.
	Limits Limits
	// HandshakeTimeout bounds the greeting and handshake of an accepted
	// connection; zero means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// Logger receives a line for every connection the guard closes; nil
	// means slog.Default().
	Logger *slog.Logger
}

var (
	registerMu sync.Mutex
	registered int
)

// RegisterGuard registers g with zmq4 and returns its scheme: GuardScheme
// for the first Guard of the process, "gnbtcp2", "gnbtcp3", … for later
// ones (zmq4 keeps registrations for the life of the process).
func RegisterGuard(g *Guard) (scheme string, err error) {
	registerMu.Lock()
	defer registerMu.Unlock()
	for {
		registered++
		scheme = GuardScheme
		if registered > 1 {
			scheme = fmt.Sprintf("%s%d", GuardScheme, registered)
		}
		err = zmq4.RegisterTransport(scheme, g)
		if err == nil {
			return scheme, nil
		}
		if registered > 1000 {
			return "", fmt.Errorf("wire: registering the guard transport: %w", err)
		}
	}
}

func (g *Guard) limits() Limits { return g.Limits.withDefaults() }

func (g *Guard) logger() *slog.Logger {
	if g.Logger != nil {
		return g.Logger
	}
	return slog.Default()
}

func (g *Guard) handshakeTimeout() time.Duration {
	if g.HandshakeTimeout > 0 {
		return g.HandshakeTimeout
	}
	return DefaultHandshakeTimeout
}

// Dial connects to addr over TCP; the connection's inbound stream is
// guarded like an accepted one (without the handshake deadline).
func (g *Guard) Dial(ctx context.Context, dialer transport.Dialer, addr string) (net.Conn, error) {
	c, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &guardConn{Conn: c, g: g, parser: zmtpParser{lim: g.limits()}, handshakeDone: true}, nil
}

// Listen announces on the TCP address addr ("ip:port").
func (g *Guard) Listen(ctx context.Context, addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	gl := &guardListener{
		Listener: l,
		g:        g,
		conns:    make(chan net.Conn),
		done:     make(chan struct{}),
		pending:  make(map[net.Conn]struct{}),
	}
	go gl.loop()
	return gl, nil
}

// Addr normalises an end-point "host:port" as zmq4's tcp transport does:
// an empty or "*" host means all interfaces, "*" or "" port means any.
func (g *Guard) Addr(ep string) (string, error) {
	host, port, err := net.SplitHostPort(ep)
	if err != nil {
		return "", err
	}
	switch port {
	case "", "*":
		port = "0"
	}
	switch host {
	case "", "*":
		host = "0.0.0.0"
	}
	return net.JoinHostPort(host, port), nil
}

var _ transport.Transport = (*Guard)(nil)

// guardListener accepts TCP connections and hands them to zmq4 once they
// have sent the ZMTP signature (first 10 bytes of the greeting).
type guardListener struct {
	net.Listener
	g     *Guard
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once

	mu      sync.Mutex
	pending map[net.Conn]struct{}
}

func (l *guardListener) loop() {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			select {
			case <-l.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors
			continue
		}
		l.mu.Lock()
		l.pending[c] = struct{}{}
		l.mu.Unlock()
		go l.prepare(c)
	}
}

func (l *guardListener) prepare(c net.Conn) {
	defer func() {
		l.mu.Lock()
		delete(l.pending, c)
		l.mu.Unlock()
	}()
	_ = c.SetReadDeadline(time.Now().Add(l.g.handshakeTimeout()))
	sig := make([]byte, zmtpSignatureLen)
	if _, err := io.ReadFull(c, sig); err != nil {
		l.g.logger().Warn("zmtp: closing a connection that sent no greeting", "remote", c.RemoteAddr().String(), "err", err)
		c.Close()
		return
	}
	gc := &guardConn{Conn: c, g: l.g, pre: sig, parser: zmtpParser{lim: l.g.limits()}}
	select {
	case l.conns <- gc:
	case <-l.done:
		c.Close()
	}
}

// Accept returns the next connection that has sent its ZMTP signature,
// with a read deadline HandshakeTimeout from now.
func (l *guardListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		// zmq4 starts the handshake now; the deadline covers it.
		_ = c.SetReadDeadline(time.Now().Add(l.g.handshakeTimeout()))
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops listening and closes connections still in their greeting.
func (l *guardListener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.done)
		err = l.Listener.Close()
		l.mu.Lock()
		for c := range l.pending {
			c.Close()
		}
		l.mu.Unlock()
	})
	return err
}

// guardConn checks every byte zmq4 reads against the ZMTP framing.
type guardConn struct {
	net.Conn
	g             *Guard
	pre           []byte // bytes read ahead by the listener, replayed first
	parser        zmtpParser
	handshakeDone bool
	err           error

	// Outbound coalescing: zmq4 writes each frame header and body with a
	// separate Write (and net.Buffers cannot use writev through a
	// wrapper), so Write collects the bytes of one ZMTP unit (greeting,
	// command, or whole multipart message) and sends them with one
	// system call once the unit is complete.
	wmu  sync.Mutex
	wbuf []byte
	out  zmtpParser
	werr error
}

// flushAt is the buffered size at which Write sends even in the middle of
// a message, in bytes.
const flushAt = 256 << 10

// Write buffers p until the ZMTP unit it belongs to is complete, then
// writes the unit at once. An error of that write is returned by the Write
// that completed the unit (or a later one).
func (c *guardConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return 0, c.werr
	}
	c.out.noLimits = true
	ends := c.out.ends
	_ = c.out.feed(p)
	if c.out.ends == ends && len(c.wbuf)+len(p) < flushAt {
		c.wbuf = append(c.wbuf, p...)
		return len(p), nil
	}
	var err error
	if len(c.wbuf) == 0 {
		_, err = c.Conn.Write(p)
	} else {
		c.wbuf = append(c.wbuf, p...)
		_, err = c.Conn.Write(c.wbuf)
		if cap(c.wbuf) > 4*flushAt {
			c.wbuf = nil
		} else {
			c.wbuf = c.wbuf[:0]
		}
	}
	if err != nil {
		c.werr = err
		return 0, err
	}
	return len(p), nil
}

// Read reads from the connection and validates what it returns. A frame
// header over the limits closes the connection and returns a *FrameError
// (a net.Error, so zmq4 drops the connection) instead of the header's last
// bytes.
func (c *guardConn) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	var n int
	var err error
	if len(c.pre) > 0 {
		n = copy(p, c.pre)
		c.pre = c.pre[n:]
	} else {
		n, err = c.Conn.Read(p)
	}
	if n > 0 {
		if perr := c.parser.feed(p[:n]); perr != nil {
			c.g.logger().Error("zmtp: closing connection", "remote", c.RemoteAddr().String(), "err", perr)
			c.err = perr
			c.Conn.Close()
			return 0, perr
		}
		if !c.handshakeDone && c.parser.commands > 0 {
			c.handshakeDone = true
			_ = c.Conn.SetReadDeadline(time.Time{})
		}
	}
	if err != nil && !c.handshakeDone {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			c.g.logger().Warn("zmtp: closing a connection that did not finish its handshake", "remote", c.RemoteAddr().String(), "timeout", c.g.handshakeTimeout())
		}
		c.Conn.Close()
	}
	return n, err
}

// FrameError reports a ZMTP frame or message over the Guard's limits. It
// is a net.Error (not a timeout) and wraps ErrTooLarge or ErrTooManyFrames.
type FrameError struct {
	// Size is the announced frame size or message total in bytes, or the
	// frame count.
	Size uint64
	// Limit is the limit Size exceeds.
	Limit int64
	// What says which limit: "frame", "message" or "frames".
	What string
}

func (e *FrameError) Error() string {
	switch e.What {
	case "frames":
		return fmt.Sprintf("zmtp: message of more than %d frames", e.Limit)
	case "message":
		return fmt.Sprintf("zmtp: message grows to %d bytes, the limit is %d", e.Size, e.Limit)
	default:
		return fmt.Sprintf("zmtp: frame announces %d bytes, the limit is %d", e.Size, e.Limit)
	}
}

// Unwrap returns ErrTooManyFrames or ErrTooLarge.
func (e *FrameError) Unwrap() error {
	if e.What == "frames" {
		return ErrTooManyFrames
	}
	return ErrTooLarge
}

// Timeout is false: the connection is closed for good.
func (e *FrameError) Timeout() bool { return false }

// Temporary is false.
func (e *FrameError) Temporary() bool { return false }

var _ net.Error = (*FrameError)(nil)

// zmtpParser follows a ZMTP 3.x inbound byte stream.
type zmtpParser struct {
	lim   Limits
	state int
	need  uint64 // bytes still expected in the current state
	flags byte
	size  [8]byte
	sizeN int
	// the multipart message being received
	msgBytes  uint64
	msgFrames int
	commands  int // command frames completed
	started   bool
	// ends counts completed units: the greeting, commands, and the last
	// frame of each message.
	ends int
	// noLimits disables the checks (for the outbound stream).
	noLimits bool
}

const (
	stGreeting = iota
	stFlags
	stSize
	stBody
)

func (p *zmtpParser) feed(b []byte) error {
	if !p.started {
		p.started = true
		p.state, p.need = stGreeting, zmtpGreetingLen
	}
	for len(b) > 0 {
		switch p.state {
		case stGreeting:
			k := min(uint64(len(b)), p.need)
			p.need -= k
			b = b[k:]
			if p.need == 0 {
				p.state = stFlags
				p.ends++
			}
		case stFlags:
			p.flags = b[0]
			b = b[1:]
			p.state, p.sizeN = stSize, 0
			p.need = 1
			if p.flags&zmtpFlagLong != 0 {
				p.need = 8
			}
		case stSize:
			k := min(uint64(len(b)), p.need)
			p.sizeN += copy(p.size[p.sizeN:], b[:k])
			p.need -= k
			b = b[k:]
			if p.need > 0 {
				continue
			}
			var size uint64
			if p.sizeN == 8 {
				size = binary.BigEndian.Uint64(p.size[:])
			} else {
				size = uint64(p.size[0])
			}
			if err := p.check(size); err != nil {
				return err
			}
			p.state, p.need = stBody, size
			if size == 0 {
				p.frameDone()
			}
		case stBody:
			k := min(uint64(len(b)), p.need)
			p.need -= k
			b = b[k:]
			if p.need == 0 {
				p.frameDone()
			}
		}
	}
	return nil
}

func (p *zmtpParser) check(size uint64) error {
	if p.noLimits {
		return nil
	}
	limit := uint64(p.lim.MaxMessageBytes)
	if size > limit {
		return &FrameError{Size: size, Limit: p.lim.MaxMessageBytes, What: "frame"}
	}
	if p.flags&zmtpFlagCommand != 0 {
		return nil
	}
	if p.msgFrames+1 > p.lim.MaxFrames {
		return &FrameError{Size: uint64(p.msgFrames + 1), Limit: int64(p.lim.MaxFrames), What: "frames"}
	}
	if p.msgBytes+size > limit {
		return &FrameError{Size: p.msgBytes + size, Limit: p.lim.MaxMessageBytes, What: "message"}
	}
	p.msgFrames++
	p.msgBytes += size
	return nil
}

func (p *zmtpParser) frameDone() {
	p.state = stFlags
	switch {
	case p.flags&zmtpFlagCommand != 0:
		p.commands++
		p.ends++
	case p.flags&zmtpFlagMore == 0:
		p.msgFrames, p.msgBytes = 0, 0
		p.ends++
	}
}
