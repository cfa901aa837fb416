package kernel

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/graphnb/graphnb/kernel/wire"
)

type sent struct {
	name, parent, text string
}

type sentLog struct {
	mu   sync.Mutex
	msgs []sent
}

func (l *sentLog) send(name string, parent wire.Header, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, sent{name, parent.MsgID, text})
}

func (l *sentLog) get() []sent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.msgs)
}

func TestStreamer(t *testing.T) {
	p1, p2 := wire.Header{MsgID: "p1"}, wire.Header{MsgID: "p2"}
	tests := []struct {
		name string
		run  func(st *streamer)
		want []sent
	}{
		{"flush sends pending output", func(st *streamer) {
			st.setParent(p1)
			st.write("stdout", []byte("a"))
			st.write("stdout", []byte("b"))
			st.flush(true)
		}, []sent{{"stdout", "p1", "ab"}}},
		{"streams keep their arrival order", func(st *streamer) {
			st.setParent(p1)
			st.write("stdout", []byte("1"))
			st.write("stderr", []byte("2"))
			st.write("stdout", []byte("3"))
			st.flush(true)
		}, []sent{{"stdout", "p1", "1"}, {"stderr", "p1", "2"}, {"stdout", "p1", "3"}}},
		{"an incomplete UTF-8 character waits", func(st *streamer) {
			st.setParent(p1)
			st.write("stdout", []byte("x\xe2\x82"))
			st.flush(false)
			st.write("stdout", []byte("\xac!"))
			st.flush(false)
		}, []sent{{"stdout", "p1", "x"}, {"stdout", "p1", "€!"}}},
		{"a final flush sends even an incomplete character", func(st *streamer) {
			st.setParent(p1)
			st.write("stdout", []byte("y\xe2\x82"))
			st.flush(true)
		}, []sent{{"stdout", "p1", "y\xe2\x82"}}},
		{"the size threshold flushes at once", func(st *streamer) {
			st.setParent(p1)
			st.write("stdout", make([]byte, 0, 10))
			st.write("stdout", []byte("0123456789ab"))
		}, []sent{{"stdout", "p1", "0123456789ab"}}},
		{"a new parent flushes under the old one", func(st *streamer) {
			st.setParent(p1)
			st.write("stdout", []byte("old"))
			st.setParent(p2)
			st.write("stdout", []byte("new"))
			st.flush(true)
		}, []sent{{"stdout", "p1", "old"}, {"stdout", "p2", "new"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log sentLog
			st := newStreamer(time.Hour, 10, log.send)
			tc.run(st)
			if got := log.get(); !slices.Equal(got, tc.want) {
				t.Errorf("sent %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStreamerTimerFlush(t *testing.T) {
	var log sentLog
	st := newStreamer(time.Millisecond, 1<<20, log.send)
	st.setParent(wire.Header{MsgID: "p"})
	for i := range 3 {
		st.write("stdout", fmt.Appendf(nil, "%d", i))
	}
	deadline := time.Now().Add(waitLimit)
	for len(log.get()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the timer never flushed")
		}
		time.Sleep(time.Millisecond)
	}
	var text string
	for _, m := range log.get() {
		text += m.text
	}
	if text != "012" {
		t.Errorf("sent %q", text)
	}
}
