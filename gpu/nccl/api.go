package nccl

import (
	"errors"
	"time"
)

// errUnbuilt marks the API's skeleton; the binding replaces it.
var errUnbuilt = errors.New("nccl: not built yet")

// Load dlopens NCCL once per process (see the package doc for where it
// looks and what it sets in the environment); later calls return the first
// call's result.
func Load() error { return errUnbuilt }

// Path is the file Load opened ("" before a successful Load).
func Path() string { return "" }

// Version is the loaded NCCL's version, e.g. 2, 28, 3.
func Version() (major, minor, patch int, err error) { return 0, 0, 0, errUnbuilt }

// NewUniqueID makes the ID of a new communicator (ncclGetUniqueId); call
// it on one rank and share the bytes with the others.
func NewUniqueID() (UniqueID, error) { return UniqueID{}, errUnbuilt }

// Comm is one rank's communicator (ncclComm_t). Its methods are not safe
// for concurrent use; call them on the thread where its device's context
// is current.
type Comm struct {
	h          uintptr
	rank, size int
}

// InitRank creates rank's communicator of a group of size ranks that
// share id (ncclCommInitRank, non-blocking), on the calling thread's
// current device, and waits until every rank has joined or timeout has
// passed (0: DefaultTimeout); on timeout it aborts the communicator and
// returns an error wrapping ErrTimeout that says which rank waited and
// for how long. All ranks must call it, each on its own thread (in one
// process or several).
func InitRank(size int, id UniqueID, rank int, timeout time.Duration) (*Comm, error) {
	return nil, errUnbuilt
}

// Rank and Size are the communicator's rank and the group's size.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in the communicator's group.
func (c *Comm) Size() int { return c.size }

// AllReduce queues recv[i] = op over ranks of send[i], for count elements
// of type t, on stream s (ncclAllReduce). send may equal recv.
func (c *Comm) AllReduce(send, recv uint64, count int, t DataType, op Op, s uintptr) error {
	return errUnbuilt
}

// AllGather queues recv[r·count : (r+1)·count] = rank r's send[0:count]
// for every rank r, on stream s (ncclAllGather).
func (c *Comm) AllGather(send, recv uint64, count int, t DataType, s uintptr) error {
	return errUnbuilt
}

// Broadcast queues recv[0:count] = root's send[0:count] on every rank, on
// stream s (ncclBroadcast).
func (c *Comm) Broadcast(send, recv uint64, count int, t DataType, root int, s uintptr) error {
	return errUnbuilt
}

// AllToAllV queues, for every peer p (this rank included), a send of
// sendCounts[p] elements from send + sendOffsets[p] elements to p and a
// receive of recvCounts[p] elements from p into recv + recvOffsets[p], as
// one NCCL group of ncclSend and ncclRecv calls, on stream s. Counts and
// offsets are in elements; every rank's sendCounts[p] must equal p's
// recvCounts[rank] (exchange the counts first, with AllGather).
func (c *Comm) AllToAllV(send uint64, sendCounts, sendOffsets []int, recv uint64, recvCounts, recvOffsets []int, t DataType, s uintptr) error {
	return errUnbuilt
}

// Wait waits until the work queued so far has finished: until done
// reports true (package gpu passes a query of an event recorded on the
// stream after the collectives) and NCCL reports no asynchronous error
// (ncclCommGetAsyncError). An asynchronous error (a peer failed:
// ncclRemoteError, …) aborts the communicator and is returned; so is
// done's error. After timeout (0: DefaultTimeout) it aborts the
// communicator and returns an error wrapping ErrTimeout. It polls, sleeping
// a little more each time up to a millisecond.
func (c *Comm) Wait(timeout time.Duration, done func() (bool, error)) error {
	return errUnbuilt
}

// Abort stops the communicator's pending work and frees it
// (ncclCommAbort); idempotent. Use it after an error: the communicator
// cannot be used again.
func (c *Comm) Abort() error { return errUnbuilt }

// Close frees the communicator after its work (ncclCommFinalize, then
// ncclCommDestroy), waiting at most timeout (0: DefaultTimeout), else
// aborting it; idempotent.
func (c *Comm) Close(timeout time.Duration) error { return errUnbuilt }
