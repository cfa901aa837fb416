package nccl

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Blocking communicators and their watchdog.
//
// A call on a non-blocking communicator returns ncclInProgress until NCCL
// has enqueued it, and polling for that costs 80–350 µs a collective on
// H200s (README, "Many GPUs"); a blocking communicator's call returns when
// enqueued, in 10–40 µs, but may wait in NCCL for ever on a peer that
// failed or never comes (connection set-up at a first collective, a
// grouped send or receive whose peer never calls). So every call on a
// blocking communicator is timed: enter records its start in the
// communicator's state (one atomic compare-and-swap, and one more in
// leave), and one watchdog goroutine per process looks at every blocking
// communicator each watchPeriod. When a call has run longer than the
// communicator's timeout, the watchdog takes the state over (stateFired)
// and calls ncclCommAbort from a thread of its own; the blocked call then
// returns (an aborted call may even report success) and leave turns it
// into an error wrapping ErrTimeout.
//
// NCCL's documentation (docs/userguide/source/usage/communicators.rst,
// "Fault Tolerance") asks for non-blocking communicators and no thread in
// an NCCL call when ncclCommAbort is called: aborting a blocked call from
// another thread is outside what NCCL promises. It sets the abort flags
// that NCCL's waits check, then frees the communicator while the blocked
// thread unwinds. graphnb takes that risk only for a call that has
// already outlived the timeout, where the alternative is a hang.

// watchPeriod is how often the watchdog looks at the blocking
// communicators' calls: a call that outlives its timeout is aborted at
// most this much later.
const watchPeriod = 50 * time.Millisecond

// ErrNoSplit is wrapped by SplitBlocking's error when the loaded NCCL has
// no ncclCommSplit (NCCL before 2.18) or refused the split at once
// (ncclInvalidArgument: the call had no effect); the parent stays usable.
var ErrNoSplit = errors.New("nccl: no blocking communicator")

// SplitBlocking makes a blocking communicator of the same ranks as c (a
// non-blocking one: ncclCommSplit with color 0 and key rank, and a config
// of blocking = 1), with c's timeout. It is a collective: every rank of c
// must call it. Its wait is bounded like InitRank's: the split runs
// non-blocking, as its parent does, and is polled until every rank has
// split (NCCL has stored the new handle), at most c's timeout; then c is aborted and the error wraps
// ErrTimeout. The new communicator's calls block until NCCL has enqueued
// them, each under the watchdog (see the package doc). Without
// ncclCommSplit in the library (NCCL before 2.18) it fails at once, on
// every rank alike, with an error wrapping ErrNoSplit, and c stays usable;
// so it does when NCCL refuses the split's arguments.
func (c *Comm) SplitBlocking() (*Comm, error) {
	const call = "ncclCommSplit"
	if err := c.usable(call); err != nil {
		return nil, err
	}
	if !cHasSplit() {
		return nil, fmt.Errorf("%w: %s has no ncclCommSplit (NCCL 2.18 or later has it)", ErrNoSplit, lib.path)
	}
	// C memory: with a non-blocking parent NCCL writes the new handle from
	// its own thread once the split is done. It is freed once the handle
	// is in, or when NCCL refused the call at once; a split that failed
	// or timed out may still be running on NCCL's thread, so its slot is
	// left allocated (8 bytes) rather than freed under it.
	slot := cNewSplitSlot()
	token, err := c.enter(call, true)
	if err != nil {
		cFreeSplitSlot(slot)
		return nil, err
	}
	r := cCommSplit(c.h, 0, c.rank, slot, true)
	if err := c.leave(call, token); err != nil {
		return nil, err
	}
	// NCCL stores the new handle when the child's initialisation ends,
	// on its own thread (init.cc: the job's newcomm, an atomic store),
	// and the parent's asynchronous state does not wait for that: the
	// split is done when the slot holds a handle (NCCL 2.28 on 4 H200s
	// reported the parent settled with the slot still empty).
	split := func() (bool, error) { return cLoadSplitSlot(slot) != 0, nil }
	var failed error
	switch r {
	case resSuccess, resInProgress:
		failed = c.poll(call, "every rank to split", time.Duration(c.timeout.Load()), split)
	case resInvalidArgument:
		// The call had no effect (NCCL's guide): c stays usable.
		cFreeSplitSlot(slot)
		e := newError(call, c.rank, r, 0)
		e.Hint = "NCCL refused the split or its config of blocking = 1; the non-blocking communicator stays usable"
		return nil, fmt.Errorf("%w: %w", ErrNoSplit, e)
	default:
		failed = c.fail(call, r, nil)
	}
	h := cLoadSplitSlot(slot)
	if failed == nil && h == 0 {
		// The parent settled before NCCL stored the handle: wait for it,
		// within the same timeout.
		start := time.Now()
		for h == 0 && time.Since(start) < time.Duration(c.timeout.Load()) {
			time.Sleep(100 * time.Microsecond)
			h = cLoadSplitSlot(slot)
		}
		if h == 0 {
			failed = c.fail(call, 0, fmt.Errorf("nccl: %s on rank %d of %d returned %s and its parent settled, but no communicator came in %v; the communicator was aborted",
				call, c.rank, c.size, resultName(r), time.Since(start).Round(time.Millisecond)))
		}
	}
	if failed != nil {
		// NCCL's guide: abort the parent, then any new communicator.
		if h != 0 {
			cCommAbort(h)
		}
		return nil, failed
	}
	cFreeSplitSlot(slot)
	b := &Comm{h: h, rank: c.rank, size: c.size, blocking: true}
	b.timeout.Store(c.timeout.Load())
	// A blocking communicator is ready when the split has settled; a
	// communicator NCCL made non-blocking after all still settles here.
	if async, r := cCommGetAsyncError(h); r != resSuccess || async == resInProgress {
		if err := b.settle(call, "the new communicator to be ready"); err != nil {
			return nil, err
		}
	} else if async != resSuccess {
		return nil, b.fail(call, async, nil)
	}
	watch(b)
	return b, nil
}

