//go:build linux

package capture

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const fSetPipeSize = 1031 // F_SETPIPE_SZ

var active atomic.Bool

// Capture is an active capture of fds 1 and 2.
//
// One goroutine reads both pipes through an epoll instance of its own:
// the kernel appends a pipe to the instance's ready list when a write
// makes it readable, so epoll_wait reports the pipes in the order their
// first writes since the reader last emptied them happened, and the
// reader takes their data out in that order. Two readers (or Go's shared
// poller, which wakes goroutines in no particular order) lost the order
// of a print to stdout followed by one to stderr about half the time.
type Capture struct {
	fn      Func
	origOut *os.File
	origErr *os.File
	rfd     [2]int // the pipes' read ends (non-blocking)
	epfd    int    // the reader's epoll instance
	wake    [2]int // a pipe whose write end stops the reader
	shadow  int    // the write end of the watcher's shadow of stderr, -1 if none (crashwatch_linux.go)
	prefix  []byte

	syncMu sync.Mutex // one Sync at a time
	seq    uint64     // last marker sent, under syncMu
	seen   [2]atomic.Uint64
	notify chan struct{}
	// busy[i] is true from just before the reader of stream i takes bytes
	// out of its pipe until it has delivered them (and while it holds back
	// a possible partial marker). With the pipe empty and busy false,
	// everything written so far has been delivered: Sync's fast path.
	busy [2]atomic.Bool

	finished chan struct{} // closed when the reader returns
	done     chan struct{}
	stopOnce sync.Once
	stopErr  error
}

// Start begins capturing fds 1 and 2 and calls fn with what is written to
// them. Only one capture may be active per process (ErrActive). The Go
// runtime's fatal error reports are also sent to the original standard
// error (runtime/debug.SetCrashOutput), so a crash stays visible.
func Start(fn Func) (*Capture, error) {
	if fn == nil {
		panic("capture: nil Func")
	}
	if !active.CompareAndSwap(false, true) {
		return nil, ErrActive
	}
	c, err := start(fn)
	if err != nil {
		active.Store(false)
		return nil, err
	}
	return c, nil
}

func start(fn Func) (c *Capture, err error) {
	var nonce [8]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	c = &Capture{
		fn:       fn,
		prefix:   []byte("\x00\x1bgraphnb-sync-" + hex.EncodeToString(nonce[:]) + ":"),
		notify:   make(chan struct{}, 1),
		done:     make(chan struct{}),
		finished: make(chan struct{}),
		shadow:   -1,
	}
	var opened []int
	defer func() {
		if err != nil {
			for _, fd := range opened {
				syscall.Close(fd)
			}
		}
	}()
	dupOut, err := dupCloexec(1)
	if err != nil {
		return nil, fmt.Errorf("capture: dup fd 1: %w", err)
	}
	opened = append(opened, dupOut)
	dupErr, err := dupCloexec(2)
	if err != nil {
		return nil, fmt.Errorf("capture: dup fd 2: %w", err)
	}
	opened = append(opened, dupErr)
	var pipes [2][2]int
	for i := range pipes {
		p := make([]int, 2)
		if err := syscall.Pipe2(p, syscall.O_CLOEXEC); err != nil {
			return nil, fmt.Errorf("capture: pipe: %w", err)
		}
		opened = append(opened, p[0], p[1])
		pipes[i] = [2]int{p[0], p[1]}
		// A larger pipe lets writers run ahead of the reader; the kernel
		// may refuse (pipe-max-size), which is harmless.
		_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(p[1]), fSetPipeSize, 1<<20)
		// The read end goes to the reader's epoll instance; the write end
		// stays blocking so that writers (C code included) never see
		// EAGAIN.
		if err := syscall.SetNonblock(p[0], true); err != nil {
			return nil, fmt.Errorf("capture: pipe: %w", err)
		}
	}
	if err := syscall.Pipe2(c.wake[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return nil, fmt.Errorf("capture: pipe: %w", err)
	}
	opened = append(opened, c.wake[0], c.wake[1])
	c.epfd, err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("capture: epoll: %w", err)
	}
	opened = append(opened, c.epfd)
	for i, fd := range []int{pipes[0][0], pipes[1][0], c.wake[0]} {
		ev := syscall.EpollEvent{Events: pipeEvents, Fd: int32(i)}
		if i == wakeID {
			ev.Events = syscall.EPOLLIN
		}
		if err := syscall.EpollCtl(c.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return nil, fmt.Errorf("capture: epoll: %w", err)
		}
	}
	// Redirect fds 1 and 2 into the pipes. Either dup can still fail: a
	// failure on fd 2 puts fd 1 back before returning, and the deferred
	// cleanup closes every descriptor opened above. Once both succeed,
	// nothing below returns an error.
	if err := syscall.Dup3(pipes[0][1], 1, 0); err != nil {
		return nil, fmt.Errorf("capture: dup2 onto fd 1: %w", err)
	}
	if err := syscall.Dup3(pipes[1][1], 2, 0); err != nil {
		_ = syscall.Dup3(dupOut, 1, 0)
		return nil, fmt.Errorf("capture: dup2 onto fd 2: %w", err)
	}
	syscall.Close(pipes[0][1])
	syscall.Close(pipes[1][1])
	c.origOut = os.NewFile(uintptr(dupOut), "/dev/stdout (original)")
	c.origErr = os.NewFile(uintptr(dupErr), "/dev/stderr (original)")
	// Fatal error reports reach the original standard error, headline
	// included (crashwatch_linux.go).
	if c.shadow = startWatcher(pipes[1][0], c.origErr, c.prefix); c.shadow < 0 {
		_ = debug.SetCrashOutput(c.origErr, debug.CrashOptions{})
	}
	c.rfd = [2]int{pipes[0][0], pipes[1][0]}
	go c.read()
	return c, nil
}

