package fakegpu

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Preprocess returns the CUDA C text src, named name in messages, after
// the host's C preprocessor (g++ -E -P, as C++) with the given -D
// options: what a test of a kernel file's builds reads to check which
// code a configuration compiles (a traced build's log calls, an
// untraced build free of them). It skips t where g++ is missing and
// fails it when the preprocessor does, with its messages.
func Preprocess(t testing.TB, name, src string, defines ...string) string {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found: the builds' preprocessed text is checked where it is")
	}
	cmd := exec.Command(gxx, slices.Concat([]string{"-E", "-P", "-x", "c++"}, defines, []string{"-"})...)
	cmd.Stdin = strings.NewReader(src)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("g++ -E on %s %v: %v\n%s", name, defines, err, stderr.String())
	}
	return out.String()
}
