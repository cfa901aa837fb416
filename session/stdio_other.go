//go:build !unix

package session

import (
	"errors"
	"os"
)

// dupFile is not available here: the cells share the session's files.
func dupFile(f *os.File, name string) (*os.File, error) {
	return nil, errors.New("session: no dup on this platform")
}