// pipeEvents is what the reader waits for on a pipe: readable, once. An
// event disarms the pipe until the reader has emptied it (EPOLL_CTL_MOD
// arms it again, and queues it at once if data came meanwhile), so the
// ready list never holds a stale entry for a pipe whose data the reader
// already took: such an entry would keep the place of an old write and
// put the pipe's next write ahead of an earlier one to the other pipe.
const pipeEvents = syscall.EPOLLIN | 1<<30 // EPOLLONESHOT

// wakeID is the epoll data of the wake pipe (0 and 1 are the streams).
const wakeID = 2

// drainBudget bounds what the reader takes from one pipe before it looks
// at the other again, so a stream written without pause cannot hold back
// the other.
const drainBudget = 1 << 20

func dupCloexec(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

// Stdout returns the original standard output (a duplicate of fd 1 as it
// was before Start). It stays open after Stop.
func (c *Capture) Stdout() *os.File { return c.origOut }

// Stderr returns the original standard error, for the kernel's logs. It
// stays open after Stop.
func (c *Capture) Stderr() *os.File { return c.origErr }

// read is the reader: it waits on the epoll instance and takes the data
// of the pipes out in the order they became readable, until both reach
// end of file or the wake pipe is written.
func (c *Capture) read() {
	defer close(c.finished)
	var (
		sp    [2]*splitter
		acked [2]uint64 // the last marker each stream's splitter found
	)
	for i, name := range []string{Stdout, Stderr} {
		sp[i] = &splitter{
			prefix: c.prefix,
			emit:   func(b []byte) { c.fn(name, b) },
			ack:    func(seq uint64) { acked[i] = seq },
		}
	}
	// publish lets Sync see the markers of stream i once the reader is
	// done with the stream (re-armed it): Sync's caller goes on writing at
	// once, and a write made while the pipe is not armed would be queued
	// later than it happened.
	publish := func(i int) {
		if acked[i] > c.seen[i].Load() {
			c.seen[i].Store(acked[i])
			select {
			case c.notify <- struct{}{}:
			default:
			}
		}
	}
	defer func() {
		for i := range sp {
			sp[i].flush()
			publish(i)
			c.busy[i].Store(false)
		}
	}()
	buf := make([]byte, 64<<10)
	events := make([]syscall.EpollEvent, 3)
	var queue []int // streams to read, in the order they became readable
	open := [2]bool{true, true}
	for open[0] || open[1] {
		timeout := -1
		if len(queue) > 0 {
			timeout = 0 // only collect what became readable meanwhile
		}
		n, err := syscall.EpollWait(c.epfd, events, timeout)
		if err != nil && err != syscall.EINTR {
			return // cannot happen for a valid instance
		}
		for _, ev := range events[:max(n, 0)] {
			i := int(ev.Fd)
			if i == wakeID {
				return
			}
			if open[i] && !slices.Contains(queue, i) {
				queue = append(queue, i)
			}
		}
		if len(queue) == 0 {
			continue
		}
		i := queue[0]
		queue = queue[1:]
		c.busy[i].Store(true) // before the bytes leave the pipe
		more, eof := c.take(i, sp[i], buf)
		switch {
		case eof:
			open[i] = false
			sp[i].flush()
			_ = syscall.EpollCtl(c.epfd, syscall.EPOLL_CTL_DEL, c.rfd[i], nil)
		case more:
			queue = append(queue, i) // still disarmed: its turn comes again
		default:
			ev := syscall.EpollEvent{Events: pipeEvents, Fd: int32(i)}
			_ = syscall.EpollCtl(c.epfd, syscall.EPOLL_CTL_MOD, c.rfd[i], &ev)
		}
		c.busy[i].Store(len(sp[i].carry) > 0)
		publish(i)
	}
}

// take reads what stream i's pipe holds, up to drainBudget, and feeds it
// to sp. more reports that the budget ran out before the pipe was empty;
// eof that every write end is closed.
func (c *Capture) take(i int, sp *splitter, buf []byte) (more, eof bool) {
	for total := 0; total < drainBudget; {
		want := len(buf)
		if i == 1 && c.shadow >= 0 {
			// The watcher sees the bytes before they leave the pipe
			// (crashwatch_linux.go); if its pipe is full, it misses them.
			if m := teeSome(c.rfd[i], c.shadow, want); m > 0 {
				want = m
			}
		}
		n, err := syscall.Read(c.rfd[i], buf[:want])
		if err == syscall.EINTR {
			continue
		}
		if n > 0 {
			sp.feed(buf[:n])
			total += n
		}
		switch {
		case err == syscall.EAGAIN:
			return false, false
		case err != nil || n == 0:
			return false, true
		}
	}
	return true, false
}

// drained reports whether stream i has nothing in flight: its pipe is
// empty and its reader holds no undelivered byte (and has armed the pipe
// again). The pipe is checked first: a byte read out of it after that
// check keeps busy set until it is delivered.
func (c *Capture) drained(i int) bool {
	var n int32
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(c.rfd[i]), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	return errno == 0 && n == 0 && !c.busy[i].Load()
}

// Sync returns once everything written to fds 1 and 2 before the call has
// been passed to the callback. It fails with ErrStopped after Stop, with
// ErrTimeout after SyncTimeout (e.g. when user code closed or redirected
// fd 1), or with the error of writing the marker. Safe for concurrent use;
// it must not be called from the callback.
func (c *Capture) Sync() error {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	return c.syncLocked()
}

func (c *Capture) syncLocked() error {
	select {
	case <-c.done:
		return ErrStopped
	default:
	}
	if c.drained(0) && c.drained(1) {
		return nil
	}
	c.seq++
	seq := c.seq
	m := marker(c.prefix, seq)
	for fd := 1; fd <= 2; fd++ {
		if err := writeAll(fd, m); err != nil {
			return fmt.Errorf("capture: writing the sync marker to fd %d: %w", fd, err)
		}
	}
	var timer *time.Timer
	for c.seen[0].Load() < seq || c.seen[1].Load() < seq {
		if timer == nil {
			timer = time.NewTimer(SyncTimeout)
			defer timer.Stop()
		}
		select {
		case <-c.notify:
		case <-timer.C:
			return ErrTimeout
		case <-c.done:
			return ErrStopped
		}
	}
	return nil
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// Stop flushes what is pending (as Sync), restores the original fds 1 and
// 2 and waits for the readers to finish; no callback runs after it
// returns. If a child process still holds a pipe, output it writes later
// is dropped. Stop is idempotent.
func (c *Capture) Stop() error {
	c.stopOnce.Do(func() {
		// Hold syncMu so that no Sync writes a marker into the restored
		// descriptors.
		c.syncMu.Lock()
		syncErr := c.syncLocked()
		e1 := syscall.Dup3(int(c.origOut.Fd()), 1, 0)
		e2 := syscall.Dup3(int(c.origErr.Fd()), 2, 0)
		close(c.done)
		c.syncMu.Unlock()
		// With the write ends closed the reader drains the pipes and sees
		// EOF, unless a child process still holds one: then stop it.
		select {
		case <-c.finished:
		case <-time.After(100 * time.Millisecond):
			_ = writeAll(c.wake[1], []byte{0})
			<-c.finished
		}
		for _, fd := range []int{c.rfd[0], c.rfd[1], c.wake[0], c.wake[1], c.epfd} {
			syscall.Close(fd)
		}
		if c.shadow >= 0 {
			syscall.Close(c.shadow)
		}
		_ = debug.SetCrashOutput(nil, debug.CrashOptions{})
		active.Store(false)
		switch {
		case e1 != nil:
			c.stopErr = fmt.Errorf("capture: restoring fd 1: %w", e1)
		case e2 != nil:
			c.stopErr = fmt.Errorf("capture: restoring fd 2: %w", e2)
		case syncErr != nil && syncErr != ErrStopped:
			c.stopErr = syncErr
		}
	})
	return c.stopErr
}
