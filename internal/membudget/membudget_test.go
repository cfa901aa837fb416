package membudget

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckRefusesAboveTheCap(t *testing.T) {
	t.Setenv(EnvVar, "64MiB")
	if err := Check("a small thing", 32<<20); err != nil {
		t.Fatalf("32 MiB under a 64 MiB cap: %v", err)
	}
	err := Check("R-MAT scale 27", 100<<30)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("100 GiB under a 64 MiB cap: %v, want an *Error wrapping ErrTooLarge", err)
	}
	if e.Need != 100<<30 || e.Available > 64<<20 {
		t.Errorf("Need %d, Available %d; want 100 GiB and at most 64 MiB", e.Need, e.Available)
	}
	for _, want := range []string{"R-MAT scale 27", "100.0 GiB", "64.0 MiB", EnvVar, "smaller"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if err := Check("overflowed", -1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a negative (overflowed) size: %v, want a refusal", err)
	}
	if err := Check("tiny", 1000); err != nil {
		t.Errorf("1000 bytes: %v", err)
	}
}

func TestBytesSaturates(t *testing.T) {
	if got := Bytes(10, 4, 3, 8); got != 64 {
		t.Errorf("Bytes(10,4,3,8) = %d, want 64", got)
	}
	if got := Bytes(1<<40, 1<<40); got != math.MaxInt64 {
		t.Errorf("Bytes(2^40, 2^40) = %d, want MaxInt64", got)
	}
	if got := Bytes(-5, 8); got != 0 {
		t.Errorf("Bytes(-5, 8) = %d, want 0", got)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"1000": 1000, "4GiB": 4 << 30, "4G": 4 << 30, "4gb": 4 << 30, " 512 MiB ": 512 << 20, "2K": 2048, "1TiB": 1 << 40, "10B": 10,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1", "4XB", "99999999999T"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) succeeded", in)
		}
	}
}

func TestMemAvailable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "meminfo")
	write(t, p, "MemTotal:       24684096 kB\nMemFree:         1000 kB\nMemAvailable:   24040856 kB\n")
	got, err := memAvailable(p)
	if err != nil || got != 24040856*1024 {
		t.Fatalf("memAvailable = %d, %v", got, err)
	}
	write(t, p, "MemTotal: 1 kB\n")
	if _, err := memAvailable(p); err == nil {
		t.Error("a meminfo without MemAvailable was accepted")
	}
}

func TestCgroupV2(t *testing.T) {
	root := t.TempDir()
	proc := filepath.Join(root, "cgroup")
	write(t, proc, "0::/user.slice/kernel\n")
	fs := filepath.Join(root, "fs")
	// The process's cgroup: no limit; its parent: 8 GiB, 5 GiB used of
	// which 1 GiB inactive page cache, so 4 GiB left.
	write(t, filepath.Join(fs, "user.slice/kernel/memory.max"), "max\n")
	write(t, filepath.Join(fs, "user.slice/kernel/memory.current"), "1000\n")
	write(t, filepath.Join(fs, "user.slice/memory.max"), "8589934592\n")
	write(t, filepath.Join(fs, "user.slice/memory.current"), "5368709120\n")
	write(t, filepath.Join(fs, "user.slice/memory.stat"), "anon 1\ninactive_file 1073741824\nactive_file 5\n")
	got := cgroupLimits(proc, fs)
	if len(got) != 1 || got[0].name != "/user.slice" || got[0].free != 4<<30 {
		t.Fatalf("cgroupLimits = %+v, want /user.slice with 4 GiB free", got)
	}
}

func TestCgroupV1InContainer(t *testing.T) {
	root := t.TempDir()
	proc := filepath.Join(root, "cgroup")
	// The path names the host's hierarchy, but the container mounts its
	// own cgroup as the root: the files are at the mount's root.
	write(t, proc, "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n")
	fs := filepath.Join(root, "fs")
	write(t, filepath.Join(fs, "memory/memory.limit_in_bytes"), "2147483648\n")
	write(t, filepath.Join(fs, "memory/memory.usage_in_bytes"), "1073741824\n")
	write(t, filepath.Join(fs, "memory/memory.stat"), "cache 5\ntotal_inactive_file 536870912\n")
	got := cgroupLimits(proc, fs)
	if len(got) != 1 || got[0].free != 1<<30+1<<29 {
		t.Fatalf("cgroupLimits = %+v, want 1.5 GiB free", got)
	}
	// No limit (the kernel writes a huge number): nothing.
	write(t, filepath.Join(fs, "memory/memory.limit_in_bytes"), "9223372036854771712\n")
	if got := cgroupLimits(proc, fs); len(got) != 0 {
		t.Fatalf("an unlimited cgroup gave %+v", got)
	}
}

func TestAvailableOnThisMachine(t *testing.T) {
	b, src, ok := Available()
	if _, err := os.Stat("/proc/meminfo"); err == nil && (!ok || b <= 0 || src == "") {
		t.Fatalf("Available() = %d, %q, %v on a machine with /proc/meminfo", b, src, ok)
	}
	t.Logf("available: %s (%s)", Format(b), src)
}
