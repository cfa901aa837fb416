package kernel

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphnb/graphnb/kernel/wire"
)

func TestKernelInfo(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	for _, sock := range []string{"shell", "control"} {
		t.Run(sock, func(t *testing.T) {
			h := c.send(sock, "kernel_info_request", map[string]any{})
			ch := c.shellCh
			if sock == "control" {
				ch = c.controlCh
			}
			r := c.replyTo(ch, h.MsgID)
			if r.Header.MsgType != "kernel_info_reply" || r.Header.Version != "5.3" || r.Header.Session == "" {
				t.Errorf("reply header %+v", r.Header)
			}
			got := content(t, r)
			want := map[string]any{
				"status": "ok", "protocol_version": "5.3", "implementation": "graphnb", "implementation_version": "test",
				// The engine's, passed through.
				"language_info": (&fakeEngine{}).LanguageInfo(),
			}
			for key, w := range want {
				if !jsonEqual(t, got[key], w) {
					t.Errorf("%s = %v, want %v", key, got[key], w)
				}
			}
			if b, _ := got["banner"].(string); !strings.Contains(b, "graphnb") {
				t.Errorf("banner %q", got["banner"])
			}
			if links, _ := got["help_links"].([]any); len(links) < 2 {
				t.Errorf("help_links %v", got["help_links"])
			}
			io := c.iopubFor(h.MsgID)
			if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "status:idle"}) {
				t.Errorf("IOPub %v, want busy, idle", tt)
			}
		})
	}
}

func TestExecuteSequence(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	h, reply, io := c.execute("1+1", nil)
	if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "execute_input", "execute_result", "status:idle"}) {
		t.Fatalf("IOPub sequence %v", tt)
	}
	for _, m := range io {
		if m.Parent != h {
			t.Errorf("%s has parent %+v, want the request's header", m.Header.MsgType, m.Parent)
		}
	}
	if in := content(t, io[1]); in["code"] != "1+1" || in["execution_count"] != 1.0 {
		t.Errorf("execute_input %v", in)
	}
	want := map[string]any{"execution_count": 1, "data": map[string]any{"text/plain": "2"}, "metadata": map[string]any{}}
	if got := content(t, io[2]); !jsonEqual(t, got, want) {
		t.Errorf("execute_result %v, want %v", got, want)
	}
	wantReply := map[string]any{"status": "ok", "execution_count": 1, "payload": []any{}, "user_expressions": map[string]any{}}
	if got := content(t, reply); reply.Header.MsgType != "execute_reply" || !jsonEqual(t, got, wantReply) {
		t.Errorf("%s %v, want execute_reply %v", reply.Header.MsgType, got, wantReply)
	}
	if reply.Parent != h || len(reply.Header.Date) != len("2006-01-02T15:04:05.000000Z") {
		t.Errorf("reply parent %+v date %q", reply.Parent, reply.Header.Date)
	}
}

func TestPagePayload(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	_, reply, _ := c.execute("page the docs", nil)
	want := map[string]any{"status": "ok", "execution_count": 1, "user_expressions": map[string]any{},
		"payload": []any{map[string]any{"source": "page", "data": map[string]any{"text/plain": "the docs"}, "start": 0}}}
	if got := content(t, reply); !jsonEqual(t, got, want) {
		t.Errorf("execute_reply %v, want %v", got, want)
	}
}

func TestExecutionCount(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	tests := []struct {
		name      string
		extra     map[string]any
		wantCount float64
		wantIO    []string
	}{
		{"first", nil, 1, []string{"status:busy", "execute_input", "execute_result", "status:idle"}},
		{"second", nil, 2, []string{"status:busy", "execute_input", "execute_result", "status:idle"}},
		{"silent", map[string]any{"silent": true}, 2, []string{"status:busy", "status:idle"}},
		{"silent overrides store_history", map[string]any{"silent": true, "store_history": true}, 2, []string{"status:busy", "status:idle"}},
		{"store_history false", map[string]any{"store_history": false}, 2, []string{"status:busy", "execute_input", "execute_result", "status:idle"}},
		{"store_history absent", map[string]any{"store_history": nil}, 3, []string{"status:busy", "execute_input", "execute_result", "status:idle"}},
		{"again", nil, 4, []string{"status:busy", "execute_input", "execute_result", "status:idle"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			extra := tc.extra
			if v, ok := extra["store_history"]; ok && v == nil {
				// Send a request without the field at all.
				h := c.send("shell", "execute_request", map[string]any{"code": "cell"})
				reply := c.replyTo(c.shellCh, h.MsgID)
				io := c.iopubFor(h.MsgID)
				checkCount(t, reply, io, tc.wantCount, tc.wantIO)
				return
			}
			_, reply, io := c.execute("cell", extra)
			checkCount(t, reply, io, tc.wantCount, tc.wantIO)
		})
	}
	// The engine saw the counts and silent flags.
	k.eng.mu.Lock()
	defer k.eng.mu.Unlock()
	var got []string
	for _, cell := range k.eng.cells {
		got = append(got, fmt.Sprintf("%d/%v", cell.Count, cell.Silent))
	}
	want := []string{"1/false", "2/false", "2/true", "2/true", "2/false", "3/false", "4/false"}
	if !slices.Equal(got[len(got)-len(want):], want) {
		t.Errorf("engine cells %v, want %v", got, want)
	}
}

