package display

import "testing"

func TestFlush(t *testing.T) {
	prev := SetFlusher(nil)
	t.Cleanup(func() { SetFlusher(prev) })
	Flush() // none installed: nothing happens
	n := 0
	if old := SetFlusher(func() { n++ }); old != nil {
		t.Error("SetFlusher(nil) then SetFlusher returned a previous flusher")
	}
	Flush()
	Flush()
	if old := SetFlusher(nil); n != 2 || old == nil {
		t.Errorf("%d flushes, previous %v", n, old != nil)
	}
	Flush()
	if n != 2 {
		t.Errorf("Flush after removing the flusher called it")
	}
}
