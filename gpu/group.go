package gpu

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/graphnb/graphnb/gpu/nccl"
)

// A Group is a set of GPUs working on one problem: one rank per GPU,
// joined by NCCL communicators (package nccl). NewGroup makes a group of
// devices of this process (what a notebook uses); JoinGroup makes this
// process's rank of a group that spans several processes, one per GPU,
// on one host or several (what `graphnb bench -ranks` starts).
//
// Work runs with Run: a function called once per local rank, each on its
// device's thread, concurrently; inside it, the rank's collectives
// (AllReduce, AllGather, Broadcast, AllToAllV) exchange data with the
// other ranks. Every collective waits until its data has arrived, at most
// the group's timeout (SetTimeout; default nccl.DefaultTimeout): a rank
// that failed, stalled or never came makes every rank's collective fail
// with an error that says so, never hang. After such an error the group
// is broken (Err) and must be closed and made again.
//
// Each rank has two communicators: a non-blocking one, made first, for
// setting the group up and tearing it down, and a blocking one split from
// it for the collectives, whose calls return several times sooner (a
// polled non-blocking call costs 80–350 µs on H200s); a watchdog aborts a
// blocking call that outlives the timeout (package nccl). Without
// ncclCommSplit (NCCL before 2.18), when NCCL refuses the split, or with
// GRAPHNB_NCCL_BLOCKING=0 the collectives use the non-blocking
// communicators, and Blocking and String say so.
//
// A group of one device needs no NCCL: its collectives are copies on the
// device. A group of the host device (one rank) runs no collectives
// (ErrHost); algorithms run their single-device code on it.
type Group struct {
	ranks   []*Rank
	size    int
	timeout time.Duration
	// nonBlocking says why the collectives use the non-blocking
	// communicators ("" when they do not, or without NCCL).
	nonBlocking string

	mu     sync.Mutex
	broken error
	closed bool
}

// A Rank is one GPU of a group, seen from this process.
type Rank struct {
	g    *Group
	dev  *Device
	rank int
	// comm is the non-blocking communicator (set-up, teardown), coll the
	// one of the collectives: blocking, or comm itself.
	comm, coll *nccl.Comm

	// done is the event recorded after each collective, queried by waits;
	// scratch holds AllReduceInt64's values (made on first use).
	done    uintptr
	scratch *Int64s
}

