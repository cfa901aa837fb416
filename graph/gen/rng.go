package gen

import (
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/internal/par"
)

// Random streams. Every piece of random work draws from its own stream,
// named by (seed, purpose, chunk), so it depends on neither the core count
// nor the order in which chunks run.
const (
	streamEdges uint64 = iota + 1
	streamWeights
	streamPermutation
	streamNoise
	streamCliques
)

// mix64 is the finaliser of SplitMix64 (Steele, Lea, Flood 2014): a
// bijection on uint64 that scatters nearby inputs.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// rng is xoshiro256** (Blackman and Vigna 2018): 256 bits of state, period
// 2^256-1, one 64-bit output in a few cycles. It is small enough to live in
// registers inside a hot loop and is never shared between goroutines.
type rng struct{ s0, s1, s2, s3 uint64 }

// newRNG seeds the stream (seed, stream, chunk) by running SplitMix64 from
// a hash of the three, as xoshiro's authors recommend.
func newRNG(seed, stream, chunk uint64) rng {
	x := mix64(mix64(seed+0x9e3779b97f4a7c15) ^ stream*0xd1b54a32d192ed03 ^ chunk*0x8cb92ba72f3d8dd7)
	var r rng
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		return mix64(x)
	}
	r.s0, r.s1, r.s2, r.s3 = next(), next(), next(), next()
	return r
}

// next returns 64 random bits.
func (r *rng) next() uint64 {
	var out uint64
	out, r.s0, r.s1, r.s2, r.s3 = xoshiro(r.s0, r.s1, r.s2, r.s3)
	return out
}

// xoshiro is one step of xoshiro256** on a state passed by value, for
// hot loops that keep the state in local variables (registers): it
// returns the output and the next state.
func xoshiro(s0, s1, s2, s3 uint64) (out, n0, n1, n2, n3 uint64) {
	out = bits.RotateLeft64(s1*5, 7) * 9
	t := s1 << 17
	s2 ^= s0
	s3 ^= s1
	s1 ^= s2
	s0 ^= s3
	s2 ^= t
	s3 = bits.RotateLeft64(s3, 45)
	return out, s0, s1, s2, s3
}

// below returns a number uniform in [0, n) by Lemire's multiply-shift; its
// bias is at most n/2^64, far below anything measurable.
func (r *rng) below(n uint64) uint64 {
	hi, _ := bits.Mul64(r.next(), n)
	return hi
}

// float64 returns a number uniform in [0, 1) with 53 random bits.
func (r *rng) float64() float64 { return float64(r.next()>>11) * 0x1p-53 }

// chance converts a probability to a threshold for r.next()>>11 < t,
// which then holds with probability p (to 2^-53).
func chance(p float64) uint64 {
	if p >= 1 {
		return 1 << 53
	}
	if !(p > 0) {
		return 0
	}
	return uint64(p * 0x1p53)
}

// forChunks is par.ForChunks with a cancellation point before every
// chunk: after an interrupt the remaining chunks are skipped and the
// error of cancel.Check is returned.
func forChunks(n, size int, fn func(chunk, lo, hi int)) error {
	var stop atomic.Pointer[error]
	par.ForChunks(n, size, func(chunk, lo, hi int) {
		if stop.Load() != nil {
			return
		}
		if err := cancel.Check(); err != nil {
			stop.CompareAndSwap(nil, &err)
			return
		}
		fn(chunk, lo, hi)
	})
	if err := stop.Load(); err != nil {
		return fmt.Errorf("gen: %w", *err)
	}
	return nil
}
