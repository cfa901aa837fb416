package groupstep

import (
	"errors"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu/nccl"
)

// Keep keeps a Stop's error and passes every other error on.
func TestKeep(t *testing.T) {
	var mu sync.Mutex
	var stop error
	agreed := errors.New("agreed")
	if err := Keep(&mu, &stop, errors.Join(Stop{Err: agreed}, nil)); err != nil || stop != agreed {
		t.Errorf("Keep(Stop): %v, kept %v; want nil, kept %v", err, stop, agreed)
	}
	other := errors.New("broken")
	if err := Keep(&mu, &stop, other); err != other {
		t.Errorf("Keep(other): %v; want it returned", err)
	}
	if err := Keep(&mu, &stop, nil); err != nil {
		t.Errorf("Keep(nil): %v", err)
	}
	if !errors.Is(Stop{Err: cancel.ErrInterrupted}, cancel.ErrInterrupted) {
		t.Error("a Stop does not unwrap to its error")
	}
}

// An AllReduce sends the values, the operation's identity up to the
// width, and the interrupt flag last.
func TestPadded(t *testing.T) {
	for _, c := range []struct {
		width int
		op    nccl.Op
		want  []int64
	}{
		{0, nccl.Sum, []int64{4, -2, 7}},
		{3, nccl.Sum, []int64{4, -2, 7}},
		{5, nccl.Sum, []int64{4, -2, 0, 0, 7}},
		{5, nccl.Min, []int64{4, -2, math.MaxInt64, math.MaxInt64, 7}},
		{4, nccl.Max, []int64{4, -2, math.MinInt64, 7}},
		{4, nccl.Prod, []int64{4, -2, 1, 7}},
	} {
		if got := padded([]int64{4, -2}, c.width, c.op, 7); !slices.Equal(got, c.want) {
			t.Errorf("width %d, op %v: %v; want %v", c.width, c.op, got, c.want)
		}
	}
}
