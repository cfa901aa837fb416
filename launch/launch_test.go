package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu/nccl"
)

func TestFromEnv(t *testing.T) {
	base := map[string]string{EnvRank: "1", EnvRanks: "4", EnvLocalRank: "1", EnvDevice: "3", EnvRendezvous: "tcp:node0:29500", EnvRunID: "abc"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "<unset>" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	lookup := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	r, ok, err := fromLookup(lookup(base))
	want := Rank{Rank: 1, Size: 4, Local: 1, Device: 3, Rendezvous: "tcp:node0:29500", RunID: "abc"}
	if err != nil || !ok || r != want {
		t.Fatalf("fromLookup = %+v, %v, %v; want %+v", r, ok, err, want)
	}
	if r, _, _ := fromLookup(lookup(with(EnvDevice, "<unset>"))); r.Device != 1 {
		t.Errorf("without %s the device is %d, want the local rank 1", EnvDevice, r.Device)
	}
	if _, ok, err := fromLookup(lookup(map[string]string{EnvRanks: "4"})); ok || err != nil {
		t.Errorf("without %s: ok %v, err %v; want not a rank, no error", EnvRank, ok, err)
	}
	bad := []struct {
		env  map[string]string
		want string
	}{
		{with(EnvRank, "x"), `GRAPHNB_RANK="x": want a whole number ≥ 0`},
		{with(EnvRank, "-1"), `GRAPHNB_RANK="-1"`},
		{with(EnvRank, "4"), "GRAPHNB_RANK=4 with GRAPHNB_RANKS=4: want 0 ≤ rank < ranks"},
		{with(EnvRanks, "0"), `GRAPHNB_RANKS="0": want a whole number ≥ 1`},
		{with(EnvRanks, "<unset>"), "GRAPHNB_RANK is set but GRAPHNB_RANKS is not"},
		{with(EnvLocalRank, "one"), `GRAPHNB_LOCAL_RANK="one"`},
		{with(EnvDevice, "gpu1"), `GRAPHNB_DEVICE="gpu1"`},
		{with(EnvRendezvous, "<unset>"), "GRAPHNB_RENDEZVOUS: no rendezvous; want file:PATH or tcp:HOST:PORT"},
		{with(EnvRendezvous, "udp:x:1"), `unknown kind "udp"`},
		{with(EnvRendezvous, "tcp:node0"), "want tcp:HOST:PORT"},
		{with(EnvRendezvous, "tcp:node0:http"), `port "http" is not a number`},
		{with(EnvRendezvous, "tcp::29500"), "no host"},
		{with(EnvRendezvous, "file:"), "want file:PATH or tcp:HOST:PORT"},
	}
	for _, c := range bad {
		_, ok, err := fromLookup(lookup(c.env))
		if !ok || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: ok %v, error %v; want one containing %q", c.env, ok, err, c.want)
		}
	}
}

// idOf is a recognisable id for a test.
func idOf(s string) nccl.UniqueID {
	var id nccl.UniqueID
	copy(id[:], s)
	return id
}

// freeTCP is a rendezvous on a port of this host free a moment ago.
func freeTCP(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no TCP on this machine: %v", err)
	}
	defer ln.Close()
	return "tcp:" + ln.Addr().String()
}

// shareAll runs ShareID for the given ranks of a group of size
// concurrently and returns their ids and errors.
func shareAll(ctx context.Context, rv, run string, size int, ranks ...int) ([]nccl.UniqueID, []error) {
	ids := make([]nccl.UniqueID, len(ranks))
	errs := make([]error, len(ranks))
	var wg sync.WaitGroup
	for i, k := range ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = ShareID(ctx, rv, run, k, size, func() (nccl.UniqueID, error) { return idOf("id of " + run), nil })
		}()
	}
	wg.Wait()
	return ids, errs
}

