//go:build linux

package capture

import (
	"bytes"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"syscall"
	"time"
)

// A fatal error (a stack overflow, an out-of-memory, concurrent map
// writes) ends the process. The runtime prints its "fatal error: …"
// headline to fd 2 — the capture pipe — and only then starts dying and
// copies the rest of its report (the goroutines' stacks) to the file set
// by debug.SetCrashOutput as well. The capture's reader may take the
// headline out of the pipe, but the process stops before it is delivered:
// the kernel's log got a report without its headline.
//
// So Start also starts a watcher process (this executable again, in
// watcher mode: see init) with
//
//   - the read end of the crash output pipe (SetCrashOutput's file),
//   - the read end of a shadow pipe: the stderr reader tee(2)s every
//     chunk into it before it takes the chunk out of the capture pipe, so
//     the watcher has seen every byte written to fd 2 that the kernel
//     has taken; it keeps the last tailSize bytes;
//   - a copy of the read end of the capture pipe, which it reads only
//     once the process has ended: the bytes the kernel never took.
//
// When the crash pipe closes, the process has ended (or Stop was
// called). If a report came, the watcher writes the tail of standard
// error (the headline, and what the program wrote just before: the
// shadow's tail, then what was left in the pipe, less the chunk that was
// in both) and then the report to the original standard error: the
// kernel's log, which the
// front end shows. The watcher runs in a process group of its own, so an
// interrupt sent to the kernel's group does not end it. If it cannot
// start, Start goes on without it (the report then lacks its headline).

// watcherEnv puts this executable in watcher mode; its value is the
// capture's marker prefix in hex, which the watcher strips from the tail.
const watcherEnv = "GRAPHNB_CAPTURE_CRASH_WATCHER"

// tailSize is how much of standard error the watcher keeps.
const tailSize = 8 << 10

func init() {
	if v, ok := os.LookupEnv(watcherEnv); ok {
		prefix, _ := hex.DecodeString(v)
		watch(os.NewFile(3, "crash output"), os.NewFile(4, "stderr shadow"), 5, os.Stderr, prefix)
		os.Exit(0)
	}
}

// startWatcher starts the watcher and sets the crash output; it returns
// the write end of the shadow pipe, or -1 if no watcher could start.
func startWatcher(stderrRead int, origErr *os.File, prefix []byte) int {
	exe, err := os.Executable()
	if err != nil {
		return -1
	}
	fd, err := dupCloexec(stderrRead) // the capture's reader owns stderrRead
	if err != nil {
		return -1
	}
	pr := os.NewFile(uintptr(fd), "stderr capture pipe (watcher's copy)")
	defer pr.Close()
	cr, cw, err := os.Pipe()
	if err != nil {
		return -1
	}
	defer cr.Close()
	defer cw.Close() // SetCrashOutput keeps a duplicate
	var sh [2]int
	if err := syscall.Pipe2(sh[:], syscall.O_CLOEXEC); err != nil {
		return -1
	}
	sr := os.NewFile(uintptr(sh[0]), "stderr shadow")
	defer sr.Close()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), watcherEnv+"="+hex.EncodeToString(prefix))
	cmd.Stderr = origErr
	cmd.ExtraFiles = []*os.File{cr, sr, pr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		syscall.Close(sh[1])
		return -1
	}
	if err := debug.SetCrashOutput(cw, debug.CrashOptions{}); err != nil {
		syscall.Close(sh[1])
		cmd.Process.Kill()
		cmd.Wait()
		return -1
	}
	go cmd.Wait() // it ends when the crash pipe closes (Stop, or the end of the process)
	return sh[1]
}

// teeSome copies up to n bytes from the pipe src into the pipe dst without
// taking them out of src; 0 when nothing could be copied (src empty, dst
// full).
func teeSome(src, dst, n int) int {
	const spliceNonblock = 2 // SPLICE_F_NONBLOCK
	for {
		m, _, errno := syscall.Syscall6(syscall.SYS_TEE, uintptr(src), uintptr(dst), uintptr(n), spliceNonblock, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return 0
		}
		return int(m)
	}
}

// watch is the watcher: it keeps the tail of the shadow pipe and reads the
// crash report until the crash pipe closes, then, if a report came,
// writes the tail, what is left in the capture pipe (fd left) and the
// report to out.
func watch(crash, shadow *os.File, left int, out io.Writer, prefix []byte) {
	var tail []byte
	s := &splitter{prefix: prefix, ack: func(uint64) {}, emit: func(b []byte) {
		tail = append(tail, b...)
		if len(tail) > 2*tailSize {
			tail = append(tail[:0], tail[len(tail)-tailSize:]...)
		}
	}}
	shadowDone := make(chan struct{})
	go func() {
		defer close(shadowDone)
		buf := make([]byte, 64<<10)
		for {
			n, err := shadow.Read(buf)
			s.feed(buf[:n])
			if err != nil {
				s.flush()
				return
			}
		}
	}()
	report, _ := io.ReadAll(crash)
	if len(report) == 0 {
		return
	}
	select {
	case <-shadowDone:
	case <-time.After(time.Second): // cannot happen: only the process held the write end
	}
	if len(tail) > tailSize {
		tail = tail[len(tail)-tailSize:]
	}
	var rest []byte
	ls := &splitter{prefix: prefix, ack: func(uint64) {}, emit: func(b []byte) { rest = append(rest, b...) }}
	buf := make([]byte, 64<<10)
	for len(rest) < 1<<20 {
		// The pipe is non-blocking (the capture reads it through the
		// poller): EAGAIN means nothing is left.
		n, err := syscall.Read(left, buf)
		if n <= 0 || err != nil {
			break
		}
		ls.feed(buf[:n])
	}
	ls.flush()
	// A chunk the reader had tee'd but not yet taken is in both.
	for k := min(len(tail), len(rest)); k > 0; k-- {
		if bytes.HasSuffix(tail, rest[:k]) {
			rest = rest[k:]
			break
		}
	}
	out.Write(tail)
	out.Write(rest)
	out.Write(report)
}
