package kernel

import (
	"sync"
	"time"

	"github.com/graphnb/graphnb/capture"
	"github.com/graphnb/graphnb/display"
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

	mu      sync.Mutex
	parent  wire.Header
	pending capture.Interleaver
	timer   *time.Timer
	armed   bool
}

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
	st.mu.Lock()
	defer st.mu.Unlock()
	n := st.pending.Add(stream, data, st.emit)
	if n >= st.maxBuf {
		n = st.pending.Flush(false, st.emit)
	}
	if n > 0 && !st.armed {
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

func (st *streamer) flushLocked(all bool) { st.pending.Flush(all, st.emit) }

// emit sends stream text under the current parent. st.mu is held.
func (st *streamer) emit(stream string, text []byte) { st.send(stream, st.parent, string(text)) }

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
