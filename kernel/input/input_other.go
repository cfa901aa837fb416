//go:build !linux

package input

import "context"

// Stdin is the process's standard input while it is served (Linux only).
type Stdin struct{}

// Start returns ErrUnsupported on this platform.
func Start() (*Stdin, error) { return nil, ErrUnsupported }

// Stop returns nil.
func (s *Stdin) Stop() error { return nil }

// Serve returns when ctx ends.
func (s *Stdin) Serve(ctx context.Context, ask func(context.Context) (string, error)) { <-ctx.Done() }