func checkCount(t *testing.T, reply *wire.Message, io []*wire.Message, wantCount float64, wantIO []string) {
	t.Helper()
	if got := content(t, reply)["execution_count"]; got != wantCount {
		t.Errorf("reply execution_count %v, want %v", got, wantCount)
	}
	if tt := types(t, io); !slices.Equal(tt, wantIO) {
		t.Errorf("IOPub %v, want %v", tt, wantIO)
	}
	for _, m := range io {
		if m.Header.MsgType == "execute_input" || m.Header.MsgType == "execute_result" {
			if got := content(t, m)["execution_count"]; got != wantCount {
				t.Errorf("%s execution_count %v, want %v", m.Header.MsgType, got, wantCount)
			}
		}
	}
}

func TestExecuteErrors(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	tests := []struct {
		code   string
		ename  string
		evalue string
		tb     []any
	}{
		{"fail", "TestError", "boom", []any{"tb: TestError", "tb: boom"}},
		{"plain", "Error", "plain failure", []any{"Error: plain failure"}},
		{"panic", "panic", "fake engine panic", []any{"panic: fake engine panic"}},
	}
	for i, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			_, reply, io := c.execute(tc.code, map[string]any{"stop_on_error": false})
			if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "execute_input", "error", "status:idle"}) {
				t.Fatalf("IOPub %v", tt)
			}
			wantErr := map[string]any{"ename": tc.ename, "evalue": tc.evalue, "traceback": tc.tb}
			if got := content(t, io[2]); !jsonEqual(t, got, wantErr) {
				t.Errorf("error message %v, want %v", got, wantErr)
			}
			wantReply := map[string]any{"status": "error", "execution_count": i + 1, "ename": tc.ename, "evalue": tc.evalue, "traceback": tc.tb}
			if got := content(t, reply); !jsonEqual(t, got, wantReply) {
				t.Errorf("reply %v, want %v", got, wantReply)
			}
		})
	}
	// Still alive.
	if _, reply, _ := c.execute("1+1", nil); content(t, reply)["status"] != "ok" {
		t.Errorf("after errors: %v", content(t, reply))
	}
}

func TestStopOnError(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	t.Run("aborts queued executes", func(t *testing.T) {
		req := func(code string) map[string]any {
			return map[string]any{"code": code, "silent": false, "store_history": true, "stop_on_error": true}
		}
		// The failing cell waits until the three requests behind it are queued.
		a := c.send("shell", "execute_request", req("waitqueue 3"))
		b := c.send("shell", "execute_request", req("1+1"))
		ki := c.send("shell", "kernel_info_request", map[string]any{})
		d := c.send("shell", "execute_request", req("1+1"))
		ra := c.replyTo(c.shellCh, a.MsgID)
		if got := content(t, ra)["status"]; got != "error" {
			t.Fatalf("failing cell: status %v", got)
		}
		for _, h := range []wire.Header{b, ki, d} {
			r := c.replyTo(c.shellCh, h.MsgID)
			got := content(t, r)["status"]
			want := "aborted"
			if h.MsgType == "kernel_info_request" {
				want = "ok" // only execute requests are aborted
			}
			if got != want {
				t.Errorf("%s %s: status %v, want %s", h.MsgType, h.MsgID, got, want)
			}
			if tt := types(t, c.iopubFor(h.MsgID)); !slices.Equal(tt, []string{"status:busy", "status:idle"}) {
				t.Errorf("IOPub of %s: %v", h.MsgID, tt)
			}
		}
		// Later requests run again, and aborted cells took no count.
		_, reply, _ := c.execute("1+1", nil)
		if got := content(t, reply); got["status"] != "ok" || got["execution_count"] != 2.0 {
			t.Errorf("after the aborts: %v", got)
		}
	})
	t.Run("stop_on_error false runs queued executes", func(t *testing.T) {
		a := c.send("shell", "execute_request", map[string]any{"code": "waitqueue 1", "stop_on_error": false})
		b := c.send("shell", "execute_request", map[string]any{"code": "1+1"})
		if got := content(t, c.replyTo(c.shellCh, a.MsgID))["status"]; got != "error" {
			t.Errorf("failing cell: %v", got)
		}
		if got := content(t, c.replyTo(c.shellCh, b.MsgID))["status"]; got != "ok" {
			t.Errorf("queued cell: %v, want ok", got)
		}
	})
}

