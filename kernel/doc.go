// Package kernel is graphnb's Jupyter kernel server: messaging protocol
// 5.3 over ZeroMQ (graphnb's own ZMTP transport, package zmtp) on the
// five channels of a connection file, with cells run by an Engine
// (the interpreter session in production, wired by cmd/graphnb; fakes in tests).
//
// Serve binds shell, control and stdin (ROUTER), IOPub (PUB) and
// heartbeat (REP, echoing every message), verifies the HMAC-SHA256
// signature of every incoming message (a message that fails to decode or
// verify is logged and dropped, never executed) and answers kernel_info, execute, complete, inspect,
// is_complete, history, comm_info, shutdown and interrupt requests, with
// busy and idle statuses on IOPub around each. Shell requests run one at a
// time in arrival order; control requests are served concurrently, so an
// interrupt reaches a running cell.
//
// Comms (comm.go): Serve installs package comm's Transport, so that cells
// and compiled packages open comms and send on them (comm_open, comm_msg,
// comm_close on IOPub, binary buffers as extra frames, parented to the
// request being handled), and serves the front end's comm_open, comm_msg
// and comm_close on the shell channel, between busy and idle statuses
// parented to each. Their callbacks run like cells, one at a time on the
// shell goroutine (through the Engine's RunCallback when it implements
// CallbackRunner): output parented to the comm message, interruptible,
// a panic published as an error under it. comm_info_request lists the
// open comms, filtered by target_name; a comm_open to an unknown target is
// answered with a comm_close. A cell's comms are closed when the same cell
// (metadata.cellId) runs again, and every comm when Serve returns.
//
// Output written to fds 1 and 2 while the kernel runs (by interpreted
// code, compiled Go, C or child processes) is captured (package capture)
// and streamed as stream messages, coalesced over a few milliseconds and
// always flushed before a reply; explicit displays arrive through the
// display package's Sink, which Serve installs. While the installed sink
// is a display.Streamer (a widgets.Output capturing a callback), the
// captured text goes to it instead of IOPub; Serve installs display's
// flusher (a sync of the captured output), so that such a sink can flush
// the text printed before it is installed and removed (display.Flush). A cell that reads os.Stdin
// (package input notices the read) or calls display.Input or Password
// sends an input_request on stdin to the client that sent the cell, when
// its execute_request allows stdin; otherwise the read gets end of file
// with a note on stderr, and Input fails with display.ErrNoInput. An
// interrupt abandons a pending input_request (stdin.go). The kernel's own logs go
// to the original standard error, at the level of GRAPHNB_LOG.
package kernel
