// Package cudasrc checks the CUDA C files the algorithm packages embed,
// without a GPU: the static checks CI runs on every .cu file (NVRTC and
// the device only exist on the GPU machine), shared so that each package
// keeps only its own (kernel counts, the constants it shares with Go).
package cudasrc

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// kernelRE matches a kernel the host can launch by name.
var kernelRE = regexp.MustCompile(`extern\s+"C"\s+__global__\s+(?:__launch_bounds__\([^)]*\)\s+)?void\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	stringLit    = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)
	charLit      = regexp.MustCompile(`'(?:[^'\\\n]|\\.)*'`)
	defineRE     = regexp.MustCompile(`(?m)^#define\s+([A-Za-z_][A-Za-z0-9_]*)\s+(-?(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*$`)
)

// Code returns src without its comments.
func Code(src string) string {
	return lineComment.ReplaceAllString(blockComment.ReplaceAllString(src, " "), " ")
}

// Check fails t unless src, the embedded file named file, holds at least
// minBytes of text, includes no header (NVRTC has none at run time),
// balances its brackets outside comments and literals, declares no
// kernel twice, and declares extern "C" __global__ every kernel the Go
// side launches. It returns the kernels src declares, in order.
func Check(t testing.TB, file, src string, minBytes int, launched []string) []string {
	t.Helper()
	if n := len(strings.TrimSpace(src)); n < minBytes {
		t.Fatalf("the embedded %s is missing or nearly empty (%d bytes)", file, n)
	}
	code := Code(src)
	if strings.Contains(code, "#include") {
		t.Errorf("%s includes a header; NVRTC has none at run time", file)
	}
	bare := charLit.ReplaceAllString(stringLit.ReplaceAllString(code, `""`), `' '`)
	for _, pair := range []string{"{}", "()", "[]"} {
		depth := 0
		for i, r := range bare {
			switch r {
			case rune(pair[0]):
				depth++
			case rune(pair[1]):
				depth--
			}
			if depth < 0 {
				t.Errorf("%s: unbalanced %q at byte %d (comments and literals aside)", file, pair[1], i)
				break
			}
		}
		if depth > 0 {
			t.Errorf("%s: %d unclosed %q", file, depth, pair[0])
		}
	}
	var declared []string
	seen := map[string]bool{}
	for _, m := range kernelRE.FindAllStringSubmatch(code, -1) {
		if seen[m[1]] {
			t.Errorf("%s declares kernel %s twice", file, m[1])
		}
		seen[m[1]] = true
		declared = append(declared, m[1])
	}
	for _, k := range launched {
		if !seen[k] {
			t.Errorf("Go launches %s, which %s does not declare extern \"C\" __global__ (declared: %v)", k, file, declared)
		}
	}
	return declared
}

// Defines returns the integer constants src #defines (decimal or hex,
// with an optional u/l suffix), by name.
func Defines(src string) map[string]int64 {
	out := map[string]int64{}
	for _, m := range defineRE.FindAllStringSubmatch(Code(src), -1) {
		digits := strings.TrimRight(m[2], "uUlL")
		if v, err := strconv.ParseInt(digits, 0, 64); err == nil {
			out[m[1]] = v
		}
	}
	return out
}

// CheckDefines fails t for each name in want that src, the embedded file
// named file, does not #define as the integer want[name] (the constants
// the Go side shares with the CUDA side).
func CheckDefines(t testing.TB, file, src string, want map[string]int64) {
	t.Helper()
	defs := Defines(src)
	for name, w := range want {
		if got, ok := defs[name]; !ok || got != w {
			t.Errorf("%s: #define %s = %d (found %v), the Go side uses %d", file, name, got, ok, w)
		}
	}
}

// Syntax runs g++ -std=c++17 -fsyntax-only -Wall -Werror with args (the
// package's shim of the CUDA built-ins and its .cu file, typically) and
// fails t with the compiler's output; it skips without g++.
func Syntax(t testing.TB, args ...string) {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found: the CUDA source is checked on the GPU machine only")
	}
	cmd := exec.Command(gxx, append([]string{"-std=c++17", "-fsyntax-only", "-Wall", "-Werror"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("g++ -fsyntax-only %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
