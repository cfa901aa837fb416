package capture

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

func newTestSplitter() (*splitter, *bytes.Buffer, *[]uint64) {
	var out bytes.Buffer
	var acks []uint64
	s := &splitter{
		prefix: []byte("\x00\x1bsync-abc:"),
		emit:   func(b []byte) { out.Write(b) },
		ack:    func(seq uint64) { acks = append(acks, seq) },
	}
	return s, &out, &acks
}

func TestSplitterRemovesMarkersAcrossChunks(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 1))
		s, out, acks := newTestSplitter()
		var stream, want bytes.Buffer
		var wantAcks []uint64
		for seq := uint64(1); seq <= 20; seq++ {
			text := make([]byte, rng.IntN(40))
			for i := range text {
				// Include bytes of the prefix to provoke partial matches.
				alphabet := "ab\x00\x1bsync-:\n"
				text[i] = alphabet[rng.IntN(len(alphabet))]
			}
			stream.Write(text)
			want.Write(text)
			stream.Write(marker(s.prefix, seq))
			wantAcks = append(wantAcks, seq)
		}
		tail := []byte("end\x00\x1bsy") // a proper prefix of the marker, held until flush
		stream.Write(tail)
		want.Write(tail)
		data := stream.Bytes()
		for len(data) > 0 {
			k := 1 + rng.IntN(min(len(data), 30))
			s.feed(bytes.Clone(data[:k]))
			data = data[k:]
		}
		s.flush()
		if !bytes.Equal(out.Bytes(), want.Bytes()) {
			t.Fatalf("seed %d: output\n%q\nwant\n%q", seed, out.Bytes(), want.Bytes())
		}
		if !slices.Equal(*acks, wantAcks) {
			t.Fatalf("seed %d: acks %v, want %v", seed, *acks, wantAcks)
		}
	}
}

func TestSplitterNotAMarker(t *testing.T) {
	s, out, acks := newTestSplitter()
	in := string(s.prefix) + "zzzzzzzzzzzzzzzz\x00after"
	s.feed([]byte(in))
	s.flush()
	if out.String() != in || len(*acks) != 0 {
		t.Errorf("output %q acks %v; want the input unchanged and no ack", out.String(), *acks)
	}
}

func TestMarkerFormat(t *testing.T) {
	m := marker([]byte("P:"), 0xabc)
	if string(m) != "P:0000000000000abc\x00" {
		t.Errorf("marker = %q", m)
	}
}
