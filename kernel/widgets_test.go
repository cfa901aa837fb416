package kernel

import (
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/session"
	"github.com/graphnb/graphnb/symbols"
	"github.com/graphnb/graphnb/widgets"
)

// TestCallbackPrintsIntoOutput: with fds 1 and 2 captured, what a comm
// callback prints inside an Output's Capture is no stream message on
// IOPub but stream outputs in the Output's state update; what it prints
// outside is the comm message's stream output, as before.
func TestCallbackPrintsIntoOutput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("output capture is Linux only")
	}
	inChild(t, func(t *testing.T) {
		k := startKernel(t, func(o *Options) { o.NoCapture = false })
		c := dialClient(t, k.ci)
		prev := widgets.SetProtocol(widgets.Protocol2)
		t.Cleanup(func() { widgets.SetProtocol(prev) })

		slider := widgets.NewIntSlider("n", 0, 10, 1, 0)
		out := widgets.NewOutput()
		slider.OnChange(func(_, n int) {
			fmt.Println("outside", n)
			out.Capture(func() {
				fmt.Println("inside", n)
				fmt.Fprintln(os.Stderr, "to stderr", n)
			})
		})
		for n := 1; n <= 3; n++ {
			h := c.sendMessage("shell", "comm_msg", map[string]any{"comm_id": slider.ModelID(),
				"data": map[string]any{"method": "update", "state": map[string]any{"value": n}, "buffer_paths": []any{}}}, nil, nil)
			io := c.iopubFor(h.MsgID)
			if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "stream:stdout", "comm_msg", "status:idle"}) {
				t.Fatalf("move %d: IOPub %v", n, tt)
			}
			if st := content(t, io[1]); st["name"] != "stdout" || st["text"] != fmt.Sprintf("outside %d\n", n) {
				t.Errorf("move %d: the stream message %v", n, st)
			}
			up := content(t, io[2])
			if up["comm_id"] != out.ModelID() {
				t.Fatalf("move %d: a comm_msg to %v, want the Output %s", n, up["comm_id"], out.ModelID())
			}
			outs, _ := up["data"].(map[string]any)["state"].(map[string]any)["outputs"].([]any)
			var texts []string
			for _, o := range outs {
				m := o.(map[string]any)
				texts = append(texts, fmt.Sprint(m["output_type"], " ", m["name"], " ", m["text"]))
			}
			var want []string
			for i := 1; i <= n; i++ {
				want = append(want, fmt.Sprintf("stream stdout inside %d\n", i), fmt.Sprintf("stream stderr to stderr %d\n", i))
			}
			if !slices.Equal(texts, want) {
				t.Errorf("move %d: the Output's outputs\n%s\nwant\n%s", n, strings.Join(texts, ""), strings.Join(want, ""))
			}
		}
		widgets.CloseAll()
	})
}

// TestInterpretedPrintsIntoOutput: the same through the interpreter: an
// interpreted fmt.Println in Interact's fn lands in its Output, both when
// the cell runs and when a move of the slider reruns fn in a callback.
func TestInterpretedPrintsIntoOutput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("output capture is Linux only")
	}
	inChild(t, func(t *testing.T) {
		sess, err := session.New(session.Options{Stdout: os.Stdout, Stderr: os.Stderr, Symbols: map[string]map[string]reflect.Value{
			"github.com/graphnb/graphnb/widgets/widgets": symbols.Symbols["github.com/graphnb/graphnb/widgets/widgets"],
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		k := startKernel(t, func(o *Options) {
			o.NoCapture = false
			fake := o.testHook
			o.testHook = func(s *server) { fake(s); s.eng = sessionEngine{sess} }
		})
		c := dialClient(t, k.ci)
		prev := widgets.SetProtocol(widgets.Protocol1)
		t.Cleanup(func() { widgets.SetProtocol(prev) })
		_, reply, io := c.execute(`import "github.com/graphnb/graphnb/widgets"
s := widgets.NewIntSlider("n", 0, 10, 1, 0)
ui, _ := widgets.Interact(func(n int) int { fmt.Println("printed", n); return n * 10 }, s)
s.ModelID()`, nil)
		if content(t, reply)["status"] != "ok" {
			t.Fatalf("cell: %v", content(t, reply))
		}
		var id string
		for _, m := range io {
			switch m.Header.MsgType {
			case "stream":
				t.Errorf("the cell printed to its own output: %v", content(t, m))
			case "execute_result":
				id = strings.Trim(content(t, m)["data"].(map[string]any)["text/plain"].(string), `"`)
			}
		}
		h := c.sendMessage("shell", "comm_msg", map[string]any{"comm_id": id,
			"data": map[string]any{"method": "backbone", "sync_data": map[string]any{"value": 7}}}, nil, nil)
		io = c.iopubFor(h.MsgID)
		var html string
		for _, m := range io {
			switch m.Header.MsgType {
			case "stream":
				t.Errorf("the callback printed to the comm message's output: %v", content(t, m))
			case "comm_msg":
				if v, ok := content(t, m)["data"].(map[string]any)["state"].(map[string]any)["value"].(string); ok {
					html = v
				}
			}
		}
		if html != "<pre>printed 7\n</pre><pre>70</pre>" {
			t.Errorf("the Output's HTML after the move %q (IOPub %v)", html, types(t, io))
		}
		widgets.CloseAll()
	})
}
