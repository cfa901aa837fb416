//go:build !linux

package capture

import "os"

// Capture is an active capture of fds 1 and 2 (Linux only).
type Capture struct{}

// Start returns ErrUnsupported on this platform.
func Start(fn Func) (*Capture, error) { return nil, ErrUnsupported }

// Stdout returns os.Stdout.
func (c *Capture) Stdout() *os.File { return os.Stdout }

// Stderr returns os.Stderr.
func (c *Capture) Stderr() *os.File { return os.Stderr }

// Sync returns ErrUnsupported.
func (c *Capture) Sync() error { return ErrUnsupported }

// Stop returns nil.
func (c *Capture) Stop() error { return nil }
