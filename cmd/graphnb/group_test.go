package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/bench"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/internal/fakegpu"
	"github.com/graphnb/graphnb/launch"
)

func TestGroupFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "bfs", "path:10", "-gpus", "2", "-ranks", "2"}, "run: -gpus 2 and -ranks 2: choose one"},
		{[]string{"run", "bfs", "path:10", "-gpus", "-1"}, "run: -gpus and -ranks take a number of GPUs ≥ 1"},
		{[]string{"run", "bfs", "path:10", "-world", "4"}, "run: -rendezvous, -rank-base and -world go with -ranks"},
		{[]string{"run", "bfs", "path:10", "-ranks", "2", "-rank-base", "2"}, "run: -rank-base 2 needs -world"},
		{[]string{"run", "bfs", "path:10", "-ranks", "2", "-rank-base", "3", "-world", "4"}, "makes ranks up to 4, more than -world 4"},
		{[]string{"run", "bfs", "path:10", "-ranks", "2", "-world", "4"}, "-world 4 over several hosts needs -rendezvous tcp:HOST:PORT"},
		{[]string{"bench", "bfs", "path:10", "-quiet", "-gpus", "2", "-device", "1"}, "bench: -device 1 with a group"},
		{[]string{"bench", "bfs", "path:10", "-quiet", "-rendezvous", "tcp:h:1"}, "bench: -rendezvous, -rank-base and -world go with -ranks"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestGroupRankEnv: a rank process whose environment does not fit its
// flags, or is malformed, says so.
func TestGroupRankEnv(t *testing.T) {
	t.Setenv(launch.EnvRank, "0")
	t.Setenv(launch.EnvRanks, "3")
	t.Setenv(launch.EnvRendezvous, "file:"+filepath.Join(t.TempDir(), "id"))
	code, _, stderr := runCLI("run", "bfs", "path:10", "-ranks", "2")
	if want := "-ranks: this process is rank 0 of 3 (GPU 0), but the flags make a group of 2"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	t.Setenv(launch.EnvRank, "x")
	code, _, stderr = runCLI("run", "bfs", "path:10", "-ranks", "2")
	if want := `GRAPHNB_RANK="x": want a whole number`; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}

// TestGraphnbProcess is graphnb itself in the rank processes the fake-GPU
// tests start (selfCommand runs this test binary with it).
func TestGraphnbProcess(t *testing.T) {
	if _, ok, _ := launch.FromEnv(); !ok {
		t.Skip("graphnb's rank processes in the fake-GPU group tests")
	}
	os.Exit(run(flag.Args(), os.Stdout, os.Stderr))
}

// TestGroupLabels requires a label for every algorithm that runs over a
// group, saying so: "graphnb run" prints it instead of the CPU method's.
func TestGroupLabels(t *testing.T) {
	for name := range groupAlgorithms {
		if l := groupLabels[name]; !strings.Contains(l, "over the group") {
			t.Errorf("%s runs over a group, labelled %q", name, l)
		}
	}
	if len(groupLabels) != len(groupAlgorithms) {
		t.Errorf("%d group labels for %d group algorithms", len(groupLabels), len(groupAlgorithms))
	}
}

// TestFakeGPUGroup runs the group flags on two fake GPUs with the fake
// NCCL: -gpus in one process, -ranks as processes of this test binary.
func TestFakeGPUGroup(t *testing.T) {
	fakegpu.RunN(t, "TestFakeGPUGroupChild", 3*time.Minute, 2, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("../../algo/bfs/testdata/fake_multi.cpp", "-I../../algo/bfs"),
			b.CXX("../../algo/sssp/testdata/fake_kernels.cpp", "-I../../algo/sssp"), b.CXX("../../algo/sssp/testdata/fake_resident.cpp", "-I../../algo/sssp"),
			b.CXX("../../algo/sssp/testdata/fake_check.cpp", "-I../../algo/sssp"), b.CXX("../../algo/mst/testdata/fake_check.cpp", "-I../../algo/mst"),
			b.CXX("../../graph/gen/gpugen/testdata/fake_kernels.cpp", "-I../../graph/gen/gpugen"), b.CXX("../../gpu/transform/testdata/fake_kernels.cpp")} // run over a group generates R-MAT on the GPUs
	})
}

