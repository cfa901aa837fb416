package kernel

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/capture"
	"github.com/graphnb/graphnb/comm"
	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/kernel/input"
	"github.com/graphnb/graphnb/kernel/wire"
	"github.com/graphnb/graphnb/kernel/zmtp"
)

// Options configure Serve. The zero value is ready to use.
type Options struct {
	// Logger receives the kernel's logs. nil: a text logger on the
	// process's original standard error (captured output never reaches
	// it), at the level named by GRAPHNB_LOG. A logger supplied here that
	// writes to os.Stderr would write into the captured stream: give it
	// another destination, or set NoCapture.
	Logger *slog.Logger
	// Limits bound incoming messages; zero fields take wire.DefaultLimits.
	Limits wire.Limits
	// Version is kernel_info's implementation_version; "" means "dev".
	Version string
	// Banner is kernel_info's banner; "" means a line naming graphnb, its
	// version and the Go version.
	Banner string
	// HelpLinks are kernel_info's help_links; nil means DefaultHelpLinks.
	HelpLinks []HelpLink
	// NoCapture leaves fds 1 and 2 alone: output written to them is not
	// streamed to the client (tests; hosts that capture themselves).
	NoCapture bool
	// NoStdin leaves fd 0 alone: a cell that reads os.Stdin reads the
	// process's standard input instead of asking the front end
	// (display.Input and Password still ask).
	NoStdin bool
	// NoSignals leaves SIGINT alone; by default SIGINT interrupts the
	// running cell instead of ending the process.
	NoSignals bool
	// StreamFlushInterval is how long captured output may wait to be
	// coalesced into one stream message; 0 means 10 ms. Output is also
	// flushed every 64 KiB and always before a reply.
	StreamFlushInterval time.Duration
	// Ready, if set, is called once all sockets listen, with the
	// connection info completed by the ports actually bound (a port 0 in
	// ci means "any free port").
	Ready func(ConnectionInfo)

	// testHook, set by this package's tests, sees the server before it
	// serves; testTrace sees every message sent ("iopub:stream",
	// "shell:execute_reply", …) just before it is handed to the transport.
	testHook  func(*server)
	testTrace func(event string)
}

// HelpLink is an entry of kernel_info's help_links.
type HelpLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// DefaultHelpLinks are the help links kernel_info advertises by default.
var DefaultHelpLinks = []HelpLink{
	{Text: "Go documentation", URL: "https://go.dev/doc/"},
	{Text: "Go standard library", URL: "https://pkg.go.dev/std"},
	{Text: "graphnb README", URL: "https://github.com/graphnb/graphnb#readme"},
}

// historySession is the session number of this process's history.
const historySession = 1

// server is one running kernel.
type server struct {
	ci      ConnectionInfo
	eng     Engine
	opt     Options
	log     *slog.Logger
	signer  *wire.Signer
	limits  wire.Limits
	session string
	msgSeq  atomic.Uint64

	shell, control, stdin *zmtp.Router
	iopub                 *zmtp.Pub
	hb                    *zmtp.Echo

	pub     *publisher
	streams *streamer
	cap     *capture.Capture
	in      *input.Stdin // fd 0, or nil (see stdin.go)
	stdinSt stdinState

	queue chan *wire.Message // shell requests, in arrival order

	// Owned by the shell goroutine.
	count int // execution counter
	abort int // queued requests still to examine for stop_on_error aborts
	hist  history

	runMu     sync.Mutex
	runCancel context.CancelFunc // the running cell's, nil when idle
	runCtx    context.Context    // the running cell's, nil when idle

	quit     chan struct{}
	quitOnce sync.Once
}

