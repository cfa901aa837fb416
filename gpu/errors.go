package gpu

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Sentinel errors; test for them with errors.Is.
var (
	// ErrNoDriver: the CUDA driver library (libcuda.so.1) could not be
	// loaded, lacks a symbol this package needs, or is a stub.
	ErrNoDriver = errors.New("gpu: no usable CUDA driver")
	// ErrNoDevice: the driver loaded but reports no CUDA device
	// (CUDA_ERROR_NO_DEVICE), or the device asked for does not exist.
	ErrNoDevice = errors.New("gpu: no CUDA device")
	// ErrNoNVRTC: the NVRTC runtime compiler could not be loaded, so no
	// kernel can be compiled (cached images still need it for their key).
	ErrNoNVRTC = errors.New("gpu: NVRTC (the CUDA runtime compiler) not found")
	// ErrOutOfMemory: an allocation did not fit in device memory
	// (CUDA_ERROR_OUT_OF_MEMORY), or on the host device in the memory
	// available. It is not sticky: the device stays usable.
	ErrOutOfMemory = errors.New("gpu: out of device memory")
	// ErrFault: a kernel faulted (illegal address, launch failure, device
	// assert, …). Such an error poisons the CUDA context, so the package
	// resets the device: buffers allocated before return ErrInvalidated.
	ErrFault = errors.New("gpu: kernel fault")
	// ErrInvalidated: the device buffer, stream or event was lost when the
	// GPU was reset (after a fault, or by Device.Reset).
	ErrInvalidated = errors.New("this device buffer was lost when the GPU was reset after a fault; allocate it again")
	// ErrHost: a CUDA-only operation was asked of the host device.
	ErrHost = errors.New("gpu: the operation needs a CUDA device")
)

