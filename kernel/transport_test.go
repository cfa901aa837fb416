package kernel

// Issue 13, cases 1–4: what any local process, without the key, can do to
// the other clients through the transport. The hostile peers are raw ZMTP
// connections (zmtptest) on 127.0.0.1; the well-behaved ones are the zmq4
// clients of helpers_test.go.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/graphnb/graphnb/kernel/wire"
	"github.com/graphnb/graphnb/kernel/zmtp/zmtptest"
)

func rawDial(t *testing.T, port, readBuffer int) *zmtptest.Conn {
	t.Helper()
	c, err := zmtptest.Dial(fmt.Sprintf("127.0.0.1:%d", port), readBuffer)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func rawHandshake(t *testing.T, c *zmtptest.Conn, socketType, identity string) {
	t.Helper()
	if _, err := c.Handshake(socketType, identity); err != nil {
		t.Fatalf("handshake as %s: %v", socketType, err)
	}
}

// signedRequest returns the frames a DEALER sends for a request of c's
// session (no routing identity: the kernel's ROUTER adds the peer's).
func (c *testClient) signedRequest(msgType string) (wire.Header, [][]byte) {
	h := c.header(msgType)
	return h, wire.Encode(&wire.Message{Header: h, Content: json.RawMessage(`{}`)}, c.signer)
}

// rawReply reads the next message of a raw DEALER and decodes it.
func rawReply(t *testing.T, c *zmtptest.Conn, signer *wire.Signer, within time.Duration) (*wire.Message, error) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(within))
	defer c.SetReadDeadline(time.Time{})
	frames, err := c.Recv()
	if err != nil {
		return nil, err
	}
	return wire.Decode(frames, signer)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Case 1: a subscriber that connects and stops reading must not stall
// IOPub for the others, and what the kernel queues for it is bounded.
func TestStalledSubscriberDoesNotBlockIOPub(t *testing.T) {
	size := 20 << 20
	if raceEnabled {
		size = 8 << 20
	}
	const queueBytes = 32 << 20 // zmtp.DefaultSendHWMBytes
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)

	stall := rawDial(t, k.ci.IOPubPort, 4096)
	rawHandshake(t, stall, "SUB", "")
	if err := stall.Send([]byte{1}); err != nil { // subscribe to everything
		t.Fatal(err)
	}
	// The subscription is in effect once the stalled peer has received a
	// message; from then on it reads nothing.
	for deadline := time.Now().Add(waitLimit); ; {
		h := c.send("shell", "kernel_info_request", map[string]any{})
		c.replyTo(c.shellCh, h.MsgID)
		c.iopubFor(h.MsgID)
		stall.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := stall.Recv(); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the subscriber never received a message")
		}
	}

	runtime.GC()
	before := heapAlloc()
	start := time.Now()
	h := c.send("shell", "execute_request", map[string]any{"code": "bulk " + strconv.Itoa(size), "silent": false})
	var got int
	for idle := false; !idle; {
		m := c.next(c.iopubCh)
		if m.Parent.MsgID != h.MsgID {
			continue
		}
		switch m.Header.MsgType {
		case "stream":
			got += len(content(t, m)["text"].(string))
		case "status":
			idle = content(t, m)["execution_state"] == "idle"
		}
	}
	c.replyTo(c.shellCh, h.MsgID)
	t.Logf("%d MiB of output and idle reached the reading client in %v while another subscriber read nothing", size>>20, time.Since(start).Round(time.Millisecond))
	if got != size {
		t.Errorf("the reading client got %d bytes of stream output, want %d", got, size)
	}

	_, reply, io := c.execute("1+1", nil)
	if content(t, reply)["status"] != "ok" || !strings.Contains(strings.Join(types(t, io), " "), "execute_result") {
		t.Errorf("next cell: reply %v, IOPub %v", content(t, reply), types(t, io))
	}
	c2 := dialClient(t, k.ci) // fails the test if IOPub never reaches it
	_, reply, _ = c2.execute("1+1", nil)
	if content(t, reply)["status"] != "ok" {
		t.Errorf("a new client's cell: %v", content(t, reply))
	}

	runtime.GC()
	grown := int64(heapAlloc()) - int64(before)
	t.Logf("heap grew by %.1f MiB (the stalled subscriber's queue is bounded at %d MiB)", float64(grown)/(1<<20), queueBytes>>20)
	if grown > queueBytes+16<<20 {
		t.Errorf("the heap grew by %.1f MiB; what is queued for a stalled subscriber should be bounded by %d MiB", float64(grown)/(1<<20), queueBytes>>20)
	}
}

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Case 2: a heartbeat peer that never reads its echoes must not delay
// another peer's.
func TestHeartbeatStalledPeer(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)

	stall := rawDial(t, k.ci.HBPort, 4096)
	rawHandshake(t, stall, "REQ", "")
	msg := zmtptest.Message([]byte{}, bytes.Repeat([]byte("p"), 64<<10))
	var sent atomic.Int64
	go func() {
		stall.SetWriteDeadline(time.Now().Add(waitLimit))
		for sent.Load() < 256<<20 {
			n, err := stall.Write(msg)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	// Wait until the kernel has stopped reading from the stalled peer (its
	// writes make no progress for 300 ms).
	for last, since := int64(-1), time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if n := sent.Load(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > 300*time.Millisecond {
			break
		}
		if sent.Load() >= 256<<20 {
			t.Fatal("the kernel echoed 256 MiB to a peer that reads nothing")
		}
	}
	t.Logf("the stalled peer sent %.1f MiB before the kernel stopped reading from it", float64(sent.Load())/(1<<20))

	start := time.Now()
	for i := range 5 {
		payload := fmt.Sprintf("ping %d", i)
		if err := c.hb.Send(zmqMsg(payload)); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			m, err := c.hb.Recv()
			if err != nil || len(m.Frames) != 1 {
				got <- fmt.Sprintf("error %v frames %q", err, m.Frames)
				return
			}
			got <- string(m.Frames[0])
		}()
		select {
		case s := <-got:
			if s != payload {
				t.Fatalf("heartbeat echoed %q, want %q", s, payload)
			}
		case <-time.After(time.Second):
			t.Fatalf("echo %d of 5 did not arrive within 1 s while another heartbeat peer reads nothing", i+1)
		}
	}
	elapsed := time.Since(start)
	t.Logf("5 echoes in %v", elapsed.Round(time.Microsecond))
	if elapsed > time.Second {
		t.Errorf("5 echoes took %v, want them within 1 s", elapsed)
	}
}

