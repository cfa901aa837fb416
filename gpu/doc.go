// Package gpu is graphnb's CUDA layer: devices, memory, kernels compiled
// at run time, timing, and the host device that stands in when there is
// no GPU.
//
// # How it reaches the GPU
//
// No CUDA toolkit exists where graphnb is built. The package declares the
// few CUDA driver and NVRTC types and functions it uses by hand, dlopens
// libcuda.so.1 and NVRTC at run time and calls them through small C
// trampolines (cgo cannot call C function pointers). Every symbol is named
// exactly as the driver exports it (cuMemAlloc_v2, cuMemcpyHtoD_v2,
// cuEventElapsedTime_v2 with a fallback to cuEventElapsedTime, …); a
// missing library or symbol is an error that names it. Kernels are CUDA C
// strings (embed .cu files with //go:embed) compiled by NVRTC for the
// device's own architecture (sm_XY from its compute capability) to CUBIN,
// or PTX with an NVRTC older than 11.1, and cached on disk: a second run
// compiles nothing. Kernel sources declare their kernels
// extern "C" __global__ and include no headers.
//
// # Devices
//
// Default returns the first CUDA device that opens, else Host;
// DefaultReason says which and why. The host device is a first-class
// *Device: its buffers are Go slices and algorithms run their Go code on
// it, so a notebook runs unchanged without a GPU; CUDA-only operations
// (Compile, streams, events, Exec) return ErrHost there. Info and Status
// describe devices; Device, Info, Graph and Module render as HTML cards.
//
// # Threading
//
// A CUDA context is current per OS thread, so each device has one
// goroutine locked to its OS thread that holds the device's primary
// context; every driver call that needs the context runs there (only the
// context-free queries of device discovery run on the caller). Methods of
// Device, the buffers, Function and Module hand their work to that
// goroutine and wait; both sides spin for a few tens of microseconds
// before sleeping, so a loop of such calls costs about a microsecond per
// hop rather than two thread wake-ups. Exec runs a function there: put a
// whole launch loop in one Exec and use the *Thread's methods, which call
// the driver with no hop. Calls made on the device goroutine (from inside
// Exec) run inline, so nesting cannot deadlock; a function given to Exec
// must not wait for another goroutine that uses the same device. Launches
// poll cancel.Check, so a notebook interrupt stops a launch loop between
// launches. NVRTC compiles on the calling goroutine. Info and Status open
// (create the context of) the devices they describe.
//
// # Memory
//
// The typed buffers (Int32s, Uint32s, Int64s, Uint64s, Float32s,
// Float64s, Uint8s) are allocated zeroed, copied with Upload, Download
// and ToHost, set with Fill, and freed by Free or when collected. Device
// memory is accounted per device (MemoryUsed). An allocation that does
// not fit returns an error wrapping ErrOutOfMemory that gives the size
// asked, the free and total memory and a hint; the context stays usable.
// On the host device, whose buffers are Go slices, an allocation larger
// than the memory the process can still get (the free memory, the cgroup
// limit, GRAPHNB_MEMORY) is refused the same way instead of crashing the
// process with Go's fatal out-of-memory error.
// Copies of 1 MiB and more are pipelined through two pinned staging
// buffers (on an H100: 33.5 GB/s host→device and 30.2 GB/s device→host for
// 1 GiB, against 7.9 and 10.7 GB/s for cudaMemcpy from pageable memory);
// GRAPHNB_COPY selects another strategy. Graphs and COO
// edge lists can stay resident on a device across cells (Upload,
// UploadCOO).
//
// # Faults
//
// A kernel that faults (illegal address, launch failure, device-side
// assert: the "sticky" errors that poison a CUDA context) surfaces at the
// next synchronising call as an *Error wrapping ErrFault that names the
// last kernel launched. The package then resets the device's primary
// context. Where the driver allows it, buffers, streams and events made
// before return ErrInvalidated, modules reload themselves and the next
// cell uses the GPU again. The drivers seen so far (580, CUDA 13) do not
// allow it: after an illegal address they refuse the process every context,
// primary or created (ops/gpuref/faultprobe.c shows it), as NVIDIA
// documents. The device then reports itself unusable (Err), every call on
// it fails at once with an error that says to restart the kernel, and the
// process, its variables, its host data and the host device carry on.
// Reset asks for a reset explicitly.
//
// # Environment
//
//	GRAPHNB_LIBCUDA    path of the driver library (default libcuda.so.1)
//	GRAPHNB_NVRTC      path of NVRTC (default: libnvrtc.so.13, .12, .11.2,
//	                   libnvrtc.so, then $CUDA_HOME/lib64, /usr/local/cuda/lib64
//	                   and pip's nvidia/cu13/lib, nvidia/cuda_nvrtc/lib)
//	GRAPHNB_CUDADEVRT  path of libcudadevrt.a for DynamicParallelism (default:
//	                   $CUDA_HOME/lib64, /usr/local/cuda/lib64, next to NVRTC)
//	CUDA_HOME          the CUDA toolkit's folder, searched as above
//	GRAPHNB_DEVICE     "host" (or "cpu") forces the host; N picks device N
//	GRAPHNB_CACHE      folder of the compile cache (default
//	                   $XDG_CACHE_HOME/graphnb, else ~/.cache/graphnb)
//	XDG_CACHE_HOME     see GRAPHNB_CACHE
//	GRAPHNB_COPY       large host↔device copies: "staged" (default: pipelined
//	                   through two pinned 32 MiB buffers), "register" (pin the
//	                   Go slice for the copy) or "pageable"
//	GRAPHNB_PIN_MIN    copies smaller than this many bytes are pageable
//	                   (default 1048576)
//
// Built with CGO_ENABLED=0 the package keeps its API, every CUDA path
// returns an error saying graphnb was built without cgo, and Default is
// the host.
package gpu

//go:generate go run gen_buffers.go