func TestUserExpressions(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	_, reply, _ := c.execute("none", map[string]any{"user_expressions": map[string]any{"a": "1+1", "b": "fail", "c": 7}})
	want := map[string]any{
		"a": map[string]any{"status": "ok", "data": map[string]any{"text/plain": "2"}, "metadata": map[string]any{}},
		"b": map[string]any{"status": "error", "ename": "TestError", "evalue": "boom", "traceback": []any{"tb: TestError", "tb: boom"}},
		"c": map[string]any{"status": "error", "ename": "BadRequest", "evalue": "the expression is not a string", "traceback": []any{}},
	}
	if got := content(t, reply)["user_expressions"]; !jsonEqual(t, got, want) {
		t.Errorf("user_expressions %v, want %v", got, want)
	}
	// The expressions ran silently.
	k.eng.mu.Lock()
	defer k.eng.mu.Unlock()
	for _, cell := range k.eng.cells[len(k.eng.cells)-2:] {
		if !cell.Silent {
			t.Errorf("a user expression ran with Silent false")
		}
	}
}

func TestCompleteInspectIsComplete(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	tests := []struct {
		name    string
		msgType string
		req     map[string]any
		reply   string
		want    map[string]any
	}{
		{"complete match", "complete_request", map[string]any{"code": "x := fm", "cursor_pos": 7}, "complete_reply",
			map[string]any{"status": "ok", "matches": []any{"fmt"}, "cursor_start": 5, "cursor_end": 7, "metadata": map[string]any{}}},
		{"complete cursor in code points", "complete_request", map[string]any{"code": "é := fm", "cursor_pos": 7}, "complete_reply",
			map[string]any{"status": "ok", "matches": []any{"fmt"}, "cursor_start": 5, "cursor_end": 7, "metadata": map[string]any{}}},
		{"complete default cursor", "complete_request", map[string]any{"code": "fm"}, "complete_reply",
			map[string]any{"status": "ok", "matches": []any{"fmt"}, "cursor_start": 0, "cursor_end": 2, "metadata": map[string]any{}}},
		{"complete nothing", "complete_request", map[string]any{"code": "zz", "cursor_pos": 2}, "complete_reply",
			map[string]any{"status": "ok", "matches": []any{}, "cursor_start": 2, "cursor_end": 2, "metadata": map[string]any{}}},
		{"inspect found", "inspect_request", map[string]any{"code": "fmt.Println", "cursor_pos": 2, "detail_level": 1}, "inspect_reply",
			map[string]any{"status": "ok", "found": true, "data": map[string]any{"text/plain": "package fmt (detail 1, cursor 2)"}, "metadata": map[string]any{}}},
		{"inspect not found", "inspect_request", map[string]any{"code": "x", "cursor_pos": 1, "detail_level": 0}, "inspect_reply",
			map[string]any{"status": "ok", "found": false, "data": map[string]any{}, "metadata": map[string]any{}}},
		{"is_complete complete", "is_complete_request", map[string]any{"code": "x := 1"}, "is_complete_reply",
			map[string]any{"status": "complete"}},
		{"is_complete incomplete", "is_complete_request", map[string]any{"code": "for {"}, "is_complete_reply",
			map[string]any{"status": "incomplete", "indent": "\t"}},
		{"is_complete invalid", "is_complete_request", map[string]any{"code": "}"}, "is_complete_reply",
			map[string]any{"status": "invalid"}},
		{"comm_info", "comm_info_request", map[string]any{}, "comm_info_reply",
			map[string]any{"status": "ok", "comms": map[string]any{}}},
		{"comm_info with target", "comm_info_request", map[string]any{"target_name": "jupyter.widget"}, "comm_info_reply",
			map[string]any{"status": "ok", "comms": map[string]any{}}},
		{"unknown request", "frobnicate_request", map[string]any{}, "frobnicate_reply",
			map[string]any{"status": "error", "ename": "UnsupportedRequest", "evalue": "graphnb does not handle frobnicate_request", "traceback": []any{}}},
		{"malformed content", "complete_request", map[string]any{"code": 5}, "complete_reply",
			nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := c.send("shell", tc.msgType, tc.req)
			r := c.replyTo(c.shellCh, h.MsgID)
			if r.Header.MsgType != tc.reply {
				t.Errorf("reply type %s, want %s", r.Header.MsgType, tc.reply)
			}
			got := content(t, r)
			if tc.want == nil {
				if got["status"] != "error" || got["ename"] != "BadRequest" {
					t.Errorf("reply %v, want a BadRequest error", got)
				}
			} else if !jsonEqual(t, got, tc.want) {
				t.Errorf("reply %v, want %v", got, tc.want)
			}
			if tt := types(t, c.iopubFor(h.MsgID)); !slices.Equal(tt, []string{"status:busy", "status:idle"}) {
				t.Errorf("IOPub %v", tt)
			}
		})
	}
}

