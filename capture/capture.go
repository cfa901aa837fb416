package capture

import (
	"bytes"
	"errors"
	"strconv"
	"time"
	"unicode/utf8"
)

// Func receives captured output: stream is "stdout" or "stderr", data the
// bytes in the order they were written to that descriptor. It is called
// from one goroutine (calls never overlap) and must not retain data after
// it returns.
//
// Across the two streams, calls follow the order of the writes: of two
// writes to different descriptors, the earlier one is delivered first
// when the reader had taken out everything written before it — always
// for the first write to each stream after a quiet moment, as for
// fmt.Println("a") followed by fmt.Fprintln(os.Stderr, "b"). Writes that
// alternate between the streams faster than the reader takes data out (a
// few microseconds while it is awake, its wake-up latency when it was
// asleep) may arrive grouped by stream; the bytes of one stream are never
// reordered.
type Func func(stream string, data []byte)

// SyncTimeout bounds how long Sync waits for its markers; a descriptor
// redirected elsewhere by user code would otherwise hang it.
const SyncTimeout = 5 * time.Second

// Errors returned by Start, Sync and Stop.
var (
	ErrUnsupported = errors.New("capture: not supported on this platform")
	ErrActive      = errors.New("capture: already capturing in this process")
	ErrStopped     = errors.New("capture: stopped")
	ErrTimeout     = errors.New("capture: Sync timed out waiting for its marker")
)

// Stream names passed to Func.
const (
	Stdout = "stdout"
	Stderr = "stderr"
)

// splitter removes sync markers from a byte stream that may split them
// across reads. A marker is prefix + 16 hex digits of a sequence number +
// "\x00".
type splitter struct {
	prefix []byte
	carry  []byte // a possible marker start held back from the last chunk
	joined []byte // scratch for carry + new data
	emit   func([]byte)
	ack    func(seq uint64)
}

func (s *splitter) markerLen() int { return len(s.prefix) + 17 }

// feed processes the next chunk of the stream.
func (s *splitter) feed(chunk []byte) {
	data := chunk
	if len(s.carry) > 0 {
		s.joined = append(append(s.joined[:0], s.carry...), chunk...)
		data = s.joined
		s.carry = s.carry[:0]
	}
	for len(data) > 0 {
		i := bytes.Index(data, s.prefix)
		if i < 0 {
			k := s.partialStart(data)
			s.out(data[:k])
			s.carry = append(s.carry, data[k:]...)
			return
		}
		s.out(data[:i])
		data = data[i:]
		if len(data) < s.markerLen() {
			s.carry = append(s.carry, data...)
			return
		}
		digits := data[len(s.prefix) : len(s.prefix)+16]
		seq, err := strconv.ParseUint(string(digits), 16, 64)
		if err != nil || data[s.markerLen()-1] != 0 {
			// Looks like our prefix but is not a marker: ordinary data.
			s.out(data[:len(s.prefix)])
			data = data[len(s.prefix):]
			continue
		}
		s.ack(seq)
		data = data[s.markerLen():]
	}
}

// flush delivers held-back bytes (at end of stream).
func (s *splitter) flush() {
	s.out(s.carry)
	s.carry = s.carry[:0]
}

func (s *splitter) out(b []byte) {
	if len(b) > 0 {
		s.emit(b)
	}
}

// partialStart returns the index of the longest suffix of data that is a
// proper prefix of the marker prefix, or len(data) if there is none.
func (s *splitter) partialStart(data []byte) int {
	for k := max(0, len(data)-len(s.prefix)+1); k < len(data); k++ {
		if bytes.HasPrefix(s.prefix, data[k:]) {
			return k
		}
	}
	return len(data)
}

func marker(prefix []byte, seq uint64) []byte {
	m := make([]byte, 0, len(prefix)+17)
	m = append(m, prefix...)
	hex := strconv.AppendUint(nil, seq, 16)
	for range 16 - len(hex) {
		m = append(m, '0')
	}
	m = append(m, hex...)
	return append(m, 0)
}

// Interleaver holds captured output of the two streams for a consumer
// that shows it as text. It keeps the order in which the streams arrived
// (what is pending on one stream is emitted before the other stream's
// new bytes) and holds back a UTF-8 sequence cut short at the end of a
// chunk, so that a character split between two writes never shows as two
// replacement characters. The zero value is ready; callers serialise
// the calls.
type Interleaver struct {
	bufs [2][]byte // pending bytes of stdout and stderr
	last int       // index of the stream written last
}

// streamIndex is 0 for Stdout, 1 for Stderr.
func streamIndex(stream string) int {
	if stream == Stderr {
		return 1
	}
	return 0
}

// Add appends data to stream's pending bytes, first emitting everything
// pending on the other stream. It returns how many bytes are pending in
// all. emit receives a stream name and its text, valid during the call.
func (q *Interleaver) Add(stream string, data []byte, emit func(stream string, text []byte)) int {
	i := streamIndex(stream)
	q.flushOne(1-i, true, emit)
	q.bufs[i] = append(q.bufs[i], data...)
	q.last = i
	return len(q.bufs[0]) + len(q.bufs[1])
}

// Flush emits what is pending, the stream written last last. Without
// all, an incomplete UTF-8 sequence at the end of a stream stays pending
// for the next Add. It returns how many bytes are still pending.
func (q *Interleaver) Flush(all bool, emit func(stream string, text []byte)) int {
	q.flushOne(1-q.last, all, emit)
	q.flushOne(q.last, all, emit)
	return len(q.bufs[0]) + len(q.bufs[1])
}

func (q *Interleaver) flushOne(i int, all bool, emit func(string, []byte)) {
	b := q.bufs[i]
	n := len(b)
	if !all {
		n -= IncompleteTail(b)
	}
	if n == 0 {
		return
	}
	emit([2]string{Stdout, Stderr}[i], b[:n])
	q.bufs[i] = append(b[:0], b[n:]...)
}

// IncompleteTail returns the length of a UTF-8 sequence cut short at the
// end of b (0 when b ends on a complete character or on invalid bytes):
// what a consumer of captured chunks holds back until the next chunk, so
// that a character split between two writes is never shown as two
// replacement characters.
func IncompleteTail(b []byte) int {
	for k := 1; k < utf8.UTFMax && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}
