package input

import (
	"errors"
	"time"
)

// Errors returned by Start.
var (
	ErrUnsupported = errors.New("input: not supported on this platform")
	ErrActive      = errors.New("input: standard input is already served in this process")
)

// The watch interval: Serve looks for a waiting reader MinInterval after
// it starts or answers one, then backs off to MaxInterval, so a read is
// noticed within MaxInterval of blocking.
const (
	MinInterval = 2 * time.Millisecond
	MaxInterval = 50 * time.Millisecond
)