// NewGroup makes a group of devs, rank i on devs[i], in this process. The
// devices must be distinct GPUs (or a single device, the host included).
// With several devices it loads NCCL (nccl.Load) and creates one
// communicator per device, each on its device's thread.
func NewGroup(devs ...*Device) (*Group, error) {
	if len(devs) == 0 {
		return nil, errors.New("gpu: NewGroup: no devices; pass the GPUs to group, e.g. gpu.NewGroup(gpu.Devices()...)")
	}
	seen := map[*Device]bool{}
	for i, d := range devs {
		switch {
		case d == nil:
			return nil, fmt.Errorf("gpu: NewGroup: device %d is nil", i)
		case seen[d]:
			return nil, fmt.Errorf("gpu: NewGroup: %s appears twice; a group has one rank per GPU", d)
		case d.host && len(devs) > 1:
			return nil, errors.New("gpu: NewGroup: the host device cannot join a group of GPUs; group GPUs only, or use gpu.NewGroup(gpu.Host()) alone")
		}
		seen[d] = true
	}
	g := &Group{size: len(devs), timeout: groupTimeout()}
	for i, d := range devs {
		g.ranks = append(g.ranks, &Rank{g: g, dev: d, rank: i})
	}
	if len(devs) == 1 {
		if devs[0].host {
			return g, nil
		}
		return g, g.ranks[0].makeEvent()
	}
	if err := nccl.Load(); err != nil {
		return nil, fmt.Errorf("gpu: NewGroup of %d GPUs: %w", len(devs), err)
	}
	var id nccl.UniqueID
	err := devs[0].exec(func(*Thread) error {
		var err error
		id, err = nccl.NewUniqueID()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: NewGroup: %w", err)
	}
	if err := g.connect(id); err != nil {
		return nil, err
	}
	return g, nil
}

// JoinGroup makes rank's part of a group of size ranks spread over
// several processes (one GPU each), all calling JoinGroup with the same id
// (made by one of them with nccl.NewUniqueID and shared: see package
// launch). It returns when every rank has joined, or fails after the
// timeout (GRAPHNB_NCCL_TIMEOUT or nccl.DefaultTimeout).
func JoinGroup(dev *Device, rank, size int, id nccl.UniqueID) (*Group, error) {
	switch {
	case dev == nil:
		return nil, errors.New("gpu: JoinGroup: nil device")
	case dev.host:
		return nil, errors.New("gpu: JoinGroup: the host device cannot join a group of GPUs")
	case size < 1 || rank < 0 || rank >= size:
		return nil, fmt.Errorf("gpu: JoinGroup: rank %d of %d: want 0 ≤ rank < size", rank, size)
	}
	g := &Group{size: size, timeout: groupTimeout()}
	g.ranks = []*Rank{{g: g, dev: dev, rank: rank}}
	if size == 1 {
		return g, g.ranks[0].makeEvent()
	}
	if err := nccl.Load(); err != nil {
		return nil, fmt.Errorf("gpu: JoinGroup: %w", err)
	}
	if err := g.connect(id); err != nil {
		return nil, err
	}
	return g, nil
}

// groupTimeout is GRAPHNB_NCCL_TIMEOUT or nccl.DefaultTimeout.
func groupTimeout() time.Duration { return nccl.Timeout(0) }

// connect creates every local rank's communicators, concurrently (each
// waits for all ranks): the non-blocking one, then the blocking one split
// from it (unless GRAPHNB_NCCL_BLOCKING=0, or NCCL cannot: then coll is
// comm, and nonBlocking says why). A failure aborts those made.
func (g *Group) connect(id nccl.UniqueID) error {
	errs := g.onRanks(func(r *Rank, _ *Thread) error {
		c, err := nccl.InitRank(g.size, id, r.rank, g.timeout)
		if err != nil {
			return err
		}
		r.comm, r.coll = c, c
		return r.makeEvent()
	}, nil)
	if err := errors.Join(errs...); err != nil {
		g.abortAll()
		return fmt.Errorf("gpu: group of %d ranks: %w", g.size, err)
	}
	if os.Getenv("GRAPHNB_NCCL_BLOCKING") == "0" {
		g.nonBlocking = "GRAPHNB_NCCL_BLOCKING=0"
		return nil
	}
	split := make([]*nccl.Comm, len(g.ranks))
	refused := make([]error, len(g.ranks))
	errs = g.onRanks(func(r *Rank, _ *Thread) error {
		b, err := r.comm.SplitBlocking()
		if errors.Is(err, nccl.ErrNoSplit) {
			refused[r.index()] = err
			return nil
		}
		split[r.index()] = b
		return err
	}, nil)
	// Every rank of a process loads the same NCCL, so all split or none
	// can; only a failure of the split itself (a timeout: the parent is
	// aborted) breaks the group.
	for _, err := range refused {
		if err != nil {
			g.nonBlocking = err.Error()
			break
		}
	}
	for i, r := range g.ranks {
		if split[i] != nil {
			r.coll = split[i]
		}
	}
	if err := errors.Join(errs...); err != nil {
		g.abortAll()
		return fmt.Errorf("gpu: group of %d ranks: the blocking communicators: %w", g.size, err)
	}
	if g.nonBlocking != "" {
		// Some rank cannot: none may use a blocking communicator.
		for _, r := range g.ranks {
			if r.coll != r.comm {
				_ = r.dev.exec(func(*Thread) error { return r.coll.Abort() })
				r.coll = r.comm
			}
		}
	}
	return nil
}

// onRanks calls f for every rank of this process at once, each on its
// device's thread, and returns each rank's error (prefixed with the rank
// in a group of several), passing each to failed (if not nil) as soon as
// it comes.
func (g *Group) onRanks(f func(r *Rank, t *Thread) error, failed func(error)) []error {
	errs := make([]error, len(g.ranks))
	var wg sync.WaitGroup
	for i, r := range g.ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := r.dev.exec(func(t *Thread) error { return f(r, t) })
			if err == nil {
				return
			}
			if g.size > 1 {
				err = fmt.Errorf("rank %d (%s): %w", r.rank, r.dev, err)
			}
			if failed != nil {
				failed(err)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return errs
}

// index is the rank's place in g.ranks.
func (r *Rank) index() int {
	for i, q := range r.g.ranks {
		if q == r {
			return i
		}
	}
	panic("gpu: a rank not in its group")
}

// abortAll aborts every rank's communicators on its device thread.
func (g *Group) abortAll() {
	for _, r := range g.ranks {
		r.abort()
	}
}

// makeEvent creates the rank's completion event on its device thread.
func (r *Rank) makeEvent() error {
	return r.dev.exec(func(t *Thread) error {
		h, code := cuEventCreate()
		if err := t.check("cuEventCreate", code); err != nil {
			return err
		}
		r.done = h
		return nil
	})
}

// abort aborts the rank's communicators on its device thread, if any.
func (r *Rank) abort() {
	if r.comm == nil {
		return
	}
	_ = r.dev.exec(func(*Thread) error { return errors.Join(r.coll.Abort(), r.comm.Abort()) })
}

// Size is the number of ranks in the group, in every process.
func (g *Group) Size() int { return g.size }

// Ranks are the group's ranks in this process, in rank order.
func (g *Group) Ranks() []*Rank { return g.ranks }

// Devices are the devices of the group's ranks in this process.
func (g *Group) Devices() []*Device {
	ds := make([]*Device, len(g.ranks))
	for i, r := range g.ranks {
		ds[i] = r.dev
	}
	return ds
}

// IsHost reports whether the group is the host device alone.
func (g *Group) IsHost() bool { return len(g.ranks) == 1 && g.ranks[0].dev.host }

// SetTimeout sets how long a collective may wait for the other ranks
// (d ≤ 0: the default).
func (g *Group) SetTimeout(d time.Duration) {
	if d <= 0 {
		d = groupTimeout()
	}
	g.timeout = d
	for _, r := range g.ranks {
		if r.comm != nil {
			r.comm.SetTimeout(d)
			r.coll.SetTimeout(d)
		}
	}
}

// Blocking reports whether the group's collectives run on blocking
// communicators (see Group), and if not, why ("" for a group without
// NCCL: one device).
func (g *Group) Blocking() (bool, string) {
	if len(g.ranks) == 0 || g.ranks[0].comm == nil {
		return false, ""
	}
	return g.nonBlocking == "", g.nonBlocking
}

// Err is nil while the group works, else the failure that broke it.
func (g *Group) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.closed:
		return errors.New("gpu: the group is closed; make a new one with gpu.NewGroup")
	case g.broken != nil:
		return g.broken
	}
	return nil
}

