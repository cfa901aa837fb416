package display

import "testing"

// discardSink drops everything.
type discardSink struct{}

func (discardSink) Display(Bundle, map[string]any, string, bool) {}
func (discardSink) ClearOutput(bool)                             {}

// BenchmarkProgressAdd measures the per-call cost of reporting progress,
// from one goroutine and from all of them at once.
func BenchmarkProgressAdd(b *testing.B) {
	prev := SetSink(discardSink{})
	defer SetSink(prev)
	b.Run("serial", func(b *testing.B) {
		p := NewProgress("bench", int64(b.N))
		for i := 0; i < b.N; i++ {
			p.Add(1)
		}
		p.Done()
	})
	b.Run("parallel", func(b *testing.B) {
		p := NewProgress("bench", int64(b.N))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				p.Add(1)
			}
		})
		p.Done()
	})
}