func TestComms(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	h := c.send("shell", "comm_open", map[string]any{"comm_id": "c1", "target_name": "jupyter.widget", "data": map[string]any{}})
	io := c.iopubFor(h.MsgID)
	if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "comm_close", "status:idle"}) {
		t.Fatalf("IOPub %v", tt)
	}
	if got := content(t, io[1]); !jsonEqual(t, got, map[string]any{"comm_id": "c1", "data": map[string]any{}}) {
		t.Errorf("comm_close %v", got)
	}
	for _, typ := range []string{"comm_msg", "comm_close"} {
		h := c.send("shell", typ, map[string]any{"comm_id": "c1", "data": map[string]any{}})
		if tt := types(t, c.iopubFor(h.MsgID)); !slices.Equal(tt, []string{"status:busy", "status:idle"}) {
			t.Errorf("%s: IOPub %v", typ, tt)
		}
	}
	// No reply was sent for the comm messages: the next reply is kernel_info's.
	ki := c.send("shell", "kernel_info_request", map[string]any{})
	c.replyTo(c.shellCh, ki.MsgID)
}

func TestHistory(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	for _, cell := range []struct {
		code  string
		extra map[string]any
	}{
		{"a = 1", nil}, {"b = 2", nil}, {"silent one", map[string]any{"silent": true}},
		{"not stored", map[string]any{"store_history": false}}, {"a = 1", nil}, {"c = 3", nil}, {"none", nil},
	} {
		c.execute(cell.code, cell.extra)
	}
	tests := []struct {
		name string
		req  map[string]any
		want []any
	}{
		{"tail 2", map[string]any{"hist_access_type": "tail", "n": 2, "output": false, "raw": true},
			[]any{[]any{1, 4, "c = 3"}, []any{1, 5, "none"}}},
		{"tail with output", map[string]any{"hist_access_type": "tail", "n": 2, "output": true, "raw": true},
			[]any{[]any{1, 4, []any{"c = 3", "ok: c = 3"}}, []any{1, 5, []any{"none", nil}}}},
		{"tail more than all", map[string]any{"hist_access_type": "tail", "n": 100},
			[]any{[]any{1, 1, "a = 1"}, []any{1, 2, "b = 2"}, []any{1, 3, "a = 1"}, []any{1, 4, "c = 3"}, []any{1, 5, "none"}}},
		{"range current session", map[string]any{"hist_access_type": "range", "session": 0, "start": 2, "stop": 4},
			[]any{[]any{1, 2, "b = 2"}, []any{1, 3, "a = 1"}}},
		{"range by number to the end", map[string]any{"hist_access_type": "range", "session": 1, "start": 3},
			[]any{[]any{1, 3, "a = 1"}, []any{1, 4, "c = 3"}, []any{1, 5, "none"}}},
		{"range previous session", map[string]any{"hist_access_type": "range", "session": -1, "start": 1, "stop": 10},
			[]any{}},
		{"search glob", map[string]any{"hist_access_type": "search", "pattern": "? = *"},
			[]any{[]any{1, 1, "a = 1"}, []any{1, 2, "b = 2"}, []any{1, 3, "a = 1"}, []any{1, 4, "c = 3"}}},
		{"search unique", map[string]any{"hist_access_type": "search", "pattern": "a*", "unique": true},
			[]any{[]any{1, 3, "a = 1"}}},
		{"search n", map[string]any{"hist_access_type": "search", "pattern": "*", "n": 2},
			[]any{[]any{1, 4, "c = 3"}, []any{1, 5, "none"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := c.send("shell", "history_request", tc.req)
			got := content(t, c.replyTo(c.shellCh, h.MsgID))
			if want := map[string]any{"status": "ok", "history": tc.want}; !jsonEqual(t, got, want) {
				t.Errorf("history %v, want %v", got, want)
			}
			c.iopubFor(h.MsgID)
		})
	}
}

func TestSignatureRejection(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	wrongKey, _ := wire.NewSigner("hmac-sha256", "not-the-key")
	var bad []string
	for _, tc := range []struct {
		name   string
		frames func(h wire.Header) [][]byte
	}{
		{"bad", func(h wire.Header) [][]byte {
			f := wire.Encode(&wire.Message{Header: h, Content: []byte(`{"code":"1+1"}`)}, c.signer)
			f[1] = bytes.Repeat([]byte("0"), 64)
			return f
		}},
		{"missing", func(h wire.Header) [][]byte {
			return wire.Encode(&wire.Message{Header: h, Content: []byte(`{"code":"1+1"}`)}, nil)
		}},
		{"wrong key", func(h wire.Header) [][]byte {
			return wire.Encode(&wire.Message{Header: h, Content: []byte(`{"code":"1+1"}`)}, wrongKey)
		}},
		{"tampered", func(h wire.Header) [][]byte {
			f := wire.Encode(&wire.Message{Header: h, Content: []byte(`{"code":"1+1"}`)}, c.signer)
			f[len(f)-1] = []byte(`{"code":"panic"}`)
			return f
		}},
	} {
		h := c.header("execute_request")
		bad = append(bad, h.MsgID)
		c.sendFrames("shell", tc.frames(h))
		hc := c.header("shutdown_request") // on control too: must not shut down
		bad = append(bad, hc.MsgID)
		c.sendFrames("control", tc.frames(hc))
	}
	// The kernel answers the next good message, and only that one.
	h := c.send("shell", "kernel_info_request", map[string]any{})
	c.replyTo(c.shellCh, h.MsgID)
	hc := c.send("control", "kernel_info_request", map[string]any{})
	c.replyTo(c.controlCh, hc.MsgID)
	c.iopubFor(h.MsgID)
	k.eng.mu.Lock()
	if len(k.eng.cells) != 0 {
		t.Errorf("the engine ran %d cells from unsigned messages", len(k.eng.cells))
	}
	k.eng.mu.Unlock()
	if n := strings.Count(k.logs.String(), "bad or missing signature"); n != 8 {
		t.Errorf("%d log lines about signatures, want 8; log:\n%s", n, k.logs.String())
	}
	select {
	case m := <-c.shellCh:
		t.Errorf("unexpected reply %s to %s", m.Header.MsgType, m.Parent.MsgID)
	default:
	}
}

// TestReplayRejected: a captured, correctly signed request sent again —
// on its own channel or another — is dropped (issue 13, case 5), as is
// the same message with its signature in upper-case hex.
func TestReplayRejected(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	h, reply, _ := c.execute("1+1", nil)
	if content(t, reply)["status"] != "ok" {
		t.Fatalf("first execution: %s", reply.Content)
	}
	captured := wire.Encode(&wire.Message{Header: h, Content: mustJSON(t, map[string]any{
		"code": "1+1", "silent": false, "store_history": true, "user_expressions": map[string]any{},
		"allow_stdin": false, "stop_on_error": true,
	})}, c.signer)
	upper := slices.Clone(captured)
	upper[1] = bytes.ToUpper(captured[1])
	for range 5 {
		c.sendFrames("shell", captured)
		c.sendFrames("control", captured)
	}
	c.sendFrames("shell", upper)
	ki := c.send("control", "kernel_info_request", map[string]any{})
	c.replyTo(c.controlCh, ki.MsgID)
	ki = c.send("shell", "kernel_info_request", map[string]any{})
	c.replyTo(c.shellCh, ki.MsgID)
	k.eng.mu.Lock()
	ran := len(k.eng.cells)
	k.eng.mu.Unlock()
	if ran != 1 {
		t.Errorf("the cell ran %d times from 1 message and 11 replays; want 1", ran)
	}
	logs := k.logs.String()
	if n := strings.Count(logs, "replayed message"); n != 10 {
		t.Errorf("%d log lines about replays, want 10; log:\n%s", n, logs)
	}
	if !strings.Contains(logs, "upper-case hex") {
		t.Errorf("no log line about the upper-case signature; log:\n%s", logs)
	}
	for _, ch := range []chan *wire.Message{c.shellCh, c.controlCh} {
		select {
		case m := <-ch:
			t.Errorf("unexpected %s to %s", m.Header.MsgType, m.Parent.MsgID)
		default:
		}
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMalformedMessagesDropped(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	sign := func(frames [][]byte) [][]byte {
		frames[1] = c.signer.Sign(frames[2], frames[3], frames[4], frames[5])
		return frames
	}
	good := func() [][]byte {
		return wire.Encode(&wire.Message{Header: c.header("execute_request"), Content: []byte(`{"code":"panic"}`)}, c.signer)
	}
	tests := []struct {
		name   string
		frames [][]byte
		log    string
	}{
		{"no delimiter", [][]byte{[]byte("garbage"), []byte("more")}, "missing <IDS|MSG> delimiter"},
		{"too few frames", good()[:3], "fewer than 5 frames"},
		{"bad header JSON", sign(func() [][]byte { f := good(); f[2] = []byte(`{"msg_type":`); return f }()), "bad JSON in header"},
		{"bad content JSON", sign(func() [][]byte { f := good(); f[5] = []byte(`{"code":}`); return f }()), "bad JSON in content"},
		{"header without msg_type", sign(func() [][]byte { f := good(); f[2] = []byte(`{"msg_id":"x"}`); return f }()), "header without msg_type"},
		{"empty message", [][]byte{{}}, "missing <IDS|MSG> delimiter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c.sendFrames("shell", tc.frames)
			h := c.send("shell", "kernel_info_request", map[string]any{})
			c.replyTo(c.shellCh, h.MsgID)
			c.iopubFor(h.MsgID)
			if !strings.Contains(k.logs.String(), tc.log) {
				t.Errorf("log lacks %q:\n%s", tc.log, k.logs.String())
			}
		})
	}
	k.eng.mu.Lock()
	defer k.eng.mu.Unlock()
	if len(k.eng.cells) != 0 {
		t.Errorf("the engine ran %d cells from malformed messages", len(k.eng.cells))
	}
}

func TestOversizeZMTPFrame(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	for _, port := range []int{k.ci.ShellPort, k.ci.ControlPort, k.ci.HBPort, k.ci.IOPubPort} {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		greeting := make([]byte, 64)
		greeting[0], greeting[9], greeting[10] = 0xff, 0x7f, 3
		copy(greeting[12:], "NULL")
		ready := []byte("\x05READY\x0bSocket-Type\x00\x00\x00\x06DEALER")
		if port == k.ci.HBPort {
			ready = []byte("\x05READY\x0bSocket-Type\x00\x00\x00\x03REQ")
		} else if port == k.ci.IOPubPort {
			ready = []byte("\x05READY\x0bSocket-Type\x00\x00\x00\x03SUB")
		}
		stream := append(greeting, 0x04, byte(len(ready)))
		stream = append(stream, ready...)
		stream = binary.BigEndian.AppendUint64(append(stream, 0x02), 1<<40)
		if _, err := conn.Write(stream); err != nil {
			t.Fatal(err)
		}
		conn.SetReadDeadline(time.Now().Add(waitLimit))
		_, err = io.Copy(io.Discard, conn)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("port %d: the connection announcing a 1 TiB frame was not closed", port)
		}
		conn.Close()
	}
	// The kernel still serves the existing client.
	_, reply, _ := c.execute("1+1", nil)
	if content(t, reply)["status"] != "ok" {
		t.Errorf("after oversize frames: %v", content(t, reply))
	}
	if !strings.Contains(k.logs.String(), "frame announces 1099511627776 bytes") {
		t.Errorf("no log line about the oversize frame:\n%s", k.logs.String())
	}
}

func TestInterrupt(t *testing.T) {
	t.Run("message", func(t *testing.T) {
		k := startKernel(t, nil)
		c := dialClient(t, k.ci)
		testInterrupt(t, k, c, func() {
			h := c.send("control", "interrupt_request", map[string]any{})
			r := c.replyTo(c.controlCh, h.MsgID)
			if r.Header.MsgType != "interrupt_reply" || content(t, r)["status"] != "ok" {
				t.Errorf("interrupt reply %s %v", r.Header.MsgType, content(t, r))
			}
		})
	})
	t.Run("SIGINT", func(t *testing.T) {
		k := startKernel(t, func(o *Options) { o.NoSignals = false })
		c := dialClient(t, k.ci)
		testInterrupt(t, k, c, func() {
			if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
		})
	})
}

func testInterrupt(t *testing.T, k *testKernel, c *testClient, interrupt func()) {
	h := c.send("shell", "execute_request", map[string]any{"code": "sleep", "stop_on_error": true})
	select {
	case code := <-k.eng.started:
		if code != "sleep" {
			t.Fatalf("started %q", code)
		}
	case <-time.After(waitLimit):
		t.Fatal("the cell did not start")
	}
	// Control is served while the cell runs.
	ki := c.send("control", "kernel_info_request", map[string]any{})
	c.replyTo(c.controlCh, ki.MsgID)

	interrupt()
	// The issue asks that an interrupt stop a cell within one second.
	select {
	case requested := <-k.eng.cancelSeen:
		if !requested {
			t.Error("the cell's context ended but cancel.Requested() was false")
		}
	case <-time.After(time.Second):
		t.Fatal("the cell did not see the interrupt within 1 s")
	}
	r := c.replyTo(c.shellCh, h.MsgID)
	if got := content(t, r); got["status"] != "error" || got["ename"] != "Interrupted" {
		t.Errorf("reply %v", got)
	}
	// Alive, and the next cell is not born cancelled.
	_, reply, _ := c.execute("1+1", nil)
	if content(t, reply)["status"] != "ok" {
		t.Errorf("after the interrupt: %v", content(t, reply))
	}
}

func TestShutdown(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sock    string
		restart bool
	}{
		{"control", "control", false},
		{"control restart", "control", true},
		{"shell (old clients)", "shell", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := startKernel(t, nil)
			c := dialClient(t, k.ci)
			h := c.send(tc.sock, "shutdown_request", map[string]any{"restart": tc.restart})
			ch := c.controlCh
			if tc.sock == "shell" {
				ch = c.shellCh
			}
			r := c.replyTo(ch, h.MsgID)
			if want := map[string]any{"status": "ok", "restart": tc.restart}; r.Header.MsgType != "shutdown_reply" || !jsonEqual(t, content(t, r), want) {
				t.Errorf("%s %v, want shutdown_reply %v", r.Header.MsgType, content(t, r), want)
			}
			select {
			case err := <-k.done:
				if err != nil {
					t.Errorf("Serve: %v", err)
				}
				close(k.done)
			case <-time.After(waitLimit):
				t.Fatal("Serve did not return after shutdown_request")
			}
			// The ports are free again, for the restarted kernel.
			for _, p := range []int{k.ci.ShellPort, k.ci.IOPubPort, k.ci.StdinPort, k.ci.ControlPort, k.ci.HBPort} {
				l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
				if err != nil {
					t.Errorf("port %d not released: %v", p, err)
					continue
				}
				l.Close()
			}
		})
	}
}

