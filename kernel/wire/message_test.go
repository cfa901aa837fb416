package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func testMessage() *Message {
	return &Message{
		Identities: [][]byte{[]byte("client-1")},
		Header: Header{
			MsgID: "m1", Session: "s1", Username: "u", Date: "2025-01-02T03:04:05.000006Z",
			MsgType: "execute_request", Version: Version,
		},
		Metadata: map[string]any{"n": json.Number("1.50"), "tags": []any{"a"}},
		Content:  json.RawMessage(`{"code":"1+1","silent":false}`),
		Buffers:  [][]byte{{0, 1, 2}},
	}
}

func mustSigner(t testing.TB, key string) *Signer {
	t.Helper()
	s, err := NewSigner(SchemeHMACSHA256, key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, key := range []string{"", "secret-key"} {
		t.Run(fmt.Sprintf("key=%q", key), func(t *testing.T) {
			s := mustSigner(t, key)
			m := testMessage()
			frames := Encode(m, s)
			if string(frames[1]) != Delimiter {
				t.Fatalf("frame 1 = %q, want the delimiter", frames[1])
			}
			if got := len(frames[2]); (key == "") != (got == 0) {
				t.Fatalf("signature length %d with key %q", got, key)
			}
			if string(frames[4]) != "{}" {
				t.Errorf("empty parent encoded as %s, want {}", frames[4])
			}
			d, err := Decode(frames, s)
			if err != nil {
				t.Fatal(err)
			}
			if d.Header != m.Header || !d.Parent.IsZero() {
				t.Errorf("headers: got %+v / %+v", d.Header, d.Parent)
			}
			if string(d.Content) != string(m.Content) {
				t.Errorf("content %s, want %s", d.Content, m.Content)
			}
			if d.Metadata["n"] != json.Number("1.50") {
				t.Errorf("metadata number %v (%T), want json.Number 1.50", d.Metadata["n"], d.Metadata["n"])
			}
			if len(d.Identities) != 1 || string(d.Identities[0]) != "client-1" {
				t.Errorf("identities %q", d.Identities)
			}
			if len(d.Buffers) != 1 || !bytes.Equal(d.Buffers[0], []byte{0, 1, 2}) {
				t.Errorf("buffers %q", d.Buffers)
			}
			again := Encode(d, s)
			if !framesEqual(frames, again) {
				t.Errorf("re-encoding differs:\n%q\n%q", frames, again)
			}
		})
	}
}

func framesEqual(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestDecodeRejects(t *testing.T) {
	s := mustSigner(t, "k")
	good := Encode(testMessage(), s)
	with := func(i int, b string) [][]byte {
		f := append([][]byte(nil), good...)
		f[i] = []byte(b)
		return f
	}
	// resign recomputes the signature after changing a dict frame, so the
	// JSON check (not the signature) is what fails.
	resign := func(f [][]byte) [][]byte {
		f[2] = s.Sign(f[3], f[4], f[5], f[6])
		return f
	}
	manyIDs := make([][]byte, 100)
	for i := range manyIDs {
		manyIDs[i] = []byte("id")
	}
	tests := []struct {
		name   string
		frames [][]byte
		signer *Signer
		want   error
	}{
		{"nil", nil, s, ErrNoDelimiter},
		{"no delimiter", good[2:], s, ErrNoDelimiter},
		{"too few frames", good[:5], s, ErrTooFewFrames},
		{"missing signature", with(2, ""), s, ErrBadSignature},
		{"wrong signature", with(2, strings.Repeat("0", 64)), s, ErrBadSignature},
		{"non-hex signature", with(2, strings.Repeat("z", 64)), s, ErrBadSignature},
		{"short signature", with(2, "abcd"), s, ErrBadSignature},
		{"wrong key", good, mustSigner(t, "other"), ErrBadSignature},
		{"tampered content", with(6, `{"code":"rm -rf"}`), s, ErrBadSignature},
		{"bad header JSON", resign(with(3, `{"msg_type":`)), s, ErrBadJSON},
		{"header not an object", resign(with(3, `[1]`)), s, ErrBadJSON},
		{"bad parent JSON", resign(with(4, `nope`)), s, ErrBadJSON},
		{"bad metadata JSON", resign(with(5, `{"a":1}x`)), s, ErrBadJSON},
		{"metadata null", resign(with(5, `null`)), s, ErrBadJSON},
		{"bad content JSON", resign(with(6, `{"a":}`)), s, ErrBadJSON},
		{"content a string", resign(with(6, `"x"`)), s, ErrBadJSON},
		{"header field of wrong type", resign(with(3, `{"msg_type":5}`)), s, ErrBadJSON},
		{"no msg_type", resign(with(3, `{"msg_id":"x"}`)), s, ErrNoMsgType},
		{"too many identities", append(manyIDs, good[1:]...), s, ErrTooManyIdentities},
		{"too many frames", append(append([][]byte(nil), good...), make([][]byte, 2000)...), s, ErrTooManyFrames},
		{"too large", append(append([][]byte(nil), good...), make([]byte, 65<<20)), s, ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode(tc.frames, tc.signer)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Decode = %v, %v; want an error wrapping %v", m, err, tc.want)
			}
		})
	}
}