// fail breaks the group with err (the first failure wins) and aborts the
// ranks' blocking communicators: a rank blocked in NCCL waiting for the
// one that failed returns at once (a rank of a non-blocking one sees Err
// in its wait).
func (g *Group) fail(err error) {
	g.mu.Lock()
	first := g.broken == nil
	if first {
		g.broken = fmt.Errorf("gpu: the group is broken (%w); close it and make a new group", err)
	}
	g.mu.Unlock()
	if first {
		g.abortBlocking()
	}
}

// abortBlocking aborts the ranks' blocking communicators from a thread of
// its own (NCCL makes each communicator's device current there, which
// must not change a device thread's), and returns when they are aborted.
func (g *Group) abortBlocking() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		for _, r := range g.ranks {
			if r.coll != nil && r.coll != r.comm {
				_ = r.coll.Abort()
			}
		}
	}()
	wg.Wait()
}

// String describes the group: "group of 2 ranks: 0 NVIDIA H100 …, 1 …".
func (g *Group) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "group of %d rank", g.size)
	if g.size != 1 {
		b.WriteString("s")
	}
	if len(g.ranks) < g.size {
		fmt.Fprintf(&b, " (%d in this process)", len(g.ranks))
	}
	for i, r := range g.ranks {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%s%d %s", sep, r.rank, r.dev.Name())
	}
	if g.nonBlocking != "" {
		fmt.Fprintf(&b, "; collectives on non-blocking communicators (%s)", g.nonBlocking)
	}
	return b.String()
}