func TestFakeGPUGroupChild(t *testing.T) {
	fakegpu.Device(t)
	checkGroups(t, 2, "Fake")

	// a rank that dies while joining: the other is stopped, the error
	// names the rank and its exit status
	t.Setenv("FAKE_NCCL_FAIL", "rank=1,op=0,mode=exit")
	start := time.Now()
	code, _, stderr := runCLI("run", "bfs", "path:100", "-roots", "1", "-ranks", "2")
	if want := "launch: rank 1 (GPU 1) failed: exit status 3; rank 0 was stopped"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("a rank dies: exit %d, want 1 and %q on stderr:\n%s", code, want, stderr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("a rank died: the launcher ended after %v", d)
	}

	// a rank that never joins: both fail at the timeout, with NCCL's
	// error, and the launcher quotes the first
	t.Setenv("FAKE_NCCL_FAIL", "rank=1,op=0,mode=stall")
	t.Setenv("GRAPHNB_NCCL_TIMEOUT", "2s")
	code, _, stderr = runCLI("run", "bfs", "path:100", "-roots", "1", "-ranks", "2")
	if want := "failed: exit status 1"; code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "timed out") {
		t.Errorf("a rank never joins: exit %d, want 1, %q and a timeout on stderr:\n%s", code, want, stderr)
	}
	t.Log(stderr)
}

// TestGPUGroup runs the group flags on the GPUs of a machine that has
// two or more (the GPU machine: ops/gpu-test.sh with TESTRUN=TestGPUGroup).
func TestGPUGroup(t *testing.T) {
	if fakegpu.IsChild() {
		t.Skip("the fake GPU's test is TestFakeGPUGroup")
	}
	devs, err := gpu.Devices()
	if len(devs) < 2 {
		t.Skipf("needs two GPUs: this machine has %d (%v)", len(devs), err)
	}
	checkGroups(t, len(devs), "")
}