func TestShareID(t *testing.T) {
	for _, kind := range []string{"file", "tcp"} {
		t.Run(kind, func(t *testing.T) {
			rv := "file:" + filepath.Join(t.TempDir(), "id")
			if kind == "tcp" {
				rv = freeTCP(t)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			ids, errs := shareAll(ctx, rv, "run1", 4, 0, 1, 2, 3)
			for k := range ids {
				if errs[k] != nil || ids[k] != idOf("id of run1") {
					t.Errorf("rank %d: %v, id %.12s…; want rank 0's id", k, errs[k], ids[k])
				}
			}
			if kind == "file" {
				left, _ := filepath.Glob(strings.TrimPrefix(rv, "file:") + "*")
				if len(left) > 0 {
					t.Errorf("files left after the rendezvous: %v", left)
				}
			}
		})
	}
}

func TestShareIDMissingRank(t *testing.T) {
	for _, kind := range []string{"file", "tcp"} {
		t.Run(kind, func(t *testing.T) {
			rv := "file:" + filepath.Join(t.TempDir(), "id")
			if kind == "tcp" {
				rv = freeTCP(t)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, errs := shareAll(ctx, rv, "r", 4, 0, 2)
			if time.Since(start) > 10*time.Second {
				t.Errorf("the rendezvous took %v past its deadline", time.Since(start))
			}
			want := rv + ", rank 0 of 4: 2 of 4 ranks came (missing: 1, 3) after"
			if errs[0] == nil || !strings.Contains(errs[0].Error(), want) {
				t.Errorf("rank 0: %v; want an error containing %q", errs[0], want)
			}
			if errs[1] != nil {
				t.Errorf("rank 2 came and got %v", errs[1])
			}

			// a rank with no rank 0
			ctx, cancel = context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			_, errs = shareAll(ctx, rv, "r", 4, 3)
			want = "rank 3 of 4: no id from rank 0"
			if errs[0] == nil || !strings.Contains(errs[0].Error(), want) || !strings.Contains(errs[0].Error(), "did every rank start") {
				t.Errorf("rank 3 alone: %v; want an error containing %q", errs[0], want)
			}
		})
	}
}

func TestShareIDCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, errs := shareAll(ctx, freeTCP(t), "", 2, 0)
	if !errors.Is(errs[0], context.Canceled) || !strings.Contains(errs[0].Error(), "stopped") {
		t.Errorf("cancelled rendezvous: %v; want an error wrapping context.Canceled", errs[0])
	}
}

func TestShareIDStaleFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "id")
	if err := os.WriteFile(path, []byte(idFile("old", 2, idOf("old id"))), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, errs := shareAll(ctx, "file:"+path, "new", 2, 1)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), `of another run, "old", not "new"`) {
		t.Fatalf("with an earlier run's file: %v; want the stale file named", errs[0])
	}
	// rank 0 of the new run replaces it
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ids, errs := shareAll(ctx, "file:"+path, "new", 2, 1, 0)
	if errs[0] != nil || errs[1] != nil || ids[0] != idOf("id of new") {
		t.Errorf("new run: %v, %v, id %.10s…", errs[0], errs[1], ids[0])
	}
}

func TestShareIDTCPStrays(t *testing.T) {
	rv := freeTCP(t)
	addr := strings.TrimPrefix(rv, "tcp:")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var (
		id0 nccl.UniqueID
		err error
		wg  sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		id0, err = ShareID(ctx, rv, "run", 0, 2, func() (nccl.UniqueID, error) { return idOf("x"), nil })
	}()
	// strangers: one says something else, one says nothing, one is of
	// another run, one claims a wrong size
	var c net.Conn
	for c == nil {
		c, _ = net.Dial("tcp", addr)
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Fprintf(c, "GET / HTTP/1.0\n\n")
	b := make([]byte, 100)
	if n, _ := c.Read(b); n != 0 {
		t.Errorf("a stray connection got an answer: %q", b[:n])
	}
	c.Close()
	quiet, _ := net.Dial("tcp", addr)
	defer quiet.Close()
	other := share{rv: rendezvous{"tcp", addr}, run: "other", rank: 1, size: 2}
	if _, code, err := other.ask(ctx); code != "run" || err == nil {
		t.Errorf("another run's rank: refusal %q, %v; want refused for its run", code, err)
	}
	_, errs := shareAll(ctx, rv, "run", 3, 1)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "rank 0 refused rank 1: rank 1 was told the group has 3 ranks, rank 0 2") {
		t.Errorf("a rank of a wrong size: %v", errs[0])
	}
	ids, errs := shareAll(ctx, rv, "run", 2, 1)
	wg.Wait()
	if err != nil || errs[0] != nil || ids[0] != id0 || id0 != idOf("x") {
		t.Errorf("after strays: rank 0 %v, rank 1 %v", err, errs[0])
	}
}

