package widgets

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"testing"

	"github.com/graphnb/graphnb/comm"
)

// sentMsg is one message the package sent to the front end.
type sentMsg struct {
	msgType  string
	id       string
	target   string
	data     map[string]any
	metadata map[string]any
}

// frontEnd is a fake comm transport: it records what the kernel side
// sends, after a JSON round trip (as the wire would carry it).
type frontEnd struct {
	t    *testing.T
	mu   sync.Mutex
	msgs []sentMsg
}

func (f *frontEnd) Send(msgType string, content, metadata map[string]any, buffers [][]byte) error {
	var m sentMsg
	m.msgType = msgType
	m.id, _ = content["comm_id"].(string)
	m.target, _ = content["target_name"].(string)
	m.data = roundTrip(f.t, content["data"]).(map[string]any)
	if metadata != nil {
		m.metadata = roundTrip(f.t, metadata).(map[string]any)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, m)
	return nil
}

// roundTrip encodes v as JSON and decodes it back, as a front end sees it.
func roundTrip(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("a message does not encode as JSON: %v (%#v)", err, v)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// all returns the messages so far; take returns them and forgets them.
func (f *frontEnd) all() []sentMsg {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sentMsg(nil), f.msgs...)
}

func (f *frontEnd) take() []sentMsg {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.msgs
	f.msgs = nil
	return m
}

// opened returns the comm_open of model id.
func (f *frontEnd) opened(id string) sentMsg {
	f.t.Helper()
	for _, m := range f.all() {
		if m.msgType == "comm_open" && m.id == id {
			return m
		}
	}
	f.t.Fatalf("no comm_open for %s", id)
	return sentMsg{}
}

// updates returns the states of the "update" comm_msgs to model id.
func (f *frontEnd) updates(id string) []map[string]any {
	var out []map[string]any
	for _, m := range f.all() {
		if m.msgType == "comm_msg" && m.id == id && m.data["method"] == "update" {
			st, _ := m.data["state"].(map[string]any)
			out = append(out, st)
		}
	}
	return out
}

// setup installs a fake front end, fixes the dialect to p, and captures
// what the package reports; everything is restored after the test and
// every widget it left open is closed.
func setup(t *testing.T, p Protocol) (*frontEnd, *bytes.Buffer) {
	t.Helper()
	fe := &frontEnd{t: t}
	prev := comm.SetTransport(fe)
	proto.Lock()
	oldProto, oldForced := proto.current, proto.forced
	proto.current, proto.forced = p, true
	proto.Unlock()
	var reports bytes.Buffer
	var rmu sync.Mutex
	oldReport := reportTo
	reportTo = func() io.Writer { return lockedWriter{&rmu, &reports} }
	t.Cleanup(func() {
		CloseAll()
		comm.SetTransport(prev)
		proto.Lock()
		proto.current, proto.forced = oldProto, oldForced
		proto.Unlock()
		reportTo = oldReport
	})
	return fe, &reports
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// fromFrontEnd delivers a comm_msg from the front end to widget w.
func fromFrontEnd(t *testing.T, w Widget, data map[string]any) {
	t.Helper()
	if !comm.HandleMessage(w.ModelID(), comm.Message{Data: roundTrip(t, data).(map[string]any)}) {
		t.Fatalf("no open comm %s", w.ModelID())
	}
}

// update is a front-end change of key to v in dialect p.
func update(p Protocol, key string, v any) map[string]any {
	if p == Protocol1 {
		return map[string]any{"method": "backbone", "sync_data": map[string]any{key: v}}
	}
	return map[string]any{"method": "update", "state": map[string]any{key: v}, "buffer_paths": []any{}}
}

// stateOf returns the state model id was opened with, in either dialect.
func stateOf(t *testing.T, fe *frontEnd, p Protocol, id string) map[string]any {
	t.Helper()
	m := fe.opened(id)
	if p == Protocol1 {
		return m.data
	}
	st, ok := m.data["state"].(map[string]any)
	if !ok {
		t.Fatalf("comm_open of %s has no state: %v", id, m.data)
	}
	return st
}
