package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"sync"
)

// SchemeHMACSHA256 is the only signature scheme supported.
const SchemeHMACSHA256 = "hmac-sha256"

// Signer signs and verifies messages with the connection file's key. A
// nil *Signer, like one with an empty key, disables signing: Sign returns
// an empty signature and Verify accepts anything, as the protocol says.
// A Signer is safe for concurrent use.
type Signer struct {
	key  []byte
	pool sync.Pool  // of hash.Hash
	seen *digestSet // signatures verified so far (RejectReplays), or nil
}

// DefaultReplayMemory is how many signatures a kernel remembers to reject
// replayed messages: ipykernel's digest_history_size (2^16).
const DefaultReplayMemory = 1 << 16

// RejectReplays makes Verify (and so Decode) refuse a message whose
// signature it has already accepted, with an error wrapping ErrReplayed,
// as ipykernel refuses a duplicate digest: a captured message sent again
// is not handled again. The memory is bounded: it holds the last n
// signatures accepted (n <= 0 means DefaultReplayMemory; about 24 bytes
// each), and forgets the oldest first. A valid signature is 64 lower-case
// hex digits that depend on every byte of the header (its msg_id and date
// included), so a client sending a new message never collides with an
// old one. Call it before the Signer is used; it does nothing when signing
// is disabled (an unsigned kernel cannot tell a replay from a message).
func (s *Signer) RejectReplays(n int) {
	if !s.Enabled() {
		return
	}
	if n <= 0 {
		n = DefaultReplayMemory
	}
	s.seen = &digestSet{limit: n, set: make(map[[digestKeyLen]byte]struct{})}
}

// NewSigner returns a signer for the connection file's signature_scheme
// and key. The scheme must be "hmac-sha256" (or empty, which means that
// scheme); anything else is an error wrapping ErrUnsupportedScheme that
// names it.
func NewSigner(scheme, key string) (*Signer, error) {
	if scheme != SchemeHMACSHA256 && scheme != "" {
		return nil, fmt.Errorf("%w %q: only %q is supported", ErrUnsupportedScheme, scheme, SchemeHMACSHA256)
	}
	s := &Signer{key: []byte(key)}
	s.pool.New = func() any { return hmac.New(sha256.New, s.key) }
	return s, nil
}

// Enabled reports whether messages are signed.
func (s *Signer) Enabled() bool { return s != nil && len(s.key) > 0 }

func (s *Signer) mac(parts [][]byte) []byte {
	h := s.pool.Get().(hash.Hash)
	h.Reset()
	for _, p := range parts {
		h.Write(p)
	}
	sum := h.Sum(make([]byte, 0, sha256.Size))
	s.pool.Put(h)
	return sum
}

// Sign returns the hex HMAC-SHA256 of the concatenated parts (header,
// parent_header, metadata, content), or an empty slice when signing is
// disabled.
func (s *Signer) Sign(parts ...[]byte) []byte {
	if !s.Enabled() {
		return []byte{}
	}
	sum := s.mac(parts)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// Verify checks sig, a hex digest as sent on the wire, against the parts.
// It returns nil when signing is disabled, and otherwise an error wrapping
// ErrBadSignature for an empty, malformed or wrong signature: the digest
// must be 64 lower-case hex digits, as Sign writes it and ipykernel
// requires (accepting upper case would let a replay pass as a new
// signature). After RejectReplays, a signature accepted before is an
// error wrapping ErrReplayed. The comparison takes constant time.
func (s *Signer) Verify(sig []byte, parts ...[]byte) error {
	if !s.Enabled() {
		return nil
	}
	if len(sig) == 0 {
		return fmt.Errorf("%w: the message is not signed", ErrBadSignature)
	}
	if len(sig) != hex.EncodedLen(sha256.Size) {
		return fmt.Errorf("%w: %d characters, want %d", ErrBadSignature, len(sig), hex.EncodedLen(sha256.Size))
	}
	for _, c := range sig {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			if c >= 'A' && c <= 'F' {
				return fmt.Errorf("%w: upper-case hex digits (the digest is lower-case hex)", ErrBadSignature)
			}
			return fmt.Errorf("%w: not hexadecimal", ErrBadSignature)
		}
	}
	got := make([]byte, sha256.Size)
	if _, err := hex.Decode(got, sig); err != nil {
		return fmt.Errorf("%w: not hexadecimal", ErrBadSignature)
	}
	if !hmac.Equal(got, s.mac(parts)) {
		return fmt.Errorf("%w: digest mismatch", ErrBadSignature)
	}
	if s.seen != nil && !s.seen.add([digestKeyLen]byte(got)) {
		return fmt.Errorf("%w: signature %.16s… was already accepted", ErrReplayed, sig)
	}
	return nil
}

// digestKeyLen is how many bytes of a digest digestSet keeps: half of the
// HMAC, which no key-less peer can predict, so collisions between
// distinct messages have probability about n/2^128.
const digestKeyLen = 16

// digestSet remembers the last limit digests added, oldest forgotten
// first (they are never looked up again once seen, so this is also the
// least recently used order).
type digestSet struct {
	mu    sync.Mutex
	limit int
	set   map[[digestKeyLen]byte]struct{}
	ring  [][digestKeyLen]byte // insertion order; grows up to limit
	next  int                  // the oldest entry once ring is full
}

// add records k and reports whether it was new.
func (d *digestSet) add(k [digestKeyLen]byte) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.set[k]; ok {
		return false
	}
	if len(d.ring) < d.limit {
		d.ring = append(d.ring, k)
	} else {
		delete(d.set, d.ring[d.next])
		d.ring[d.next] = k
		d.next = (d.next + 1) % d.limit
	}
	d.set[k] = struct{}{}
	return true
}

// len returns how many digests are remembered.
func (d *digestSet) len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.set)
}
