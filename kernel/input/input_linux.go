//go:build linux

package input

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

var active atomic.Bool

// Stdin is the process's standard input while it is served (see Start).
type Stdin struct {
	orig int // a duplicate of the original fd 0, or -1 if it was closed

	mu      sync.Mutex // w and stopped
	w       int        // the write end of the pipe on fd 0 (non-blocking)
	stopped bool

	serveMu sync.Mutex // one Serve at a time
	task    []byte     // scratch for reading /proc files
	prefix  []byte     // "<SYS_READ> 0x0 ": a read(2) of fd 0
}

// Start replaces fd 0 by a pipe that Serve fills. It fails with ErrActive
// when another Stdin is active in the process, and without touching fd 0
// when the threads' system calls cannot be read from /proc (Serve could
// not notice a read).
func Start() (*Stdin, error) {
	if !active.CompareAndSwap(false, true) {
		return nil, ErrActive
	}
	s, err := start()
	if err != nil {
		active.Store(false)
		return nil, err
	}
	return s, nil
}

func start() (*Stdin, error) {
	s := &Stdin{
		orig:   -1,
		task:   make([]byte, 256),
		prefix: []byte(strconv.Itoa(syscall.SYS_READ) + " 0x0 "),
	}
	if _, err := os.ReadFile("/proc/thread-self/syscall"); err != nil {
		return nil, fmt.Errorf("input: the threads' system calls cannot be read: %w", err)
	}
	if fd, err := dupCloexec(0); err == nil {
		s.orig = fd
	}
	if err := s.fresh(); err != nil {
		if s.orig >= 0 {
			syscall.Close(s.orig)
		}
		return nil, err
	}
	return s, nil
}

func dupCloexec(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

// fresh puts a new pipe on fd 0 and closes the old write end: a thread
// still reading the old pipe gets end of file, later reads wait on the
// new one.
func (s *Stdin) fresh() error {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return fmt.Errorf("input: pipe: %w", err)
	}
	// A big pipe takes a long answer at once; the kernel may refuse.
	_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(p[1]), 1031 /* F_SETPIPE_SZ */, 1<<20)
	// The read end stays blocking: a reader waits in read(2), where Serve
	// sees it. The write end is ours: non-blocking, so that an answer the
	// cell does not read cannot hang Serve.
	if err := syscall.SetNonblock(p[1], true); err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return fmt.Errorf("input: pipe: %w", err)
	}
	if p[0] != 0 { // fd 0 was closed: the pipe may have taken it
		if err := syscall.Dup3(p[0], 0, 0); err != nil {
			syscall.Close(p[0])
			syscall.Close(p[1])
			return fmt.Errorf("input: dup2 onto fd 0: %w", err)
		}
		syscall.Close(p[0])
	}
	s.mu.Lock()
	old := s.w
	s.w = p[1]
	s.mu.Unlock()
	if old > 0 {
		syscall.Close(old)
	}
	return nil
}

// Stop restores the original fd 0; a thread still reading the pipe gets
// end of file. It waits for a running Serve to return, so cancel Serve's
// context first. Stop is idempotent.
func (s *Stdin) Stop() error {
	s.serveMu.Lock()
	defer s.serveMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	s.stopped = true
	var err error
	if s.orig >= 0 {
		err = syscall.Dup3(s.orig, 0, 0)
		syscall.Close(s.orig)
	} else {
		err = syscall.Close(0)
	}
	syscall.Close(s.w)
	active.Store(false)
	if err != nil {
		return fmt.Errorf("input: restoring fd 0: %w", err)
	}
	return nil
}

// Serve answers the reads of fd 0 until ctx ends. Each time a thread of
// the process waits in read(2) on fd 0 with nothing to read, Serve calls
// ask (with ctx) and writes the line it returns, followed by a newline,
// into the pipe; when ask fails, the reader gets end of file. Serve
// returns when ctx ends; a read then waiting stays waiting (for the next
// Serve), unless ask was answering it: an interrupted question ends in
// end of file. One Serve runs at a time.
func (s *Stdin) Serve(ctx context.Context, ask func(context.Context) (string, error)) {
	s.serveMu.Lock()
	defer s.serveMu.Unlock()
	if s.isStopped() {
		return
	}
	interval := MinInterval
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		if !s.waiting() {
			interval = min(2*interval, MaxInterval)
			timer.Reset(interval)
			continue
		}
		line, err := ask(ctx)
		if err != nil {
			_ = s.fresh()
		} else {
			s.write(ctx, append([]byte(line), '\n'))
		}
		interval = MinInterval
		timer.Reset(interval)
	}
}

func (s *Stdin) isStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// write writes b into the pipe. The pipe holds 1 MiB (or at least 64
// KiB); past that, write waits for the reader, and gives up on the rest
// when ctx ends.
func (s *Stdin) write(ctx context.Context, b []byte) {
	s.mu.Lock()
	w := s.w
	s.mu.Unlock()
	for len(b) > 0 {
		n, err := syscall.Write(w, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Millisecond):
			}
			continue
		case err != nil:
			return
		}
		b = b[n:]
	}
}

// waiting reports whether the pipe on fd 0 is empty and a thread of the
// process waits in read(2) on fd 0: /proc/self/task/TID/syscall holds the
// number and arguments of the system call a blocked thread is in ("0 0x0
// …" for read(0, …) on amd64), and "running" for a thread that runs,
// such as a reader just woken by data.
func (s *Stdin) waiting() bool {
	var n int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, 0, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 || n > 0 {
		return false
	}
	dir, err := os.Open("/proc/self/task")
	if err != nil {
		return false
	}
	tids, err := dir.Readdirnames(-1)
	dir.Close()
	if err != nil {
		return false
	}
	for _, tid := range tids {
		if s.readsStdin("/proc/self/task/" + tid + "/syscall") {
			return true
		}
	}
	return false
}

// readsStdin reports whether the /proc syscall file at path says read(0).
func (s *Stdin) readsStdin(path string) bool {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false // the thread has exited
	}
	defer syscall.Close(fd)
	n, err := syscall.Read(fd, s.task)
	return err == nil && bytes.HasPrefix(s.task[:max(n, 0)], s.prefix)
}
