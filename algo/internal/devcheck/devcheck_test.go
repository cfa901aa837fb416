package devcheck

import (
	"strings"
	"testing"

	"github.com/graphnb/graphnb/algo/internal/devcsr"
	"github.com/graphnb/graphnb/internal/cudasrc"
)

func TestSource(t *testing.T) {
	body := "extern \"C\" __global__ void k(u64 *ctl) { ck_fail(ctl, 1, 2); }\n"
	src := Source(body)
	if want := devcsr.Prepend(helpers + "\n" + body); src != want || !strings.HasSuffix(src, body) {
		t.Fatal("Source is not csr.cuh, the helpers, then the body")
	}
	cudasrc.Check(t, "check.cuh", src, 1, []string{"k"})
	cudasrc.CheckDefines(t, "check.cuh", helpers, map[string]int64{"CK_ERR": ErrWord, "CK_BLOCK": 256})
}

func TestKey(t *testing.T) {
	key := uint64(5)<<48 | 123456789
	if Rule(key) != 5 || Index(key) != 123456789 {
		t.Errorf("Rule, Index of %#x = %d, %d, want 5, 123456789", key, Rule(key), Index(key))
	}
	ctl := Initial(4)
	if len(ctl) != 4 || ctl[ErrWord] != None || ctl[1] != 0 || ctl[2] != 0 || ctl[3] != 0 {
		t.Errorf("Initial(4) = %#x", ctl)
	}
}

func TestChecker(t *testing.T) {
	if Checker(true) != "cpu" || Checker(false) != "device" {
		t.Errorf("Checker(true), Checker(false) = %q, %q", Checker(true), Checker(false))
	}
}
