//go:build !unix

package notebook

import "errors"

func mkfifo(string) error { return errors.New("no named pipes") }
