// Package capture captures the process's standard output and standard
// error at the file-descriptor level, so that everything written to fds 1
// and 2 reaches the kernel: interpreted code, compiled Go (fmt.Println,
// os.Stdout.Write, syscall.Write(1, …)), C code and child processes that
// inherit the descriptors.
//
// Start duplicates the original fds 1 and 2 (Stdout and Stderr return
// them, for the kernel's own logs), creates two pipes and dup2s their
// write ends onto fds 1 and 2; os.Stdout and os.Stderr keep pointing at
// fds 1 and 2 and so write into the pipes. One goroutine reads both pipes,
// in the order they became readable (see Func for what that keeps of the
// order between stdout and stderr), and hands the bytes to a callback. Sync is a barrier: whatever was
// written to fds 1 and 2 before Sync was called has been delivered when
// it returns (a unique marker is written through each descriptor and the
// readers wait for it, stripping it from the data). Stop restores the
// original descriptors.
//
// Only Linux is supported; elsewhere Start returns ErrUnsupported.
package capture