func TestHeartbeat(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	for i := range 3 {
		payload := fmt.Sprintf("ping %d", i)
		if err := c.hb.Send(zmqMsg(payload)); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			m, err := c.hb.Recv()
			if err != nil || len(m.Frames) != 1 {
				got <- fmt.Sprintf("error %v frames %q", err, m.Frames)
				return
			}
			got <- string(m.Frames[0])
		}()
		select {
		case s := <-got:
			if s != payload {
				t.Errorf("heartbeat echoed %q, want %q", s, payload)
			}
		case <-time.After(waitLimit):
			t.Fatal("no heartbeat echo")
		}
	}
}

func TestDisplays(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	tests := []struct {
		code    string
		msgType string
		want    map[string]any
	}{
		{"display d1 hello", "display_data", map[string]any{"data": map[string]any{"text/plain": "hello"}, "metadata": map[string]any{}, "transient": map[string]any{"display_id": "d1"}}},
		{"update d1 bye", "update_display_data", map[string]any{"data": map[string]any{"text/plain": "bye"}, "metadata": map[string]any{}, "transient": map[string]any{"display_id": "d1"}}},
		{"display  plain", "display_data", map[string]any{"data": map[string]any{"text/plain": "plain"}, "metadata": map[string]any{}}},
		{"clear", "clear_output", map[string]any{"wait": false}},
		{"clearwait", "clear_output", map[string]any{"wait": true}},
	}
	for _, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			h, _, io := c.execute(tc.code, nil)
			if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "execute_input", tc.msgType, "status:idle"}) {
				t.Fatalf("IOPub %v", tt)
			}
			if io[2].Parent != h {
				t.Errorf("parent %+v", io[2].Parent)
			}
			if got := content(t, io[2]); !jsonEqual(t, got, tc.want) {
				t.Errorf("%s %v, want %v", tc.msgType, got, tc.want)
			}
		})
	}
}