func TestDecodeUnsignedAccepted(t *testing.T) {
	// With signing disabled any signature frame is accepted, as the spec says.
	frames := Encode(testMessage(), mustSigner(t, "some key"))
	if _, err := Decode(frames, mustSigner(t, "")); err != nil {
		t.Errorf("key \"\": %v", err)
	}
	if _, err := Decode(frames, nil); err != nil {
		t.Errorf("nil signer: %v", err)
	}
}

func TestDecodeLimitsCustom(t *testing.T) {
	frames := Encode(testMessage(), nil)
	if _, err := DecodeLimits(frames, nil, Limits{MaxIdentities: 1}); err != nil {
		t.Errorf("one identity within MaxIdentities 1: %v", err)
	}
	if _, err := DecodeLimits(frames, nil, Limits{MaxFrames: 5}); !errors.Is(err, ErrTooManyFrames) {
		t.Errorf("MaxFrames 5: %v", err)
	}
	if _, err := DecodeLimits(frames, nil, Limits{MaxMessageBytes: 10}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxMessageBytes 10: %v", err)
	}
}

func TestNewSignerScheme(t *testing.T) {
	for _, scheme := range []string{"hmac-sha256", ""} {
		if _, err := NewSigner(scheme, "k"); err != nil {
			t.Errorf("scheme %q: %v", scheme, err)
		}
	}
	_, err := NewSigner("hmac-md5", "k")
	if !errors.Is(err, ErrUnsupportedScheme) || !strings.Contains(err.Error(), "hmac-md5") {
		t.Errorf("hmac-md5: %v; want ErrUnsupportedScheme naming the scheme", err)
	}
}

func TestSignKnownVector(t *testing.T) {
	// RFC 4231 test case 2: HMAC-SHA256("Jefe", "what do ya want for nothing?").
	s := mustSigner(t, "Jefe")
	got := string(s.Sign([]byte("what do ya "), []byte("want for nothing?")))
	want := "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
	if got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
	if err := s.Verify([]byte(want), []byte("what do ya want for nothing?")); err != nil {
		t.Errorf("Verify: %v", err)
	}
	// ipykernel compares the hex digests as strings: upper case is refused
	// (accepting it would let a replay pass as a new signature).
	if err := s.Verify([]byte(strings.ToUpper(want)), []byte("what do ya want for nothing?")); !errors.Is(err, ErrBadSignature) || !strings.Contains(err.Error(), "upper-case") {
		t.Errorf("Verify upper-case hex: %v; want ErrBadSignature saying upper-case", err)
	}
}

func TestRejectReplays(t *testing.T) {
	s := mustSigner(t, "key")
	s.RejectReplays(3)
	msg := func(i int) [][]byte {
		h := Header{MsgID: fmt.Sprint("m", i), Session: "s", MsgType: "execute_request", Version: Version}
		return Encode(&Message{Identities: [][]byte{[]byte("id")}, Header: h, Content: []byte(`{"code":"1"}`)}, s)
	}
	if _, err := Decode(msg(0), s); err != nil {
		t.Fatalf("first decode: %v", err)
	}
	for range 5 {
		if _, err := Decode(msg(0), s); !errors.Is(err, ErrReplayed) {
			t.Fatalf("replay: %v; want ErrReplayed", err)
		}
	}
	// A wrongly signed message is not remembered: the genuine one still
	// passes once.
	bad := msg(1)
	bad[2] = bytes.Repeat([]byte("0"), 64)
	if _, err := Decode(bad, s); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("bad signature: %v", err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := Decode(msg(i), s); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	// The memory holds 3: message 0 is forgotten, 1–3 are remembered.
	if n := s.seen.len(); n != 3 {
		t.Errorf("%d signatures remembered, want 3", n)
	}
	if _, err := Decode(msg(0), s); err != nil {
		t.Errorf("message 0 after it was forgotten: %v", err)
	}
	for i := 2; i <= 3; i++ {
		if _, err := Decode(msg(i), s); !errors.Is(err, ErrReplayed) {
			t.Errorf("replay of message %d: %v; want ErrReplayed", i, err)
		}
	}
	// Unsigned kernels cannot tell replays apart and accept them.
	var none *Signer
	none.RejectReplays(0)
	u := Encode(&Message{Header: Header{MsgID: "u", MsgType: "x"}}, nil)
	for range 2 {
		if _, err := Decode(u, none); err != nil {
			t.Errorf("unsigned: %v", err)
		}
	}
}

func TestNowFormat(t *testing.T) {
	re := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`)
	if d := Now(); !re.MatchString(d) {
		t.Errorf("Now() = %q, want RFC 3339 with microseconds", d)
	}
}

func ExampleEncode() {
	s, _ := NewSigner("hmac-sha256", "")
	m := &Message{
		Header:  Header{MsgID: "1", MsgType: "status", Version: Version},
		Content: json.RawMessage(`{"execution_state":"idle"}`),
	}
	for _, f := range Encode(m, s) {
		fmt.Printf("%s\n", f)
	}
	// Output:
	// <IDS|MSG>
	//
	// {"msg_id":"1","session":"","username":"","date":"","msg_type":"status","version":"5.3"}
	// {}
	// {}
	// {"execution_state":"idle"}
}
