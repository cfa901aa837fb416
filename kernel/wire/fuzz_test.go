package wire

import (
	"bytes"
	"encoding/json"
	"testing"
)

// fuzzSep splits fuzz input into frames.
var fuzzSep = []byte{0x1e}

func FuzzDecode(f *testing.F) {
	keyed, _ := NewSigner(SchemeHMACSHA256, "fuzz-key")
	for _, m := range []*Message{
		testMessage(),
		{Header: Header{MsgType: "kernel_info_request"}},
		{Header: Header{MsgType: "status"}, Parent: Header{MsgID: "p", MsgType: "x"}, Content: json.RawMessage(`{"a":[1,2,{"b":null}]}`)},
	} {
		f.Add(bytes.Join(Encode(m, nil), fuzzSep))
	}
	f.Add([]byte("<IDS|MSG>\x1e\x1e{\"msg_type\":\"a\"}\x1e{}\x1e{\"x\":1e400}\x1e{}"))
	f.Add([]byte("id\x1e<IDS|MSG>\x1e\x1e{\"msg_type\":\"a\",\"MSG_TYPE\":\"b\"}\x1enull\x1e{}\x1e{}"))
	f.Add([]byte("<IDS|MSG>\x1e\x1e{\"msg_type\":\"\xff\"}\x1e{}\x1e{\"a\":-0}\x1e{ }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		frames := bytes.Split(data, fuzzSep)
		_, _ = Decode(frames, keyed) // must not panic
		m, err := Decode(frames, nil)
		if err != nil {
			return
		}
		e1 := Encode(m, nil)
		m2, err := Decode(e1, nil)
		if err != nil {
			t.Fatalf("re-decoding an encoded message failed: %v\nframes: %q", err, e1)
		}
		if e2 := Encode(m2, nil); !framesEqual(e1, e2) {
			t.Fatalf("encoding is not stable:\n%q\n%q", e1, e2)
		}
		signed := Encode(m2, keyed)
		m3, err := Decode(signed, keyed)
		if err != nil {
			t.Fatalf("a signed re-encoding does not verify: %v", err)
		}
		if e3 := Encode(m3, nil); !framesEqual(e1, e3) {
			t.Fatalf("signed round trip differs:\n%q\n%q", e1, e3)
		}
	})
}

func FuzzZMTPParser(f *testing.F) {
	f.Add(append(bytes.Repeat([]byte{0}, 64), 0x04, 3, 'a', 'b', 'c', 0x01, 0, 0x00, 2, 'h', 'i'))
	f.Add(append(bytes.Repeat([]byte{0}, 64), 0x02, 0xff, 0, 0, 0, 0, 0, 0, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := zmtpParser{lim: Limits{MaxMessageBytes: 1 << 10, MaxFrames: 4}.withDefaults()}
		q := p
		errWhole := p.feed(data)
		var errPieces error
		for i := 0; i < len(data) && errPieces == nil; i++ {
			errPieces = q.feed(data[i : i+1])
		}
		if (errWhole == nil) != (errPieces == nil) {
			t.Fatalf("feeding at once: %v; byte by byte: %v", errWhole, errPieces)
		}
	})
}