func TestStreams(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	t.Run("before the result", func(t *testing.T) {
		_, _, io := c.execute("out hello", nil)
		if tt := types(t, io); !slices.Equal(tt, []string{"status:busy", "execute_input", "stream:stdout", "status:idle"}) {
			t.Fatalf("IOPub %v", tt)
		}
		if got := content(t, io[2])["text"]; got != "hello\n" {
			t.Errorf("text %q", got)
		}
	})
	t.Run("coalesced", func(t *testing.T) {
		n := 100000 // a loop printing 100k lines…
		if raceEnabled {
			n = 20000 // …is slow under the race detector
		}
		_, _, io := c.execute(fmt.Sprintf("lines %d", n), nil)
		var text strings.Builder
		streams := 0
		for _, m := range io {
			if m.Header.MsgType == "stream" {
				streams++
				text.WriteString(content(t, m)["text"].(string))
			}
		}
		var want strings.Builder
		for i := range n {
			fmt.Fprintf(&want, "line %d\n", i)
		}
		if text.String() != want.String() {
			t.Errorf("streamed %d bytes, want %d", text.Len(), want.Len())
		}
		if streams == 0 || streams > n/100 {
			t.Errorf("%d stream messages for %d lines", streams, n)
		}
	})
}

func TestAsyncError(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	h, reply, _ := c.execute("async", nil)
	if content(t, reply)["status"] != "ok" {
		t.Fatalf("reply %v", content(t, reply))
	}
	deadline := time.After(waitLimit)
	for {
		select {
		case m := <-c.iopubCh:
			if m.Header.MsgType != "error" {
				continue
			}
			if m.Parent != h {
				t.Errorf("async error parent %+v, want the cell's", m.Parent)
			}
			if got := content(t, m); got["ename"] != "panic" || got["evalue"] != "async boom" {
				t.Errorf("async error %v", got)
			}
			return
		case <-deadline:
			t.Fatal("no async error message")
		}
	}
}