// checkGroups runs the group flags on a machine of n GPUs whose names
// start with name: -gpus 1 and 2, -ranks 1 and 2 (file and TCP
// rendezvous), bench with -ranks 2, and too many of either.
func checkGroups(t *testing.T, n int, name string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	selfCommand = func(args []string) ([]string, error) {
		return append([]string{exe, "-test.run=^TestGraphnbProcess$", "--"}, args...), nil
	}
	bfs := []string{"run", "bfs", "path:100", "-roots", "1"}
	ok := func(name string, args []string, wants ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(append(append([]string(nil), bfs...), args...)...)
		if code != 0 {
			t.Errorf("%s: %v: exit %d\nstdout:\n%s\nstderr:\n%s", name, args, code, stdout, stderr)
		}
		for _, w := range wants {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: %v: stdout lacks %q:\n%s", name, args, w, stdout)
			}
		}
		return stdout
	}
	fails := func(name string, args []string, want string) {
		t.Helper()
		code, stdout, stderr := runCLI(append(append([]string(nil), bfs...), args...)...)
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("%s: %v: exit %d, want 1 and %q on stderr\nstdout:\n%s\nstderr:\n%s", name, args, code, want, stdout, stderr)
		}
	}

	ok("one GPU in process", []string{"-gpus", "1"}, "group  group of 1 rank: 0 "+name)
	// -trace: every algorithm over the group prints its trace's table.
	for _, algo := range []string{"bfs", "sssp", "mst"} {
		code, stdout, stderr := runCLI("run", algo, "rmat:8", "-roots", "1", "-gpus", "2", "-trace")
		if code != 0 || !strings.Contains(stdout, "2 rank") || !strings.Contains(stdout, "    step  kind") || !strings.Contains(stdout, "over the group") {
			t.Errorf("run %s -gpus 2 -trace: exit %d, want a trace over 2 ranks\nstdout:\n%s\nstderr:\n%s", algo, code, stdout, stderr)
		}
	}
	ok("two GPUs in process", []string{"-gpus", "2"}, "group  group of 2 ranks: 0 "+name, ", 1 "+name)
	too := fmt.Sprintf(" %d: this machine has %d GPUs", n+1, n)
	fails("too many GPUs", []string{"-gpus", strconv.Itoa(n + 1)}, "-gpus"+too)
	fails("too many ranks", []string{"-ranks", strconv.Itoa(n + 1)}, "-ranks"+too)
	ok("one rank", []string{"-ranks", "1"}, "group  group of 1 rank: 0 "+name, "valid")
	out := ok("two ranks", []string{"-ranks", "2"}, "group  group of 2 ranks (1 in this process): 0 "+name, "valid")
	if n := strings.Count(out, "algo "); n != 1 {
		t.Errorf("two ranks: %d algo lines on stdout, want rank 0's only:\n%s", n, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ok("two ranks over TCP", []string{"-ranks", "2", "-rendezvous", "tcp:" + addr}, "group  group of 2 ranks (1 in this process)")

	// bench: rank 0 writes the table, the others nothing; the default
	// variants are the group ones, every run validated on the devices
	dir := t.TempDir()
	for _, flags := range [][]string{{"-ranks", "2"}, {"-gpus", "2"}} {
		out := filepath.Join(dir, flags[0]+".json")
		code, stdout, stderr := runCLI(append([]string{"bench", "bfs", "grid:8x8", "-roots", "2", "-quiet", "-o", out}, flags...)...)
		if code != 0 {
			t.Errorf("bench %v: exit %d\nstdout:\n%s\nstderr:\n%s", flags, code, stdout, stderr)
			continue
		}
		tab, err := bench.LoadFile(out)
		if err != nil {
			t.Errorf("bench %v wrote no table: %v", flags, err)
			continue
		}
		if tab.Meta.Ranks != 2 || len(tab.Rows) != 2 {
			t.Errorf("bench %v: %d ranks, %d rows; want 2 and the 2 group variants", flags, tab.Meta.Ranks, len(tab.Rows))
		}
		for _, r := range tab.Rows {
			if r.Checker != "device" || len(r.Runs) != 2 || !r.Runs[0].Validated {
				t.Errorf("bench %v: %s: checker %q, %d runs; want 2 validated on the devices", flags, r.Variant, r.Checker, len(r.Runs))
			}
		}
	}
	for _, flags := range [][]string{{"-gpus", "2"}, {"-ranks", "2"}} {
		// R-MAT is generated split, on the GPUs (the graph line names the group)
		code, stdout, stderr := runCLI(append([]string{"run", "sssp", "rmat:8", "-roots", "2"}, flags...)...)
		if code != 0 || strings.Count(stdout, "(reached") != 2 || !strings.Contains(stdout, "valid") || !strings.Contains(stdout, "arcs over a group of 2 ranks") {
			t.Errorf("run sssp %v: exit %d\nstdout:\n%s\nstderr:\n%s", flags, code, stdout, stderr)
		}
	}
	for _, flags := range [][]string{{"-gpus", "2"}, {"-ranks", "2"}} {
		code, stdout, stderr := runCLI(append([]string{"run", "mst", "rmat:8"}, flags...)...)
		if code != 0 || !strings.Contains(stdout, "trees,") || !strings.Contains(stdout, "valid") {
			t.Errorf("run mst %v: exit %d\nstdout:\n%s\nstderr:\n%s", flags, code, stdout, stderr)
		}
	}
	if code, _, stderr := runCLI("run", "apsp", "grid:4x4", "-gpus", "2"); code != 2 || !strings.Contains(stderr, "over a group: bfs, mst, sssp") {
		t.Errorf("run apsp -gpus 2: exit %d, %s; want a refusal listing bfs, mst and sssp", code, stderr)
	}
	code, _, stderr := runCLI("bench", "bfs", "grid:8x8", "-roots", "2", "-quiet", "-gpus", "2", "-variants", "cpu/do", "-o", filepath.Join(dir, "x.json"))
	if code == 0 || !strings.Contains(stderr, "does not run over a group") {
		t.Errorf("bench -gpus 2 -variants cpu/do: exit %d, %s; want a refusal naming the group variants", code, stderr)
	}
}
