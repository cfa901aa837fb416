package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Version is the messaging protocol version this package speaks.
const Version = "5.3"

// Delimiter separates the routing identities from the message proper.
const Delimiter = "<IDS|MSG>"

// DateFormat is the layout of Header.Date: RFC 3339 with microseconds and
// a time zone, e.g. "2025-01-02T15:04:05.123456Z".
const DateFormat = "2006-01-02T15:04:05.000000Z07:00"

// Header is a message header (also the parent_header of a reply).
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	// Date is when the message was created, formatted with DateFormat.
	Date    string `json:"date"`
	MsgType string `json:"msg_type"`
	// Version is the protocol version of the sender ("5.3" for ours).
	Version string `json:"version"`
}

// IsZero reports whether h is the empty header (an empty parent).
func (h Header) IsZero() bool { return h == Header{} }

// Now returns the current time formatted for Header.Date.
func Now() string { return time.Now().UTC().Format(DateFormat) }

// Message is one Jupyter message.
type Message struct {
	// Identities are the routing frames before the delimiter (for ROUTER
	// sockets) or the topic (IOPub).
	Identities [][]byte
	Header     Header
	// Parent is the header of the request this message answers; the zero
	// Header is encoded as {}.
	Parent Header
	// Metadata is the metadata dict; nil is encoded as {}. Numbers decode
	// as json.Number so they round-trip exactly.
	Metadata map[string]any
	// Content is the content dict, kept as raw JSON; empty is encoded as {}.
	Content json.RawMessage
	// Buffers are the extra binary frames after content.
	Buffers [][]byte
}

// Limits bound what Decode accepts from a peer (and what the kernel's
// transport, package zmtp, reads).
type Limits struct {
	// MaxMessageBytes bounds the sum of all frame sizes of one message,
	// and so any single frame, in bytes.
	MaxMessageBytes int64
	// MaxFrames bounds the number of frames of one message, identities
	// and buffers included.
	MaxFrames int
	// MaxIdentities bounds the number of routing frames before the
	// delimiter.
	MaxIdentities int
}

// DefaultLimits are the limits used when a Limits field is zero: 64 MiB
// per message, 1024 frames, 64 identities.
var DefaultLimits = Limits{MaxMessageBytes: 64 << 20, MaxFrames: 1024, MaxIdentities: 64}

// WithDefaults returns l with zero (or negative) fields taken from
// DefaultLimits.
func (l Limits) WithDefaults() Limits { return l.withDefaults() }

// withDefaults fills zero (or negative) fields from DefaultLimits.
func (l Limits) withDefaults() Limits {
	if l.MaxMessageBytes <= 0 {
		l.MaxMessageBytes = DefaultLimits.MaxMessageBytes
	}
	if l.MaxFrames <= 0 {
		l.MaxFrames = DefaultLimits.MaxFrames
	}
	if l.MaxIdentities <= 0 {
		l.MaxIdentities = DefaultLimits.MaxIdentities
	}
	return l
}

// Errors Decode wraps; test them with errors.Is.
var (
	ErrNoDelimiter       = errors.New("wire: missing <IDS|MSG> delimiter")
	ErrTooFewFrames      = errors.New("wire: fewer than 5 frames after the delimiter")
	ErrBadSignature      = errors.New("wire: bad or missing signature")
	ErrReplayed          = errors.New("wire: replayed message")
	ErrBadJSON           = errors.New("wire: bad JSON")
	ErrNoMsgType         = errors.New("wire: header without msg_type")
	ErrTooManyIdentities = errors.New("wire: too many identity frames")
	ErrTooManyFrames     = errors.New("wire: too many frames")
	ErrTooLarge          = errors.New("wire: message too large")
	ErrUnsupportedScheme = errors.New("wire: unsupported signature scheme")
)

// Decode parses the frames of one message received from a socket and
// verifies its signature with s (nil or a Signer with an empty key
// accepts any signature). It applies DefaultLimits; see DecodeLimits.
func Decode(frames [][]byte, s *Signer) (*Message, error) {
	return DecodeLimits(frames, s, Limits{})
}