// Close frees the communicators (waiting for their work, at most the
// timeout) and the ranks' events; idempotent.
func (g *Group) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	broken := g.broken != nil
	g.mu.Unlock()
	var errs []error
	for _, r := range g.ranks {
		if r.dev.host {
			continue
		}
		errs = append(errs, r.scratch.Free())
		err := r.dev.exec(func(t *Thread) error {
			var err error
			if r.comm != nil {
				if broken {
					err = errors.Join(r.coll.Abort(), r.comm.Abort())
				} else {
					// The blocking communicator first: its Finalize
					// waits for the collectives' work.
					if r.coll != r.comm {
						err = r.coll.Close(g.timeout)
					}
					err = errors.Join(err, r.comm.Close(g.timeout))
				}
			}
			if r.done != 0 {
				err = errors.Join(err, t.check("cuEventDestroy_v2", cuEventDestroy(r.done)))
				r.done = 0
			}
			return err
		})
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Run calls f once for each rank of this process, concurrently, each on
// its device's thread, and returns when all have returned: nil, or every
// rank's error (joined, each naming its rank). The first error breaks the
// group, so that the other ranks' collectives fail at once instead of
// waiting for a rank that will not come. f must not call Exec or other
// device-thread work of another rank's device.
func (g *Group) Run(f func(r *Rank, t *Thread) error) error {
	if err := g.Err(); err != nil {
		return err
	}
	if g.IsHost() {
		return errHost("Group.Run", "a group of the host device runs no device code; the algorithms run their CPU code on it")
	}
	return errors.Join(g.onRanks(f, g.fail)...)
}

// Rank is the rank's number, 0 ≤ Rank < Size.
func (r *Rank) Rank() int { return r.rank }

// Size is the group's size.
func (r *Rank) Size() int { return r.g.size }

// Device is the rank's device.
func (r *Rank) Device() *Device { return r.dev }

// Group is the rank's group.
func (r *Rank) Group() *Group { return r.g }

// A Span is a contiguous part of a device buffer, what collectives send
// and receive: SpanOf(buf, off, n).
type Span struct {
	ptr  uint64
	n    int
	typ  nccl.DataType
	dev  *Device
	what string
}

// SpanOf is elements [off, off+n) of buf, a *Int32s, *Uint32s, *Int64s,
// *Uint64s, *Float32s, *Float64s or *Uint8s (n < 0: to the end).
func SpanOf(buf any, off, n int) (Span, error) {
	var (
		b     spannable
		typ   nccl.DataType
		name  string
		isNil bool
	)
	switch x := buf.(type) {
	case *Int32s:
		b, typ, name, isNil = x, nccl.Int32, "Int32s", x == nil
	case *Uint32s:
		b, typ, name, isNil = x, nccl.Uint32, "Uint32s", x == nil
	case *Int64s:
		b, typ, name, isNil = x, nccl.Int64, "Int64s", x == nil
	case *Uint64s:
		b, typ, name, isNil = x, nccl.Uint64, "Uint64s", x == nil
	case *Float32s:
		b, typ, name, isNil = x, nccl.Float32, "Float32s", x == nil
	case *Float64s:
		b, typ, name, isNil = x, nccl.Float64, "Float64s", x == nil
	case *Uint8s:
		b, typ, name, isNil = x, nccl.Uint8, "Uint8s", x == nil
	default:
		return Span{}, fmt.Errorf("gpu: SpanOf: %T is not a device buffer (*gpu.Int32s, *gpu.Float32s, …)", buf)
	}
	if isNil {
		return Span{}, fmt.Errorf("gpu: SpanOf: nil %s", name)
	}
	dev := b.Device()
	l := b.Len()
	if n < 0 {
		n = l - off
	}
	if off < 0 || n < 0 || off+n > l {
		return Span{}, fmt.Errorf("gpu: SpanOf: elements [%d, %d) of a %s of %d", off, off+n, name, l)
	}
	p, err := b.devicePtr(dev)
	if err != nil {
		return Span{}, err
	}
	return Span{ptr: p + uint64(off*typ.Size()), n: n, typ: typ, dev: dev, what: name}, nil
}

// spannable is what SpanOf needs of a typed buffer.
type spannable interface {
	Len() int
	Device() *Device
	devicePtr(*Device) (uint64, error)
}

// Len is the span's length in elements.
func (s Span) Len() int { return s.n }

// at is the span's elements from off on, n of them.
func (s Span) at(off, n int) Span {
	s.ptr += uint64(off * s.typ.Size())
	s.n = n
	return s
}

// spans checks that the spans are on the rank's device and of one type.
func (r *Rank) spans(op string, ss ...Span) error {
	if err := r.g.Err(); err != nil {
		return err
	}
	if r.dev.host {
		return errHost(op, "a group of the host device runs no collectives")
	}
	for _, s := range ss {
		switch {
		case s.dev == nil:
			return fmt.Errorf("gpu: %s: an empty Span; make spans with gpu.SpanOf", op)
		case s.dev != r.dev:
			return fmt.Errorf("gpu: %s on rank %d (%s): a %s of %s", op, r.rank, r.dev, s.what, s.dev)
		case s.typ != ss[0].typ:
			return fmt.Errorf("gpu: %s: a %s with a %s; both sides need one element type", op, ss[0].what, s.what)
		}
	}
	return nil
}

// wait waits for the collectives just queued on the default stream.
func (r *Rank) wait(t *Thread, op string, queued error) error {
	if queued == nil {
		queued = t.check("cuEventRecord", cuEventRecord(r.done, 0))
	}
	if queued == nil {
		queued = r.coll.Wait(r.g.timeout, func() (bool, error) {
			if err := r.g.Err(); err != nil {
				return false, err
			}
			switch code := cuEventQuery(r.done); code {
			case 0:
				return true, nil
			case cudaErrorNotReady:
				return false, nil
			default:
				return false, t.check("cuEventQuery", code)
			}
		})
	}
	return r.failed(op, queued)
}

// failed breaks the group with the error of op (nil: nil). A
// communicator aborted because the group broke gives the group's error.
func (r *Rank) failed(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, nccl.ErrAborted) {
		if broken := r.g.Err(); broken != nil {
			err = broken
		}
	}
	err = fmt.Errorf("gpu: %s on rank %d of %d (%s): %w", op, r.rank, r.g.size, r.dev, err)
	r.g.fail(err)
	return err
}

