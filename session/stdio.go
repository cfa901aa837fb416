package session

import (
	"os"
)

// The cells' os.Stdout and os.Stderr.
//
// The interpreted os.Stdout and os.Stderr are files of their own: a
// duplicate of the session's output descriptor, which writes to the same
// place in the same order. A cell that closes one (os.Stdout.Close(), or
// a library that closes the io.WriteCloser it was handed) closes its copy
// only, not the descriptor the kernel captures, and every later cell gets
// a fresh copy: output is not lost for the rest of the session (issue 13,
// case 8). Within the cell, writes to the closed file fail as in Go; fmt's
// printing functions write to the session's output and keep working.
//
// A cell may also set os.Stdout to a file of its own: it stays while it is
// open. The copy is renewed too when the session's descriptor has come to
// point elsewhere (the kernel starts capturing after the session is made).

// cellStream is one of the cells' standard files.
type cellStream struct {
	name   string    // Go's name for it: /dev/stdout, /dev/stderr
	target *os.File  // the session's file
	v      **os.File // the interpreted variable
	dup    *os.File  // the copy the session made, if any
}

// refresh gives the interpreted variable a usable copy of the target
// unless it holds one, or an open file the cells put there. It is called
// before each cell, under the session's lock.
func (c *cellStream) refresh() {
	cur := *c.v
	if cur != nil && cur != c.target && cur != c.dup {
		if _, err := cur.Stat(); err == nil {
			return // the cells' own file, still open
		}
	}
	if cur == c.dup && c.dup != nil && sameFile(c.dup, c.target) {
		return
	}
	d, err := dupFile(c.target, c.name)
	if err != nil {
		*c.v = c.target // no copy: cells share the session's file
		return
	}
	if c.dup != nil {
		c.dup.Close() // closed by a cell, or a copy of what the target was
	}
	c.dup = d
	*c.v = d
}

// sameFile reports whether two open files are the same file (for the
// descriptor of a pipe: the same pipe).
func sameFile(a, b *os.File) bool {
	fa, err := a.Stat()
	if err != nil {
		return false
	}
	fb, err := b.Stat()
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}
