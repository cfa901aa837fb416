// Package zmtptest is a raw ZMTP 3.0 client for tests: it writes and reads
// the protocol's bytes itself, so that a test can do what a well-behaved
// ZeroMQ library never does (stop reading, stall in the middle of a
// greeting, announce an identity already in use, send huge frames) and
// see exactly the frames a server sends back.
package zmtptest

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Greeting returns a 64-byte ZMTP 3.minor greeting for the NULL mechanism.
func Greeting(minor byte) []byte {
	g := make([]byte, 64)
	g[0], g[9], g[10], g[11] = 0xff, 0x7f, 3, minor
	copy(g[12:], "NULL")
	return g
}

// Command returns a command frame.
func Command(name string, data []byte) []byte {
	body := append([]byte{byte(len(name))}, name...)
	body = append(body, data...)
	return frame(0x04, body)
}

// Ready returns a READY command announcing socketType and, unless empty,
// identity.
func Ready(socketType, identity string) []byte {
	var b []byte
	prop := func(name, value string) {
		b = append(b, byte(len(name)))
		b = append(b, name...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(value)))
		b = append(b, value...)
	}
	prop("Socket-Type", socketType)
	if identity != "" {
		prop("Identity", identity)
	}
	return Command("READY", b)
}

// Message returns the frames of one message.
func Message(frames ...[]byte) []byte {
	var out []byte
	for i, f := range frames {
		var flags byte
		if i < len(frames)-1 {
			flags = 0x01
		}
		out = append(out, frame(flags, f)...)
	}
	return out
}

// Frame returns one message frame, with the MORE flag if more.
func Frame(more bool, body []byte) []byte {
	var flags byte
	if more {
		flags = 0x01
	}
	return frame(flags, body)
}

// FrameHeader returns the header of a message frame of size bytes (the
// body follows it).
func FrameHeader(more bool, size uint64) []byte {
	var flags byte
	if more {
		flags = 0x01
	}
	if size < 256 {
		return []byte{flags, byte(size)}
	}
	return binary.BigEndian.AppendUint64([]byte{flags | 0x02}, size)
}

func frame(flags byte, body []byte) []byte {
	if len(body) < 256 {
		return append([]byte{flags, byte(len(body))}, body...)
	}
	out := binary.BigEndian.AppendUint64([]byte{flags | 0x02}, uint64(len(body)))
	return append(out, body...)
}

// Conn is a raw ZMTP connection.
type Conn struct {
	net.Conn
	R *bufio.Reader
}

// Dial connects to addr ("127.0.0.1:port"). A readBuffer above zero sets
// the socket's receive buffer (SO_RCVBUF), so that a peer that stops
// reading fills it soon.
func Dial(addr string, readBuffer int) (*Conn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	if readBuffer > 0 {
		if err := c.(*net.TCPConn).SetReadBuffer(readBuffer); err != nil {
			c.Close()
			return nil, err
		}
	}
	return &Conn{Conn: c, R: bufio.NewReader(c)}, nil
}

// ErrRefused is returned by Handshake when the server answers with an
// ERROR command; the error's text carries the reason.
var ErrRefused = errors.New("zmtptest: the server sent ERROR")

// Handshake sends a 3.0 greeting and a READY command and reads the
// server's greeting and READY (within 10 s), returning the server's
// properties (names in lower case).
func (c *Conn) Handshake(socketType, identity string) (map[string]string, error) {
	if _, err := c.Write(append(Greeting(0), Ready(socketType, identity)...)); err != nil {
		return nil, err
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	g := make([]byte, 64)
	if _, err := io.ReadFull(c.R, g); err != nil {
		return nil, fmt.Errorf("zmtptest: reading the greeting: %w", err)
	}
	if g[0] != 0xff || g[9] != 0x7f || g[10] < 3 {
		return nil, fmt.Errorf("zmtptest: bad greeting % x", g[:12])
	}
	flags, body, err := c.readFrame()
	if err != nil {
		return nil, fmt.Errorf("zmtptest: reading READY: %w", err)
	}
	if flags&0x04 == 0 || len(body) == 0 || len(body) < 1+int(body[0]) {
		return nil, fmt.Errorf("zmtptest: expected a command, got flags %#x", flags)
	}
	name, data := string(body[1:1+body[0]]), body[1+body[0]:]
	if name == "ERROR" {
		reason := ""
		if len(data) > 0 && len(data) >= 1+int(data[0]) {
			reason = string(data[1 : 1+data[0]])
		}
		return nil, fmt.Errorf("%w: %s", ErrRefused, reason)
	}
	if name != "READY" {
		return nil, fmt.Errorf("zmtptest: expected READY, got %q", name)
	}
	props := map[string]string{}
	for len(data) > 0 {
		n := int(data[0])
		if len(data) < 1+n+4 {
			return nil, errors.New("zmtptest: truncated property")
		}
		key := strings.ToLower(string(data[1 : 1+n]))
		vn := int(binary.BigEndian.Uint32(data[1+n:]))
		data = data[1+n+4:]
		if len(data) < vn {
			return nil, errors.New("zmtptest: truncated property value")
		}
		props[key] = string(data[:vn])
		data = data[vn:]
	}
	return props, nil
}

// Send writes one message.
func (c *Conn) Send(frames ...[]byte) error {
	_, err := c.Write(Message(frames...))
	return err
}

// Recv reads the next message, skipping commands. A read deadline set on
// the connection applies.
func (c *Conn) Recv() ([][]byte, error) {
	var msg [][]byte
	for {
		flags, body, err := c.readFrame()
		if err != nil {
			return nil, err
		}
		if flags&0x04 != 0 {
			continue
		}
		msg = append(msg, body)
		if flags&0x01 == 0 {
			return msg, nil
		}
	}
}

// RecvCommand reads the next frame, which must be a command, and returns
// its name and data.
func (c *Conn) RecvCommand() (string, []byte, error) {
	flags, body, err := c.readFrame()
	if err != nil {
		return "", nil, err
	}
	if flags&0x04 == 0 || len(body) == 0 || len(body) < 1+int(body[0]) {
		return "", nil, fmt.Errorf("zmtptest: expected a command, got flags %#x", flags)
	}
	return string(body[1 : 1+body[0]]), body[1+body[0]:], nil
}

// maxFrame bounds what readFrame accepts (a test client, not a server).
const maxFrame = 256 << 20

func (c *Conn) readFrame() (byte, []byte, error) {
	flags, err := c.R.ReadByte()
	if err != nil {
		return 0, nil, err
	}
	var size uint64
	if flags&0x02 != 0 {
		var b [8]byte
		if _, err := io.ReadFull(c.R, b[:]); err != nil {
			return 0, nil, err
		}
		size = binary.BigEndian.Uint64(b[:])
	} else {
		b, err := c.R.ReadByte()
		if err != nil {
			return 0, nil, err
		}
		size = uint64(b)
	}
	if size > maxFrame {
		return 0, nil, fmt.Errorf("zmtptest: frame of %d bytes", size)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(c.R, body); err != nil {
		return 0, nil, err
	}
	return flags, body, nil
}