// Case 3: connections that stall in their handshake must not delay a new
// client, whatever the point where they stall.
func TestStalledHandshakes(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	addr := fmt.Sprintf("127.0.0.1:%d", k.ci.ShellPort)
	for _, stall := range [][]byte{
		zmtptest.Greeting(0)[:11], // signature and major version
		zmtptest.Greeting(0),      // the whole greeting, no READY
		append(zmtptest.Greeting(0), zmtptest.Ready("DEALER", "")[:6]...), // half a READY
	} {
		s, err := zmtptest.Dial(addr, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Write(stall); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // the stalls are accepted first

	start := time.Now()
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := zmq4.NewDealer(ctx, quietLogger())
	defer d.Close()
	go func() {
		if err := d.Dial("tcp://" + addr); err != nil {
			done <- err
			return
		}
		_, frames := c.signedRequest("kernel_info_request")
		if err := d.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
			done <- err
			return
		}
		m, err := d.Recv()
		if err == nil {
			_, err = wire.Decode(m.Frames, c.signer)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitLimit):
		t.Fatalf("no kernel_info reply within %v behind 3 stalled handshakes", waitLimit)
	}
	elapsed := time.Since(start)
	t.Logf("a new client's kernel_info behind 3 stalled handshakes: %v", elapsed.Round(time.Microsecond))
	// Handshakes proceed concurrently: the new client must not wait for
	// any stalled handshake to time out (10 s each).
	if elapsed > 5*time.Second {
		t.Errorf("a new client's kernel_info took %v behind 3 stalled handshakes", elapsed)
	}
}

// Case 4: an empty heartbeat payload is echoed as one empty frame (after
// the REQ envelope), and any message exactly as it came.
func TestHeartbeatEchoesFramesAsReceived(t *testing.T) {
	k := startKernel(t, nil)
	for _, tc := range []struct {
		peer   string
		frames [][]byte
	}{
		{"REQ", [][]byte{{}, {}}}, // envelope delimiter, empty payload
		{"REQ", [][]byte{{}, []byte("ping")}},
		{"REQ", [][]byte{{}, []byte("a"), {}, []byte("b")}},
		{"DEALER", [][]byte{[]byte("ping")}},
	} {
		c := rawDial(t, k.ci.HBPort, 0)
		rawHandshake(t, c, tc.peer, "")
		if err := c.Send(tc.frames...); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(waitLimit))
		got, err := c.Recv()
		if err != nil {
			t.Fatalf("%s %q: %v", tc.peer, tc.frames, err)
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.frames) {
			t.Errorf("%s sent %q, echoed %q", tc.peer, tc.frames, got)
		}
	}
}

