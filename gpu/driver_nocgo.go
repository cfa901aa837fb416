//go:build !cgo

package gpu

import (
	"errors"
	"unsafe"
)

// This file stands in for driver_cgo.go when cgo is off: the exported API
// is the same (it lives in the untagged files), every path that would
// reach the CUDA driver or NVRTC fails with errNoCgo, and Default is the
// host device.

const cgoEnabled = false

const maxArgs = 64

// errNoCgo is what every CUDA path returns in a build without cgo.
var errNoCgo = errors.New("graphnb was built without cgo, so it cannot reach a GPU; rebuild with CGO_ENABLED=1")

// notAvailable is the CUresult the stubs return (they are unreachable once
// drvLoad has failed).
const notAvailable = codeNotInitialized

func drvLoad(path string) error {
	return &loadError{what: path, msg: errNoCgo.Error(), sentinel: ErrNoDriver}
}

func rtcLoad(path string) error {
	return &loadError{what: path, msg: errNoCgo.Error(), sentinel: ErrNoNVRTC}
}

func drvElapsedSymbol() string { return "" }
func rtcHasCUBIN() bool        { return false }
func threadSelf() uintptr      { return 0 }

func cuInit() int                                                               { return notAvailable }
func cuDriverVersion() (int, int)                                               { return 0, notAvailable }
func cuErrName(int) (string, bool)                                              { return "", false }
func cuErrString(int) (string, bool)                                            { return "", false }
func cuDeviceCount() (int, int)                                                 { return 0, notAvailable }
func cuDeviceGet(int) (int32, int)                                              { return 0, notAvailable }
func cuDeviceName(int32) (string, int)                                          { return "", notAvailable }
func cuDeviceAttr(int, int32) (int, int)                                        { return 0, notAvailable }
func cuDeviceTotalMem(int32) (int64, int)                                       { return 0, notAvailable }
func cuCtxRetain(int32) (uintptr, int)                                          { return 0, notAvailable }
func cuCtxRelease(int32) int                                                    { return notAvailable }
func cuCtxReset(int32) int                                                      { return notAvailable }
func cuCtxSetCurrent(uintptr) int                                               { return notAvailable }
func cuCtxSync() int                                                            { return notAvailable }
func cuMemAlloc(int64) (uint64, int)                                            { return 0, notAvailable }
func cuMemFree(uint64) int                                                      { return notAvailable }
func cuMemcpyHtoD(uint64, unsafe.Pointer, int64) int                            { return notAvailable }
func cuMemcpyDtoH(unsafe.Pointer, uint64, int64) int                            { return notAvailable }
func cuMemcpyDtoD(uint64, uint64, int64) int                                    { return notAvailable }
func cuMemcpyHtoDAsync(uint64, unsafe.Pointer, int64, uintptr) int              { return notAvailable }
func cuMemcpyDtoHAsync(unsafe.Pointer, uint64, int64, uintptr) int              { return notAvailable }
func cuMemsetD8(uint64, uint8, int64) int                                       { return notAvailable }
func cuMemsetD32(uint64, uint32, int64) int                                     { return notAvailable }
func cuMemInfo() (int64, int64, int)                                            { return 0, 0, notAvailable }
func cuHostRegister(unsafe.Pointer, int64) int                                  { return notAvailable }
func cuHostUnregister(unsafe.Pointer) int                                       { return notAvailable }
func cuStreamCreate() (uintptr, int)                                            { return 0, notAvailable }
func cuStreamSync(uintptr) int                                                  { return notAvailable }
func cuStreamDestroy(uintptr) int                                               { return notAvailable }
func cuEventCreate() (uintptr, int)                                             { return 0, notAvailable }
func cuEventRecord(uintptr, uintptr) int                                        { return notAvailable }
func cuEventSync(uintptr) int                                                   { return notAvailable }
func cuEventQuery(uintptr) int                                                  { return notAvailable }
func cuEventElapsed(uintptr, uintptr) (float32, int)                            { return 0, notAvailable }
func cuEventDestroy(uintptr) int                                                { return notAvailable }
func cuModuleLoad([]byte) (uintptr, int)                                        { return 0, notAvailable }
func cuModuleLoadEx([]byte) (uintptr, string, int)                              { return 0, "", notAvailable }
func cuModuleFunction(uintptr, string) (uintptr, int)                           { return 0, notAvailable }
func cuModuleUnload(uintptr) int                                                { return notAvailable }
func cuLaunch(uintptr, [3]uint32, [3]uint32, uint32, uintptr, *uint64, int) int { return notAvailable }
func cuFuncAttr(int, uintptr) (int, int)                                        { return 0, notAvailable }
func cuFuncSetAttr(uintptr, int, int) int                                       { return notAvailable }
func cuOccupancy(uintptr, int, int) (int, int)                                  { return 0, notAvailable }

type linkInput struct {
	kind int
	name string
	data []byte
	path string
}

const (
	jitInputCUBIN   = 0
	jitInputPTX     = 1
	jitInputLibrary = 4
)

func cuLinkImage([]linkInput) ([]byte, string, string, int) {
	return nil, "cuLinkCreate_v2", "", notAvailable
}

func rtcVersion() (int, int, int) { return 0, 0, notAvailable }
func rtcErrString(int) string     { return "" }

func rtcCompile(string, string, []string, bool) ([]byte, []byte, string, string, int) {
	return nil, nil, "", "nvrtcCreateProgram", notAvailable
}

func hostAlloc(int64) unsafe.Pointer { return nil }
func hostFree(unsafe.Pointer)        {}