func TestHandlerPanicRecovered(t *testing.T) {
	k := startKernel(t, nil)
	c := dialClient(t, k.ci)
	h := c.send("shell", "complete_request", map[string]any{"code": "panic-complete", "cursor_pos": 3})
	if tt := types(t, c.iopubFor(h.MsgID)); !slices.Equal(tt, []string{"status:busy", "status:idle"}) {
		t.Errorf("IOPub %v", tt)
	}
	_, reply, _ := c.execute("1+1", nil)
	if content(t, reply)["status"] != "ok" {
		t.Errorf("after a handler panic: %v", content(t, reply))
	}
	if !strings.Contains(k.logs.String(), "fake completion panic") {
		t.Errorf("the panic was not logged:\n%s", k.logs.String())
	}
}

func TestServeBadConnectionInfo(t *testing.T) {
	eng := newFakeEngine()
	for _, ci := range []ConnectionInfo{
		{Transport: "ipc", IP: "127.0.0.1"},
		{Transport: "tcp", IP: "127.0.0.1", SignatureScheme: "hmac-md5"},
	} {
		if err := Serve(t.Context(), ci, eng, Options{NoCapture: true, NoSignals: true}); err == nil {
			t.Errorf("Serve(%+v) = nil, want an error", ci)
		}
	}
	// A port in use is reported.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ci := ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", ShellPort: l.Addr().(*net.TCPAddr).Port}
	err = Serve(t.Context(), ci, eng, Options{NoCapture: true, NoSignals: true, Logger: discardLogger()})
	if err == nil || !strings.Contains(err.Error(), "shell") {
		t.Errorf("Serve on a used port: %v, want an error naming the shell socket", err)
	}
}