func TestShareIDBadArguments(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		rv, run    string
		rank, size int
		want       string
	}{
		{"file:/tmp/x", "", 1, 2, "needs a run token (GRAPHNB_RUN_ID"},
		{"tcp:h:1", "a b", 1, 2, "no spaces"},
		{"tcp:h:1", "", 2, 2, "rank 2 of 2: want 0 ≤ rank < size"},
		{"nfs:/x", "", 0, 2, `unknown kind "nfs"`},
	} {
		if _, err := ShareID(ctx, c.rv, c.run, c.rank, c.size, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ShareID(%q, %q, %d, %d): %v; want %q", c.rv, c.run, c.rank, c.size, err, c.want)
		}
	}
}

// The rank processes of the Spawn tests are this test binary, run again
// with TestRankProcess only; GRAPHNB_TEST_MODE says what they do.
const modeEnv = "GRAPHNB_TEST_MODE"

func TestRankProcess(t *testing.T) {
	r, ok, err := FromEnv()
	if !ok {
		t.Skip("a rank process of the Spawn tests")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	mode := os.Getenv(modeEnv)
	if mode == "sleep" {
		time.Sleep(time.Minute)
	}
	if mode == "fail"+strconv.Itoa(r.Rank) {
		fmt.Fprintf(os.Stderr, "rank %d: something went wrong\nboom\n", r.Rank)
		os.Exit(3)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id, err := r.ShareID(ctx, func() (nccl.UniqueID, error) { return idOf("id of " + r.RunID), nil })
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("rank %d of %d on device %d, nvls %s: id %s\n", r.Rank, r.Size, r.Device, os.Getenv("NCCL_NVLS_ENABLE"), strings.TrimRight(string(id[:]), "\x00"))
	fmt.Fprintf(os.Stderr, "rank %d done\n", r.Rank)
	os.Exit(0)
}

func spawnTest(t *testing.T, ctx context.Context, o Options) (stdout, stderr string, err error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var o1, o2 bytes.Buffer
	err = Spawn(ctx, o, []string{exe, "-test.run=^TestRankProcess$"}, &o1, &o2)
	return o1.String(), o2.String(), err
}

func TestSpawn(t *testing.T) {
	for _, kind := range []string{"file", "tcp"} {
		t.Run(kind, func(t *testing.T) {
			o := Options{Ranks: 3, Devices: []int{2, 0, 1}, AllStdout: true, Env: []string{"NCCL_NVLS_ENABLE=1"}}
			if kind == "tcp" {
				o.Rendezvous = freeTCP(t)
			}
			stdout, stderr, err := spawnTest(t, context.Background(), o)
			if err != nil {
				t.Fatalf("Spawn: %v\nstderr:\n%s", err, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			var id string
			for k, want := range []string{"rank 0 of 3 on device 2, nvls 0: id id of ", "[rank 1] rank 1 of 3 on device 0, nvls 0: id id of ", "[rank 2] rank 2 of 3 on device 1, nvls 0: id id of "} {
				found := false
				for _, l := range lines {
					if rest, ok := strings.CutPrefix(l, want); ok {
						found = true
						if k == 0 {
							id = rest
						} else if rest != id {
							t.Errorf("rank %d got id %q, rank 0 %q", k, rest, id)
						}
					}
				}
				if !found {
					t.Errorf("no line %q… in stdout:\n%s", want, stdout)
				}
			}
			for _, want := range []string{"rank 0 done\n", "[rank 1] rank 1 done\n", "[rank 2] rank 2 done\n"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

func TestSpawnFirstStdoutOnly(t *testing.T) {
	stdout, _, err := spawnTest(t, context.Background(), Options{Ranks: 2})
	if err != nil || strings.Count(stdout, "\n") != 1 || !strings.HasPrefix(stdout, "rank 0 of 2") {
		t.Errorf("Spawn: %v; stdout %q, want rank 0's line only", err, stdout)
	}
}

func TestSpawnFailure(t *testing.T) {
	start := time.Now()
	_, stderr, err := spawnTest(t, context.Background(), Options{Ranks: 3, Grace: 300 * time.Millisecond, Env: []string{modeEnv + "=fail1"}})
	if err == nil {
		t.Fatalf("Spawn with a rank that exits 3 succeeded; stderr:\n%s", stderr)
	}
	msg := err.Error()
	for _, want := range []string{"rank 1 (GPU 1) failed: exit status 3", "rank 0 was stopped (signal: killed)", "its last lines on standard error:\n    rank 1: something went wrong\n    boom"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if !strings.Contains(stderr, "[rank 1] boom\n") {
		t.Errorf("stderr lacks rank 1's prefixed line:\n%s", stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the others were stopped after %v", d)
	}
}

func TestSpawnInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := spawnTest(t, ctx, Options{Ranks: 2, Grace: time.Second, Env: []string{modeEnv + "=sleep"}})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "rank 0 was stopped") {
		t.Errorf("cancelled Spawn: %v; want context.Canceled and the ranks stopped", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the ranks were stopped after %v", d)
	}
}

func TestSpawnOptions(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, "0 ranks: start at least one"},
		{Options{Ranks: 2, Devices: []int{0}}, "1 devices for 2 ranks"},
		{Options{Ranks: 2, Devices: []int{1, 1}}, "want distinct CUDA ordinals"},
		{Options{Ranks: 2, RankBase: 2}, "needs the size of the whole group"},
		{Options{Ranks: 2, RankBase: 3, World: 4}, "ranks 3..4 are not all in a group of 4"},
		{Options{Ranks: 2, RankBase: 2, World: 4}, "needs a rendezvous every host reaches"},
		{Options{Ranks: 2, RankBase: 2, World: 4, Rendezvous: "file:/shared/id"}, "needs a run token"},
		{Options{Ranks: 2, Rendezvous: "tcp:x"}, "want tcp:HOST:PORT"},
	} {
		if err := Spawn(context.Background(), c.o, []string{"true"}, nil, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Spawn(%+v): %v; want %q", c.o, err, c.want)
		}
	}
}

// TestSpawnHosts runs a group of 4 as two launchers of 2 ranks, as on two
// hosts: a TCP rendezvous without a run token, and a file one with.
func TestSpawnHosts(t *testing.T) {
	for _, kind := range []string{"tcp", "file"} {
		t.Run(kind, func(t *testing.T) {
			rv, run := freeTCP(t), ""
			if kind == "file" {
				rv, run = "file:"+filepath.Join(t.TempDir(), "id"), "job7"
			}
			var (
				wg   sync.WaitGroup
				outs [2]string
				errs [2]error
			)
			for h := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					o := Options{Ranks: 2, RankBase: 2 * h, World: 4, Rendezvous: rv, RunID: run, AllStdout: true}
					var stderr string
					outs[h], stderr, errs[h] = spawnTest(t, context.Background(), o)
					if errs[h] != nil {
						errs[h] = fmt.Errorf("%w\nstderr:\n%s", errs[h], stderr)
					}
				}()
			}
			wg.Wait()
			for h := range 2 {
				if errs[h] != nil {
					t.Fatalf("launcher %d: %v", h, errs[h])
				}
			}
			id := "id of " + run + "\n"
			for h, want := range [][]string{
				{"rank 0 of 4 on device 0, nvls 0: id " + id, "[rank 1] rank 1 of 4 on device 1, nvls 0: id " + id},
				{"rank 2 of 4 on device 0, nvls 0: id " + id, "[rank 3] rank 3 of 4 on device 1, nvls 0: id " + id},
			} {
				for _, w := range want {
					if !strings.Contains(outs[h], w) {
						t.Errorf("launcher %d's stdout lacks %q:\n%s", h, w, outs[h])
					}
				}
			}
		})
	}
}
