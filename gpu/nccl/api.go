package nccl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ncclResult_t values graphnb tells apart.
const (
	resSuccess         = 0
	resUnhandledCuda   = 1
	resSystemError     = 2
	resInternalError   = 3
	resInvalidArgument = 4
	resInvalidUsage    = 5
	resRemoteError     = 6
	resInProgress      = 7
)

// resultNames are the ncclResult_t names, by value.
var resultNames = []string{"ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
	"ncclInvalidArgument", "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress"}

func resultName(r int) string {
	if r >= 0 && r < len(resultNames) {
		return resultNames[r]
	}
	return fmt.Sprintf("ncclResult_%d", r)
}

// hints say what to do after a result.
func hint(r int) string {
	switch r {
	case resUnhandledCuda:
		return "a CUDA call inside NCCL failed: is the device usable (a kernel fault before)? NCCL_DEBUG=WARN shows NCCL's log"
	case resSystemError:
		return "a system call or the network failed; NCCL_DEBUG=WARN shows which"
	case resInternalError:
		return "NCCL_DEBUG=WARN shows NCCL's log"
	case resInvalidArgument, resInvalidUsage:
		return "the ranks' calls do not match (a different order, count or type on some rank): a graphnb bug; NCCL_DEBUG=WARN shows more"
	case resRemoteError:
		return "another rank failed or left; close the group and make a new one"
	}
	return ""
}

// errNoCgo is libOpen's error in a build without cgo.
var errNoCgo = errors.New("graphnb was built without cgo, so it cannot load NCCL (a C library); rebuild with CGO_ENABLED=1")

// ErrNoNCCL is wrapped by Load's error when no usable NCCL library was
// found or it lacks a symbol (or the build has no cgo).
var ErrNoNCCL = errors.New("nccl: NCCL is not available")

var lib struct {
	once                sync.Once
	err                 error
	path                string
	major, minor, patch int
}

// Load dlopens NCCL once per process (see the package doc for where it
// looks and what it sets in the environment); later calls return the first
// call's result. Its error wraps ErrNoNCCL and lists the places tried.
func Load() error {
	lib.once.Do(func() {
		// NCCL reads its environment when it initialises, after dlopen;
		// os.Setenv reaches C's environment in a cgo program.
		os.Setenv("NCCL_NVLS_ENABLE", "0")
		// Empty: NCCL reads it as unset, and neither the user's value nor
		// nccl.conf's (which NCCL never lets replace a set variable)
		// overrides the blocking mode of the configs graphnb passes.
		os.Setenv("NCCL_COMM_BLOCKING", "")
		lib.path, lib.err = open(os.Getenv("GRAPHNB_NCCL"), candidates())
		if lib.err != nil {
			return
		}
		v, r := cGetVersion()
		if r != resSuccess {
			lib.err = newError("ncclGetVersion", -1, r, 0)
			return
		}
		lib.major, lib.minor, lib.patch = decodeVersion(v)
	})
	return lib.err
}

// decodeVersion splits NCCL_VERSION_CODE: X·10000+Y·100+Z since 2.9,
// X·1000+Y·100+Z before.
func decodeVersion(v int) (major, minor, patch int) {
	if v >= 10000 {
		return v / 10000, v / 100 % 100, v % 100
	}
	return v / 1000, v / 100 % 10, v % 100
}

// open loads override when set (only it), else the first of candidates
// that loads.
func open(override string, candidates []string) (string, error) {
	const todo = "install NCCL (pip install nvidia-nccl-cu13, or the libnccl2 package) or set GRAPHNB_NCCL to the path of libnccl.so.2"
	if override != "" {
		if err := libOpen(override); err != nil {
			return "", fmt.Errorf("%w: GRAPHNB_NCCL=%s: %v; point GRAPHNB_NCCL at libnccl.so.2 or unset it to search the usual places", ErrNoNCCL, override, err)
		}
		return override, nil
	}
	var tried []string
	for _, p := range candidates {
		err := libOpen(p)
		if err == nil {
			return p, nil
		}
		if errors.Is(err, errNoCgo) {
			return "", fmt.Errorf("%w: %v", ErrNoNCCL, err)
		}
		tried = append(tried, fmt.Sprintf("%s (%v)", p, err))
	}
	return "", fmt.Errorf("%w: libnccl.so.2 not found; tried %s, and no match for %s; %s",
		ErrNoNCCL, strings.Join(tried, ", "), strings.Join(wheelPatterns(), ", "), todo)
}

