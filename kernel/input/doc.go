// Package input gives cells a standard input that asks the front end.
//
// Start replaces fd 0 of the process by a pipe whose write end the
// package keeps; os.Stdin keeps pointing at fd 0, so everything that reads
// it — interpreted code (fmt.Scanln, bufio.NewReader(os.Stdin),
// os.Stdin.Read), compiled Go, C — reads the pipe. While Serve runs (the
// kernel runs it while a cell executes), it watches for a thread of the
// process that waits in read(2) on fd 0 with the pipe empty (Linux reports
// each thread's current system call in /proc/self/task/*/syscall), and
// then calls the ask function it was given: the kernel sends an
// input_request and waits for the input_reply. The line answered is
// written into the pipe with a newline, and the read returns it. When ask
// fails — the front end does not accept input (allow_stdin is false), or
// the cell was interrupted — the reader gets end of file instead: the
// pipe is replaced by a fresh one and the old write end closed.
//
// A read is noticed within Interval (a few milliseconds) of blocking.
// Reads by child processes that inherited fd 0 are not noticed (they see
// the pipe, and end of file when the kernel stops). Only Linux is
// supported; elsewhere Start returns ErrUnsupported.
package input
