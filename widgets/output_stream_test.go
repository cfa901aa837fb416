package widgets

import (
	"slices"
	"testing"

	"github.com/graphnb/graphnb/display"
)

// fakeHost stands for the kernel's capture of fds 1 and 2: text "printed"
// with print waits until Flush, which hands it to the installed sink when
// that is a display.Streamer and keeps it as the cell's otherwise.
type fakeHost struct {
	pending [][2]string // stream name, text
	cell    []string
	flushes int
}

func (h *fakeHost) print(name, text string) { h.pending = append(h.pending, [2]string{name, text}) }

func (h *fakeHost) flush() {
	h.flushes++
	for _, p := range h.pending {
		if st, ok := display.CurrentSink().(display.Streamer); ok {
			st.Stream(p[0], p[1])
		} else {
			h.cell = append(h.cell, p[1])
		}
	}
	h.pending = nil
}

// TestOutputCaptureStreams: text printed inside Capture becomes stream
// outputs of the Output (joined per stream, in order with displays),
// flushed before the sink is restored; text printed before Capture stays
// the cell's.
func TestOutputCaptureStreams(t *testing.T) {
	for _, p := range []Protocol{Protocol1, Protocol2} {
		t.Run(p.String(), func(t *testing.T) {
			fe, _ := setup(t, p)
			h := &fakeHost{}
			prevFlusher := display.SetFlusher(h.flush)
			t.Cleanup(func() { display.SetFlusher(prevFlusher) })
			prevSink := display.SetSink(nil)
			t.Cleanup(func() { display.SetSink(prevSink) })

			o := NewOutput()
			h.print("stdout", "before\n")
			err := o.Capture(func() {
				h.print("stdout", "one\n")
				h.print("stdout", "two\n")
				display.Text("shown") // flushes what was printed before it
				h.print("stderr", "warn\n")
			})
			if err != nil {
				t.Fatal(err)
			}
			h.print("stdout", "after\n")
			h.flush()
			if h.flushes != 4 {
				t.Errorf("%d flushes, want 4 (before the capture, at its display, at its end, after it)", h.flushes)
			}
			if !slices.Equal(h.cell, []string{"before\n", "after\n"}) {
				t.Errorf("the cell got %q", h.cell)
			}
			outs := o.Outputs()
			if len(outs) != 3 || outs[0]["output_type"] != "stream" || outs[0]["name"] != "stdout" || outs[0]["text"] != "one\ntwo\n" ||
				outs[1]["output_type"] != "display_data" ||
				outs[2]["output_type"] != "stream" || outs[2]["name"] != "stderr" || outs[2]["text"] != "warn\n" {
				t.Fatalf("outputs %v", outs)
			}
			ups := fe.updates(o.ModelID())
			last := ups[len(ups)-1]
			if p == Protocol2 {
				if sent, _ := last["outputs"].([]any); len(sent) != 3 {
					t.Errorf("protocol 2 outputs sent %v", last)
				}
			} else if html, _ := last["value"].(string); html != `<pre>one
two
</pre><pre>shown</pre><pre style="background:#fdd">warn
</pre>` {
				t.Errorf("protocol 1 HTML sent %q", html)
			}
		})
	}
}
