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
	pool sync.Pool // of hash.Hash
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
// ErrBadSignature for an empty, malformed or wrong signature. The
// comparison takes constant time.
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
	got := make([]byte, sha256.Size)
	if _, err := hex.Decode(got, sig); err != nil {
		return fmt.Errorf("%w: not hexadecimal", ErrBadSignature)
	}
	if !hmac.Equal(got, s.mac(parts)) {
		return fmt.Errorf("%w: digest mismatch", ErrBadSignature)
	}
	return nil
}
