// Package membudget checks, before a large allocation that a user's input
// sizes, that it fits in the memory the process can still get, so that
// graphnb refuses the work with a clear error instead of being killed by
// the kernel's out-of-memory killer or by Go's fatal "out of memory".
//
// All sizes are in bytes (int64). The memory available is the least of
//
//   - MemAvailable in /proc/meminfo: what the machine can give without
//     swapping;
//   - for each cgroup the process is in, from its own up to the root, its
//     memory limit minus its usage, not counting the page cache it could
//     drop: in cgroup v2, memory.max minus memory.current plus the
//     inactive_file of memory.stat; in cgroup v1, memory.limit_in_bytes
//     minus memory.usage_in_bytes plus total_inactive_file;
//   - GRAPHNB_MEMORY, when set: a cap in bytes, with an optional binary
//     suffix (KiB, MiB, GiB, TiB; K, M, G, T mean the same), e.g.
//     GRAPHNB_MEMORY=4GiB. Users set it to keep graphnb within a budget
//     of their own; tests set it (t.Setenv) to check refusals without
//     allocating anything large.
//
// Where none of these can be read (another operating system), nothing is
// refused. The figure is a snapshot: other processes may take memory
// meanwhile, so callers count the peak of what they will hold, not just
// the first allocation.
package membudget

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// EnvVar names the environment variable that caps the memory available.
const EnvVar = "GRAPHNB_MEMORY"

// small is the size below which Check does not look: reading /proc costs
// tens of microseconds, and a request this small cannot matter.
const small = 1 << 20

// ErrTooLarge is what every refusal wraps (errors.Is).
var ErrTooLarge = errors.New("not enough memory")

// Error is a refusal: what was asked, how much it needs and how much is
// available.
type Error struct {
	What      string // the work refused, e.g. "R-MAT scale 27 (2^31 edges)"
	Need      int64  // bytes it needs
	Available int64  // bytes available when it was checked
	Source    string // where the figure of Available comes from
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s needs about %s of memory but only %s is available (%s); "+
		"choose a smaller size, or free memory (set large variables to nil) and try again",
		e.What, Format(e.Need), Format(e.Available), e.Source)
}

// Is makes errors.Is(err, ErrTooLarge) hold.
func (e *Error) Is(target error) bool { return target == ErrTooLarge }

// Check returns nil when need bytes fit in the memory available, else an
// *Error naming what (the work, as the user asked for it). Requests below
// 1 MiB always fit. A negative need counts as too large (callers compute
// sizes with Bytes, which saturates instead of overflowing).
func Check(what string, need int64) error {
	if need >= 0 && need < small {
		return nil
	}
	avail, source, ok := Available()
	if !ok || (need >= 0 && need <= avail) {
		return nil
	}
	if need < 0 {
		need = math.MaxInt64
	}
	return &Error{What: what, Need: need, Available: avail, Source: source}
}

// Bytes returns count·size and the sums of such products, saturating at
// math.MaxInt64 instead of overflowing; negative terms count as 0. Pass
// pairs: Bytes(n, 4, m, 8) is 4n + 8m.
func Bytes(pairs ...int64) int64 {
	if len(pairs)%2 != 0 {
		panic("membudget: Bytes takes pairs of count and size")
	}
	var total float64
	for i := 0; i < len(pairs); i += 2 {
		c, s := pairs[i], pairs[i+1]
		if c > 0 && s > 0 {
			total += float64(c) * float64(s)
		}
	}
	if total >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(total)
}

// Available returns the bytes the process can still allocate, where the
// figure comes from, and false when no source could be read.
func Available() (bytes int64, source string, ok bool) {
	bytes = math.MaxInt64
	take := func(b int64, src string) {
		if b < bytes {
			bytes, source = max(b, 0), src
		}
		ok = true
	}
	if v, set := os.LookupEnv(EnvVar); set && v != "" {
		if b, err := ParseSize(v); err == nil {
			take(b, EnvVar+"="+v)
		}
	}
	if b, err := memAvailable("/proc/meminfo"); err == nil {
		take(b, "MemAvailable in /proc/meminfo")
	}
	for _, l := range cgroupLimits("/proc/self/cgroup", "/sys/fs/cgroup") {
		take(l.free, "the limit of cgroup "+l.name)
	}
	return bytes, source, ok
}

// ParseSize reads a byte count: digits with an optional binary suffix
// (KiB, MiB, GiB, TiB, or K, M, G, T, with or without a trailing B).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	t = strings.TrimSuffix(t, "B")
	mult := int64(1)
	if u := strings.TrimSuffix(t, "I"); u != "" {
		if k := strings.IndexByte("KMGT", u[len(u)-1]); k >= 0 {
			mult, t = int64(1)<<(10*(k+1)), strings.TrimSpace(u[:len(u)-1])
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("membudget: %q is not a size in bytes (e.g. 4GiB, 512MiB or 1000000)", s)
	}
	return n * mult, nil
}

// Format renders a byte count with a binary prefix: "17.2 GiB".
func Format(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	if b == math.MaxInt64 {
		return "more than 8 EiB"
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit && exp < 5; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}

// memAvailable reads MemAvailable (kB) from a meminfo file.
func memAvailable(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb * 1024, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("membudget: no MemAvailable in %s", path)
}

// limit is what one cgroup leaves the process.
type limit struct {
	name string // the cgroup's path in its hierarchy
	free int64  // limit − usage + reclaimable cache
}

// cgroupLimits returns, for each cgroup of the process (read from
// procCgroup) with a memory limit, from its own up to the root, what it
// leaves. root is where the cgroup file systems are mounted. A v2
// cgroup's files are root/<path>/memory.*; a v1 memory cgroup's are
// root/memory/<path>/memory.*. Inside a container the process's own
// cgroup is often the root of what is mounted, so a path that does not
// exist is also tried at the mount's root.
func cgroupLimits(procCgroup, root string) []limit {
	data, err := os.ReadFile(procCgroup)
	if err != nil {
		return nil
	}
	var out []limit
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dir, max, cur, stat, inactive string
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir, max, cur, stat, inactive = root, "memory.max", "memory.current", "memory.stat", "inactive_file"
		case hasController(parts[1], "memory"):
			dir, max, cur, stat, inactive = filepath.Join(root, "memory"), "memory.limit_in_bytes", "memory.usage_in_bytes", "memory.stat", "total_inactive_file"
		default:
			continue
		}
		p := filepath.Clean("/" + parts[2])
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			p = "/"
		}
		for {
			d := filepath.Join(dir, p)
			if l, ok := readInt(filepath.Join(d, max)); ok && l < 1<<60 {
				if u, ok := readInt(filepath.Join(d, cur)); ok {
					free := l - u + statValue(filepath.Join(d, stat), inactive)
					out = append(out, limit{name: p, free: free})
				}
			}
			if p == "/" {
				break
			}
			p = filepath.Dir(p)
		}
	}
	return out
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// readInt reads a file holding one integer ("max" is no limit: false).
func readInt(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return v, err == nil
}

// statValue returns the value of key in a memory.stat file, or 0.
func statValue(path, key string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key+" "); ok {
			v, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			if err == nil {
				return v
			}
		}
	}
	return 0
}
