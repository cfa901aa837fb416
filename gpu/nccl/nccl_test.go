package nccl

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLoadErrors(t *testing.T) {
	_, err := open("", []string{"/nowhere/libnccl.so.2", "/nowhere/else/libnccl.so.2"})
	if !errors.Is(err, ErrNoNCCL) {
		t.Fatalf("open of nothing: %v does not wrap ErrNoNCCL", err)
	}
	msg := err.Error()
	want := []string{"/nowhere/libnccl.so.2", "/nowhere/else/libnccl.so.2", "site-packages/nvidia/nccl/lib/libnccl.so.2",
		"pip install nvidia-nccl-cu13", "GRAPHNB_NCCL"}
	if !cgoBuilt {
		want = []string{"without cgo", "CGO_ENABLED=1"}
	}
	for _, s := range want {
		if !strings.Contains(msg, s) {
			t.Errorf("the error lacks %q:\n%s", s, msg)
		}
	}
	_, err = open("/nowhere/mine.so", []string{"libnccl.so.2"})
	if !errors.Is(err, ErrNoNCCL) || !strings.Contains(err.Error(), "GRAPHNB_NCCL=/nowhere/mine.so") {
		t.Errorf("open of a bad GRAPHNB_NCCL: %v", err)
	}
	c := candidates()
	if c[0] != "libnccl.so.2" {
		t.Errorf("candidates start with %q, want the loader's libnccl.so.2", c[0])
	}
	pats := strings.Join(wheelPatterns(), " ")
	for _, s := range []string{"/usr/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2", "/opt/*/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
		"/usr/local/lib/python3*/site-packages/", ".local/lib/python3*/site-packages/"} {
		if !strings.Contains(pats, s) {
			t.Errorf("the wheel patterns lack %s: %s", s, pats)
		}
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Call: "ncclAllReduce", Rank: 1, Result: resRemoteError, Name: "ncclRemoteError", Msg: "remote process exited", Hint: hint(resRemoteError)}
	if got, want := e.Error(), "nccl: ncclAllReduce on rank 1: ncclRemoteError (6): remote process exited; another rank failed or left; close the group and make a new one"; got != want {
		t.Errorf("Error()\n%q, want\n%q", got, want)
	}
	e = &Error{Call: "ncclGetUniqueId", Rank: -1, Result: 42, Name: resultName(42)}
	if got, want := e.Error(), "nccl: ncclGetUniqueId: ncclResult_42 (42)"; got != want {
		t.Errorf("Error() %q, want %q", got, want)
	}
	for r := 1; r <= 6; r++ {
		if hint(r) == "" {
			t.Errorf("no hint for %s", resultName(r))
		}
	}
}

func TestVersionAndIDs(t *testing.T) {
	for v, want := range map[int][3]int{22803: {2, 28, 3}, 21903: {2, 19, 3}, 2804: {2, 8, 4}} {
		if a, b, c := decodeVersion(v); [3]int{a, b, c} != want {
			t.Errorf("decodeVersion(%d) = %d.%d.%d, want %v", v, a, b, c, want)
		}
	}
	var id UniqueID
	id[0], id[127] = 0xab, 0x01
	back, err := ParseUniqueID(id.String())
	if err != nil || back != id {
		t.Errorf("ParseUniqueID(String()) = %v, %v", back, err)
	}
	for _, s := range []string{"", "xyz", strings.Repeat("0", 254)} {
		if _, err := ParseUniqueID(s); err == nil || !strings.Contains(err.Error(), "256 hexadecimal digits") {
			t.Errorf("ParseUniqueID(%q): %v", s, err)
		}
	}
	if Timeout(3*time.Second) != 3*time.Second || Timeout(0) <= 0 {
		t.Errorf("Timeout(3s) = %v, Timeout(0) = %v", Timeout(3*time.Second), Timeout(0))
	}
	for _, d := range []DataType{Int8, Uint8, Int32, Uint32, Int64, Uint64, Float32, Float64} {
		if d.Size() == 0 {
			t.Errorf("DataType %d has no size", d)
		}
	}
}
