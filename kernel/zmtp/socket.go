package zmtp

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxMessageBytes  = 64 << 20
	DefaultMaxFrames        = 1024
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultSendHWM          = 1000
	DefaultSendHWMBytes     = 32 << 20
	DefaultLinger           = 500 * time.Millisecond
)

// SmallMessageBytes is the size up to which a message is read whatever
// its Budget holds (see Budget).
const SmallMessageBytes = 1 << 20

// Buffer sizes of a connection.
const (
	readBufferSize  = 16 << 10
	writeBufferSize = 32 << 10
)

// ErrClosed is returned by the methods of a closed socket.
var ErrClosed = errors.New("zmtp: socket closed")

// errClosedByUs is how a peer ends when its socket closes.
var errClosedByUs = errors.New("zmtp: closed")

// Options configure a socket. The zero value is ready to use.
type Options struct {
	// MaxMessageBytes bounds one incoming message (the sum of its frame
	// sizes), and so any frame; 0 means DefaultMaxMessageBytes. A peer
	// whose frame header announces more is disconnected before the body
	// is read. PUB sockets accept at most MaxCommandBytes from a
	// subscriber whatever this says.
	MaxMessageBytes int64
	// MaxFrames bounds the frames of one incoming message; 0 means
	// DefaultMaxFrames.
	MaxFrames int
	// Budget bounds the memory held by incoming messages across the
	// sockets that share it; nil means a Budget of this socket's own of
	// twice MaxMessageBytes.
	Budget *Budget
	// HandshakeTimeout bounds how long a connection may take to send its
	// greeting and READY command; 0 means DefaultHandshakeTimeout. Every
	// handshake runs on a goroutine of its own: a stalled one delays no
	// other connection.
	HandshakeTimeout time.Duration
	// SendHWM and SendHWMBytes bound the messages queued for one peer
	// (ROUTER and PUB): a message that would pass either is dropped for
	// that peer alone, as libzmq does at its send high-water mark; 0 means
	// DefaultSendHWM and DefaultSendHWMBytes.
	SendHWM      int
	SendHWMBytes int64
	// Linger bounds how long Close lets queued messages go out; 0 means
	// DefaultLinger, a negative value none.
	Linger time.Duration
	// Logger receives a line for each connection refused or closed for
	// breaking the protocol or a limit, and for each peer whose messages
	// start being dropped; nil means slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxFrames <= 0 {
		o.MaxFrames = DefaultMaxFrames
	}
	if o.Budget == nil {
		o.Budget = NewBudget(2 * o.MaxMessageBytes)
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.SendHWM <= 0 {
		o.SendHWM = DefaultSendHWM
	}
	if o.SendHWMBytes <= 0 {
		o.SendHWMBytes = DefaultSendHWMBytes
	}
	if o.Linger == 0 {
		o.Linger = DefaultLinger
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Budget bounds the memory that incoming messages hold, counted from the
// header of each frame until the message is handed over (Router.Recv),
// applied (a subscription) or echoed (Echo). A frame that would take the
// total past the limit disconnects its peer, unless its message is still
// within SmallMessageBytes: small messages, which every request of a
// Jupyter client is, are always read, so that peers holding the budget
// with large messages cannot lock the others out. Memory is thus bounded
// by the limit plus SmallMessageBytes per connection. A Budget is safe
// for concurrent use.
type Budget struct {
	limit int64
	used  atomic.Int64
}

// NewBudget returns a Budget of limit bytes.
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// Used returns the bytes held now.
func (b *Budget) Used() int64 { return b.used.Load() }

// take reserves n bytes for a message already holding held.
func (b *Budget) take(n, held int64) bool {
	for {
		u := b.used.Load()
		if held+n > SmallMessageBytes && u+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

func (b *Budget) give(n int64) {
	if n != 0 {
		b.used.Add(-n)
	}
}

var releasePending atomic.Bool

// ReleaseMemorySoon returns memory that discarded messages held to the
// operating system within about 100 ms (debug.FreeOSMemory, which
// collects garbage first); calls in the meantime are coalesced. Go's
// runtime would otherwise keep the pages of a burst of large messages
// until its next collection, which an idle process may not run for
// minutes.
func ReleaseMemorySoon() {
	if releasePending.CompareAndSwap(false, true) {
		time.AfterFunc(100*time.Millisecond, func() {
			releasePending.Store(false)
			debug.FreeOSMemory()
		})
	}
}

// kind is a socket type this package serves.
type kind uint8

const (
	kindRouter kind = iota
	kindPub
	kindEcho
)

func (k kind) String() string {
	switch k {
	case kindRouter:
		return "ROUTER"
	case kindPub:
		return "PUB"
	default:
		return "REP"
	}
}

// accepts reports whether a peer of socket type t may connect (the table
// of 23/ZMTP).
func (k kind) accepts(t string) bool {
	switch k {
	case kindRouter:
		return t == "REQ" || t == "DEALER" || t == "ROUTER"
	case kindPub:
		return t == "SUB" || t == "XSUB"
	default:
		return t == "REQ" || t == "DEALER"
	}
}

// message is an incoming message and the bytes it holds in the budget.
type message struct {
	frames [][]byte
	held   int64
}

// socket is what the three socket types share: the listener, the
// handshakes and the peers.
type socket struct {
	kind   kind
	opt    Options
	log    *slog.Logger
	ln     net.Listener
	budget *Budget
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once

	mu      sync.Mutex
	closed  bool
	pending map[net.Conn]struct{}
	peers   map[*peer]struct{}
	byID    map[string]*peer // ROUTER: who holds each identity
	nextID  uint32

	subscribers atomic.Pointer[[]*peer] // PUB: the peers, copied on change
	in          chan *message           // ROUTER: messages for Recv
}

func listen(k kind, addr string, opt Options) (*socket, error) {
	opt = opt.withDefaults()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &socket{
		kind: k, opt: opt, log: opt.Logger, ln: ln, budget: opt.Budget,
		done:    make(chan struct{}),
		pending: map[net.Conn]struct{}{},
		peers:   map[*peer]struct{}{},
		byID:    map[string]*peer{},
		in:      make(chan *message, 64),
	}
	var seed [4]byte
	_, _ = rand.Read(seed[:])
	s.nextID = binary.BigEndian.Uint32(seed[:])
	s.subscribers.Store(&[]*peer{})
	s.wg.Add(1)
	go s.acceptLoop()
	return s, nil
}

func (s *socket) maxMessage() int64 {
	if s.kind == kindPub {
		return min(s.opt.MaxMessageBytes, MaxCommandBytes)
	}
	return s.opt.MaxMessageBytes
}

func (s *socket) acceptLoop() {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors, say: wait, then accept again.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			if backoff == time.Second {
				s.log.Warn("zmtp: accepting a connection failed", "err", err)
			}
			select {
			case <-time.After(backoff):
			case <-s.done:
				return
			}
			continue
		}
		backoff = 0
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			conn.Close()
			return
		}
		s.pending[conn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(conn)
	}
}

// serve handshakes conn on its own goroutine, then reads from the peer.
func (s *socket) serve(conn net.Conn) {
	defer s.wg.Done()
	p, err := s.handshake(conn)
	s.mu.Lock()
	delete(s.pending, conn)
	if err != nil || s.closed {
		closed := s.closed
		s.mu.Unlock()
		if err != nil && !closed {
			s.logHandshake(conn, err)
		}
		conn.Close()
		return
	}
	s.peers[p] = struct{}{}
	var held *peer
	switch s.kind {
	case kindRouter:
		if len(p.id) == 0 {
			p.id = s.newID()
		}
		if held = s.byID[string(p.id)]; held == nil {
			s.byID[string(p.id)] = p
		}
	case kindPub:
		old := *s.subscribers.Load()
		next := append(old[:len(old):len(old)], p) // never shares old's array
		s.subscribers.Store(&next)
	}
	if s.kind != kindEcho {
		s.wg.Add(1)
		go p.writeLoop()
	}
	s.mu.Unlock()
	if held != nil {
		s.log.Warn("zmtp: a second connection announces a routing identity that a live connection holds: nothing is routed to it and its messages are dropped until the first one leaves",
			"socket", s.kind.String(), "peer", p.remote, "identity", fmt.Sprintf("%q", p.id), "holder", held.remote)
	}
	p.readLoop()
}

// newID returns a routing identity for a peer that announced none: a zero
// byte and a 32-bit counter, as libzmq makes them (a zero first byte is
// reserved for generated identities by 37/ZMTP).
func (s *socket) newID() []byte {
	for {
		s.nextID++
		id := binary.BigEndian.AppendUint32([]byte{0}, s.nextID)
		if s.byID[string(id)] == nil {
			return id
		}
	}
}

func (s *socket) logHandshake(conn net.Conn, err error) {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		s.log.Warn("zmtp: closing a connection that did not finish its handshake in time",
			"socket", s.kind.String(), "peer", conn.RemoteAddr().String(), "timeout", s.opt.HandshakeTimeout)
	case isClosed(err) || errors.Is(err, syscall.ECONNRESET):
		s.log.Debug("zmtp: a connection ended during its handshake", "socket", s.kind.String(), "peer", conn.RemoteAddr().String(), "err", err)
	default:
		s.log.Warn("zmtp: refusing a connection", "socket", s.kind.String(), "peer", conn.RemoteAddr().String(), "err", err)
	}
}

// handshake exchanges greetings and READY commands, within
// HandshakeTimeout.
func (s *socket) handshake(conn net.Conn) (*peer, error) {
	_ = conn.SetDeadline(time.Now().Add(s.opt.HandshakeTimeout))
	if _, err := conn.Write(ourGreeting); err != nil {
		return nil, err
	}
	g := make([]byte, greetingLen)
	if _, err := io.ReadFull(conn, g); err != nil {
		return nil, err
	}
	if err := checkGreeting(g); err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(conn, readBufferSize)
	flags, size, err := readFrameHeader(r)
	if err != nil {
		return nil, noEOF(err)
	}
	if flags&flagCommand == 0 {
		return nil, protocolErr("a message before READY")
	}
	if size > MaxCommandBytes {
		return nil, &LimitError{What: "command", Size: size, Limit: MaxCommandBytes}
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, noEOF(err)
	}
	name, data, err := parseCommand(body)
	if err != nil {
		return nil, err
	}
	switch name {
	case "READY":
	case "ERROR":
		return nil, fmt.Errorf("zmtp: the peer sent ERROR: %s", errorReason(data))
	default:
		return nil, s.refuse(conn, protocolErr("%s where READY was expected", name))
	}
	props, err := parseMetadata(data)
	if err != nil {
		return nil, s.refuse(conn, err)
	}
	peerType := string(props["socket-type"])
	if !s.kind.accepts(peerType) {
		return nil, s.refuse(conn, protocolErr("a %q socket cannot connect to a %s socket", peerType, s.kind))
	}
	id := props["identity"]
	if s.kind != kindRouter {
		id = nil
	} else if len(id) > maxIdentity {
		return nil, s.refuse(conn, protocolErr("identity of %d bytes; at most %d", len(id), maxIdentity))
	}
	if _, err := conn.Write(readyCommand(s.kind.String())); err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	p := &peer{
		s: s, conn: conn, r: r, remote: conn.RemoteAddr().String(),
		id:   bytes.Clone(id),
		wake: make(chan struct{}, 1),
		dead: make(chan struct{}),
	}
	if s.kind == kindPub {
		p.subs = map[string]int{}
	}
	p.w = bufio.NewWriterSize(conn, writeBufferSize)
	return p, nil
}

// refuse sends ERROR with err's text (best effort) and returns err.
func (s *socket) refuse(conn net.Conn, err error) error {
	_, _ = conn.Write(errorCommand(err.Error()))
	return err
}

// close stops listening, closes connections still in their handshake,
// lets each peer's queue go out within Linger and waits for every
// goroutine of the socket.
func (s *socket) close() error {
	err := ErrClosed
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		close(s.done)
		pending := make([]net.Conn, 0, len(s.pending))
		for c := range s.pending {
			pending = append(pending, c)
		}
		peers := make([]*peer, 0, len(s.peers))
		for p := range s.peers {
			peers = append(peers, p)
		}
		s.mu.Unlock()
		err = s.ln.Close()
		for _, c := range pending {
			c.Close()
		}
		for _, p := range peers {
			p.shutdown(s.opt.Linger)
		}
		s.wg.Wait()
	drain:
		for {
			select {
			case m := <-s.in:
				s.budget.give(m.held)
			default:
				break drain
			}
		}
	})
	return err
}

