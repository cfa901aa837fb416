package capture

import "testing"

func TestIncompleteTail(t *testing.T) {
	for in, want := range map[string]int{
		"": 0, "abc": 0, "é": 0, "\xc3": 1, "a\xe2\x82": 2, "\xf0\x9f\x98": 3, "\xf0\x9f\x98\x80": 0, "\x80\x80": 0,
	} {
		if got := IncompleteTail([]byte(in)); got != want {
			t.Errorf("IncompleteTail(%q) = %d, want %d", in, got, want)
		}
	}
}
