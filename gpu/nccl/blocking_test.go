//go:build cgo

package nccl

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// splitRanks is ranks with a blocking communicator split from each rank's
// communicator: f gets both; the blocking one is closed after f (aborted
// when f fails), the other as ranks does.
func splitRanks(t *testing.T, size int, f func(parent, b *Comm) error) []error {
	t.Helper()
	return ranks(t, size, testTimeout, func(c *Comm) error {
		b, err := c.SplitBlocking()
		if err != nil {
			return err
		}
		if !b.Blocking() || c.Blocking() || b.Rank() != c.Rank() || b.Size() != c.Size() {
			b.Abort()
			return fmt.Errorf("SplitBlocking made rank %d of %d, blocking %v (parent %v)", b.Rank(), b.Size(), b.Blocking(), c.Blocking())
		}
		if err := f(c, b); err != nil {
			b.Abort()
			return err
		}
		return b.Close(testTimeout)
	})
}

// waitUnwatched waits until the watchdog has no communicator left and its
// goroutine has ended.
func waitUnwatched(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * watchPeriod)
	for {
		n, running := watching()
		if n == 0 && !running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watchdog still looks at %d communicators (running %v) after they were closed", n, running)
		}
		time.Sleep(watchPeriod / 5)
	}
}

// TestFakeBlockingCollectives runs every collective on blocking
// communicators of 1, 2 and 3 ranks, and checks that closing them stops
// the watchdog.
func TestFakeBlockingCollectives(t *testing.T) {
	loadFake(t)
	for _, size := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			noErrors(t, splitRanks(t, size, func(_, b *Comm) error {
				if n, running := watching(); n == 0 || !running {
					return fmt.Errorf("the watchdog looks at %d communicators (running %v) while one is open", n, running)
				}
				return collectives(b)
			}))
			waitUnwatched(t)
		})
	}
}

// TestFakeBlockingFailures makes rank 1 of 2 and 3 stall or fail in its
// second collective, or stall in the split: every rank returns a clear
// error within the timeout and the watchdog's period (and a little), none
// hangs, and the watchdog ends.
func TestFakeBlockingFailures(t *testing.T) {
	loadFake(t)
	const timeout = 300 * time.Millisecond
	for _, size := range []int{2, 3} {
		for _, tc := range []struct{ fail, want string }{
			{"rank=1,op=2,mode=stall", "timeout"},
			{"rank=1,op=2,mode=error", "error"},
			{"rank=1,op=split,mode=stall", "split"},
		} {
			t.Run(fmt.Sprintf("%d/%s", size, tc.fail), func(t *testing.T) {
				t.Setenv("FAKE_NCCL_FAIL", tc.fail)
				var start time.Time
				var once sync.Once
				errs := ranks(t, size, testTimeout, func(c *Comm) error {
					c.SetTimeout(timeout)
					once.Do(func() { start = time.Now() })
					b, err := c.SplitBlocking()
					if err != nil {
						return err
					}
					for i := 0; i < 3; i++ {
						var pin runtime.Pinner
						v := []int64{int64(c.Rank())}
						err := b.AllReduce(addr(&pin, v), addr(&pin, v), 1, Int64, Sum, 0)
						pin.Unpin()
						if err != nil {
							b.Abort()
							return fmt.Errorf("AllReduce %d: %w", i+1, err)
						}
					}
					return b.Close(timeout)
				})
				if el := time.Since(start); el > timeout+watchPeriod+time.Second {
					t.Errorf("took %v with a timeout of %v", el, timeout)
				}
				timeouts := 0
				for r, err := range errs {
					var e *Error
					switch {
					case err == nil:
						t.Errorf("rank %d: no error", r)
					case tc.want == "split":
						// A rank that timed out aborts; a rank still waiting
						// may see that first.
						timedOut := errors.Is(err, ErrTimeout) && strings.Contains(err.Error(), "ncclCommSplit on rank") && strings.Contains(err.Error(), "waited")
						if !timedOut && !(errors.As(err, &e) && e.Result == resRemoteError && e.Call == "ncclCommSplit") {
							t.Errorf("rank %d: %v", r, err)
						}
					case tc.want == "error" && r == 1:
						if !errors.As(err, &e) || e.Result != resSystemError || !strings.Contains(e.Msg, "injected failure") {
							t.Errorf("rank 1: %v", err)
						}
					case tc.want == "error":
						if !errors.As(err, &e) || e.Result != resRemoteError {
							t.Errorf("rank %d: %v, want a remote error", r, err)
						}
					case errors.Is(err, ErrTimeout):
						timeouts++
						if !strings.Contains(err.Error(), fmt.Sprintf("AllReduce 2: nccl: timed out: ncclAllReduce on rank %d of %d waited", r, size)) ||
							!strings.Contains(err.Error(), "the watchdog aborted it") || !strings.Contains(err.Error(), "GRAPHNB_NCCL_TIMEOUT") {
							t.Errorf("rank %d: %v", r, err)
						}
					default:
						// A rank whose call the watchdog has not yet
						// aborted may see another's abort first.
						if !errors.As(err, &e) || e.Result != resRemoteError || !strings.Contains(err.Error(), "AllReduce 2: ") {
							t.Errorf("rank %d: %v, want a timeout or a remote error", r, err)
						}
					}
				}
				if tc.want == "timeout" && timeouts == 0 {
					t.Error("no rank timed out")
				}
				waitUnwatched(t)
			})
		}
	}
}