// peer is one connection after its handshake.
type peer struct {
	s      *socket
	conn   net.Conn
	r      *bufio.Reader
	w      *bufio.Writer // written by the writer goroutine (ROUTER, PUB) or the reader (REP)
	remote string
	id     []byte // ROUTER: the routing identity

	dead     chan struct{} // closed by kill
	deadOnce sync.Once

	qmu      sync.Mutex
	q        []outgoing // waiting for the writer
	qLen     int        // messages queued or being written
	qBytes   int64      // their bytes
	closing  bool       // the socket closes: write what is queued, then end
	dropping bool       // messages are being dropped at the high-water mark
	dropped  int64      // dropped since dropping began
	wake     chan struct{}
	subs     map[string]int // PUB: subscriptions (a multiset)
	subBytes int
}

// outgoing is a message (or, with cmd, an encoded command frame) queued
// for a peer.
type outgoing struct {
	frames [][]byte
	size   int64
	cmd    bool
}

func msgSize(frames [][]byte) int64 {
	var n int64
	for _, f := range frames {
		n += int64(len(f))
	}
	return n
}

// offer queues o for the peer unless its queue is at the high-water mark
// (then o is dropped, for this peer only). It never blocks.
func (p *peer) offer(o outgoing) bool {
	s := p.s
	p.qmu.Lock()
	if p.closing {
		p.qmu.Unlock()
		return false
	}
	if p.qLen+1 > s.opt.SendHWM || p.qBytes+o.size > s.opt.SendHWMBytes {
		first := !p.dropping
		p.dropping = true
		p.dropped++
		n, b := p.qLen, p.qBytes
		p.qmu.Unlock()
		if first {
			s.log.Warn("zmtp: a peer does not read what is sent to it: dropping messages for it until its queue drains",
				"socket", s.kind.String(), "peer", p.remote, "queued_messages", n, "queued_bytes", b)
		}
		return false
	}
	var resumed int64
	if p.dropping {
		p.dropping, resumed, p.dropped = false, p.dropped, 0
	}
	p.q = append(p.q, o)
	p.qLen++
	p.qBytes += o.size
	p.qmu.Unlock()
	if resumed > 0 {
		s.log.Warn("zmtp: a peer reads again", "socket", s.kind.String(), "peer", p.remote, "dropped_messages", resumed)
	}
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return true
}

