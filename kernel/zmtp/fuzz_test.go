package zmtp

import (
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/graphnb/graphnb/kernel/zmtp/zmtptest"
)

// FuzzPeer feeds arbitrary bytes to a connection's handshake and reader:
// nothing may panic, every message returned must respect the limits, and
// the budget must be whole again once each message is given back.
func FuzzPeer(f *testing.F) {
	hello := func(peer string) []byte {
		return append(zmtptest.Greeting(1), zmtptest.Ready(peer, "id")...)
	}
	f.Add(uint8(kindRouter), append(hello("DEALER"), zmtptest.Message([]byte("a"), []byte{}, make([]byte, 300))...))
	f.Add(uint8(kindRouter), append(hello("DEALER"), zmtptest.Command("PING", []byte("\x00\x01ctx"))...))
	f.Add(uint8(kindPub), append(hello("SUB"), append(zmtptest.Message([]byte("\x01topic")), zmtptest.Command("CANCEL", []byte("topic"))...)...))
	f.Add(uint8(kindEcho), append(hello("REQ"), zmtptest.Message([]byte{}, []byte("ping"))...))
	f.Add(uint8(kindRouter), append(hello("DEALER"), zmtptest.FrameHeader(true, 1<<40)...))
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		opt := Options{MaxMessageBytes: 4096, MaxFrames: 8, HandshakeTimeout: time.Second, Budget: NewBudget(8192),
			Logger: slog.New(slog.DiscardHandler)}.withDefaults()
		s := &socket{kind: kind(k % 3), opt: opt, log: opt.Logger, budget: opt.Budget, done: make(chan struct{}),
			pending: map[net.Conn]struct{}{}, peers: map[*peer]struct{}{}, byID: map[string]*peer{}}
		srv, cli := net.Pipe()
		go func() { cli.Write(data); cli.Close() }()
		go io.Copy(io.Discard, cli)
		defer srv.Close()
		p, err := s.handshake(srv)
		if err != nil {
			return
		}
		for {
			m, err := p.readMessage()
			if err != nil {
				break
			}
			var total int64
			for _, f := range m.frames {
				total += int64(len(f))
			}
			if len(m.frames) > opt.MaxFrames || total > s.maxMessage() || m.held != total {
				t.Fatalf("a message of %d frames, %d bytes (%d held) passed the limits", len(m.frames), total, m.held)
			}
			s.budget.give(m.held)
		}
		if u := s.budget.Used(); u != 0 {
			t.Fatalf("the budget holds %d bytes after every message was given back", u)
		}
	})
}