// Serve runs a Jupyter kernel (messaging protocol 5.3) for eng on the
// sockets described by ci until a shutdown_request arrives or ctx ends;
// then it closes its sockets, releasing the ports, and returns nil. It
// returns an error only when it cannot start (bad ci, a port in use).
//
// Serve owns process-wide state while it runs: it captures fds 1 and 2
// (unless opt.NoCapture), installs itself as the display package's sink,
// catches SIGINT (unless opt.NoSignals) and sets the cancellation point
// of package cancel on interrupts. Run one Serve per process.
func Serve(ctx context.Context, ci ConnectionInfo, eng Engine, opt Options) error {
	if eng == nil {
		panic("kernel: Serve with a nil Engine")
	}
	if err := ci.check(true); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	signer, err := wire.NewSigner(ci.SignatureScheme, ci.Key)
	if err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	// One memory for every channel, as ipykernel's session: a captured
	// request replayed on any socket is dropped.
	signer.RejectReplays(wire.DefaultReplayMemory)
	s := &server{
		ci:      ci,
		eng:     eng,
		opt:     opt,
		signer:  signer,
		limits:  opt.Limits,
		session: newSessionID(),
		queue:   make(chan *wire.Message, 1024),
		quit:    make(chan struct{}),
		hist:    history{session: historySession},
	}
	s.pub = &publisher{s: s}
	if s.opt.Version == "" {
		s.opt.Version = "dev"
	}
	if s.opt.HelpLinks == nil {
		s.opt.HelpLinks = DefaultHelpLinks
	}
	if s.opt.StreamFlushInterval <= 0 {
		s.opt.StreamFlushInterval = 10 * time.Millisecond
	}

	// Output capture first, so that the logger can use the original stderr.
	logOut := io.Writer(os.Stderr)
	s.streams = newStreamer(s.opt.StreamFlushInterval, 64<<10, s.publishStream)
	var capErr error
	if !opt.NoCapture {
		s.cap, capErr = capture.Start(s.streams.write)
		if capErr == nil {
			logOut = s.cap.Stderr()
		}
	}
	s.log = opt.Logger
	if s.log == nil {
		s.log = newLogger(logOut)
	}
	if capErr != nil {
		s.log.Warn("output written to stdout/stderr is not captured", "err", capErr)
	}
	if s.cap != nil {
		defer func() {
			if err := s.cap.Stop(); err != nil {
				s.log.Warn("restoring stdout/stderr", "err", err)
			}
		}()
	}
	if !opt.NoStdin {
		in, err := input.Start()
		if err != nil {
			s.log.Warn("cells that read standard input will not ask the front end", "err", err)
		} else {
			s.in = in
			defer func() {
				if err := in.Stop(); err != nil {
					s.log.Warn("restoring stdin", "err", err)
				}
			}()
		}
	}

	if err := s.listen(); err != nil {
		s.closeSockets()
		return err
	}
	s.pub.start(s.iopub)
	s.publish("status", wire.Header{}, map[string]any{"execution_state": "starting"})

	prevSink := display.SetSink(sink{s})
	defer display.SetSink(prevSink)
	prevFlusher := display.SetFlusher(s.syncOutput)
	defer display.SetFlusher(prevFlusher)
	prevComm := comm.SetTransport(commTransport{s})
	defer func() {
		comm.SetTransport(prevComm)
		comm.CloseAll()
		comm.SetOwner("")
	}()
	if !opt.NoSignals {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		defer signal.Stop(sig)
		go func() {
			for {
				select {
				case <-sig:
					s.log.Info("SIGINT: interrupting the running cell")
					s.interrupt()
				case <-s.quit:
					return
				}
			}
		}()
	}
	if opt.testHook != nil {
		opt.testHook(s)
	}

	shellCtx, stopShell := context.WithCancel(context.Background())
	var loops sync.WaitGroup
	shellDone := make(chan struct{})
	go func() {
		defer close(shellDone)
		s.shellLoop(shellCtx)
	}()
	loops.Add(3)
	go func() { defer loops.Done(); s.recvLoop("shell", s.shell, s.enqueue) }()
	go func() { defer loops.Done(); s.recvLoop("control", s.control, s.handleControl) }()
	go func() { defer loops.Done(); s.recvLoop("stdin", s.stdin, s.handleStdin) }()

	if opt.Ready != nil {
		opt.Ready(s.ci)
	}
	s.log.Info("kernel started", "ip", s.ci.IP, "shell_port", s.ci.ShellPort, "signing", signer.Enabled())

	select {
	case <-ctx.Done():
		s.log.Info("kernel stopping: context ended", "err", ctx.Err())
	case <-s.quit:
		s.log.Info("kernel stopping: shutdown requested")
	}
	s.stopNow()

	// Let a running cell see the interrupt, then stop the shell loop.
	s.interrupt()
	stopShell()
	select {
	case <-shellDone:
	case <-time.After(2 * time.Second):
		s.log.Warn("a cell is still running at shutdown; leaving it behind")
	}
	s.syncOutput()
	s.pub.close()
	s.closeSockets() // what is queued (replies, IOPub) goes out first
	waitTimeout(&loops, 2*time.Second)
	return nil
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// stopNow makes Serve return (idempotent).
func (s *server) stopNow() { s.quitOnce.Do(func() { close(s.quit) }) }

// listen binds the five sockets (zmtp: no peer can stall the others).
// They share one budget for incoming messages, twice the message size
// limit, so that unauthenticated peers cannot make the kernel hold more
// than that, whatever the channel.
func (s *server) listen() error {
	lim := s.limits.WithDefaults()
	budget := zmtp.NewBudget(2 * lim.MaxMessageBytes)
	opt := func(channel string) zmtp.Options {
		return zmtp.Options{
			MaxMessageBytes: lim.MaxMessageBytes,
			MaxFrames:       lim.MaxFrames,
			Budget:          budget,
			Logger:          s.log.With("channel", channel),
		}
	}
	bindErr := func(name string, port int, err error) error {
		return fmt.Errorf("kernel: %s socket on %s port %d: %w", name, s.ci.IP, port, err)
	}
	port := func(a net.Addr) int { return a.(*net.TCPAddr).Port }
	var err error
	if s.shell, err = zmtp.ListenRouter(s.ci.listenAddr(s.ci.ShellPort), opt("shell")); err != nil {
		return bindErr("shell", s.ci.ShellPort, err)
	}
	s.ci.ShellPort = port(s.shell.Addr())
	if s.iopub, err = zmtp.ListenPub(s.ci.listenAddr(s.ci.IOPubPort), opt("iopub")); err != nil {
		return bindErr("iopub", s.ci.IOPubPort, err)
	}
	s.ci.IOPubPort = port(s.iopub.Addr())
	if s.stdin, err = zmtp.ListenRouter(s.ci.listenAddr(s.ci.StdinPort), opt("stdin")); err != nil {
		return bindErr("stdin", s.ci.StdinPort, err)
	}
	s.ci.StdinPort = port(s.stdin.Addr())
	if s.control, err = zmtp.ListenRouter(s.ci.listenAddr(s.ci.ControlPort), opt("control")); err != nil {
		return bindErr("control", s.ci.ControlPort, err)
	}
	s.ci.ControlPort = port(s.control.Addr())
	if s.hb, err = zmtp.ListenEcho(s.ci.listenAddr(s.ci.HBPort), opt("heartbeat")); err != nil {
		return bindErr("heartbeat", s.ci.HBPort, err)
	}
	s.ci.HBPort = port(s.hb.Addr())
	return nil
}

// closeSockets closes the sockets that exist, together: each lets what it
// has queued (replies, IOPub) go out within zmtp.DefaultLinger, and
// returns once its connections and goroutines are gone.
func (s *server) closeSockets() {
	var closers []func() error
	for _, r := range []*zmtp.Router{s.shell, s.control, s.stdin} {
		if r != nil {
			closers = append(closers, r.Close)
		}
	}
	if s.iopub != nil {
		closers = append(closers, s.iopub.Close)
	}
	if s.hb != nil {
		closers = append(closers, s.hb.Close)
	}
	var wg sync.WaitGroup
	for _, c := range closers {
		wg.Add(1)
		go func() { defer wg.Done(); c() }()
	}
	wg.Wait()
}

// recvLoop receives messages on a ROUTER socket until it closes, drops
// those that fail to decode (bad signature, malformed frames) with a log
// line, and passes the others to handle.
func (s *server) recvLoop(name string, sock *zmtp.Router, handle func(*wire.Message)) {
	for {
		frames, err := sock.Recv()
		if err != nil {
			return // closed
		}
		select {
		case <-s.quit:
			return
		default:
		}
		m, err := wire.DecodeLimits(frames, s.signer, s.limits)
		if err != nil {
			s.log.Error("dropping a message", "socket", name, "frames", len(frames), "err", err)
			if size(frames) > zmtp.SmallMessageBytes {
				zmtp.ReleaseMemorySoon() // unauthenticated: give its memory back now
			}
			continue
		}
		s.log.Debug("received", "socket", name, "msg_type", m.Header.MsgType, "msg_id", m.Header.MsgID)
		handle(m)
	}
}

func size(frames [][]byte) int {
	n := 0
	for _, f := range frames {
		n += len(f)
	}
	return n
}

func (s *server) enqueue(m *wire.Message) {
	select {
	case s.queue <- m:
	case <-s.quit:
	}
}

// shellLoop serves shell requests one at a time, in arrival order.
func (s *server) shellLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-s.queue:
			s.dispatch(s.shell, "shell", m)
			if m.Header.MsgType == "shutdown_request" {
				s.stopNow()
				return
			}
		}
	}
}