// watchdog is the process's watchdog: the blocking communicators it
// looks at, and whether its goroutine runs (it ends when there are none).
var watchdog struct {
	mu      sync.Mutex
	comms   map[*Comm]struct{}
	running bool
}

// watch adds c to the watchdog's communicators, starting its goroutine
// if needed.
func watch(c *Comm) {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	if watchdog.comms == nil {
		watchdog.comms = map[*Comm]struct{}{}
	}
	watchdog.comms[c] = struct{}{}
	if !watchdog.running {
		watchdog.running = true
		go watchLoop()
	}
}

// unwatch removes c (aborted or closed) from the watchdog's communicators.
func unwatch(c *Comm) {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	delete(watchdog.comms, c)
}

// watching is the number of communicators the watchdog looks at and
// whether its goroutine runs (for tests).
func watching() (int, bool) {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	return len(watchdog.comms), watchdog.running
}

// watchLoop checks the watched communicators every watchPeriod until none
// is left.
func watchLoop() {
	tick := time.NewTicker(watchPeriod)
	defer tick.Stop()
	var comms []*Comm
	for range tick.C {
		watchdog.mu.Lock()
		if len(watchdog.comms) == 0 {
			watchdog.running = false
			watchdog.mu.Unlock()
			return
		}
		comms = comms[:0]
		for c := range watchdog.comms {
			comms = append(comms, c)
		}
		watchdog.mu.Unlock()
		now := sinceEpoch()
		for _, c := range comms {
			c.check(now)
		}
	}
}

// check aborts c when its call in progress started more than its timeout
// before now.
func (c *Comm) check(now int64) {
	start := c.state.Load()
	if start <= 0 || time.Duration(now-start) <= time.Duration(c.timeout.Load()) {
		return
	}
	if !c.state.CompareAndSwap(start, stateFired) {
		return // the call returned meanwhile
	}
	unwatch(c)
	// A thread of its own, which ends with the goroutine: NCCL makes the
	// communicator's device current on it, and an abort may take a while.
	go func() {
		runtime.LockOSThread()
		_ = c.abortHandle()
	}()
}
