package zmtp

import (
	"errors"
	"net"
)

// Router is a ROUTER socket: it receives from every connected DEALER, REQ
// or ROUTER peer with the peer's routing identity in front, and sends a
// message to the peer whose identity is its first frame.
//
// A peer's identity is the one it announces in its READY command, or one
// generated for it (five bytes, the first zero). A connection announcing
// an identity that a live connection holds is not routed: nothing is sent
// to it and its messages are dropped, until the holder disconnects; its
// next message then claims the identity. This is libzmq's behaviour
// without ZMQ_ROUTER_HANDOVER, and it keeps a second connection from
// receiving the replies meant for the first.
type Router struct{ s *socket }

// ListenRouter binds a ROUTER socket to addr ("ip:port"; port 0 picks a
// free one) and accepts connections until Close.
func ListenRouter(addr string, opt Options) (*Router, error) {
	s, err := listen(kindRouter, addr, opt)
	if err != nil {
		return nil, err
	}
	return &Router{s}, nil
}

// Recv returns the next message, frames[0] being the sender's identity.
// It blocks until a message arrives or the socket closes (ErrClosed).
func (r *Router) Recv() ([][]byte, error) {
	select {
	case m := <-r.s.in:
		r.s.budget.give(m.held)
		return m.frames, nil
	case <-r.s.done:
		return nil, ErrClosed
	}
}

// Send queues a message for the peer whose identity is frames[0]; the
// other frames are sent. It never blocks: a message for a peer that is
// gone, or whose queue is at its high-water mark, is dropped (and
// logged), as libzmq's ROUTER does. The frames must not change after.
func (r *Router) Send(frames [][]byte) error {
	if len(frames) < 2 {
		return errors.New("zmtp: a ROUTER message needs an identity and at least one frame")
	}
	s := r.s
	s.mu.Lock()
	closed := s.closed
	p := s.byID[string(frames[0])]
	s.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if p == nil {
		s.log.Debug("zmtp: dropping a message for a peer that is not connected", "socket", s.kind.String())
		return nil
	}
	p.offer(outgoing{frames: frames[1:], size: msgSize(frames[1:])})
	return nil
}

// Addr returns the address the socket listens on.
func (r *Router) Addr() net.Addr { return r.s.ln.Addr() }

// Close stops listening, lets queued messages go out within
// Options.Linger, closes every connection and returns once every
// goroutine of the socket has ended.
func (r *Router) Close() error { return r.s.close() }

// Pub is a PUB socket: a message goes to every SUB or XSUB peer with a
// subscription that is a prefix of its first frame. Subscriptions arrive
// as ZMTP 3.0 messages (1 or 0 followed by the topic) or 3.1 SUBSCRIBE
// and CANCEL commands; a subscriber may hold up to 1024 of them, 64 KiB
// in all. Each subscriber has its own queue, bounded by
// Options.SendHWM and SendHWMBytes: a subscriber that does not read loses
// messages once its queue is full, and no one else does.
type Pub struct{ s *socket }

// ListenPub binds a PUB socket to addr and accepts connections until
// Close.
func ListenPub(addr string, opt Options) (*Pub, error) {
	s, err := listen(kindPub, addr, opt)
	if err != nil {
		return nil, err
	}
	return &Pub{s}, nil
}

// Send queues a message for every matching subscriber. It never blocks.
// The frames must not change after.
func (p *Pub) Send(frames [][]byte) error {
	if len(frames) == 0 {
		return errors.New("zmtp: an empty message")
	}
	select {
	case <-p.s.done:
		return ErrClosed
	default:
	}
	size := msgSize(frames)
	for _, q := range *p.s.subscribers.Load() {
		q.qmu.Lock()
		ok := q.matches(frames[0])
		q.qmu.Unlock()
		if ok {
			q.offer(outgoing{frames: frames, size: size})
		}
	}
	return nil
}

// Addr returns the address the socket listens on.
func (p *Pub) Addr() net.Addr { return p.s.ln.Addr() }

// Close is as Router.Close.
func (p *Pub) Close() error { return p.s.close() }

// Echo is a REP socket that answers every message with the message
// itself, frames exactly as received (for a REQ peer: its envelope and
// its payload): the Jupyter heartbeat. Each peer is served by its own
// goroutine; a peer that does not read its echoes stops only its own
// connection being read.
type Echo struct{ s *socket }

// ListenEcho binds an echoing REP socket to addr and accepts connections
// until Close.
func ListenEcho(addr string, opt Options) (*Echo, error) {
	s, err := listen(kindEcho, addr, opt)
	if err != nil {
		return nil, err
	}
	return &Echo{s}, nil
}

// Addr returns the address the socket listens on.
func (e *Echo) Addr() net.Addr { return e.s.ln.Addr() }

// Close closes the socket and every connection and returns once every
// goroutine of the socket has ended.
func (e *Echo) Close() error { return e.s.close() }