// handleControl serves a control request on the receiving goroutine, so
// that it runs while a cell executes.
func (s *server) handleControl(m *wire.Message) {
	s.dispatch(s.control, "control", m)
	if m.Header.MsgType == "shutdown_request" {
		s.stopNow()
	}
}

// newHeader returns a header for a message the kernel sends.
func (s *server) newHeader(msgType string) wire.Header {
	return wire.Header{
		MsgID:    s.session[:8] + "_" + strconv.FormatUint(s.msgSeq.Add(1), 10),
		Session:  s.session,
		Username: "graphnb",
		Date:     wire.Now(),
		MsgType:  msgType,
		Version:  wire.Version,
	}
}

// reply sends a reply to req on sock (the socket req came from).
func (s *server) reply(sock *zmtp.Router, req *wire.Message, msgType string, content any) {
	b, err := json.Marshal(content)
	if err != nil {
		s.log.Error("cannot encode a reply", "msg_type", msgType, "err", err)
		return
	}
	m := &wire.Message{
		Identities: req.Identities,
		Header:     s.newHeader(msgType),
		Parent:     req.Header,
		Content:    b,
	}
	if len(m.Identities) == 0 {
		s.log.Error("cannot reply: the request has no routing identity", "msg_type", msgType)
		return
	}
	if s.opt.testTrace != nil {
		name := "shell:"
		if sock == s.control {
			name = "control:"
		}
		s.opt.testTrace(name + msgType)
	}
	if err := sock.Send(wire.Encode(m, s.signer)); err != nil {
		s.log.Warn("sending a reply failed", "msg_type", msgType, "err", err)
	}
}