// writeLoop writes what is queued for the peer (ROUTER, PUB), a batch at
// a time with one flush.
func (p *peer) writeLoop() {
	defer p.s.wg.Done()
	var spare []outgoing
	for {
		p.qmu.Lock()
		for len(p.q) == 0 {
			if p.closing {
				p.qmu.Unlock()
				_ = p.w.Flush()
				p.kill(errClosedByUs)
				return
			}
			p.qmu.Unlock()
			select {
			case <-p.wake:
			case <-p.dead:
				return
			}
			p.qmu.Lock()
		}
		batch := p.q
		p.q = spare[:0]
		p.qmu.Unlock()

		var err error
		var n int64
		for i := range batch {
			o := &batch[i]
			if err == nil {
				if o.cmd {
					_, err = p.w.Write(o.frames[0])
				} else {
					err = p.writeMessage(o.frames)
				}
			}
			n += o.size
			*o = outgoing{} // let the frames go
		}
		if err == nil {
			err = p.w.Flush()
		}
		p.qmu.Lock()
		p.qLen -= len(batch)
		p.qBytes -= n
		p.qmu.Unlock()
		spare = batch
		if err != nil {
			p.kill(err)
			return
		}
	}
}

func (p *peer) writeMessage(frames [][]byte) error {
	var hdr [9]byte
	for i, f := range frames {
		var flags byte
		if i < len(frames)-1 {
			flags = flagMore
		}
		if _, err := p.w.Write(appendFrameHeader(hdr[:0], flags, len(f))); err != nil {
			return err
		}
		if _, err := p.w.Write(f); err != nil {
			return err
		}
	}
	return nil
}

