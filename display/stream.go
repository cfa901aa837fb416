package display

import "sync/atomic"

// Streamer is a Sink that also takes the text printed to standard output
// and standard error, as stream outputs of its own. Hosts that capture
// fds 1 and 2 (the Jupyter kernel, graphnb exec) hand captured text to
// the installed sink instead of the cell's output while that sink is a
// Streamer: a widgets.Output's Capture installs one, so that fmt.Println
// in a callback lands in the Output. name is "stdout" or "stderr"; text
// is a whole number of UTF-8 characters.
//
// Captured text reaches the host a little after it is written (the
// kernel coalesces it over a few milliseconds). A Streamer sink should
// therefore be installed and removed with Flush on either side, so that
// text printed before it was installed does not land in it and text
// printed while it was installed does not land in the cell.
type Streamer interface {
	Stream(name, text string)
}

type flushBox struct{ f func() }

var flusher atomic.Pointer[flushBox]

// SetFlusher installs f as what Flush calls and returns the function it
// replaces (nil if none); nil removes it. The host that captures fds 1
// and 2 installs a function that returns once every byte written to them
// so far has been handed to its destination (the installed sink when it
// is a Streamer, the cell otherwise). f may be called from any goroutine
// and must not be called with a lock held that the host's delivery of
// captured text takes.
func SetFlusher(f func()) (previous func()) {
	old := flusher.Swap(&flushBox{f})
	if old == nil {
		return nil
	}
	return old.f
}

// Flush makes the text written to standard output and error so far reach
// its destination, through the host's flusher; with none installed (no
// host captures the output), it does nothing.
func Flush() {
	if b := flusher.Load(); b != nil && b.f != nil {
		b.f()
	}
}