// candidates are the places Load tries without GRAPHNB_NCCL: the loader's
// search path, the CUDA toolkit's lib64, then NVIDIA's NCCL wheels.
func candidates() []string {
	out := []string{"libnccl.so.2"}
	var dirs []string
	if h := os.Getenv("CUDA_HOME"); h != "" {
		dirs = append(dirs, filepath.Join(h, "lib64"))
	}
	dirs = append(dirs, "/usr/local/cuda/lib64")
	for _, d := range dirs {
		if p := filepath.Join(d, "libnccl.so.2"); exists(p) {
			out = append(out, p)
		}
	}
	for _, pat := range wheelPatterns() {
		m, _ := filepath.Glob(pat)
		out = append(out, m...)
	}
	return out
}

// wheelPatterns are the globs of the nvidia-nccl wheels' library.
func wheelPatterns() []string {
	var roots []string
	if v := os.Getenv("VIRTUAL_ENV"); v != "" {
		roots = append(roots, filepath.Join(v, "lib", "python3*"))
	}
	roots = append(roots, "/usr/lib/python3*", "/usr/local/lib/python3*", "/opt/*/.venv/lib/python3*")
	if h, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(h, ".local", "lib", "python3*"))
	}
	var out []string
	for _, r := range roots {
		for _, pk := range []string{"site-packages", "dist-packages"} {
			out = append(out, filepath.Join(r, pk, "nvidia", "nccl", "lib", "libnccl.so.2"))
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Path is the file Load opened ("" before a successful Load).
func Path() string {
	if Load() != nil {
		return ""
	}
	return lib.path
}

// Version is the loaded NCCL's version, e.g. 2, 28, 3 (it loads NCCL).
func Version() (major, minor, patch int, err error) {
	if err := Load(); err != nil {
		return 0, 0, 0, err
	}
	return lib.major, lib.minor, lib.patch, nil
}

// NewUniqueID makes the ID of a new communicator (ncclGetUniqueId); call
// it on one rank and share the bytes with the others. It loads NCCL.
func NewUniqueID() (UniqueID, error) {
	var id UniqueID
	if err := Load(); err != nil {
		return id, err
	}
	if r := cGetUniqueID(&id); r != resSuccess {
		return id, newError("ncclGetUniqueId", -1, r, 0)
	}
	return id, nil
}

// timeoutFromEnv is GRAPHNB_NCCL_TIMEOUT when it is a positive Go
// duration, else DefaultTimeout; read once.
var timeoutFromEnv = sync.OnceValue(func() time.Duration {
	if v := os.Getenv("GRAPHNB_NCCL_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return DefaultTimeout
})

// Timeout is d, or for d ≤ 0 the default: GRAPHNB_NCCL_TIMEOUT (a Go
// duration, read once per process) or DefaultTimeout.
func Timeout(d time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return timeoutFromEnv()
}

// Comm is one rank's communicator (ncclComm_t): non-blocking (InitRank)
// or blocking (SplitBlocking). Its methods are not safe for concurrent use
// (SetTimeout and Abort excepted); call them on the thread where its
// device's context is current. The per-call cost of the watchdog is a
// read of the monotonic clock and two atomic compare-and-swaps.
type Comm struct {
	h          uintptr
	rank, size int
	// blocking: NCCL's calls return when done, each under the watchdog.
	blocking bool
	// timeout bounds a call that NCCL reports in progress, or a blocking
	// call (nanoseconds).
	timeout atomic.Int64
	// state says who holds the handle: stateIdle; stateBusy (a call that
	// does not block); the start of a call of a blocking communicator
	// that may block in NCCL (sinceEpoch, > 0: what the watchdog looks
	// at); or, for good, stateGone (aborted or closed) or stateFired
	// (aborted by the watchdog). Claiming it is an atomic compare-and-swap,
	// so Abort and the watchdog never free the communicator under a call
	// that another thread has not yet begun or has already finished, and
	// they free it under one in progress only if it may block.
	state atomic.Int64
}

// The values of Comm.state other than a call's start.
const (
	stateIdle  = 0
	stateGone  = -1
	stateBusy  = -2
	stateFired = -3
)

// epoch is the origin of sinceEpoch.
var epoch = time.Now()

// sinceEpoch is the monotonic time since epoch in nanoseconds, at least 1.
func sinceEpoch() int64 { return int64(time.Since(epoch)) + 1 }

// ErrAborted is wrapped by the error of a call on a communicator that was
// aborted or closed, before or during the call (Abort from another
// goroutine while a blocking call was in progress).
var ErrAborted = errors.New("nccl: the communicator was aborted or closed")

// enter claims the handle for a call; it fails once the communicator is
// gone. A call that may block in NCCL (mayBlock, on a blocking
// communicator) is timed: the watchdog aborts one that outlives the
// timeout; Abort waits for any other to return. Every use of the handle
// sits between enter and leave.
func (c *Comm) enter(call string, mayBlock bool) (token int64, err error) {
	token = stateBusy
	if c.blocking && mayBlock {
		token = sinceEpoch()
	}
	if c.h == 0 || !c.state.CompareAndSwap(stateIdle, token) {
		return 0, c.goneError(call)
	}
	return token, nil
}

// leave gives the handle back after a call: nil, or, when the watchdog or
// Abort aborted the communicator during the call, the error to return
// (whatever NCCL returned: an aborted call may even report success).
func (c *Comm) leave(call string, token int64) error {
	if c.state.CompareAndSwap(token, stateIdle) {
		return nil
	}
	if c.state.Load() == stateFired {
		return c.timeoutError(call, "the call to return (a blocking communicator: the watchdog aborted it)", time.Duration(sinceEpoch()-token))
	}
	return fmt.Errorf("%w: %s on rank %d of %d was in progress when another goroutine aborted the communicator", ErrAborted, call, c.rank, c.size)
}

// goneError is the error of a call on a communicator that is gone.
func (c *Comm) goneError(call string) error {
	if c != nil && c.state.Load() == stateFired {
		return fmt.Errorf("%w: %s: the watchdog aborted the communicator after a call outlived the timeout; make a new one", ErrAborted, call)
	}
	return fmt.Errorf("%w: %s; make a new one", ErrAborted, call)
}

// timeoutError says that call on c waited too long for waiting.
func (c *Comm) timeoutError(call, waiting string, waited time.Duration) error {
	return fmt.Errorf("%w: %s on rank %d of %d waited %v for %s (a rank failed, stalled or never came); the communicator was aborted; GRAPHNB_NCCL_TIMEOUT sets the limit",
		ErrTimeout, call, c.rank, c.size, waited.Round(time.Millisecond), waiting)
}

// InitRank creates rank's communicator of a group of size ranks that
// share id (ncclCommInitRank, non-blocking), on the calling thread's
// current device, and waits until every rank has joined or timeout has
// passed (0: the default, see Timeout); on timeout it aborts the
// communicator and returns an error wrapping ErrTimeout that says which
// rank waited and for how long. All ranks must call it, each on its own
// thread (in one process or several). The timeout also bounds the
// communicator's later calls (SetTimeout changes it).
func InitRank(size int, id UniqueID, rank int, timeout time.Duration) (*Comm, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	if size < 1 || rank < 0 || rank >= size {
		return nil, fmt.Errorf("nccl: InitRank: rank %d of %d; want 0 ≤ rank < size", rank, size)
	}
	if id == (UniqueID{}) {
		return nil, errors.New("nccl: InitRank: an empty unique id; make one with NewUniqueID on one rank and pass it to every rank")
	}
	h, r := cCommInitRank(size, &id, rank, false)
	if r != resSuccess && r != resInProgress {
		if h != 0 {
			err := newError("ncclCommInitRank", rank, r, h)
			cCommAbort(h)
			return nil, err
		}
		return nil, newError("ncclCommInitRank", rank, r, 0)
	}
	c := &Comm{h: h, rank: rank, size: size}
	c.SetTimeout(timeout)
	if r == resInProgress {
		if err := c.settle("ncclCommInitRank", "every rank to join"); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// SetTimeout sets how long a call NCCL reports in progress may take to
// settle, or a blocking communicator's call to return (d ≤ 0: the default,
// see Timeout). Safe for concurrent use.
func (c *Comm) SetTimeout(d time.Duration) { c.timeout.Store(int64(Timeout(d))) }

// Rank is the communicator's rank.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in the communicator's group.
func (c *Comm) Size() int { return c.size }

// newError describes result r of call on rank; h (when not 0) is asked
// for NCCL's last error message.
func newError(call string, rank, r int, h uintptr) *Error {
	msg := cErrorString(r)
	if last := cLastError(h); last != "" && last != msg {
		if msg != "" {
			msg += ": "
		}
		msg += last
	}
	return &Error{Call: call, Rank: rank, Result: r, Name: resultName(r), Msg: msg, Hint: hint(r)}
}

// Blocking reports whether the communicator's calls block until done
// (SplitBlocking) rather than return ncclInProgress (InitRank).
func (c *Comm) Blocking() bool { return c.blocking }

// usable is the error of a call on a communicator that is gone.
func (c *Comm) usable(call string) error {
	if c == nil || c.h == 0 {
		return c.goneError(call)
	}
	if s := c.state.Load(); s == stateGone || s == stateFired {
		return c.goneError(call)
	}
	return nil
}

// fail aborts the communicator and returns err (an *Error of call with
// result r unless err is given).
func (c *Comm) fail(call string, r int, err error) error {
	if err == nil {
		err = newError(call, c.rank, r, c.h)
	}
	c.Abort()
	return err
}

// settle polls ncclCommGetAsyncError after a call that returned
// ncclInProgress until it reports no work in progress, at most the
// communicator's timeout; waiting says what for (in the timeout error).
func (c *Comm) settle(call, waiting string) error {
	timeout := time.Duration(c.timeout.Load())
	return c.poll(call, waiting, timeout, func() (bool, error) { return true, nil })
}

// poll is Wait's loop: it returns when done reports true and NCCL
// reports no work in progress, and aborts the communicator on an
// asynchronous error, done's error or the timeout.
func (c *Comm) poll(call, waiting string, timeout time.Duration, done func() (bool, error)) error {
	start := time.Now()
	sleep := 10 * time.Microsecond
	for {
		token, err := c.enter("ncclCommGetAsyncError", false)
		if err != nil {
			return err
		}
		async, r := cCommGetAsyncError(c.h)
		if err := c.leave("ncclCommGetAsyncError", token); err != nil {
			return err
		}
		switch {
		case r != resSuccess:
			return c.fail("ncclCommGetAsyncError", r, nil)
		case async != resSuccess && async != resInProgress:
			return c.fail(call, async, nil)
		}
		ok, err := done()
		if err != nil {
			return c.fail(call, 0, err)
		}
		if ok && async == resSuccess {
			return nil
		}
		if waited := time.Since(start); waited > timeout {
			return c.fail(call, 0, c.timeoutError(call, waiting, waited))
		}
		// Collectives of a BFS level take tens of microseconds: poll
		// without sleeping at first (a sleep costs about as much), then
		// back off to a millisecond.
		if time.Since(start) < spinFor {
			runtime.Gosched()
			continue
		}
		time.Sleep(sleep)
		if sleep < time.Millisecond {
			sleep *= 2
		}
	}
}

// spinFor is how long poll checks without sleeping.
const spinFor = 500 * time.Microsecond

// call checks result r of an enqueueing call: success, in progress
// (settled), or an error that aborts the communicator.
func (c *Comm) call(name string, r int) error {
	switch r {
	case resSuccess:
		return nil
	case resInProgress:
		return c.settle(name, "the call to settle")
	}
	return c.fail(name, r, nil)
}

// enqueue runs f, a collective's NCCL call named call, between enter and
// leave, and checks its result (see call).
func (c *Comm) enqueue(call string, f func() int) error {
	token, err := c.enter(call, true)
	if err != nil {
		return err
	}
	r := f()
	if err := c.leave(call, token); err != nil {
		return err
	}
	return c.call(call, r)
}

// checkCount refuses a negative count.
func checkCount(call string, count int, t DataType) error {
	if count < 0 {
		return fmt.Errorf("nccl: %s: count %d", call, count)
	}
	if t.Size() == 0 {
		return fmt.Errorf("nccl: %s: unsupported data type %d", call, int(t))
	}
	return nil
}

// AllReduce queues recv[i] = op over ranks of send[i], for count elements
// of type t, on stream s (ncclAllReduce). send may equal recv.
func (c *Comm) AllReduce(send, recv uint64, count int, t DataType, op Op, s uintptr) error {
	if err := c.usable("ncclAllReduce"); err != nil {
		return err
	}
	if err := checkCount("ncclAllReduce", count, t); err != nil {
		return err
	}
	return c.enqueue("ncclAllReduce", func() int { return cAllReduce(send, recv, count, t, op, c.h, s) })
}

// AllGather queues recv[r·count : (r+1)·count] = rank r's send[0:count]
// for every rank r, on stream s (ncclAllGather).
func (c *Comm) AllGather(send, recv uint64, count int, t DataType, s uintptr) error {
	if err := c.usable("ncclAllGather"); err != nil {
		return err
	}
	if err := checkCount("ncclAllGather", count, t); err != nil {
		return err
	}
	return c.enqueue("ncclAllGather", func() int { return cAllGather(send, recv, count, t, c.h, s) })
}

// Broadcast queues recv[0:count] = root's send[0:count] on every rank, on
// stream s (ncclBroadcast). send is read on root only; send may equal
// recv.
func (c *Comm) Broadcast(send, recv uint64, count int, t DataType, root int, s uintptr) error {
	if err := c.usable("ncclBroadcast"); err != nil {
		return err
	}
	if err := checkCount("ncclBroadcast", count, t); err != nil {
		return err
	}
	if root < 0 || root >= c.size {
		return fmt.Errorf("nccl: ncclBroadcast: root %d of a group of %d", root, c.size)
	}
	return c.enqueue("ncclBroadcast", func() int { return cBroadcast(send, recv, count, t, root, c.h, s) })
}

// AllToAllV queues, for every peer p (this rank included), a send of
// sendCounts[p] elements from send + sendOffsets[p] elements to p and a
// receive of recvCounts[p] elements from p into recv + recvOffsets[p], as
// one NCCL group of ncclSend and ncclRecv calls, on stream s. Counts and
// offsets are in elements; zero counts send or receive nothing. Every
// rank's sendCounts[p] must equal p's recvCounts[rank] (exchange the
// counts first, with AllGather); NCCL cannot check it, and a mismatch
// hangs until the timeout.
func (c *Comm) AllToAllV(send uint64, sendCounts, sendOffsets []int, recv uint64, recvCounts, recvOffsets []int, t DataType, s uintptr) error {
	const call = "AllToAllV (ncclSend/ncclRecv group)"
	if err := c.usable(call); err != nil {
		return err
	}
	for _, l := range [][]int{sendCounts, sendOffsets, recvCounts, recvOffsets} {
		if len(l) != c.size {
			return fmt.Errorf("nccl: %s: %d counts or offsets for a group of %d ranks", call, len(l), c.size)
		}
	}
	for p := 0; p < c.size; p++ {
		if sendCounts[p] < 0 || recvCounts[p] < 0 || sendOffsets[p] < 0 || recvOffsets[p] < 0 {
			return fmt.Errorf("nccl: %s: a negative count or offset for peer %d", call, p)
		}
	}
	if err := checkCount(call, 0, t); err != nil {
		return err
	}
	size := uint64(t.Size())
	// The whole group is one call for the watchdog: ncclGroupEnd is where
	// a blocking communicator waits.
	token, err := c.enter(call, true)
	if err != nil {
		return err
	}
	if r := cGroupStart(); r != resSuccess {
		if err := c.leave(call, token); err != nil {
			return err
		}
		return c.fail("ncclGroupStart", r, nil)
	}
	failed, res := "", resSuccess
	for p := 0; p < c.size && failed == ""; p++ {
		if n := sendCounts[p]; n > 0 {
			if r := cSend(send+uint64(sendOffsets[p])*size, n, t, p, c.h, s); r != resSuccess && r != resInProgress {
				failed, res = fmt.Sprintf("ncclSend to rank %d", p), r
			}
		}
		if n := recvCounts[p]; n > 0 && failed == "" {
			if r := cRecv(recv+uint64(recvOffsets[p])*size, n, t, p, c.h, s); r != resSuccess && r != resInProgress {
				failed, res = fmt.Sprintf("ncclRecv from rank %d", p), r
			}
		}
	}
	// A group once started must end, even after a failed call in it.
	end := cGroupEnd()
	if err := c.leave(call, token); err != nil {
		return err
	}
	if failed != "" {
		return c.fail(failed, res, nil)
	}
	return c.call("ncclGroupEnd ("+call+")", end)
}

// Wait waits until the work queued so far has finished: until done
// reports true (package gpu passes a query of an event recorded on the
// stream after the collectives; nil means no such check) and NCCL reports
// neither work in progress nor an asynchronous error
// (ncclCommGetAsyncError). An asynchronous error (a peer failed:
// ncclRemoteError, …) aborts the communicator and is returned as an
// *Error; so is done's error. After timeout (0: the default, see Timeout)
// it aborts the communicator and returns an error wrapping ErrTimeout that
// names the rank and how long it waited. It polls without sleeping for
// the first 0.5 ms, then sleeping 10 µs and twice as long each time up to
// a millisecond.
func (c *Comm) Wait(timeout time.Duration, done func() (bool, error)) error {
	if err := c.usable("Wait"); err != nil {
		return err
	}
	if done == nil {
		done = func() (bool, error) { return true, nil }
	}
	return c.poll("Wait", "the collectives to finish", Timeout(timeout), done)
}

// Abort stops the communicator's pending work and frees it
// (ncclCommAbort); idempotent. Use it after an error: the communicator
// cannot be used again. It may be called from another goroutine (on any
// thread: NCCL makes the communicator's device current itself): a call of
// a blocking communicator in progress there then returns an error
// wrapping ErrAborted; a call of a non-blocking one (which never waits in
// NCCL) is let finish first.
func (c *Comm) Abort() error {
	if c == nil || c.h == 0 || !c.claim() {
		return nil
	}
	return c.abortHandle()
}

// claim takes the handle for good (stateGone): false when it was gone
// already. It waits for a non-blocking call in progress to finish.
func (c *Comm) claim() bool {
	for {
		switch s := c.state.Load(); s {
		case stateGone, stateFired:
			return false
		case stateBusy:
			runtime.Gosched()
		default:
			if c.state.CompareAndSwap(s, stateGone) {
				return true
			}
		}
	}
}

// abortHandle aborts the claimed handle.
func (c *Comm) abortHandle() error {
	unwatch(c)
	// ncclCommAbort frees the communicator before it returns; a
	// non-blocking one may still say ncclInProgress, which asks nothing
	// more of the caller here.
	if r := cCommAbort(c.h); r != resSuccess && r != resInProgress {
		return newError("ncclCommAbort", c.rank, r, 0)
	}
	return nil
}

// Close frees the communicator after its work (ncclCommFinalize, then
// ncclCommDestroy), waiting at most timeout (0: the default, see Timeout),
// else aborting it; idempotent, and nil after Abort.
func (c *Comm) Close(timeout time.Duration) error {
	if c.usable("ncclCommFinalize") != nil {
		return nil
	}
	token, err := c.enter("ncclCommFinalize", true)
	if err != nil {
		return nil
	}
	r := cCommFinalize(c.h)
	if err := c.leave("ncclCommFinalize", token); err != nil {
		return err
	}
	switch r {
	case resSuccess:
	case resInProgress:
		if err := c.poll("ncclCommFinalize", "its work to finish", Timeout(timeout), func() (bool, error) { return true, nil }); err != nil {
			return err
		}
	default:
		return c.fail("ncclCommFinalize", r, nil)
	}
	if !c.claim() {
		return nil
	}
	unwatch(c)
	if r := cCommDestroy(c.h); r != resSuccess && r != resInProgress {
		return newError("ncclCommDestroy", c.rank, r, 0)
	}
	return nil
}