// shutdown ends the peer as its socket closes: what is queued may go out
// within linger.
func (p *peer) shutdown(linger time.Duration) {
	if p.s.kind == kindEcho || linger < 0 {
		p.kill(errClosedByUs)
		return
	}
	_ = p.conn.SetWriteDeadline(time.Now().Add(linger))
	p.qmu.Lock()
	p.closing = true
	p.qmu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// kill closes the connection and forgets the peer (once).
func (p *peer) kill(err error) {
	p.deadOnce.Do(func() {
		s := p.s
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		var le *LimitError
		var pe *ProtocolError
		switch {
		case closed || errors.Is(err, errClosedByUs):
		case errors.As(err, &le), errors.As(err, &pe):
			s.log.Error("zmtp: closing connection", "socket", s.kind.String(), "peer", p.remote, "err", err)
		default:
			s.log.Debug("zmtp: peer disconnected", "socket", s.kind.String(), "peer", p.remote, "err", err)
		}

		close(p.dead)
		p.conn.Close()
		s.mu.Lock()
		delete(s.peers, p)
		if s.kind == kindRouter && s.byID[string(p.id)] == p {
			delete(s.byID, string(p.id))
		}
		if s.kind == kindPub {
			old := *s.subscribers.Load()
			next := make([]*peer, 0, len(old))
			for _, q := range old {
				if q != p {
					next = append(next, q)
				}
			}
			s.subscribers.Store(&next)
		}
		s.mu.Unlock()
		p.qmu.Lock()
		p.q = nil
		p.qmu.Unlock()
	})
}

// readLoop reads messages until the connection ends or breaks a rule.
func (p *peer) readLoop() {
	for {
		m, err := p.readMessage()
		if err == nil {
			switch p.s.kind {
			case kindRouter:
				p.deliver(m)
			case kindPub:
				err = p.subscriptionMessage(m)
			case kindEcho:
				err = p.echo(m)
			}
		}
		if err != nil {
			p.kill(err)
			return
		}
	}
}

// readMessage reads the next message, handling the commands before it.
// Each frame is checked against the limits and the budget before its
// body is read.
func (p *peer) readMessage() (_ *message, err error) {
	s := p.s
	m := &message{}
	defer func() {
		if err != nil {
			s.budget.give(m.held)
			if m.held > SmallMessageBytes {
				ReleaseMemorySoon()
			}
		}
	}()
	var total uint64
	for {
		flags, size, err := readFrameHeader(p.r)
		if err != nil {
			if len(m.frames) > 0 {
				err = noEOF(err)
			}
			return nil, err
		}
		if flags&flagCommand != 0 {
			if len(m.frames) > 0 {
				return nil, protocolErr("a command inside a multipart message")
			}
			if size > MaxCommandBytes {
				return nil, &LimitError{What: "command", Size: size, Limit: MaxCommandBytes}
			}
			body := make([]byte, size)
			if _, err := io.ReadFull(p.r, body); err != nil {
				return nil, noEOF(err)
			}
			if err := p.command(body); err != nil {
				return nil, err
			}
			continue
		}
		limit := s.maxMessage()
		switch {
		case len(m.frames)+1 > s.opt.MaxFrames:
			return nil, &LimitError{What: "frames", Size: uint64(len(m.frames) + 1), Limit: int64(s.opt.MaxFrames)}
		case size > uint64(limit):
			return nil, &LimitError{What: "frame", Size: size, Limit: limit}
		case total+size > uint64(limit):
			return nil, &LimitError{What: "message", Size: total + size, Limit: limit}
		}
		if size > 0 {
			if !s.budget.take(int64(size), m.held) {
				return nil, &LimitError{What: "budget", Size: size, Limit: s.budget.limit}
			}
			m.held += int64(size)
		}
		body := make([]byte, size)
		if _, err := io.ReadFull(p.r, body); err != nil {
			return nil, noEOF(err)
		}
		m.frames = append(m.frames, body)
		total += size
		if flags&flagMore == 0 {
			return m, nil
		}
	}
}

// command handles a command after the handshake.
func (p *peer) command(body []byte) error {
	name, data, err := parseCommand(body)
	if err != nil {
		return err
	}
	switch name {
	case "PING": // 37/ZMTP: a 2-byte TTL, then a context the PONG echoes
		if len(data) < 2 {
			return protocolErr("PING without a TTL")
		}
		ctx := data[2:]
		if len(ctx) > maxPingContext {
			ctx = ctx[:maxPingContext]
		}
		return p.sendCommand(commandFrame("PONG", ctx))
	case "SUBSCRIBE", "CANCEL":
		if p.s.kind == kindPub {
			return p.subscribe(name == "SUBSCRIBE", data)
		}
	case "ERROR":
		return fmt.Errorf("zmtp: the peer sent ERROR: %s", errorReason(data))
	case "READY":
		return protocolErr("READY after the handshake")
	}
	return nil // PONG, and commands this server does not know, are ignored
}

// sendCommand sends an encoded command frame: through the queue (dropped
// when full) for ROUTER and PUB, directly for REP.
func (p *peer) sendCommand(frame []byte) error {
	if p.s.kind == kindEcho {
		if _, err := p.w.Write(frame); err != nil {
			return err
		}
		return p.w.Flush()
	}
	p.offer(outgoing{frames: [][]byte{frame}, size: int64(len(frame)), cmd: true})
	return nil
}

// deliver hands a ROUTER message to Recv, with the peer's identity in
// front, unless another connection holds the identity.
func (p *peer) deliver(m *message) {
	s := p.s
	s.mu.Lock()
	holder := s.byID[string(p.id)]
	if holder == nil {
		s.byID[string(p.id)] = p // the holder left: the identity is free
		holder = p
	}
	s.mu.Unlock()
	if holder != p {
		s.budget.give(m.held)
		s.log.Debug("zmtp: dropping a message from a connection whose routing identity another one holds",
			"socket", s.kind.String(), "peer", p.remote, "identity", fmt.Sprintf("%q", p.id))
		return
	}
	m.frames = append([][]byte{p.id}, m.frames...)
	select {
	case s.in <- m:
	case <-s.done:
		s.budget.give(m.held)
	case <-p.dead:
		s.budget.give(m.held)
	}
}

// Limits on one subscriber's subscriptions.
const (
	maxSubscriptions     = 1024
	maxSubscriptionBytes = MaxCommandBytes
)

// subscriptionMessage applies a ZMTP 3.0 subscription (a one-frame
// message starting with 1) or cancellation (starting with 0); other
// messages from a subscriber are ignored, as libzmq's PUB does.
func (p *peer) subscriptionMessage(m *message) error {
	defer p.s.budget.give(m.held)
	if len(m.frames) != 1 || len(m.frames[0]) == 0 {
		return nil
	}
	switch f := m.frames[0]; f[0] {
	case 1:
		return p.subscribe(true, f[1:])
	case 0:
		return p.subscribe(false, f[1:])
	}
	return nil
}

func (p *peer) subscribe(on bool, topic []byte) error {
	p.qmu.Lock()
	defer p.qmu.Unlock()
	if !on {
		if n := p.subs[string(topic)]; n > 0 {
			if n == 1 {
				delete(p.subs, string(topic))
			} else {
				p.subs[string(topic)] = n - 1
			}
			p.subBytes -= len(topic)
		}
		return nil
	}
	count := 0
	for _, n := range p.subs {
		count += n
	}
	if count+1 > maxSubscriptions {
		return &LimitError{What: "subscriptions", Size: uint64(count + 1), Limit: maxSubscriptions}
	}
	if p.subBytes+len(topic) > maxSubscriptionBytes {
		return &LimitError{What: "subscription bytes", Size: uint64(p.subBytes + len(topic)), Limit: maxSubscriptionBytes}
	}
	p.subs[string(topic)]++
	p.subBytes += len(topic)
	return nil
}

// matches reports whether a message of topic (its first frame) goes to
// the peer. The caller holds qmu.
func (p *peer) matches(topic []byte) bool {
	for s := range p.subs {
		if bytes.HasPrefix(topic, []byte(s)) {
			return true
		}
	}
	return false
}

// echo writes a message back as it came (REP); a peer that does not read
// blocks only its own connection.
func (p *peer) echo(m *message) error {
	defer p.s.budget.give(m.held)
	if err := p.writeMessage(m.frames); err != nil {
		return err
	}
	return p.w.Flush()
}
