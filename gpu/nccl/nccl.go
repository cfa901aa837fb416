// Package nccl is graphnb's binding to NCCL, NVIDIA's library of
// collectives between GPUs: the communicator, all-reduce, all-gather,
// broadcast and point-to-point send and receive (grouped, for
// all-to-all(v)). Package gpu builds its device groups (gpu.Group) on it;
// cells use those, not this package.
//
// # Loading
//
// NCCL is not linked: Load dlopens libnccl.so.2 at run time, like the CUDA
// driver and NVRTC, from GRAPHNB_NCCL when set (that file only), else the
// system's library (the loader's search path, e.g.
// /usr/lib/x86_64-linux-gnu), $CUDA_HOME/lib64, /usr/local/cuda/lib64,
// else the nvidia-nccl-cu13 (or -cu12) wheel's nvidia/nccl/lib under the
// site-packages or dist-packages of $VIRTUAL_ENV/lib/python3*,
// /usr/lib/python3*, /usr/local/lib/python3*, /opt/*/.venv/lib/python3*
// and ~/.local/lib/python3*. A missing library is an error wrapping
// ErrNoNCCL that lists the places tried and says how to install NCCL or
// point GRAPHNB_NCCL at it. graphnb needs NCCL 2.14 or later
// (non-blocking communicators); blocking ones (SplitBlocking) need 2.18.
//
// Before it loads the library, Load sets NCCL_NVLS_ENABLE=0 in the
// process environment, whatever it was: NVLink multicast (NVLS) stays off,
// because on a shared machine a program that uses it can put the GPUs out
// of service; graphnb never calls the multicast API. It also empties
// NCCL_COMM_BLOCKING, so that the blocking mode of each communicator is
// the one graphnb asks for in its config, which the variable would
// override.
//
// # Threads and pointers
//
// NCCL calls that take a communicator must run on an OS thread where the
// CUDA context of the communicator's device is current (package gpu calls
// them on the device's thread). Buffers are device pointers (uint64) and
// streams CUDA stream handles (uintptr, 0 = the legacy default stream).
// Collectives only queue work on the stream: the data is there once the
// stream has reached it, which Comm.Wait waits for with a timeout.
//
// # Waiting and failures
//
// InitRank makes a non-blocking communicator: a call may return
// ncclInProgress, and then the binding polls ncclCommGetAsyncError until
// the call has settled, at most the communicator's timeout (InitRank's, or
// SetTimeout's). Comm.Wait polls the same way until the queued work is
// done. A rank that failed elsewhere shows as an asynchronous error
// (ncclRemoteError) or, when it died or stalled silently, as a timeout:
// every wait ends with an error, never hangs, and aborts the communicator
// (ncclCommAbort), which cannot be used again. Timeouts of 0 mean the
// default: GRAPHNB_NCCL_TIMEOUT (a Go duration, read once per process) or
// DefaultTimeout.
//
// Comm.SplitBlocking makes a blocking communicator of the same ranks,
// whose calls return once enqueued, without polling (several times
// faster). Each of its calls runs under a watchdog, one goroutine per
// process that looks at the blocking communicators every 50 ms and aborts
// one whose call has outlived its timeout; the call then fails with an
// error wrapping ErrTimeout, as a poll's would (blocking.go says more,
// and what NCCL's documentation says of it).
//
// # Errors
//
// Every failure of an NCCL call is an *Error naming the call, the rank,
// its result code and name, NCCL's own message (ncclGetErrorString and
// ncclGetLastError) and what to do; a timeout wraps ErrTimeout; a missing
// library wraps ErrNoNCCL.
//
// # Testing without GPUs
//
// testdata/fakenccl.c is a fake libnccl.so.2 with the same symbols and
// observable behaviour on host memory, for ranks that are threads or
// processes, with failure injection (FAKE_NCCL_FAIL); its header says how
// it works. This package's tests build it with gcc (its source is embedded
// in the test binary); package gpu's fake-driver tests and
// internal/fakegpu.RunN use it for device groups on fake GPUs.
package nccl

import (
	"encoding/hex"
	"fmt"
	"time"
)

// UniqueID identifies a communicator being created: one rank makes it
// (NewUniqueID) and every rank passes the same bytes to InitRank. It holds
// the address rank 0 listens on (NCCL_UNIQUE_ID_BYTES = 128).
type UniqueID [128]byte

// String is the ID in hexadecimal (256 characters), as ParseUniqueID reads it.
func (id UniqueID) String() string { return hex.EncodeToString(id[:]) }

// ParseUniqueID reads an ID written by UniqueID.String.
func ParseUniqueID(s string) (UniqueID, error) {
	var id UniqueID
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(id) {
		return id, fmt.Errorf("nccl: %q is not a unique id: want %d hexadecimal digits (UniqueID.String)", abbreviate(s), 2*len(id))
	}
	copy(id[:], b)
	return id, nil
}

func abbreviate(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// DataType is an element type of NCCL (ncclDataType_t).
type DataType int

// The element types graphnb uses, with NCCL's numbering.
const (
	Int8    DataType = 0
	Uint8   DataType = 1
	Int32   DataType = 2
	Uint32  DataType = 3
	Int64   DataType = 4
	Uint64  DataType = 5
	Float32 DataType = 7
	Float64 DataType = 8
)

// Size is the element's size in bytes.
func (t DataType) Size() int {
	switch t {
	case Int8, Uint8:
		return 1
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64:
		return 8
	}
	return 0
}

// Op is a reduction operator (ncclRedOp_t).
type Op int

// The reductions, with NCCL's numbering.
const (
	Sum  Op = 0
	Prod Op = 1
	Max  Op = 2
	Min  Op = 3
)

// Error is a failed NCCL call.
type Error struct {
	// Call is the NCCL function, e.g. "ncclAllReduce"; Rank the caller's
	// rank (-1 before the communicator exists).
	Call string
	Rank int
	// Result is the ncclResult_t and Name its name ("ncclRemoteError");
	// Msg is NCCL's explanation (ncclGetErrorString and ncclGetLastError).
	Result int
	Name   string
	Msg    string
	// Hint says what to do.
	Hint string
}

// Error formats the failure.
func (e *Error) Error() string {
	s := "nccl: " + e.Call
	if e.Rank >= 0 {
		s += fmt.Sprintf(" on rank %d", e.Rank)
	}
	s += fmt.Sprintf(": %s (%d)", e.Name, e.Result)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// ErrTimeout is wrapped by the error of a call or a wait that did not
// finish in time (a peer rank failed, stalled or never joined); the
// communicator has been aborted by then.
var ErrTimeout = fmt.Errorf("nccl: timed out")

// DefaultTimeout is how long InitRank, Wait and Close wait when given 0,
// unless GRAPHNB_NCCL_TIMEOUT (a Go duration, e.g. "30s") says otherwise
// (see Timeout).
const DefaultTimeout = 2 * time.Minute
