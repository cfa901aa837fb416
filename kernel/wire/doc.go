// Package wire frames Jupyter messages (messaging protocol 5.3) for
// ZeroMQ and guards the ZeroMQ stream against hostile peers.
//
// A Jupyter message on a socket is a multipart ZeroMQ message:
//
//	identity frames… | "<IDS|MSG>" | signature | header | parent_header | metadata | content | buffers…
//
// The signature is the hex HMAC of the four JSON dict frames under the
// key of the connection file (Signer); an empty key disables signing.
// Signatures are lower-case hex, and a Signer can refuse replays: a
// message whose signature it has accepted before (RejectReplays, with a
// bounded memory of the last 2^16 as ipykernel keeps).
// Decode checks the framing, the signature, the JSON of the four dicts
// and the size Limits, and reports what was wrong through sentinel
// errors (errors.Is(err, ErrBadSignature), …); Encode is its inverse.
// Neither panics, whatever the input.
//
// Guard is a zmq4 transport ("gnbtcp://ip:port") that follows the ZMTP
// 3.x byte stream of every accepted connection and closes a connection
// whose frame header announces more than the limit, before zmq4
// allocates a buffer of the announced size; it also keeps a peer that
// never completes its handshake from stalling the socket's accept loop.
package wire
