package zmtp

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// ZMTP 3.x framing (23/ZMTP, 37/ZMTP).
const (
	flagMore      = 0x01
	flagLong      = 0x02
	flagCommand   = 0x04
	flagsReserved = 0xf8

	greetingLen = 64
	// maxIdentity is the longest routing identity a peer may announce.
	maxIdentity = 255
	// maxPingContext is the longest context a PONG echoes.
	maxPingContext = 16
)

// MaxCommandBytes bounds a command frame (READY, SUBSCRIBE, PING, …) and
// a message a subscriber sends to a PUB socket (a subscription).
const MaxCommandBytes = 64 << 10

// ourGreeting is the greeting the server sends: ZMTP 3.1, the NULL
// mechanism, as-server 0 (NULL has no server role), zero padding.
var ourGreeting = func() []byte {
	g := make([]byte, greetingLen)
	g[0], g[9], g[10], g[11] = 0xff, 0x7f, 3, 1
	copy(g[12:32], "NULL")
	return g
}()

// ProtocolError reports bytes that do not follow ZMTP; the connection is
// closed.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "zmtp: protocol error: " + e.Msg }

func protocolErr(format string, args ...any) error {
	return &ProtocolError{Msg: fmt.Sprintf(format, args...)}
}

// LimitError reports a frame, message or command over a limit, or a frame
// that would take the memory of incoming messages past their Budget. The
// connection is closed before the frame's body is read.
type LimitError struct {
	// What says which limit: "frame", "message", "frames", "command",
	// "budget", "subscriptions" or "subscription bytes".
	What string
	// Size is the frame or command size, or the message total, in bytes;
	// or the frame count.
	Size uint64
	// Limit is the limit Size exceeds.
	Limit int64
}

func (e *LimitError) Error() string {
	switch e.What {
	case "frames":
		return fmt.Sprintf("zmtp: message of more than %d frames", e.Limit)
	case "message":
		return fmt.Sprintf("zmtp: message grows to %d bytes, the limit is %d", e.Size, e.Limit)
	case "command":
		return fmt.Sprintf("zmtp: command of %d bytes, the limit is %d", e.Size, e.Limit)
	case "subscriptions":
		return fmt.Sprintf("zmtp: more than %d subscriptions", e.Limit)
	case "subscription bytes":
		return fmt.Sprintf("zmtp: subscriptions of %d bytes in all, the limit is %d", e.Size, e.Limit)
	case "budget":
		return fmt.Sprintf("zmtp: a frame of %d bytes would take the memory held by incoming messages past its limit of %d bytes", e.Size, e.Limit)
	default:
		return fmt.Sprintf("zmtp: frame announces %d bytes, the limit is %d", e.Size, e.Limit)
	}
}

// checkGreeting validates a peer's 64-byte greeting: the signature, a
// major version of 3 or more, and the NULL mechanism.
func checkGreeting(g []byte) error {
	if len(g) != greetingLen || g[0] != 0xff || g[9] != 0x7f {
		return protocolErr("not a ZMTP 3 greeting (it starts % x)", g[:min(len(g), 10)])
	}
	if g[10] < 3 {
		return protocolErr("the peer speaks ZMTP %d.x; only 3.0 and later are supported", g[10])
	}
	if mech := bytes.TrimRight(g[12:32], "\x00"); string(mech) != "NULL" {
		return protocolErr("security mechanism %q; only NULL is supported", mech)
	}
	return nil
}

// readFrameHeader reads the flags and size of the next frame.
func readFrameHeader(r *bufio.Reader) (flags byte, size uint64, err error) {
	flags, err = r.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	if flags&flagsReserved != 0 {
		return 0, 0, protocolErr("reserved flag bits set in %#02x", flags)
	}
	if flags&flagCommand != 0 && flags&flagMore != 0 {
		return 0, 0, protocolErr("a command frame with the MORE flag")
	}
	if flags&flagLong != 0 {
		var b [8]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return 0, 0, noEOF(err)
		}
		size = binary.BigEndian.Uint64(b[:])
		if size > math.MaxInt64 {
			return 0, 0, protocolErr("frame size %d above 2^63-1", size)
		}
		return flags, size, nil
	}
	b, err := r.ReadByte()
	if err != nil {
		return 0, 0, noEOF(err)
	}
	return flags, uint64(b), nil
}

// noEOF turns an end of stream inside a frame into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// appendFrameHeader appends the flags and size of a frame of size bytes.
func appendFrameHeader(b []byte, flags byte, size int) []byte {
	if size <= 255 {
		return append(b, flags, byte(size))
	}
	return binary.BigEndian.AppendUint64(append(b, flags|flagLong), uint64(size))
}

// commandFrame returns a whole command frame.
func commandFrame(name string, data []byte) []byte {
	n := 1 + len(name) + len(data)
	b := appendFrameHeader(make([]byte, 0, 9+n), flagCommand, n)
	b = append(b, byte(len(name)))
	b = append(b, name...)
	return append(b, data...)
}

// parseCommand splits a command body into its name and data.
func parseCommand(body []byte) (name string, data []byte, err error) {
	if len(body) == 0 || body[0] == 0 || len(body) < 1+int(body[0]) {
		return "", nil, protocolErr("malformed command name")
	}
	return string(body[1 : 1+body[0]]), body[1+body[0]:], nil
}

// errorReason returns the reason an ERROR command carries.
func errorReason(data []byte) string {
	if len(data) == 0 || len(data) < 1+int(data[0]) {
		return "(no reason)"
	}
	return string(data[1 : 1+data[0]])
}

// errorCommand returns an ERROR command frame with reason (cut to 255
// bytes).
func errorCommand(reason string) []byte {
	if len(reason) > 255 {
		reason = reason[:255]
	}
	return commandFrame("ERROR", append([]byte{byte(len(reason))}, reason...))
}

// parseMetadata parses the properties of a READY command; names are
// case-insensitive and returned in lower case.
func parseMetadata(data []byte) (map[string][]byte, error) {
	props := map[string][]byte{}
	for len(data) > 0 {
		n := int(data[0])
		if n == 0 || len(data) < 1+n+4 {
			return nil, protocolErr("malformed metadata property")
		}
		name := strings.ToLower(string(data[1 : 1+n]))
		vn := binary.BigEndian.Uint32(data[1+n:])
		data = data[1+n+4:]
		if uint64(vn) > uint64(len(data)) {
			return nil, protocolErr("metadata property %q announces %d bytes, %d remain", name, vn, len(data))
		}
		props[name] = data[:vn]
		data = data[vn:]
	}
	return props, nil
}

// readyCommand returns the READY command the server sends.
func readyCommand(socketType string) []byte {
	const name = "Socket-Type"
	b := append([]byte{byte(len(name))}, name...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(socketType)))
	return commandFrame("READY", append(b, socketType...))
}

// isClosed reports whether err only says that the connection ended.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, errClosedByUs)
}
