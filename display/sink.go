package display

import "sync/atomic"

type sinkBox struct{ s Sink }

var current atomic.Pointer[sinkBox]

// SetSink installs s as the destination of explicit displays and returns
// the sink it replaces (nil if none). A nil s restores the default: the
// text/plain form printed to standard output.
func SetSink(s Sink) (previous Sink) {
	old := current.Swap(&sinkBox{s})
	if old == nil {
		return nil
	}
	return old.s
}

// CurrentSink returns the installed sink, or nil.
func CurrentSink() Sink {
	if b := current.Load(); b != nil {
		return b.s
	}
	return nil
}
