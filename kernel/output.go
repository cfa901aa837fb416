package kernel

import (
	"sync"
	"time"

	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/kernel/capture"
	"github.com/graphnb/graphnb/kernel/wire"
)

// streamer coalesces captured output into stream messages. Bytes wait at
// most interval (or until maxBuf bytes are pending, or an explicit flush)
// so that a loop printing many short lines sends few messages while a
// single print still shows up at once. Output is attributed to the current
// parent (the last execute_request). Safe for concurrent use.
type streamer struct {
	interval time.Duration
	maxBuf   int
	send     func(name string, parent wire.Header, text string)

	mu     sync.Mutex
	parent wire.Header
	bufs   [2][]byte // stdout, stderr
	last   int       // index of the stream written last
	timer  *time.Timer
	armed  bool
}

var streamNames = [2]string{capture.Stdout, capture.Stderr}

func newStreamer(interval time.Duration, maxBuf int, send func(string, wire.Header, string)) *streamer {
	st := &streamer{interval: interval, maxBuf: maxBuf, send: send}
	st.timer = time.AfterFunc(time.Hour, func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.armed = false
		st.flushLocked(false)
	})
	st.timer.Stop()
	return st
}

// write adds captured bytes of stream "stdout" or "stderr" (capture.Func).
func (st *streamer) write(stream string, data []byte) {
	i := 0
	if stream == capture.Stderr {
		i = 1
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	// Keep the order in which the two streams arrived.
	if o := 1 - i; len(st.bufs[o]) > 0 {
		st.flushOne(o, true)
	}
	st.bufs[i] = append(st.bufs[i], data...)
	st.last = i
	if len(st.bufs[i]) >= st.maxBuf {
		st.flushOne(i, false)
	}
	if len(st.bufs[i]) > 0 && !st.armed {
		st.armed = true
		st.timer.Reset(st.interval)
	}
}

// flush sends what is pending; with all, also a trailing incomplete UTF-8
// sequence (otherwise held back for the next write).
func (st *streamer) flush(all bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.flushLocked(all)
}

func (st *streamer) flushLocked(all bool) {
	// The stream written last goes last.
	first := 1 - st.last
	st.flushOne(first, all)
	st.flushOne(st.last, all)
}

func (st *streamer) flushOne(i int, all bool) {
	b := st.bufs[i]
	n := len(b)
	if !all {
		n -= capture.IncompleteTail(b)
	}
	if n == 0 {
		return
	}
	st.send(streamNames[i], st.parent, string(b[:n]))
	st.bufs[i] = append(b[:0], b[n:]...)
}

// setParent flushes pending output under the old parent and attributes
// later output to h.
func (st *streamer) setParent(h wire.Header) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.flushLocked(true)
	st.parent = h
}

func (st *streamer) currentParent() wire.Header {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.parent
}

// sink publishes explicit displays (display.Sink) under the current parent.
// Output printed before a display is flushed first, so the two keep their
// order.
type sink struct{ s *server }

var _ display.Sink = sink{}

func (k sink) Display(data display.Bundle, metadata map[string]any, displayID string, update bool) {
	s := k.s
	s.syncOutput()
	if data == nil {
		data = display.Bundle{}
	}
	if metadata == nil {
		metadata = map[string]any{}
	}
	content := map[string]any{"data": data, "metadata": metadata}
	msgType := "display_data"
	if displayID != "" {
		content["transient"] = map[string]any{"display_id": displayID}
		if update {
			msgType = "update_display_data"
		}
	} else if update {
		s.log.Warn("display update without a display id; showing it as a new display")
	}
	parent := s.streams.currentParent()
	if err := s.publish(msgType, parent, content); err != nil {
		s.publish("stream", parent, map[string]any{"name": "stderr", "text": "graphnb: cannot display: " + err.Error() + "\n"})
	}
}

func (k sink) ClearOutput(wait bool) {
	s := k.s
	s.syncOutput()
	s.publish("clear_output", s.streams.currentParent(), map[string]any{"wait": wait})
}
