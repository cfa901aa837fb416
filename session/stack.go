package session

import (
	"fmt"
	"math/bits"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphnb/graphnb/internal/gostack"
)

// Unbounded recursion. yaegi runs an interpreted call on the Go stack of
// the goroutine that makes it (about 600 bytes for a plain function, a few
// KiB for a method), so a cell's runaway recursion grows that stack until
// Go's limit (1 GB), where the runtime ends the process with "fatal error:
// stack overflow", which no recover stops (issue 13, case 6).
//
// The session watches the stacks of the goroutines that run cells' code:
// the one that runs a cell's program, the guarded goroutines of go
// statements (goStmt) and guarded callbacks (typed_callbacks.go). A
// watchdog reads their stack sizes every watchEvery (internal/gostack,
// from outside: the watched code pays nothing). A stack larger than a
// quarter of Go's limit stops the cells' code as an interrupt does — every
// interpreted frame returns at its next step, which unwinds any depth at
// once, where a panic would take time growing with the square of the
// depth (yaegi recovers and panics again at every frame) — and the cell
// fails with a StackOverflow error; between cells the error goes to the
// AsyncError of the cell that started the goroutine. The kernel lives,
// and so does every variable. Go's limit is four times the watchdog's:
// the stack doubles at most once more while the watchdog acts.
// debug.SetMaxStack in a cell sets both.
//
// Not watched: goroutines that compiled code starts and that call a
// cell's function (a callback run by a worker pool). Where internal/gostack
// measures nothing (other than amd64 and arm64) nothing is watched.

// watchEvery is the watchdog's period. A plain interpreted recursion grows
// its stack by about 1 GB/s: between the limit and Go's, there is room
// for 50 periods.
const watchEvery = 5 * time.Millisecond

// stackLimit is the size past which a watched stack is stopped: a quarter
// of Go's limit.
var stackLimit atomic.Uint64

func init() {
	old := debug.SetMaxStack(1 << 30)
	debug.SetMaxStack(old)
	stackLimit.Store(uint64(old / 4))
}

// setMaxStack replaces debug.SetMaxStack for cells: Go's limit and the
// watchdog's change together.
func setMaxStack(n int) int {
	old := debug.SetMaxStack(n)
	stackLimit.Store(uint64(n / 4))
	return old
}

// stackWatch is the set of watched goroutines.
type stackWatch struct {
	mu      sync.Mutex
	next    int
	gs      map[int]*watched
	running bool // the watchdog runs (while gs is not empty)
}

// watched is one watched goroutine.
type watched struct {
	g        gostack.G
	what     string // "the cell", "a goroutine", or the callback's function
	where    string // where it was started, for the error's traceback
	cell     *Cell  // the cell that started it
	reported bool
}

// watch registers the calling goroutine and returns its key for unwatch
// (0 where nothing is watched).
func (s *Session) watch(w *watched) int {
	if !gostack.Supported {
		return 0
	}
	w.g = gostack.Current()
	sw := &s.stacks
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.gs == nil {
		sw.gs = map[int]*watched{}
	}
	sw.next++
	sw.gs[sw.next] = w
	if !sw.running {
		sw.running = true
		go s.watchdog()
	}
	return sw.next
}

// unwatch stops watching a goroutine; it must be called by that goroutine
// before it ends.
func (s *Session) unwatch(key int) {
	if key == 0 {
		return
	}
	s.stacks.mu.Lock()
	delete(s.stacks.gs, key)
	s.stacks.mu.Unlock()
}

// goWatch is called first by a guarded goroutine (goStmt): it watches the
// goroutine; goEnd unwatches it.
func (s *Session) goWatch(h int) {
	s.meta.Lock()
	g, ok := s.goroutines[h]
	s.meta.Unlock()
	if !ok {
		return
	}
	w := &watched{what: "a goroutine", cell: g.cell, where: "goroutine started at " + s.describe(position{serial: g.serial, line: g.line})}
	if g.callback != "" {
		w.what = "a " + g.callback + " callback"
		w.where = "callback given to " + g.callback + " at " + s.describe(position{serial: g.serial, line: g.line})
	}
	key := s.watch(w)
	s.meta.Lock()
	if g, ok := s.goroutines[h]; ok {
		g.watch = key
		s.goroutines[h] = g
	}
	s.meta.Unlock()
}

// watchdog checks the watched stacks every watchEvery until none is left.
func (s *Session) watchdog() {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	sw := &s.stacks
	for range t.C {
		sw.mu.Lock()
		if len(sw.gs) == 0 {
			sw.running = false
			sw.mu.Unlock()
			return
		}
		limit := uintptr(stackLimit.Load())
		var over *watched
		var size uintptr
		for _, w := range sw.gs {
			// A stack being moved may read half old, half new: not a
			// power of two.
			if n := gostack.Size(w.g); n > limit && bits.OnesCount64(uint64(n)) == 1 && !w.reported {
				over, size = w, n
				w.reported = true
				break
			}
		}
		sw.mu.Unlock()
		if over != nil {
			s.stopOverflow(over, size)
		}
	}
}

// stopOverflow stops the cells' code for a stack that grew past the limit
// and reports it.
func (s *Session) stopOverflow(w *watched, size uintptr) {
	e := newError("StackOverflow", fmt.Sprintf("the calls of %s grew its stack to %d MB, past the session's limit of %d MB (a recursion that does not end?); "+
		"the cells' code was stopped as by an interrupt, every variable keeps its value; write deep recursion as a loop, or raise the limit: debug.SetMaxStack(n) sets it to n/4",
		w.what, size>>20, stackLimit.Load()>>20))
	if w.where != "" {
		e.Trace = append(e.Trace, w.where)
	}
	if rc := s.running.Load(); rc != nil {
		rc.fail(e) // stops the cell as an interrupt does
		return
	}
	// Between cells: stop the interpreter as runProgram does on an
	// interrupt. A cell that starts meanwhile holds s.mu: the watchdog
	// tries again at its next period.
	if !s.mu.TryLock() {
		s.stacks.mu.Lock()
		w.reported = false
		s.stacks.mu.Unlock()
		return
	}
	defer s.mu.Unlock()
	if s.running.Load() == nil && s.arm() == nil {
		id := runID(s.in)
		old := atomic.LoadUint64(id)
		yaegiStop(s.in)
		s.armed = false
		deadline := time.Now().Add(stopGrace)
		for time.Now().Before(deadline) && s.watching(w) {
			time.Sleep(time.Millisecond)
		}
		atomic.StoreUint64(id, old)
	}
	if w.cell != nil && w.cell.AsyncError != nil {
		w.cell.AsyncError(e)
	}
}

// watching reports whether w is still watched.
func (s *Session) watching(w *watched) bool {
	s.stacks.mu.Lock()
	defer s.stacks.mu.Unlock()
	for _, v := range s.stacks.gs {
		if v == w {
			return true
		}
	}
	return false
}
