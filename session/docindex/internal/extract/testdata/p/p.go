// Package p is a fixture for extract's tests.
//
// It has a second paragraph.
package p

import "io"

// Small is a short const group.
const (
	A = 1 // a
	B = 2 // b
)

// Mode values, a long iota group.
const (
	M0 Mode = iota
	M1
	M2
	M3
	M4
	M5
	M6
	M7
	M8
	M9
	M10
	M11
	M12
)

// Mode is a mode.
type Mode int

// String names the mode.
func (m Mode) String() string { return "mode" }

// V is a variable.
var V = 3

// Big has many fields.
type Big struct {
	F0     int // field 0
	F1     int // field 1
	F2     int // field 2
	F3     int // field 3
	F4     int // field 4
	F5     int // field 5
	F6     int // field 6
	F7     int // field 7
	F8     int // field 8
	F9     int // field 9
	F10    int // field 10
	F11    int // field 11
	F12    int // field 12
	F13    int // field 13
	F14    int // field 14
	F15    int // field 15
	F16    int // field 16
	F17    int // field 17
	F18    int // field 18
	F19    int // field 19
	F20    int // field 20
	F21    int // field 21
	F22    int // field 22
	F23    int // field 23
	F24    int // field 24
	F25    int // field 25
	F26    int // field 26
	F27    int // field 27
	F28    int // field 28
	F29    int // field 29
	F30    int // field 30
	F31    int // field 31
	F32    int // field 32
	F33    int // field 33
	F34    int // field 34
	F35    int // field 35
	F36    int // field 36
	F37    int // field 37
	F38    int // field 38
	F39    int // field 39
	F40    int // field 40
	F41    int // field 41
	F42    int // field 42
	F43    int // field 43
	F44    int // field 44
	F45    int // field 45
	F46    int // field 46
	F47    int // field 47
	F48    int // field 48
	F49    int // field 49
	F50    int // field 50
	F51    int // field 51
	F52    int // field 52
	F53    int // field 53
	F54    int // field 54
	F55    int // field 55
	F56    int // field 56
	F57    int // field 57
	F58    int // field 58
	F59    int // field 59
	hidden int
}

// Embeds embeds.
type Embeds struct {
	io.Reader
	*Mode
	// Named is documented.
	Named string
	x     int
}

// Iface is an interface.
type Iface interface {
	// Do does.
	Do(x int) error
	io.Closer
	hidden()
}

// NewEmbeds makes one.
func NewEmbeds() *Embeds {
	return &Embeds{}
}

// Map is generic.
func Map[T, U any](xs []T, f func(T) U) []U {
	return nil
}

// LongDoc has a long doc.
// line 0
// line 1
// line 2
// line 3
// line 4
// line 5
// line 6
// line 7
// line 8
// line 9
// line 10
// line 11
// line 12
// line 13
// line 14
// line 15
// line 16
// line 17
// line 18
// line 19
// line 20
// line 21
// line 22
// line 23
// line 24
// line 25
// line 26
// line 27
// line 28
// line 29
// line 30
// line 31
// line 32
// line 33
// line 34
// line 35
// line 36
// line 37
// line 38
// line 39
// line 40
// line 41
// line 42
// line 43
// line 44
// line 45
// line 46
// line 47
// line 48
// line 49
// line 50
// line 51
// line 52
// line 53
// line 54
// line 55
// line 56
// line 57
// line 58
// line 59
// line 60
// line 61
// line 62
// line 63
// line 64
// line 65
// line 66
// line 67
// line 68
// line 69
// line 70
// line 71
// line 72
// line 73
// line 74
// line 75
// line 76
// line 77
// line 78
// line 79
func LongDoc() {}

func unexported() {}