// Error is a failed CUDA driver or NVRTC call. It renders as
//
//	gpu: cuMemAlloc_v2(8.0 GiB): CUDA_ERROR_OUT_OF_MEMORY (2): out of memory; <Detail>
//
// Name and Message come from cuGetErrorName / cuGetErrorString (or
// nvrtcGetErrorString) when the library is loaded, else from a built-in
// table. errors.Is matches ErrOutOfMemory (code 2), ErrFault (the sticky
// codes 214, 700, 702, 710, 714–719), ErrNoDevice (100) and ErrNoDriver
// (34, the stub library).
type Error struct {
	// Op is the call, with its main argument where it helps:
	// "cuMemAlloc_v2(8.0 GiB)", "cuLaunchKernel(vadd)".
	Op string
	// Code is the CUresult (or nvrtcResult when NVRTC is set).
	Code int
	// Name is the symbolic name ("CUDA_ERROR_ILLEGAL_ADDRESS") and Message
	// the driver's explanation.
	Name, Message string
	// Kernel names the kernel that was running when a fault surfaced (the
	// last one launched on the device); empty otherwise.
	Kernel string
	// Detail is what the package adds: free memory and a hint after an
	// out-of-memory error, what was reset after a fault, a JIT log.
	Detail string
	// NVRTC marks an NVRTC result code (a different code space).
	NVRTC bool
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("gpu: ")
	b.WriteString(e.Op)
	if e.Kernel != "" {
		fmt.Fprintf(&b, " after kernel %q", e.Kernel)
	}
	fmt.Fprintf(&b, ": %s (%d)", e.Name, e.Code)
	if e.Message != "" && e.Message != e.Name {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Detail != "" {
		b.WriteString("; ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// Is reports the sentinel errors this code stands for.
func (e *Error) Is(target error) bool {
	if e.NVRTC {
		return false
	}
	switch target {
	case ErrOutOfMemory:
		return e.Code == codeOutOfMemory
	case ErrFault:
		return isSticky(e.Code)
	case ErrNoDevice:
		return e.Code == codeNoDevice || e.Code == codeInvalidDevice
	case ErrNoDriver:
		return e.Code == codeStubLibrary || e.Code == codeNotInitialized
	}
	return false
}

// CUresult values the package acts on.
const (
	codeSuccess        = 0
	codeInvalidValue   = 1
	codeOutOfMemory    = 2
	codeNotInitialized = 3
	codeStubLibrary    = 34
	codeNoDevice       = 100
	codeInvalidDevice  = 101
	codeNotFound       = 500
)

// isSticky reports the CUresults after which the context is unusable
// until it is reset ("sticky" errors): uncorrectable ECC, illegal address,
// launch timeout, device-side assert, hardware stack error, illegal
// instruction, misaligned address, invalid address space, invalid PC,
// launch failed.
func isSticky(code int) bool {
	switch code {
	case 214, 700, 702, 710, 714, 715, 716, 717, 718, 719:
		return true
	}
	return false
}

// builtinCU is the CUresult table used when the driver cannot name a code
// (it is not loaded, or cuGetErrorName fails).
var builtinCU = map[int][2]string{
	0:   {"CUDA_SUCCESS", "no error"},
	1:   {"CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	2:   {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	3:   {"CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
	4:   {"CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
	34:  {"CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
	46:  {"CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"},
	100: {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
	101: {"CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	200: {"CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
	201: {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
	209: {"CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
	214: {"CUDA_ERROR_ECC_UNCORRECTABLE", "uncorrectable ECC error encountered"},
	218: {"CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
	222: {"CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain"},
	300: {"CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
	301: {"CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
	400: {"CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	500: {"CUDA_ERROR_NOT_FOUND", "named symbol not found"},
	600: {"CUDA_ERROR_NOT_READY", "device not ready"},
	700: {"CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
	701: {"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
	702: {"CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
	710: {"CUDA_ERROR_ASSERT", "device-side assert triggered"},
	712: {"CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "part or all of the requested memory range is already mapped"},
	714: {"CUDA_ERROR_HARDWARE_STACK_ERROR", "an illegal memory access was encountered"},
	715: {"CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered"},
	716: {"CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
	717: {"CUDA_ERROR_INVALID_ADDRESS_SPACE", "operation not supported on global/shared address space"},
	718: {"CUDA_ERROR_INVALID_PC", "invalid program counter"},
	719: {"CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
	999: {"CUDA_ERROR_UNKNOWN", "unknown error"},
}

// builtinNVRTC names the stable nvrtcResult codes 0–11.
var builtinNVRTC = map[int]string{
	0:  "NVRTC_SUCCESS",
	1:  "NVRTC_ERROR_OUT_OF_MEMORY",
	2:  "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
	3:  "NVRTC_ERROR_INVALID_INPUT",
	4:  "NVRTC_ERROR_INVALID_PROGRAM",
	5:  "NVRTC_ERROR_INVALID_OPTION",
	6:  "NVRTC_ERROR_COMPILATION",
	7:  "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
	8:  "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
	9:  "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
	10: "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
	11: "NVRTC_ERROR_INTERNAL_ERROR",
}

// builtinCUName returns the table's name and message for a CUresult.
func builtinCUName(code int) (name, msg string) {
	if e, ok := builtinCU[code]; ok {
		return e[0], e[1]
	}
	return "CUDA_ERROR_" + strconv.Itoa(code), "unrecognised CUDA error code"
}

// cuError builds the *Error of a failed driver call, naming the code with
// the driver's own strings when it is loaded.
func cuError(op string, code int) *Error {
	name, msg := builtinCUName(code)
	if drvLoadedOK() {
		if s, ok := cuErrName(code); ok {
			name = s
		}
		if s, ok := cuErrString(code); ok {
			msg = s
		}
	}
	return &Error{Op: op, Code: code, Name: name, Message: msg}
}

// rtcError builds the *Error of a failed NVRTC call.
func rtcError(op string, code int) *Error {
	name, ok := builtinNVRTC[code]
	if !ok {
		name = "NVRTC_ERROR_" + strconv.Itoa(code)
	}
	msg := ""
	if s := rtcErrString(code); s != "" {
		if strings.HasPrefix(s, "NVRTC_") {
			name = s
		} else {
			msg = s
		}
	}
	return &Error{Op: op, Code: code, Name: name, Message: msg, NVRTC: true}
}

// loadError is a library that could not be loaded or lacks a symbol.
type loadError struct {
	what     string // "libcuda.so.1" or a path
	symbol   string // the first missing symbol, or ""
	reason   string // dlerror text or similar
	sentinel error  // ErrNoDriver or ErrNoNVRTC
	hint     string
	msg      string // replaces the whole message when set
}

func (e *loadError) Error() string {
	if e.msg != "" {
		return "gpu: " + e.msg
	}
	var s string
	if e.symbol != "" {
		s = fmt.Sprintf("gpu: %s lacks the symbol %s", e.what, e.symbol)
		if e.reason != "" {
			s += " (" + e.reason + ")"
		}
	} else {
		s = fmt.Sprintf("gpu: %s not found: %s", e.what, e.reason)
	}
	if e.hint != "" {
		s += "; " + e.hint
	}
	return s
}

func (e *loadError) Is(target error) bool { return target == e.sentinel }

// trimDlerror drops the path dlerror repeats at the start of its message.
func trimDlerror(path, msg string) string {
	return strings.TrimPrefix(msg, path+": ")
}

// hostError is a CUDA-only operation asked of the host device.
type hostError struct{ op, instead string }

func (e *hostError) Error() string {
	s := "gpu: " + e.op + " needs a CUDA device, and this is the host device (the CPU)"
	if e.instead != "" {
		s += ": " + e.instead
	}
	return s
}

func (e *hostError) Is(target error) bool { return target == ErrHost }

func errHost(op, instead string) error { return &hostError{op, instead} }

// CompileError is an NVRTC compilation that failed. Log is NVRTC's log,
// whose diagnostics name the source and line: "vadd(3): error: …".
type CompileError struct {
	// Source is the program name given to Compile.
	Source string
	// Arch is the target ("sm_90"); Options the NVRTC options used.
	Arch    string
	Options []string
	// Log is the full compile log.
	Log string
	// Err is the NVRTC result (NVRTC_ERROR_COMPILATION, or an invalid
	// option).
	Err *Error
}

// maxLogLines is how many log lines Error shows.
const maxLogLines = 12

func (e *CompileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gpu: compiling %q for %s failed", e.Source, e.Arch)
	if e.Err != nil {
		fmt.Fprintf(&b, " (%s)", e.Err.Name)
	}
	lines := strings.Split(strings.TrimRight(e.Log, "\n"), "\n")
	if strings.TrimSpace(e.Log) == "" {
		lines = nil
	}
	if len(lines) == 0 {
		b.WriteString(" with an empty log")
		if e.Err != nil && e.Err.Message != "" {
			b.WriteString(": " + e.Err.Message)
		}
		return b.String()
	}
	b.WriteString(":")
	for i, l := range lines {
		if i == maxLogLines {
			fmt.Fprintf(&b, "\n… %d more lines (see CompileError.Log)", len(lines)-maxLogLines)
			break
		}
		b.WriteString("\n")
		b.WriteString(l)
	}
	return b.String()
}

// Unwrap returns the NVRTC result.
func (e *CompileError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}

// Diagnostic is one message of a compile log.
type Diagnostic struct {
	// Line is the 1-based source line (0 when the message names none).
	Line int
	// Severity is "error", "warning", "catastrophic error" or "remark".
	Severity string
	// Message is the text after the severity.
	Message string
}

var diagRE = regexp.MustCompile(`^(?:.*)\((\d+)\): (catastrophic error|error|warning|remark)[^:]*: (.*)$`)

// Diagnostics parses the log into its messages with their line numbers
// (the %%cuda magic maps them onto the cell).
func (e *CompileError) Diagnostics() []Diagnostic { return parseDiagnostics(e.Log) }

func parseDiagnostics(log string) []Diagnostic {
	var out []Diagnostic
	for _, l := range strings.Split(log, "\n") {
		m := diagRE.FindStringSubmatch(strings.TrimRight(l, "\r"))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		out = append(out, Diagnostic{Line: n, Severity: m[2], Message: m[3]})
	}
	return out
}