// finish ends a collective that queued (queued: the error of queueing
// it): with wait, as wait does; without, a queueing error breaks the
// group as wait's would, and success returns at once.
func (r *Rank) finish(t *Thread, op string, queued error, wait bool) error {
	if wait {
		return r.wait(t, op, queued)
	}
	return r.failed(op, queued)
}

// Wait returns once the collectives this rank queued without waiting
// (AllReduceQueued, AllGatherQueued, AllToAllVQueued) have finished, and
// what was queued on the rank's thread before them. A queued collective
// is ordered with the thread's work (kernels queued after it read its
// result), so a chain of collectives and kernels needs no wait between
// them; but call Wait before the host reads what they wrote (a
// synchronous download waits for them too, but cannot time out): Wait
// polls as the waiting collectives do, so a rank that failed, stalled or
// never came is an error on every rank after the group's timeout, not a
// hang. Without NCCL (a group of one) it returns at once.
func (r *Rank) Wait(t *Thread) error {
	if err := r.g.Err(); err != nil {
		return err
	}
	if r.comm == nil {
		return nil
	}
	return r.wait(t, "Wait", nil)
}

// cudaErrorNotReady is CUDA_ERROR_NOT_READY: queued work not done yet.
const cudaErrorNotReady = 600

// copyLocal copies src to dst on the rank's device (the one-rank group).
func (r *Rank) copyLocal(t *Thread, op string, dst, src Span) error {
	if dst.ptr == src.ptr || src.n == 0 {
		return nil
	}
	return t.check("cuMemcpyDtoD_v2 ("+op+")", cuMemcpyDtoD(dst.ptr, src.ptr, int64(src.n*src.typ.Size())))
}

