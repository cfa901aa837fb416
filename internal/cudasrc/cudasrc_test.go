package cudasrc

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recorder collects what Check reports instead of failing the test.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func check(t *testing.T, src string, launched ...string) ([]string, []string) {
	r := &recorder{TB: t}
	var declared []string
	done := make(chan bool)
	go func() {
		defer close(done)
		declared = Check(r, "k.cu", src, 10, launched)
	}()
	<-done
	return declared, r.msgs
}

func TestCheck(t *testing.T) {
	good := `// a kernel, with a "}" in a comment
#define BLOCK 256
#define MASK 0xffu
extern "C" __global__ void a(int *x) { x[0] = '}'; }
extern "C" __global__ __launch_bounds__(256) void b(float *y) { const char *s = "(("; y[0] = 1; }
`
	declared, msgs := check(t, good, "a", "b")
	if len(msgs) != 0 || strings.Join(declared, ",") != "a,b" {
		t.Fatalf("a good source: declared %v, reports %q", declared, msgs)
	}
	if d := Defines(good); d["BLOCK"] != 256 || d["MASK"] != 255 || len(d) != 2 {
		t.Errorf("Defines = %v", d)
	}
	for _, c := range []struct{ name, src, want string }{
		{"empty", "  ", "missing or nearly empty"},
		{"include", "#include <cuda.h>\n" + good, "includes a header"},
		{"unbalanced", good + "}", "unbalanced '}'"},
		{"unclosed", good + "void f() {", "unclosed '{'"},
		{"twice", good + `extern "C" __global__ void a(int *x) {}`, "declares kernel a twice"},
		{"missing", good, "Go launches c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			launched := []string{"a", "b"}
			if c.name == "missing" {
				launched = append(launched, "c")
			}
			_, msgs := check(t, c.src, launched...)
			if !strings.Contains(strings.Join(msgs, "\n"), c.want) {
				t.Errorf("reports %q, want one containing %q", msgs, c.want)
			}
		})
	}
}

func TestCheckDefines(t *testing.T) {
	src := "#define BLOCK 256 // threads\n#define MASK 0xffu\n"
	r := &recorder{TB: t}
	CheckDefines(r, "k.cu", src, map[string]int64{"BLOCK": 256, "MASK": 255})
	if len(r.msgs) != 0 {
		t.Errorf("matching constants: reports %q", r.msgs)
	}
	CheckDefines(r, "k.cu", src, map[string]int64{"BLOCK": 128, "WORDS": 4})
	got := strings.Join(r.msgs, "\n")
	for _, want := range []string{"k.cu: #define BLOCK = 256 (found true), the Go side uses 128", "k.cu: #define WORDS = 0 (found false), the Go side uses 4"} {
		if !strings.Contains(got, want) {
			t.Errorf("reports %q, want one containing %q", r.msgs, want)
		}
	}
}
