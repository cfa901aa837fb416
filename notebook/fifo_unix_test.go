//go:build unix

package notebook

import "syscall"

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
