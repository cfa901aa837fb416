package reorder

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

var benchScales = flag.String("reorder.scales", "20,22", "BenchmarkGPURCM: the R-MAT scales (edge factor 16, seed 1, integer weights 1..255: the MST benchmark's graph)")

// BenchmarkGPURCM measures RCMOrder on a device-resident R-MAT graph of
// each scale of -reorder.scales (20 and 22 by default; the graph of
// algo/mst's BenchmarkGPUResidentECL), after checking once that it equals
// graph.RCMOrder of the host copy (untimed). Metrics, means per iteration:
//
//	rcm_ms        RCMOrder and the Free of its results (wall): the figure
//	              to compare with host_ms
//	host_ms       graph.RCMOrder on the host copy (once, this machine's cores)
//	check_ms, components_ms, roots_ms, levels_ms, result_ms
//	              its phases (one more run with the device synchronized
//	              after each): the ids check and the chunk buffer; (degree, id) sort
//	              and components; George and Liu's rounds; the
//	              Cuthill-McKee levels; the final sort and the ids
//	rounds, search_levels, number_levels
//	              searches of George and Liu's rounds, their levels in all,
//	              and the Cuthill-McKee levels
//
// On the GPU machine:
//
//	./gpu_reorder.test -test.run '^$' -test.bench 'GPURCM' -test.benchtime 5x
func BenchmarkGPURCM(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	for _, f := range strings.Split(*benchScales, ",") {
		scale, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("-reorder.scales %q: %v", *benchScales, err)
		}
		g, err := gen.RMAT(scale, 16, gen.Seed(1), gen.Integer(255))
		if err != nil {
			b.Fatal(err)
		}
		dg, err := dev.Upload(g)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		want, _, err := graph.RCMOrder(g)
		if err != nil {
			b.Fatal(err)
		}
		host := time.Since(t0)
		newID, oldID, err := RCMOrder(dg) // compiles the kernels too
		if err != nil {
			b.Fatal(err)
		}
		got, err := newID.ToHost()
		newID.Free()
		oldID.Free()
		if err != nil {
			b.Fatal(err)
		}
		if !slices.Equal(got, want) {
			b.Fatalf("s%d: the device order differs from graph.RCMOrder at vertex %d", scale, firstDifference(got, want))
		}
		phases := phaseTimes(b, dg)
		b.Run(fmt.Sprintf("s%d", scale), func(b *testing.B) {
			var total time.Duration
			for range b.N {
				t0 := time.Now()
				newID, oldID, err := RCMOrder(dg)
				if err != nil {
					b.Fatal(err)
				}
				newID.Free()
				oldID.Free()
				total += time.Since(t0)
			}
			b.ReportMetric(total.Seconds()*1e3/float64(b.N), "rcm_ms")
			b.ReportMetric(host.Seconds()*1e3, "host_ms")
			for _, p := range phases {
				b.ReportMetric(p.ms, p.name)
			}
		})
		dg.Close()
	}
}

type phaseTime struct {
	name string
	ms   float64
}

// phaseTimes runs RCMOrder once with phaseDone set and returns each
// phase's wall time and the counts, as metrics.
func phaseTimes(t testing.TB, dg *gpu.Graph) []phaseTime {
	var out []phaseTime
	var counts *order
	t0 := time.Now()
	phaseDone = func(name string, o *order) {
		now := time.Now()
		out = append(out, phaseTime{name + "_ms", now.Sub(t0).Seconds() * 1e3})
		t0, counts = now, o
	}
	defer func() { phaseDone = nil }()
	newID, oldID, err := RCMOrder(dg)
	if err != nil {
		t.Fatal(err)
	}
	newID.Free()
	oldID.Free()
	if counts != nil {
		out = append(out, phaseTime{"rounds", float64(counts.rounds)}, phaseTime{"search_levels", float64(counts.searchLevels)},
			phaseTime{"number_levels", float64(counts.numberLevels)})
	}
	return out
}