// Case 4: a second connection announcing a routing identity already in
// use receives none of the first one's replies.
func TestRoutingIdentityReuse(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	const id = "victim-identity"
	a := rawDial(t, k.ci.ShellPort, 0)
	rawHandshake(t, a, "DEALER", id)
	request := func(conn *zmtptest.Conn) wire.Header {
		h, frames := c.signedRequest("kernel_info_request")
		if err := conn.Send(frames...); err != nil {
			t.Fatal(err)
		}
		return h
	}
	describe := func(m *wire.Message, err error) string {
		if err != nil {
			return err.Error()
		}
		return m.Header.MsgType + " to " + m.Parent.MsgID
	}
	h := request(a)
	if m, err := rawReply(t, a, c.signer, waitLimit); err != nil || m.Parent.MsgID != h.MsgID {
		t.Fatalf("first connection: %s", describe(m, err))
	}

	b := rawDial(t, k.ci.ShellPort, 0)
	rawHandshake(t, b, "DEALER", id)
	time.Sleep(100 * time.Millisecond)
	for range 3 {
		h := request(a)
		if m, err := rawReply(t, a, c.signer, waitLimit); err != nil || m.Parent.MsgID != h.MsgID {
			t.Fatalf("first connection, with a second one on its identity: %s", describe(m, err))
		}
	}
	request(b) // not served while the identity is held
	if m, err := rawReply(t, b, c.signer, 500*time.Millisecond); !isTimeout(err) {
		t.Errorf("the second connection on a held identity received %s, want nothing", describe(m, err))
	}
	if !strings.Contains(k.logs.String(), "identity") {
		t.Errorf("no log line about the identity in use:\n%s", k.logs.String())
	}

	// Once the holder is gone, the identity is free again.
	a.Close()
	sent := map[string]bool{}
	for deadline := time.Now().Add(waitLimit); ; {
		sent[request(b).MsgID] = true
		m, err := rawReply(t, b, c.signer, 200*time.Millisecond)
		if err == nil && sent[m.Parent.MsgID] {
			break
		}
		if err != nil && !isTimeout(err) || time.Now().After(deadline) {
			t.Fatalf("the second connection is not served after the first left: %s", describe(m, err))
		}
	}
}

// Case 4: 16 connections sending unauthenticated 60 MB messages cost a
// bounded amount of memory, returned to the system afterwards.
func TestUnauthenticatedLargeMessagesBounded(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("measures memory; not under the race detector or in short mode")
	}
	if _, err := rssBytes(); err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	payload := bytes.Repeat([]byte("z"), 60<<20)
	var head []byte
	for _, f := range []string{wire.Delimiter, "0000", "{}", "{}", "{}"} {
		head = append(head, zmtptest.Frame(true, []byte(f))...)
	}
	head = append(head, zmtptest.FrameHeader(false, uint64(len(payload)))...)

	runtime.GC()
	debug.FreeOSMemory()
	h := c.send("shell", "kernel_info_request", map[string]any{})
	c.replyTo(c.shellCh, h.MsgID)
	before, _ := rssBytes()

	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if r, err := rssBytes(); err == nil && r > peak.Load() {
				peak.Store(r)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	var closed atomic.Int32
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := zmtptest.Dial(fmt.Sprintf("127.0.0.1:%d", k.ci.ShellPort), 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			if _, err := conn.Handshake("DEALER", ""); err != nil {
				t.Error(err)
				return
			}
			conn.SetWriteDeadline(time.Now().Add(waitLimit))
			_, err = conn.Write(head)
			if err == nil {
				_, err = conn.Write(payload)
			}
			if err != nil {
				closed.Add(1)
			}
			time.Sleep(200 * time.Millisecond) // let the kernel read it all
		}()
	}
	wg.Wait()
	h = c.send("shell", "kernel_info_request", map[string]any{})
	c.replyTo(c.shellCh, h.MsgID)
	after, _ := rssBytes()
	for deadline := time.Now().Add(5 * time.Second); after-before > 64<<20 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		after, _ = rssBytes()
	}
	close(stop)
	<-sampled
	mib := func(n int64) float64 { return float64(n) / (1 << 20) }
	logs := k.logs.String()
	t.Logf("RSS before %.0f MiB, peak %.0f MiB, after %.0f MiB; of 16 messages, %d reached the signature check and %d connections were closed for the memory limit (%d writes failed)",
		mib(before), mib(peak.Load()), mib(after), strings.Count(logs, "bad or missing signature"), strings.Count(logs, "past its limit"), closed.Load())
	if g := peak.Load() - before; g > 400<<20 {
		t.Errorf("16 unauthenticated 60 MB messages raised RSS by %.0f MiB at the peak", mib(g))
	}
	if g := after - before; g > 64<<20 {
		t.Errorf("RSS stayed %.0f MiB above where it was before the unauthenticated messages", mib(g))
	}
	if n := strings.Count(logs, "bad or missing signature"); n == 0 {
		t.Errorf("no unauthenticated message reached the signature check; log:\n%s", logs)
	}
}

// rssBytes returns the process's resident set size (Linux).
func rssBytes() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS line")
}