// publish sends a message on IOPub under parent.
func (s *server) publish(msgType string, parent wire.Header, content any) error {
	return s.pub.publish(msgType, parent, content)
}

// publisher serialises IOPub sends, so that messages go out in the order
// of their sequence numbers. It drops messages before start (output
// captured before the socket exists) and after close.
type publisher struct {
	s      *server
	mu     sync.Mutex
	sock   *zmtp.Pub
	closed bool
}

func (p *publisher) start(sock *zmtp.Pub) {
	p.mu.Lock()
	p.sock = sock
	p.mu.Unlock()
}

func (p *publisher) publish(msgType string, parent wire.Header, content any) error {
	return p.publishFrames(msgType, parent, content, nil, nil)
}

// publishFrames publishes a message with metadata and binary buffers (the
// frames after content, as comm messages carry them).
func (p *publisher) publishFrames(msgType string, parent wire.Header, content any, metadata map[string]any, buffers [][]byte) error {
	b, err := json.Marshal(content)
	if err != nil {
		p.s.log.Error("cannot encode an IOPub message", "msg_type", msgType, "err", err)
		return fmt.Errorf("kernel: encoding %s: %w", msgType, err)
	}
	m := &wire.Message{
		Identities: [][]byte{[]byte(msgType)},
		Header:     p.s.newHeader(msgType),
		Parent:     parent,
		Metadata:   metadata,
		Content:    b,
		Buffers:    buffers,
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.sock == nil {
		return nil
	}
	frames := wire.Encode(m, p.s.signer)
	if p.s.opt.testTrace != nil {
		p.s.opt.testTrace("iopub:" + msgType)
	}
	if err := p.sock.Send(frames); err != nil {
		p.s.log.Warn("publishing failed", "msg_type", msgType, "err", err)
	}
	return nil
}

func (p *publisher) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
}

// interrupt cancels the running cell, if any: its context, and the
// cancellation point that compiled code polls.
func (s *server) interrupt() {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if s.runCancel != nil {
		// Request first: code woken by the cancelled context must already
		// see the request.
		cancel.Request()
		s.runCancel()
	}
}

// syncOutput makes sure every byte written to fds 1 and 2 so far has been
// published as a stream message.
func (s *server) syncOutput() {
	if s.cap != nil {
		if err := s.cap.Sync(); err != nil && !errors.Is(err, capture.ErrStopped) {
			s.log.Warn("syncing captured output", "err", err)
		}
	}
	s.streams.flush(true)
}

// publishStream sends captured text as a stream message under parent, or
// hands it to the installed display sink when that is a display.Streamer
// (a widgets.Output capturing a callback's output).
func (s *server) publishStream(name string, parent wire.Header, text string) {
	if st, ok := display.CurrentSink().(display.Streamer); ok {
		st.Stream(name, text)
		return
	}
	s.publish("stream", parent, map[string]any{"name": name, "text": text})
}

// dispatch runs the handler of m between busy and idle statuses, recovering
// from a panic in it.
func (s *server) dispatch(sock *zmtp.Router, channel string, m *wire.Message) {
	s.publish("status", m.Header, map[string]any{"execution_state": "busy"})
	defer s.publish("status", m.Header, map[string]any{"execution_state": "idle"})
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic while handling a request", "channel", channel, "msg_type", m.Header.MsgType,
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	s.handle(sock, channel, m)
}
