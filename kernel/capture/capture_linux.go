//go:build linux

package capture

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const fSetPipeSize = 1031 // F_SETPIPE_SZ

var active atomic.Bool

// Capture is an active capture of fds 1 and 2.
type Capture struct {
	fn      Func
	origOut *os.File
	origErr *os.File
	shadow  int // the write end of the watcher's shadow of stderr, -1 if none (crashwatch_linux.go)
	readers [2]*os.File
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

	wg       sync.WaitGroup
	done     chan struct{}
	stopOnce sync.Once
	stopErr  error
}

// Start begins capturing fds 1 and 2 and calls fn with what is written to
// them. Only one capture may be active per process (ErrActive). The Go
// runtime's fatal error reports are also sent to the original standard
// error (runtime/debug.SetCrashOutput and a watcher process, see
// crashwatch_linux.go), headline included, so a crash stays visible.
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
		fn:     fn,
		prefix: []byte("\x00\x1bgraphnb-sync-" + hex.EncodeToString(nonce[:]) + ":"),
		notify: make(chan struct{}, 1),
		done:   make(chan struct{}),
		shadow: -1,
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
		// The read end goes to Go's poller; the write end stays blocking
		// so that writers (C code included) never see EAGAIN.
		if err := syscall.SetNonblock(p[0], true); err != nil {
			return nil, fmt.Errorf("capture: pipe: %w", err)
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
	for i, name := range []string{Stdout, Stderr} {
		c.readers[i] = os.NewFile(uintptr(pipes[i][0]), name+" capture pipe")
		c.wg.Add(1)
		go c.read(i, name)
	}
	return c, nil
}

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

func (c *Capture) read(i int, name string) {
	defer c.wg.Done()
	s := &splitter{
		prefix: c.prefix,
		emit:   func(b []byte) { c.fn(name, b) },
		ack: func(seq uint64) {
			c.seen[i].Store(seq)
			select {
			case c.notify <- struct{}{}:
			default:
			}
		},
	}
	rc, err := c.readers[i].SyscallConn()
	if err != nil {
		return // cannot happen for a pipe from os.NewFile
	}
	buf := make([]byte, 64<<10)
	for {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			c.busy[i].Store(true) // before the bytes leave the pipe
			want := len(buf)
			if i == 1 && c.shadow >= 0 {
				// The watcher sees the bytes before they leave the
				// pipe (crashwatch_linux.go); if its pipe is full, it
				// misses them.
				if m := teeSome(int(fd), c.shadow, want); m > 0 {
					want = m
				}
			}
			for {
				n, rerr = syscall.Read(int(fd), buf[:want])
				if rerr != syscall.EINTR {
					break
				}
			}
			if rerr == syscall.EAGAIN {
				c.busy[i].Store(len(s.carry) > 0) // nothing taken
				return false                      // wait until readable
			}
			return true
		})
		if n > 0 {
			s.feed(buf[:n])
		}
		c.busy[i].Store(len(s.carry) > 0)
		if err != nil || rerr != nil || n <= 0 {
			s.flush()
			c.busy[i].Store(false)
			return
		}
	}
}

// drained reports whether stream i has nothing in flight: its pipe is
// empty and its reader holds no undelivered byte. The pipe is checked
// first: a byte read out of it after that check keeps busy set until it
// is delivered.
func (c *Capture) drained(i int) bool {
	var n int32
	rc, err := c.readers[i].SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	_ = rc.Control(func(fd uintptr) {
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
		ok = errno == 0
	})
	return ok && n == 0 && !c.busy[i].Load()
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
		// With the write ends closed the readers drain the pipes and see
		// EOF, unless a child process still holds one: then cut them off.
		finished := make(chan struct{})
		go func() { c.wg.Wait(); close(finished) }()
		select {
		case <-finished:
		case <-time.After(100 * time.Millisecond):
			c.readers[0].Close()
			c.readers[1].Close()
			<-finished
		}
		c.readers[0].Close()
		c.readers[1].Close()
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
