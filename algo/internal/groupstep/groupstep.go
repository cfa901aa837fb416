// Package groupstep is what the algorithms that run over a group of GPUs
// (algo/sssp, algo/mst) share to stop together: kernel launches that note
// an interrupt instead of failing the rank, and the agreement on it that
// rides on an all-reduce of host values, so that every rank stops at the
// same collective and the group stays usable. Each rank of a run keeps
// one Agreement.
package groupstep

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/nccl"
)

// Agreement is one rank's side of a group algorithm's agreements.
type Agreement struct {
	Rank *gpu.Rank
	// What names the run in the error of an interrupt ("sssp: RunGroup").
	What string
	// Block is the threads per block of Launch.
	Block int
	// Width, when larger than the values plus one, is the length every
	// AllReduce sends (padded with the operation's identity), so that
	// gpu.Rank keeps one scratch buffer instead of reallocating it
	// whenever the length changes.
	Width int
	// Interrupted is set by a launch that met an interrupt.
	Interrupted bool
	// CommTime is the time spent in AllReduce so far.
	CommTime time.Duration
}

// Launch launches f over grid with Block threads per block. A launch
// refused because of an interrupt (every launch polls cancel.Check) is
// noted in Interrupted and skipped, not returned: the rank goes on to the
// next AllReduce, where the whole group agrees to stop, instead of
// leaving the other ranks waiting.
func (a *Agreement) Launch(t *gpu.Thread, f *gpu.Function, grid gpu.Dim, args ...any) error {
	if a.Interrupted {
		return nil
	}
	err := t.Launch(f, grid, gpu.D1(a.Block), 0, args...)
	if errors.Is(err, cancel.ErrInterrupted) {
		a.Interrupted = true
		return nil
	}
	return err
}

// AllReduce is gpu.Rank.AllReduceInt64 of vals with the group's agreement
// on interrupts: it carries whether this rank was interrupted (Interrupted,
// or cancel.Check now) and returns a Stop on every rank when any was. Its
// time counts in CommTime.
func (a *Agreement) AllReduce(t *gpu.Thread, vals []int64, op nccl.Op) ([]int64, error) {
	flag := int64(0)
	if a.Interrupted || cancel.Check() != nil {
		flag = 1
	}
	if op == nccl.Min {
		flag = -flag
	}
	send := padded(vals, a.Width, op, flag)
	width := len(send)
	start := time.Now()
	out, err := a.Rank.AllReduceInt64(t, send, op)
	a.CommTime += time.Since(start)
	if err != nil {
		return nil, err
	}
	if out[width-1] != 0 {
		return nil, Stop{Err: fmt.Errorf("%s: %w", a.What, cancel.ErrInterrupted)}
	}
	return out[:len(vals)], nil
}

// padded returns vals, then op's identity up to width-1 values, then
// flag: at least len(vals)+1 values.
func padded(vals []int64, width int, op nccl.Op, flag int64) []int64 {
	width = max(width, len(vals)+1)
	send := slices.Grow(slices.Clone(vals), width-len(vals))
	for len(send) < width-1 {
		send = append(send, identity(op))
	}
	return append(send, flag)
}

// identity is the value that leaves op's result unchanged.
func identity(op nccl.Op) int64 {
	switch op {
	case nccl.Min:
		return math.MaxInt64
	case nccl.Max:
		return math.MinInt64
	case nccl.Prod:
		return 1
	}
	return 0
}

// Stop is an error every rank of the group meets at the same point,
// having agreed on it through a collective (an interrupt, bad weights):
// the ranks stop without breaking the group.
type Stop struct{ Err error }

func (e Stop) Error() string { return e.Err.Error() }

func (e Stop) Unwrap() error { return e.Err }

// Keep returns nil for a Stop, whose error it keeps in *stop (under mu):
// every rank stops there alike and the group stays usable. Other errors
// are returned (they break the group).
func Keep(mu *sync.Mutex, stop *error, err error) error {
	var s Stop
	if !errors.As(err, &s) {
		return err
	}
	mu.Lock()
	*stop = s.Err
	mu.Unlock()
	return nil
}

// PartIndex is r's index among pg's parts (the parts of this process's
// ranks), or -1 when r holds none of them.
func PartIndex(pg *gpu.PartGraph, r *gpu.Rank) int {
	for i, p := range pg.Parts {
		if p.Rank == r {
			return i
		}
	}
	return -1
}