// AllReduce sets recv[i] to op over every rank's send[i]; send and recv
// have one length and may be the same span. Call it on the rank's thread
// (t, inside Group.Run); it returns when recv holds the result.
func (r *Rank) AllReduce(t *Thread, send, recv Span, op nccl.Op) error {
	return r.allReduce(t, send, recv, op, true)
}

// AllReduceQueued is AllReduce without the wait (see Wait).
func (r *Rank) AllReduceQueued(t *Thread, send, recv Span, op nccl.Op) error {
	return r.allReduce(t, send, recv, op, false)
}

func (r *Rank) allReduce(t *Thread, send, recv Span, op nccl.Op, wait bool) error {
	if err := r.spans("AllReduce", send, recv); err != nil {
		return err
	}
	if send.n != recv.n {
		return fmt.Errorf("gpu: AllReduce: send has %d elements, recv %d; want the same", send.n, recv.n)
	}
	if r.comm == nil {
		return r.copyLocal(t, "AllReduce", recv, send)
	}
	return r.finish(t, "AllReduce", r.coll.AllReduce(send.ptr, recv.ptr, send.n, send.typ, op, 0), wait)
}

// AllGather sets recv[k·n : (k+1)·n] to rank k's send (n = send's length)
// for every rank k; recv holds Size·n elements.
func (r *Rank) AllGather(t *Thread, send, recv Span) error {
	return r.allGather(t, send, recv, true)
}

// AllGatherQueued is AllGather without the wait (see Wait).
func (r *Rank) AllGatherQueued(t *Thread, send, recv Span) error {
	return r.allGather(t, send, recv, false)
}

func (r *Rank) allGather(t *Thread, send, recv Span, wait bool) error {
	if err := r.spans("AllGather", send, recv); err != nil {
		return err
	}
	if recv.n != r.g.size*send.n {
		return fmt.Errorf("gpu: AllGather: recv has %d elements; want %d ranks × %d", recv.n, r.g.size, send.n)
	}
	if r.comm == nil {
		return r.copyLocal(t, "AllGather", recv, send)
	}
	return r.finish(t, "AllGather", r.coll.AllGather(send.ptr, recv.ptr, send.n, send.typ, 0), wait)
}

// Broadcast sets buf on every rank to root's buf.
func (r *Rank) Broadcast(t *Thread, buf Span, root int) error {
	if err := r.spans("Broadcast", buf); err != nil {
		return err
	}
	if root < 0 || root >= r.g.size {
		return fmt.Errorf("gpu: Broadcast: root %d of a group of %d", root, r.g.size)
	}
	if r.comm == nil {
		return nil
	}
	return r.wait(t, "Broadcast", r.coll.Broadcast(buf.ptr, buf.ptr, buf.n, buf.typ, root, 0))
}

