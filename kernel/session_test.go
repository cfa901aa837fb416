package kernel

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/comm"
	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/session"
)

// sessionEngine serves the interpreter as cmd/graphnb does, with package
// comm as the only compiled package for cells.
type sessionEngine struct{ *session.Session }

func (e sessionEngine) Execute(ctx context.Context, code string, c Cell) (display.Bundle, error) {
	return e.Session.Execute(ctx, code, session.Cell(c))
}

var _ CallbackRunner = sessionEngine{}

// TestCommCallbacksInTheInterpreter: a cell's function literal as a
// comm's OnMessage runs through the session's RunCallback: a panic in it
// is an error with the cell lines of its traceback, an interrupt stops an
// interpreted endless loop, and the cells' variables live on.
func TestCommCallbacksInTheInterpreter(t *testing.T) {
	sess, err := session.New(session.Options{Stdout: os.Stdout, Stderr: os.Stderr, Symbols: map[string]map[string]reflect.Value{
		"github.com/graphnb/graphnb/comm/comm": {
			"Open":    reflect.ValueOf(comm.Open),
			"Comm":    reflect.ValueOf((*comm.Comm)(nil)),
			"Message": reflect.ValueOf((*comm.Message)(nil)),
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	k := startKernel(t, func(o *Options) {
		fake := o.testHook
		o.testHook = func(s *server) { fake(s); s.eng = sessionEngine{sess} }
	})
	c := dialClient(t, k.ci)
	_, reply, io := c.execute(`n := 0
func fail() { var m map[string]int; m["k"] = 1 }
cm, _ := comm.Open("test.interp", comm.Message{})
cm.OnMessage(func(m comm.Message) {
	n++
	switch m.Data["do"] {
	case "panic":
		fail()
	case "spin":
		cm.Send(comm.Message{Data: map[string]any{"spinning": true}})
		for {
			n++
		}
	case "echo":
		cm.Send(comm.Message{Data: map[string]any{"n": n}, Buffers: m.Buffers})
	}
})
cm.ID()`, nil)
	if content(t, reply)["status"] != "ok" {
		t.Fatalf("cell: %v", content(t, reply))
	}
	var id string
	for _, m := range io {
		if m.Header.MsgType == "execute_result" {
			id = strings.Trim(content(t, m)["data"].(map[string]any)["text/plain"].(string), `"`)
		}
	}

	_, io = c.commMsg(id, "panic", nil, nil)
	if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "error", "status:idle"}) {
		t.Fatalf("IOPub for a panicking callback %v", tt)
	}
	e := content(t, io[1])
	if e["ename"] != "panic" || !strings.Contains(e["evalue"].(string), "in a callback: assignment to entry in nil map") ||
		!strings.Contains(strings.Join(anyStrings(e["traceback"]), "\n"), "cell[1] in fail") {
		t.Errorf("error %v", e)
	}

	mh := c.sendMessage("shell", "comm_msg", map[string]any{"comm_id": id, "data": map[string]any{"do": "spin"}}, nil, nil)
	for m := c.next(c.iopubCh); m.Header.MsgType != "comm_msg"; m = c.next(c.iopubCh) {
	}
	ih := c.send("control", "interrupt_request", map[string]any{})
	c.replyTo(c.controlCh, ih.MsgID)
	io = c.iopubFor(mh.MsgID)
	if tt := types(t, io); !slices.Equal(tt, []string{"error", "status:idle"}) || content(t, io[0])["ename"] != "Interrupted" {
		t.Fatalf("IOPub for an interrupted callback %v", tt)
	}

	_, io = c.commMsg(id, "echo", nil, [][]byte{{4, 2}})
	if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "comm_msg", "status:idle"}) || len(io[1].Buffers) != 1 {
		t.Fatalf("IOPub for an echo after the interrupt %v", tt)
	}
	if _, reply, io := c.execute("n > 3", nil); content(t, reply)["status"] != "ok" || !strings.Contains(string(io[2].Content), "true") {
		t.Errorf("n > 3 after the callbacks: %v", types(t, io))
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
