package kernel

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const childEnv = "GRAPHNB_KERNEL_TEST_CHILD"

// inChild runs body in a fresh process running only this test: the kernel
// captures fds 1 and 2 there, which would swallow the test framework's own
// output here. In the parent it returns the child's combined output after
// checking that the child passed and finished body (and its cleanups); in
// the child it runs body and returns "".
func inChild(t *testing.T, body func(t *testing.T)) string {
	t.Helper()
	sentinel := "kernel-child-done " + t.Name()
	if os.Getenv(childEnv) == t.Name() {
		// Runs after body's cleanups (which stop the capture).
		t.Cleanup(func() {
			if !t.Failed() {
				fmt.Println(sentinel)
			}
		})
		body(t)
		return ""
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.timeout=120s")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), sentinel) {
		t.Fatalf("child process did not finish the test body:\n%s", out)
	}
	return string(out)
}

func TestCapturedOutput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("output capture is Linux only")
	}
	out := inChild(t, func(t *testing.T) {
		var trace syncBuffer
		k := startKernel(t, func(o *Options) {
			o.NoCapture = false
			o.Logger = nil // the default: the original stderr
			o.testTrace = func(ev string) { fmt.Fprintln(&trace, ev) }
		})
		c := dialClient(t, k.ci)
		if k.srv.cap == nil {
			t.Fatal("output is not captured")
		}

		t.Run("stdout before the reply", func(t *testing.T) {
			before := len(trace.String())
			_, reply, io := c.execute("print hello from the cell", nil)
			// The kernel sent the stream before the reply, and IOPub
			// delivered it before idle.
			sends := strings.Fields(trace.String()[before:])
			if i, j := slices.Index(sends, "iopub:stream"), slices.Index(sends, "shell:execute_reply"); i < 0 || j < 0 || i > j {
				t.Errorf("kernel sends %v: want the stream before execute_reply", sends)
			}
			if content(t, reply)["status"] != "ok" {
				t.Fatalf("reply %v", content(t, reply))
			}
			if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "execute_input", "stream:stdout", "status:idle"}) {
				t.Fatalf("IOPub %v", tt)
			}
			if got := content(t, io[2])["text"]; got != "hello from the cell\n" {
				t.Errorf("stream text %q", got)
			}
		})
		t.Run("stderr", func(t *testing.T) {
			_, _, io := c.execute("printerr oops", nil)
			if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "execute_input", "stream:stderr", "status:idle"}) {
				t.Fatalf("IOPub %v", tt)
			}
			if got := content(t, io[2])["text"]; got != "oops\n" {
				t.Errorf("stream text %q", got)
			}
		})
		t.Run("1 MiB before the result", func(t *testing.T) {
			_, _, io := c.execute("bigprint", nil)
			var text strings.Builder
			tt := types(t, io)
			for _, m := range io {
				if m.Header.MsgType == "stream" {
					text.WriteString(content(t, m)["text"].(string))
				}
			}
			if text.String() != string(bigOutput()) {
				t.Errorf("streamed %d bytes, want %d", text.Len(), len(bigOutput()))
			}
			if n := len(tt); n < 4 || tt[n-2] != "execute_result" || tt[n-1] != "status:idle" || tt[n-3] != "stream:stdout" {
				t.Errorf("IOPub ends %v, want streams, execute_result, idle", tt[max(0, len(tt)-4):])
			}
		})
		t.Run("kernel logs are not captured", func(t *testing.T) {
			h := c.send("shell", "frobnicate_request", map[string]any{})
			c.replyTo(c.shellCh, h.MsgID)
			if tt := types(t, c.iopubFor(h.MsgID)); !slices.Equal(tt, []string{"status:busy", "status:idle"}) {
				t.Errorf("IOPub %v: the kernel's log line was streamed", tt)
			}
		})
	})
	if out == "" {
		return // the child
	}
	if !strings.Contains(out, "unsupported request") {
		t.Errorf("the kernel's log line did not reach the original stderr:\n%s", out)
	}
	if strings.Contains(out, "hello from the cell") {
		t.Errorf("captured output leaked to the real stdout:\n%s", out)
	}
}