// AllToAllV sends sendCounts[k] elements to each rank k, taken in rank
// order from send (rank 0's first), and receives recvCounts[k] from each
// rank k into recv, in rank order. Each rank's sendCounts[k] must equal
// rank k's recvCounts[Rank] (exchange counts first with AllGather or
// AllReduceInt64).
func (r *Rank) AllToAllV(t *Thread, send Span, sendCounts []int, recv Span, recvCounts []int) error {
	return r.allToAllV(t, send, sendCounts, recv, recvCounts, true)
}

// AllToAllVQueued is AllToAllV without the wait (see Wait).
func (r *Rank) AllToAllVQueued(t *Thread, send Span, sendCounts []int, recv Span, recvCounts []int) error {
	return r.allToAllV(t, send, sendCounts, recv, recvCounts, false)
}

func (r *Rank) allToAllV(t *Thread, send Span, sendCounts []int, recv Span, recvCounts []int, wait bool) error {
	if err := r.spans("AllToAllV", send, recv); err != nil {
		return err
	}
	sendOff, err := offsets("send", sendCounts, r.g.size, send.n)
	if err != nil {
		return err
	}
	recvOff, err := offsets("recv", recvCounts, r.g.size, recv.n)
	if err != nil {
		return err
	}
	if r.comm == nil {
		if sendCounts[0] != recvCounts[0] {
			return fmt.Errorf("gpu: AllToAllV: a one-rank group sends %d elements to itself and receives %d", sendCounts[0], recvCounts[0])
		}
		return r.copyLocal(t, "AllToAllV", recv.at(0, recvCounts[0]), send.at(0, sendCounts[0]))
	}
	return r.finish(t, "AllToAllV", r.coll.AllToAllV(send.ptr, sendCounts, sendOff, recv.ptr, recvCounts, recvOff, send.typ, 0), wait)
}

// offsets are the prefix sums of counts, checked against the group and
// the span's length.
func offsets(side string, counts []int, size, n int) ([]int, error) {
	if len(counts) != size {
		return nil, fmt.Errorf("gpu: AllToAllV: %d %s counts for a group of %d ranks", len(counts), side, size)
	}
	off := make([]int, size)
	sum := 0
	for k, c := range counts {
		if c < 0 {
			return nil, fmt.Errorf("gpu: AllToAllV: %s count %d for rank %d", side, c, k)
		}
		off[k] = sum
		sum += c
	}
	if sum > n {
		return nil, fmt.Errorf("gpu: AllToAllV: %s counts total %d elements, the span holds %d", side, sum, n)
	}
	return off, nil
}

// AllReduceInt64 reduces a few host values over the ranks (e.g. frontier
// sizes) and returns the result, through a small device buffer of the
// rank's.
func (r *Rank) AllReduceInt64(t *Thread, vals []int64, op nccl.Op) ([]int64, error) {
	if r.comm == nil || len(vals) == 0 {
		return append([]int64(nil), vals...), r.spans("AllReduceInt64")
	}
	// The scratch only grows (an allocation costs more than the
	// collective); the values go to and come from its first elements.
	if r.scratch == nil || r.scratch.Len() < len(vals) {
		if err := r.scratch.Free(); err != nil {
			return nil, err
		}
		var err error
		if r.scratch, err = r.dev.AllocInt64s(max(len(vals), 64)); err != nil {
			return nil, err
		}
	}
	s, err := SpanOf(r.scratch, 0, len(vals))
	if err != nil {
		return nil, err
	}
	bytes := int64(8 * len(vals))
	if err := t.htod("AllReduceInt64", s.ptr, unsafe.Pointer(&vals[0]), bytes); err != nil {
		return nil, err
	}
	if err := r.AllReduce(t, s, s, op); err != nil {
		return nil, err
	}
	out := make([]int64, len(vals))
	return out, t.dtoh("AllReduceInt64", unsafe.Pointer(&out[0]), s.ptr, bytes)
}
