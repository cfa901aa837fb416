package session

import (
	"strings"
	"sync"
	"testing"

	"github.com/graphnb/graphnb/comm"
	"github.com/graphnb/graphnb/widgets"
)

// TestWidgetsFromCells: a cell imports package widgets, shows a slider
// (its last expression renders as a widget view), and interpreted
// callbacks and Interact functions run when the front end moves it.
func TestWidgetsFromCells(t *testing.T) {
	s, _ := newTestSession(t, nil)
	t.Cleanup(widgets.CloseAll)
	mustRun(t, s, `import "github.com/graphnb/graphnb/widgets"`)
	b := mustRun(t, s, `scale := widgets.NewIntSlider("scale", 10, 24, 1, 16)
scale`)
	view, ok := b["application/vnd.jupyter.widget-view+json"].(map[string]any)
	if !ok {
		t.Fatalf("the slider rendered as %v", b)
	}
	id, _ := view["model_id"].(string)
	if want := `IntSlider(value=16, min=10, max=24, step=1, description="scale")`; widgets.CurrentProtocol() == widgets.Protocol2 && text(b) != want {
		t.Errorf("text/plain %q, want %q", text(b), want)
	}
	mustRun(t, s, `var seen []int
scale.OnChange(func(old, new int) { seen = append(seen, old, new) })
cache := widgets.NewCheckbox("cache", true)
ui, err := widgets.Interact(func(n int, c bool) string { return fmt.Sprintf("n=%d c=%v", n, c) }, scale, cache)`)
	if got := text(mustRun(t, s, `err`)); got != "nil" {
		t.Fatalf("Interact: %s", got)
	}
	move := comm.Message{Data: map[string]any{"method": "update", "state": map[string]any{"value": 20.0}}}
	if !comm.HandleMessage(id, move) {
		t.Fatalf("no comm %s", id)
	}
	if got := text(mustRun(t, s, `seen`)); got != "[16 20]" {
		t.Errorf("OnChange saw %s, want [16 20]", got)
	}
	got := text(mustRun(t, s, `ui.Children()[2].(*widgets.Output).Outputs()[0]["data"].(map[string]any)["text/plain"]`))
	if !strings.Contains(got, "n=20 c=true") {
		t.Errorf("the Interact output shows %s", got)
	}
	if _, err := s.Execute(t.Context(), `_, err = widgets.Interact(func(n string) {}, scale)
err`, Cell{Count: 9}); err != nil {
		t.Fatal(err)
	}
	if got := text(mustRun(t, s, `err.Error()`)); !strings.Contains(got, "parameter 1 of fn is string") {
		t.Errorf("a mismatched Interact: %s", got)
	}
}

// displayRecorder is a comm transport that counts {method: "display"}
// messages (protocol 1's way of showing a widget).
type displayRecorder struct {
	mu       sync.Mutex
	displays int
}

func (r *displayRecorder) Send(msgType string, content, metadata map[string]any, buffers [][]byte) error {
	if data, _ := content["data"].(map[string]any); msgType == "comm_msg" && data["method"] == "display" {
		r.mu.Lock()
		r.displays++
		r.mu.Unlock()
	}
	return nil
}

// TestWidgetsClassicDisplay: in protocol 1 (the classic notebook), a cell
// whose last expression is a box asks the front end to display it once,
// and boxes take widgets built in cells.
func TestWidgetsClassicDisplay(t *testing.T) {
	rec := &displayRecorder{}
	prevT := comm.SetTransport(rec)
	prevP := widgets.SetProtocol(widgets.Protocol1)
	t.Cleanup(func() {
		widgets.CloseAll()
		comm.SetTransport(prevT)
		widgets.SetProtocol(prevP)
	})
	s, _ := newTestSession(t, nil)
	mustRun(t, s, `import "github.com/graphnb/graphnb/widgets"`)
	b := mustRun(t, s, `a := widgets.NewIntSlider("a", 0, 9, 1, 3)
box := widgets.NewTab([]string{"one", "two"}, widgets.NewVBox(a, widgets.NewLabel("x")), widgets.NewHTML("<i>y</i>"))
box`)
	if _, ok := b["application/vnd.jupyter.widget-view+json"]; !ok || text(b) != "" {
		t.Errorf("bundle %v", b)
	}
	if rec.displays != 1 {
		t.Errorf("%d display messages, want 1", rec.displays)
	}
	if got := text(mustRun(t, s, `len(box.Children())`)); got != "2" {
		t.Errorf("children: %s", got)
	}
}
