// Package wire frames Jupyter messages (messaging protocol 5.3) for
// ZeroMQ; the ZeroMQ transport itself is package zmtp.
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
package wire
