package fakegpu

import (
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/nccl"
)

// TestFakeGPUGroup checks RunN and Group: two fake devices joined by the
// fake NCCL all-reduce a buffer.
func TestFakeGPUGroup(t *testing.T) {
	RunN(t, "TestFakeGPUGroupChild", time.Minute, 2, func(b *Builder) []string { return nil })
}

func TestFakeGPUGroupChild(t *testing.T) {
	g := Group(t)
	if g.Size() != 2 || len(g.Ranks()) != 2 {
		t.Fatalf("Group is a %s", g)
	}
	err := g.Run(func(r *gpu.Rank, th *gpu.Thread) error {
		buf, err := r.Device().Int64sFrom([]int64{int64(r.Rank()) + 1, 10})
		if err != nil {
			return err
		}
		defer buf.Free()
		s, err := gpu.SpanOf(buf, 0, -1)
		if err != nil {
			return err
		}
		if err := r.AllReduce(th, s, s, nccl.Sum); err != nil {
			return err
		}
		got, err := buf.ToHost()
		if err != nil {
			return err
		}
		if got[0] != 3 || got[1] != 20 {
			t.Errorf("rank %d: AllReduce gave %v, want [3 20]", r.Rank(), got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