// TestFakeAbortBlockedCall aborts, from another goroutine, a blocking
// communicator whose call waits for a peer that never calls: the call
// returns at once with ErrAborted, later calls fail, and Abort and Close
// stay idempotent.
func TestFakeAbortBlockedCall(t *testing.T) {
	loadFake(t)
	var waiting sync.WaitGroup
	waiting.Add(2)
	comms := make([]*Comm, 2)
	errs := ranks(t, 2, testTimeout, func(c *Comm) error {
		b, err := c.SplitBlocking()
		if err != nil {
			return err
		}
		comms[c.Rank()] = b
		waiting.Done()
		if c.Rank() == 1 {
			return nil // never calls: rank 0 waits for it
		}
		go func() {
			waiting.Wait()
			time.Sleep(100 * time.Millisecond)
			b.Abort()
		}()
		start := time.Now()
		err = b.AllReduce(0, 0, 0, Int32, Sum, 0)
		if el := time.Since(start); el > 2*time.Second {
			return fmt.Errorf("the blocked call returned %v after the abort", el)
		}
		if !errors.Is(err, ErrAborted) || !strings.Contains(err.Error(), "ncclAllReduce on rank 0 of 2 was in progress when another goroutine aborted") {
			return fmt.Errorf("the blocked call: %v", err)
		}
		if err := b.AllGather(0, 0, 0, Int32, 0); !errors.Is(err, ErrAborted) {
			return fmt.Errorf("AllGather after the abort: %v", err)
		}
		return errors.Join(b.Abort(), b.Close(0))
	})
	noErrors(t, errs)
	if err := comms[1].Abort(); err != nil {
		t.Error(err)
	}
	waitUnwatched(t)
}

// TestFakeSplitRefused checks that a split NCCL refuses at once wraps
// ErrNoSplit and leaves the parent usable.
func TestFakeSplitRefused(t *testing.T) {
	loadFake(t)
	t.Setenv("FAKE_NCCL_SPLIT", "invalid")
	noErrors(t, ranks(t, 2, testTimeout, func(c *Comm) error {
		if _, err := c.SplitBlocking(); !errors.Is(err, ErrNoSplit) || !strings.Contains(err.Error(), "refused") {
			return fmt.Errorf("SplitBlocking: %v, want ErrNoSplit", err)
		}
		return collectives(c)
	}))
}
