package devcsr

import (
	"strings"
	"testing"

	"github.com/graphnb/graphnb/internal/cudasrc"
)

func TestPrepend(t *testing.T) {
	body := "extern \"C\" __global__ void k(const i64 *off, i64 n, int *out) { out[0] = csr_advance(off, n, csr_tail(off, n, 0), 1); }\n"
	src := Prepend(body)
	if !strings.HasPrefix(src, helpers) || !strings.HasSuffix(src, body) {
		t.Fatal("Prepend is not the helpers followed by the body")
	}
	cudasrc.Check(t, "csr.cuh", src, 1, []string{"k"})
}
