package bench_test

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/graphnb/graphnb/bench"
	"github.com/graphnb/graphnb/comm"
	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/plots"
	"github.com/graphnb/graphnb/widgets"
)

// outputClock is a comm.Transport that records when the Output's state
// update (its new outputs) was sent, as the kernel would put it on the
// wire.
type outputClock struct {
	mu     sync.Mutex
	output string
	sent   time.Time
	count  int
}

func (c *outputClock) Send(msgType string, content, metadata map[string]any, buffers [][]byte) error {
	if msgType != "comm_msg" || content["comm_id"] != c.output {
		return nil
	}
	c.mu.Lock()
	c.sent, c.count = time.Now(), c.count+1
	c.mu.Unlock()
	return nil
}

// exploreUI builds notebook 07's Interact: a scale slider, the variant
// drop-down and the switches' checkboxes over the result card and the
// TEPS chart of the points measured so far, each point validated.
func exploreUI(ex *bench.Explorer, scale int, roots int) (*widgets.IntSlider, *widgets.Toggle, *widgets.Box, error) {
	scaleSlider := widgets.NewIntSlider("scale", scale-2, scale, 1, scale)
	algo := widgets.NewDropdown("variant", bench.ExploreAlgos, "sssp")
	restrict := widgets.NewCheckbox("restrict", true)
	cache := widgets.NewCheckbox("cache", true)
	dp := widgets.NewCheckbox("dynamic parallelism", false)
	nearFar := widgets.NewCheckbox("near-far", false)
	renumber := widgets.NewCheckbox("renumber", true)
	ranks := widgets.NewCheckbox("ranks", true)
	compress := widgets.NewCheckbox("compress", false)
	measure := func(scale int, algo string, restrict, cache, dp, nearFar, renumber, ranks, compress bool) (*plots.Chart, error) {
		if err := ex.SetScale(scale); err != nil {
			return nil, err
		}
		v, err := bench.Switches{Restrict: restrict, Cache: cache, DynamicParallelism: dp, NearFar: nearFar,
			Renumber: renumber, Ranks: ranks, Compress: compress}.Variant(algo)
		if err != nil {
			return nil, err
		}
		row, err := ex.Measure(v, roots)
		if err != nil {
			return nil, err
		}
		display.Markdown(row.Summary())
		return plots.TEPS(ex.Points()), nil
	}
	ui, err := widgets.Interact(measure, scaleSlider, algo, restrict, cache, dp, nearFar, renumber, ranks, compress)
	return scaleSlider, restrict, ui, err
}

// BenchmarkExploreSliderMove measures notebook 07's slider move on the
// kernel's side, the H100 target (≤ 150 ms at scale 20 with
// validation): from the front end's comm_msg that moves a control to the
// moment the Output's update is sent — the variant's preparation on the
// resident graph, its run from one root, the device check, and the chart
// drawn as PNG. "switch" flips the restrict checkbox (a re-preparation
// on the resident graph); "scale" moves the scale slider between two
// scales (a new graph each time, generated on the device). Scale 20 on a
// GPU, 16 on the host device; GRAPHNB_EXPLORE_SCALE overrides it.
// Both dialects of the widget protocol are measured.
func BenchmarkExploreSliderMove(b *testing.B) {
	dev := gpu.Default()
	scale := 20
	if dev.IsHost() {
		scale = 16
	}
	if s, ok := envScale(); ok {
		scale = s
	}
	for _, p := range []widgets.Protocol{widgets.Protocol2, widgets.Protocol1} {
		b.Run(fmt.Sprintf("protocol%d", p), func(b *testing.B) {
			prevP := widgets.SetProtocol(p)
			defer widgets.SetProtocol(prevP)
			clock := &outputClock{}
			prevT := comm.SetTransport(clock)
			defer comm.SetTransport(prevT)
			ex := bench.NewExplorer(dev)
			defer ex.Close()
			scaleSlider, restrict, ui, err := exploreUI(ex, scale, 1)
			if err != nil {
				b.Fatal(err)
			}
			defer ui.Close()
			children := ui.Children()
			out := children[len(children)-1].(*widgets.Output)
			if errs := errorsIn(out); errs != "" {
				b.Fatal(errs)
			}
			clock.output = out.ModelID()
			move := func(id string, value any) comm.Message {
				if p == widgets.Protocol1 {
					return comm.Message{Data: map[string]any{"method": "backbone", "sync_data": map[string]any{"value": value}}}
				}
				return comm.Message{Data: map[string]any{"method": "update", "state": map[string]any{"value": value}, "buffer_paths": []any{}}}
			}
			for _, c := range []struct {
				name  string
				id    string
				value func() any // the other value than the control's now
			}{
				{"switch", restrict.ModelID(), func() any { return !restrict.Value() }},
				{"scale", scaleSlider.ModelID(), func() any { return float64(2*scale - 1 - scaleSlider.Value()) }},
			} {
				b.Run(c.name, func(b *testing.B) {
					// Two untimed moves first: kernels compiled, buffers
					// and the PNG encoder warm.
					for i := 0; i < 2; i++ {
						comm.HandleMessage(c.id, move(c.id, c.value()))
					}
					b.ResetTimer()
					var total time.Duration
					for i := 0; i < b.N; i++ {
						before := clock.count
						t0 := time.Now()
						if !comm.HandleMessage(c.id, move(c.id, c.value())) {
							b.Fatal("the control's comm is not open")
						}
						if clock.count == before {
							b.Fatal("the Output sent no update")
						}
						total += clock.sent.Sub(t0)
						if errs := errorsIn(out); errs != "" {
							b.Fatal(errs)
						}
					}
					b.ReportMetric(float64(total.Microseconds())/1e3/float64(b.N), "ms/move")
				})
			}
		})
	}
}

// envScale reads GRAPHNB_EXPLORE_SCALE.
func envScale() (int, bool) {
	s, err := strconv.Atoi(os.Getenv("GRAPHNB_EXPLORE_SCALE"))
	return s, err == nil && s > 1
}

// errorsIn returns the error outputs of o, "" when there are none.
func errorsIn(o *widgets.Output) string {
	s := ""
	for _, out := range o.Outputs() {
		if out["output_type"] == "error" {
			s += fmt.Sprint(out["ename"], ": ", out["evalue"], "\n")
		}
	}
	return s
}
