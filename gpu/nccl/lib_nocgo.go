//go:build !cgo

package nccl

// This file stands in for lib_cgo.go when cgo is off: Load fails with
// errNoCgo, so nothing below it is ever reached.

func libOpen(string) error { return errNoCgo }

const notLoaded = 3 // ncclInternalError

func cGetVersion() (int, int)                                            { return 0, notLoaded }
func cGetUniqueID(*UniqueID) int                                         { return notLoaded }
func cCommInitRank(int, *UniqueID, int, bool) (uintptr, int)             { return 0, notLoaded }
func cHasSplit() bool                                                    { return false }
func cCommGetAsyncError(uintptr) (int, int)                              { return 0, notLoaded }
func cCommAbort(uintptr) int                                             { return notLoaded }
func cCommFinalize(uintptr) int                                          { return notLoaded }
func cCommDestroy(uintptr) int                                           { return notLoaded }
func cAllReduce(uint64, uint64, int, DataType, Op, uintptr, uintptr) int { return notLoaded }
func cAllGather(uint64, uint64, int, DataType, uintptr, uintptr) int     { return notLoaded }
func cBroadcast(uint64, uint64, int, DataType, int, uintptr, uintptr) int {
	return notLoaded
}
func cSend(uint64, int, DataType, int, uintptr, uintptr) int { return notLoaded }
func cRecv(uint64, int, DataType, int, uintptr, uintptr) int { return notLoaded }
func cGroupStart() int                                       { return notLoaded }

type splitSlot = *uintptr

func cNewSplitSlot() splitSlot                          { return new(uintptr) }
func cFreeSplitSlot(splitSlot)                          {}
func cLoadSplitSlot(s splitSlot) uintptr                { return *s }
func cCommSplit(uintptr, int, int, splitSlot, bool) int { return notLoaded }
func cGroupEnd() int                                    { return notLoaded }
func cErrorString(int) string                           { return "" }
func cLastError(uintptr) string                         { return "" }

// cgoBuilt reports whether this build can load NCCL.
const cgoBuilt = false
