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
