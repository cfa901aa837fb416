//go:build unix

package session

import (
	"os"
	"syscall"
)

// dupFile returns a new *os.File called name for a duplicate of f's
// descriptor, closed on exec.
func dupFile(f *os.File, name string) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var dupErr error
	err = rc.Control(func(fd uintptr) {
		syscall.ForkLock.RLock()
		defer syscall.ForkLock.RUnlock()
		nfd, dupErr = syscall.Dup(int(fd))
		if dupErr == nil {
			syscall.CloseOnExec(nfd)
		}
	})
	if err == nil {
		err = dupErr
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(nfd), name), nil
}
