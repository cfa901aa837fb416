// Package zmtp is graphnb's ZeroMQ transport: the server side of the
// ZeroMQ Message Transport Protocol, versions 3.0 and 3.1 (23/ZMTP,
// 37/ZMTP at rfc.zeromq.org) over TCP with the NULL security mechanism —
// what Jupyter uses; messages are authenticated by their HMAC at the
// application level (package wire). It offers exactly the sockets a
// Jupyter kernel binds: Router (shell, control, stdin), Pub (IOPub) and
// Echo (a REP socket that echoes: the heartbeat). Any ZeroMQ 4 library
// connects to them (libzmq through pyzmq, zmq4, …).
//
// It exists so that no peer can stall the others, which a general
// ZeroMQ library does not promise:
//
//   - Every connection's handshake (greeting and READY) runs on a
//     goroutine of its own within Options.HandshakeTimeout; a connection
//     that stalls in it delays no one and is closed at the timeout.
//   - Sending never blocks. Each peer has its own queue, bounded by
//     Options.SendHWM messages and SendHWMBytes bytes; a message that
//     would pass either is dropped for that peer alone (libzmq's send
//     high-water mark), with a log line when dropping starts and ends.
//     So an IOPub subscriber that stops reading loses messages and no
//     other subscriber does, and memory stays bounded.
//   - Each heartbeat peer is echoed by its own goroutine; one that never
//     reads blocks only its own connection.
//   - A frame is checked before its body is read: a frame or message
//     larger than Options.MaxMessageBytes, a message of more than
//     MaxFrames frames, a command above MaxCommandBytes, or a frame that
//     would take the memory held by incoming messages past their Budget
//     (shared by the kernel's sockets; small messages excepted, see
//     Budget) disconnects the peer, and what it held is released
//     (ReleaseMemorySoon).
//   - A ROUTER connection announcing a routing identity that a live
//     connection holds receives nothing and its messages are dropped
//     until the holder leaves (see Router).
//   - Close lets queued messages go out within Options.Linger, closes
//     every connection and returns once every goroutine has ended.
//
// Not implemented, because a kernel needs none of them: connecting
// (clients), other socket types, the PLAIN and CURVE mechanisms, ZMTP 1.0
// and 2.0 peers (refused), PING time-to-lives (PINGs are answered with
// PONG), the Resource property.
package zmtp
