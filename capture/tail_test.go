package capture

import "testing"

func TestIncompleteTail(t *testing.T) {
	for in, want := range map[string]int{
		"": 0, "abc": 0, "é": 0, "\xc3": 1, "a\xe2\x82": 2, "\xf0\x9f\x98": 3, "\xf0\x9f\x98\x80": 0, "\x80\x80": 0,
	} {
		if got := IncompleteTail([]byte(in)); got != want {
			t.Errorf("IncompleteTail(%q) = %d, want %d", in, got, want)
		}
	}
}

// The interleaver keeps the arrival order of the two streams and holds
// back a character cut between two chunks until it is whole (or flushed).
func TestInterleaver(t *testing.T) {
	var q Interleaver
	var got []string
	emit := func(stream string, text []byte) { got = append(got, stream+":"+string(text)) }
	if n := q.Add(Stdout, []byte("a\xc3"), emit); n != 2 {
		t.Fatalf("pending %d, want 2", n)
	}
	if n := q.Flush(false, emit); n != 1 { // "a" out, the cut "é" held back
		t.Fatalf("pending %d after Flush(false), want 1", n)
	}
	q.Add(Stdout, []byte("\xa9b"), emit)
	q.Add(Stderr, []byte("e1"), emit) // emits stdout's "éb" first
	q.Add(Stdout, []byte("c"), emit)  // emits stderr's "e1" first
	q.Add(Stderr, []byte("\xe2\x82"), emit)
	if n := q.Flush(true, emit); n != 0 {
		t.Fatalf("pending %d after Flush(true), want 0", n)
	}
	want := []string{"stdout:a", "stdout:éb", "stderr:e1", "stdout:c", "stderr:\xe2\x82"}
	if len(got) != len(want) {
		t.Fatalf("emitted %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("emitted %q, want %q", got, want)
		}
	}
}