// DecodeLimits is Decode with explicit limits (zero fields take the
// defaults). The returned message shares memory with frames. The error
// wraps one of the package's sentinel errors and says which frame was at
// fault. Cost: O(total size).
func DecodeLimits(frames [][]byte, s *Signer, lim Limits) (*Message, error) {
	lim = lim.withDefaults()
	if len(frames) > lim.MaxFrames {
		return nil, fmt.Errorf("%w: %d frames, the limit is %d", ErrTooManyFrames, len(frames), lim.MaxFrames)
	}
	var total int64
	for _, f := range frames {
		total += int64(len(f))
	}
	if total > lim.MaxMessageBytes {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, total, lim.MaxMessageBytes)
	}
	delim := -1
	for i, f := range frames {
		if string(f) == Delimiter {
			delim = i
			break
		}
	}
	if delim < 0 {
		return nil, fmt.Errorf("%w (%d frames)", ErrNoDelimiter, len(frames))
	}
	if delim > lim.MaxIdentities {
		return nil, fmt.Errorf("%w: %d, the limit is %d", ErrTooManyIdentities, delim, lim.MaxIdentities)
	}
	rest := frames[delim+1:]
	if len(rest) < 5 {
		return nil, fmt.Errorf("%w: got %d", ErrTooFewFrames, len(rest))
	}
	sig, hdr, parent, meta, content := rest[0], rest[1], rest[2], rest[3], rest[4]
	if err := s.Verify(sig, hdr, parent, meta, content); err != nil {
		return nil, err
	}

	m := &Message{}
	if err := decodeHeader(hdr, &m.Header); err != nil {
		return nil, fmt.Errorf("%w in header: %v", ErrBadJSON, err)
	}
	if m.Header.MsgType == "" {
		return nil, ErrNoMsgType
	}
	if err := decodeHeader(parent, &m.Parent); err != nil {
		return nil, fmt.Errorf("%w in parent_header: %v", ErrBadJSON, err)
	}
	if err := checkObject(meta); err != nil {
		return nil, fmt.Errorf("%w in metadata: %v", ErrBadJSON, err)
	}
	dec := json.NewDecoder(bytes.NewReader(meta))
	dec.UseNumber()
	if err := dec.Decode(&m.Metadata); err != nil {
		return nil, fmt.Errorf("%w in metadata: %v", ErrBadJSON, err)
	}
	if err := checkObject(content); err != nil {
		return nil, fmt.Errorf("%w in content: %v", ErrBadJSON, err)
	}
	m.Content = json.RawMessage(content)
	if delim > 0 {
		m.Identities = frames[:delim:delim]
	}
	if len(rest) > 5 {
		m.Buffers = rest[5:]
	}
	return m, nil
}

func decodeHeader(b []byte, h *Header) error {
	if err := checkObject(b); err != nil {
		return err
	}
	return json.Unmarshal(b, h)
}

// checkObject reports an error unless b is one valid JSON object.
func checkObject(b []byte) error {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return errors.New("not a JSON object")
	}
	if !json.Valid(b) {
		// Let the decoder describe the syntax error.
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		return errors.New("invalid JSON")
	}
	return nil
}

var emptyObject = []byte("{}")

// Encode renders m as the frames to send, signed with s (nil or an empty
// key: empty signature). Metadata that cannot be encoded as JSON (a
// channel, NaN, …) is sent as {}; Content is sent as is (it must be a JSON
// object; empty means {}).
func Encode(m *Message, s *Signer) [][]byte {
	hdr, _ := json.Marshal(m.Header) // a struct of strings cannot fail
	parent := emptyObject
	if !m.Parent.IsZero() {
		parent, _ = json.Marshal(m.Parent)
	}
	meta := emptyObject
	if len(m.Metadata) > 0 {
		if b, err := json.Marshal(m.Metadata); err == nil {
			meta = b
		}
	}
	content := []byte(m.Content)
	if len(content) == 0 {
		content = emptyObject
	}
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, []byte(Delimiter), s.Sign(hdr, parent, meta, content), hdr, parent, meta, content)
	frames = append(frames, m.Buffers...)
	return frames
}
