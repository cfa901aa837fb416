package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/graphio"
	"github.com/graphnb/graphnb/graph/spec"
)

// DefaultPeerTimeout bounds one run of a peer program (Peer.Timeout 0).
const DefaultPeerTimeout = 10 * time.Minute

// PeerLabelPrefix starts the variant label of every peer row, so tables
// and charts never mistake a peer for one of graphnb's variants.
const PeerLabelPrefix = "peer: "

// PeerKinds are the output formats RunPeers can read, each a peer
// program of ../shared/peers:
//
//   - "gapbs": the GAP Benchmark Suite's bfs, sssp, … ("Average Time:"
//     seconds, "Trial Time:" per trial). Graph500 TEPS are
//     edgefactor·2^scale / time, the suite's convention; arcs/s count the
//     arcs of GAPBS's own graph ("Graph has N nodes and M undirected
//     edges": 2M arcs).
//   - "ecl-mst": ECL-MST ("Dev+:" or "Dev-:" seconds per run; the median
//     is its figure). Run it on {file}, the sweep's graph, so its rates
//     count the same arcs as graphnb's MST rows.
//   - "seedref": the studies' plain-CUDA kernels (one "…: mean X G
//     arcs/s" line per kernel, each a row; the time is arcs / rate).
var PeerKinds = []string{"gapbs", "ecl-mst", "seedref"}

// Peer is another program measured beside a sweep's variants: Command
// runs through sh -c once per graph of the sweep, with {scale} (log2 of
// the vertex count), {n} (the vertex count), {roots} (the sweep's roots
// per graph) and {file} (the sweep's graph written to a temporary .egr
// file, graphio.WriteECL) substituted, and its output is parsed by Kind.
type Peer struct {
	// Name labels the peer's rows ("peer: NAME").
	Name string
	// Kind is one of PeerKinds.
	Kind string
	// Command is the shell command template.
	Command string
	// Timeout bounds each run (0: DefaultPeerTimeout).
	Timeout time.Duration
}

// ParsePeer reads a peer as the -peer flag gives it: NAME=COMMAND, where
// NAME starts with its kind (gapbs-bfs, gapbs-sssp, ecl-mst, seedref…), or
// NAME:KIND=COMMAND.
func ParsePeer(s string) (Peer, error) {
	name, command, ok := strings.Cut(s, "=")
	name, command = strings.TrimSpace(name), strings.TrimSpace(command)
	if !ok || name == "" || command == "" {
		return Peer{}, fmt.Errorf("bench: peer %q: write NAME=COMMAND or NAME:KIND=COMMAND, e.g. gapbs-bfs='./gapbs-bfs -g {scale} -n {roots}'", s)
	}
	p := Peer{Name: name, Command: command}
	if n, kind, ok := strings.Cut(name, ":"); ok {
		p.Name, p.Kind = strings.TrimSpace(n), strings.TrimSpace(kind)
	} else {
		for _, k := range PeerKinds {
			if name == k || strings.HasPrefix(name, k+"-") {
				p.Kind = k
			}
		}
	}
	if !slices.Contains(PeerKinds, p.Kind) {
		return Peer{}, fmt.Errorf("bench: peer %q: unknown kind %q; name it after its kind (%s, e.g. gapbs-bfs) or write NAME:KIND=COMMAND", p.Name, p.Kind, strings.Join(PeerKinds, ", "))
	}
	return p, nil
}

// PeerRun describes a peer row: what ran, where, and what it printed.
type PeerRun struct {
	// Name and Kind are the Peer's.
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Command is the command as run, placeholders substituted.
	Command string `json:"command"`
	// Device is where the peer computed: the GPU it named (or the
	// sweep's device) for GPU peers, the host CPU for GAPBS.
	Device string `json:"device"`
	// Statistic says what Seconds is ("mean of 16 trials").
	Statistic string `json:"statistic"`
	// Seconds is the peer's time per run; RunSeconds every run's time
	// it printed (empty when it printed only a summary).
	Seconds    float64   `json:"seconds"`
	RunSeconds []float64 `json:"run_seconds,omitempty"`
	// TEPS is the Graph500 rate, where it applies (0 otherwise).
	TEPS float64 `json:"teps_graph500,omitempty"`
	// Wall is the command's wall time, output and graph file included.
	Wall time.Duration `json:"wall_ns"`
	// OutputTail is the last lines of its output (stdout and stderr).
	OutputTail []string `json:"output_tail"`
}

// peerFigure is one figure parsed from a peer's output: a row to be.
type peerFigure struct {
	sub       string    // names the figure among several ("sssp cache=on …"), or ""
	seconds   float64   // per run
	runs      []float64 // per-run seconds, when printed
	statistic string
	arcs      int64   // arcs of the graph the peer measured (0: the sweep's)
	g500Edges float64 // Graph500 numerator (0: none)
	device    string  // the device the peer named, or ""
}

// peerPoint is what a peer needs of one graph of the sweep.
type peerPoint struct {
	point
	n        int
	arcs     int64
	roots    int
	edgeFact int
	load     func() (*graph.CSR, error)
}

// RunPeers runs each peer once per graph of the sweep s that made t,
// appending one row per figure a peer prints (labelled "peer: NAME") and
// listing the peers in t.Meta.Peers. A peer that fails, times out or
// prints nothing it can parse adds no row: its error, naming the peer and
// quoting its output's last lines, is recorded in t.Meta.PeerErrors and
// returned (joined with the others) after every peer has had its turn.
// ctx's cancellation stops the running peer and skips the rest. log, when
// not nil, gets a line per command run.
func (s Sweep) RunPeers(ctx context.Context, t *Table, peers []Peer, log io.Writer) error {
	p, err := s.resolve()
	if err != nil {
		return err
	}
	if log == nil {
		log = io.Discard
	}
	var errs []error
	for _, pt := range p.points {
		errs = append(errs, runPeersOn(ctx, t, peers, p.peerPoint(t, pt), log)...)
	}
	return errors.Join(errs...)
}

// runPeersOn runs every peer on one graph of the sweep, appending their
// rows to t, and returns their errors. The graph's .egr file, written
// when a peer asks for {file}, is removed before it returns (at scale 22
// it is about 1 GB).
func runPeersOn(ctx context.Context, t *Table, peers []Peer, pp peerPoint, log io.Writer) []error {
	var errs []error
	var file string // the .egr file, written when a peer asks for {file}
	for _, peer := range peers {
		if err := ctx.Err(); err != nil {
			return append(errs, fmt.Errorf("bench: peers stopped before %s on %s: %w", peer.Name, pp.spec, err))
		}
		if strings.Contains(peer.Command, "{file}") && file == "" {
			f, cleanup, err := pp.writeECL()
			if err != nil {
				errs = append(errs, fmt.Errorf("bench: peer %s on %s: writing the graph for {file}: %w", peer.Name, pp.spec, err))
				continue
			}
			defer cleanup()
			file = f
		}
		rows, err := runPeer(ctx, peer, pp, file, t, log)
		t.Rows = append(t.Rows, rows...)
		for _, r := range rows {
			if !slices.Contains(t.Meta.Peers, r.Variant) {
				t.Meta.Peers = append(t.Meta.Peers, r.Variant)
			}
		}
		if err != nil {
			errs = append(errs, err)
			t.Meta.PeerErrors = append(t.Meta.PeerErrors, err.Error())
		}
	}
	return errs
}

// peerPoint gathers what the peers need of pt: its size from t's rows
// (or from the graph's scale), and a loader for {file}.
func (p *plan) peerPoint(t *Table, pt point) peerPoint {
	pp := peerPoint{point: pt, roots: p.Roots, edgeFact: p.EdgeFactor}
	if !p.rooted {
		pp.roots = p.Repetitions
	}
	for _, r := range t.Rows {
		if r.Graph == pt.spec && r.Peer == nil {
			pp.n, pp.arcs = r.Vertices, r.Arcs
			break
		}
	}
	if pp.n == 0 && pt.scale > 0 {
		pp.n = 1 << pt.scale
	}
	opts := p.options()
	pp.load = func() (*graph.CSR, error) { return spec.Load(pt.spec, opts) }
	return pp
}

// writeECL writes the point's graph (made again on the host, from the
// same seed) to a temporary .egr file, returning its path and a function
// that removes it.
func (pp *peerPoint) writeECL() (string, func(), error) {
	g, err := pp.load()
	if err != nil {
		return "", nil, err
	}
	pp.n, pp.arcs = g.NumVertices(), g.NumArcs()
	dir, err := os.MkdirTemp("", "graphnb-peer-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	path := filepath.Join(dir, "graph.egr")
	if err := graphio.Save(path, g); err != nil {
		cleanup()
		return "", nil, err
	}
	return path, cleanup, nil
}

// expand substitutes the placeholders of a peer's command; a placeholder
// the point cannot fill ({scale} of a graph without one) is an error.
func (pp *peerPoint) expand(command, file string) (string, error) {
	subs := []struct {
		key, value string
		ok         bool
	}{
		{"{scale}", strconv.Itoa(pp.scale), pp.scale > 0},
		{"{n}", strconv.Itoa(pp.n), pp.n > 0},
		{"{roots}", strconv.Itoa(pp.roots), pp.roots > 0},
		{"{file}", shellQuote(file), file != ""},
	}
	for _, s := range subs {
		if !strings.Contains(command, s.key) {
			continue
		}
		if !s.ok {
			return "", fmt.Errorf("%s has no value for graph %s", s.key, pp.spec)
		}
		command = strings.ReplaceAll(command, s.key, s.value)
	}
	return command, nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runPeer runs one peer on one graph and turns its output into rows.
func runPeer(ctx context.Context, peer Peer, pp peerPoint, file string, t *Table, log io.Writer) ([]Row, error) {
	where := fmt.Sprintf("bench: peer %s on %s", peer.Name, pp.spec)
	command, err := pp.expand(peer.Command, file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	fmt.Fprintf(log, "peer %s on %s: %s\n", peer.Name, pp.spec, command)
	out, wall, err := runCommand(ctx, command, cmp0(peer.Timeout, DefaultPeerTimeout))
	tail := lastLines(out, 12)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w; its output ends:\n%s", where, command, err, indent(tail))
	}
	figs, err := parsePeer(peer.Kind, out)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w; its output ends:\n%s", where, command, err, indent(tail))
	}
	var rows []Row
	for _, f := range figs {
		rows = append(rows, f.row(peer, pp, t, PeerRun{Name: peer.Name, Kind: peer.Kind, Command: command, Wall: wall, OutputTail: tail}))
	}
	return rows, nil
}

// cmp0 returns d, or def when d is zero or negative.
func cmp0(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// runCommand runs command through sh -c in its own process group, which
// is killed whole at the timeout or when ctx ends, and returns its
// standard output and error interleaved.
func runCommand(ctx context.Context, command string, timeout time.Duration) (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("timed out after %s (raise -peer-timeout)", timeout)
	case ctx.Err() != nil:
		err = fmt.Errorf("stopped: %w", ctx.Err())
	case err != nil:
		err = fmt.Errorf("failed: %w", err)
	}
	return out.String(), wall, err
}

// lastLines returns the last k non-empty lines of s.
func lastLines(s string, k int) []string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, " \r\t"); l != "" {
			lines = append(lines, l)
		}
	}
	return lines[max(0, len(lines)-k):]
}

func indent(lines []string) string {
	if len(lines) == 0 {
		return "  (no output)"
	}
	return "  " + strings.Join(lines, "\n  ")
}

// row makes the table row of a figure: one run at the peer's figure (so
// the mean columns show it), the extremes widened to the runs it
// printed.
func (f peerFigure) row(peer Peer, pp peerPoint, t *Table, info PeerRun) Row {
	label := PeerLabelPrefix + peer.Name
	if f.sub != "" {
		label += " (" + f.sub + ")"
	}
	arcs := cmpInt(f.arcs, pp.arcs)
	switch {
	case peer.Kind == "gapbs" && pp.scale > 0: // the suite's convention
		f.g500Edges = float64(pp.edgeFact) * float64(int64(1)<<pp.scale)
	case peer.Kind == "ecl-mst": // every edge, as graphnb's MST rows count
		f.g500Edges = float64(arcs) / 2
	}
	info.Statistic, info.Seconds, info.RunSeconds = f.statistic, f.seconds, f.runs
	info.Device = f.device
	if info.Device == "" {
		info.Device = t.Meta.Device
		onHost := strings.HasPrefix(info.Device, "host CPU")
		switch {
		case peer.Kind == "gapbs" && !onHost:
			info.Device = fmt.Sprintf("host CPU (%d cores)", t.Meta.Host.Cores)
		case peer.Kind != "gapbs" && onHost: // a GPU peer beside a sweep on the host
			info.Device = "a GPU the peer did not name"
		}
	}
	rate := func(sec float64) graph.TEPS {
		return graph.TEPS{Graph500: f.g500Edges / sec, ArcsPerSecond: float64(arcs) / sec}
	}
	run := Run{Root: -1, Time: seconds(f.seconds), TEPS: rate(f.seconds), ComponentEdges: int64(f.g500Edges)}
	info.TEPS = run.TEPS.Graph500
	r := Row{Variant: label, Scale: pp.scale, Graph: pp.spec, Vertices: pp.n, Arcs: arcs,
		Device: info.Device, Host: t.Meta.Host.line(), Runs: []Run{run}, WallTime: info.Wall, Peer: &info}
	r.Stats = ComputeStats(r.Runs)
	if len(f.runs) > 0 {
		lo, hi := extremes(f.runs)
		r.MinTime, r.MaxTime = seconds(lo), seconds(hi)
		r.MinArcsPerSecond, r.MaxArcsPerSecond = rate(hi).ArcsPerSecond, rate(lo).ArcsPerSecond
		r.MinTEPS, r.MaxTEPS = rate(hi).Graph500, rate(lo).Graph500
	}
	return r
}

func cmpInt(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}

// seconds converts seconds to a Duration.
func seconds(s float64) time.Duration { return time.Duration(s * 1e9) }

// parsePeer reads a peer's output by kind.
func parsePeer(kind, out string) ([]peerFigure, error) {
	switch kind {
	case "gapbs":
		return parseGAPBS(out)
	case "ecl-mst":
		return parseECLMST(out)
	case "seedref":
		return parseSeedref(out)
	}
	return nil, fmt.Errorf("unknown peer kind %q (known: %s)", kind, strings.Join(PeerKinds, ", "))
}

// fieldAfter returns the text after prefix on a line that starts with it.
func fieldAfter(line, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	return strings.TrimSpace(rest), ok
}

// parseGAPBS reads GAPBS's "Average Time:" (the figure), "Trial Time:"
// lines and the "Graph has N nodes and M undirected edges" line.
func parseGAPBS(out string) ([]peerFigure, error) {
	f := peerFigure{seconds: -1}
	for _, line := range strings.Split(out, "\n") {
		if v, ok := fieldAfter(line, "Average Time:"); ok {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x <= 0 {
				return nil, fmt.Errorf("gapbs: cannot read the time of %q", strings.TrimSpace(line))
			}
			f.seconds = x
		}
		if v, ok := fieldAfter(line, "Trial Time:"); ok {
			if x, err := strconv.ParseFloat(v, 64); err == nil && x > 0 {
				f.runs = append(f.runs, x)
			}
		}
		var nodes, edges int64
		if _, err := fmt.Sscanf(strings.TrimSpace(line), "Graph has %d nodes and %d undirected edges", &nodes, &edges); err == nil {
			f.arcs = 2 * edges
		} else if _, err := fmt.Sscanf(strings.TrimSpace(line), "Graph has %d nodes and %d directed edges", &nodes, &edges); err == nil {
			f.arcs = edges
		}
	}
	if f.seconds < 0 {
		return nil, fmt.Errorf("gapbs: no \"Average Time:\" line in the output")
	}
	f.statistic = "GAPBS Average Time"
	if len(f.runs) > 0 {
		f.statistic = fmt.Sprintf("mean of %d trials (GAPBS Average Time)", len(f.runs))
	}
	return []peerFigure{f}, nil
}

// parseECLMST reads ECL-MST's "Dev+:"/"Dev-:" lines (seconds per run;
// the figure is their median) and the "GPU: NAME with …" line.
func parseECLMST(out string) ([]peerFigure, error) {
	var f peerFigure
	for _, line := range strings.Split(out, "\n") {
		v, ok := fieldAfter(line, "Dev+:")
		if !ok {
			v, ok = fieldAfter(line, "Dev-:")
		}
		if ok {
			x, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(v, "s")), 64)
			if err != nil || x <= 0 {
				return nil, fmt.Errorf("ecl-mst: cannot read the time of %q", strings.TrimSpace(line))
			}
			f.runs = append(f.runs, x)
		}
		if v, ok := fieldAfter(line, "GPU:"); ok {
			f.device, _, _ = strings.Cut(v, " with ")
		}
	}
	if len(f.runs) == 0 {
		return nil, fmt.Errorf("ecl-mst: no \"Dev+:\" line in the output")
	}
	f.seconds = median(f.runs)
	f.statistic = fmt.Sprintf("median of %d runs (Dev+)", len(f.runs))
	return []peerFigure{f}, nil
}

// median returns the median of x (the mean of the middle two for an even
// count).
func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 0 {
		return (s[m-1] + s[m]) / 2
	}
	return s[m]
}

// parseSeedref reads seedref's "scale S: n=N undirected edges=M arcs=A"
// line and its "KERNEL: mean X G arcs/s …" lines, one figure each.
func parseSeedref(out string) ([]peerFigure, error) {
	var arcs, edges int64
	var names []string
	var rates []float64 // arcs per second
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "undirected edges="); i >= 0 && strings.HasPrefix(line, "scale ") {
			fmt.Sscanf(line[i:], "undirected edges=%d arcs=%d", &edges, &arcs)
			continue
		}
		name, rest, ok := strings.Cut(line, ": mean ")
		if !ok {
			continue
		}
		var g float64
		if _, err := fmt.Sscanf(rest, "%g G arcs/s", &g); err != nil || g <= 0 {
			return nil, fmt.Errorf("seedref: cannot read the rate of %q", line)
		}
		names, rates = append(names, name), append(rates, g*1e9)
	}
	if len(rates) == 0 {
		return nil, fmt.Errorf("seedref: no \"mean … G arcs/s\" line in the output")
	}
	if arcs <= 0 {
		return nil, fmt.Errorf("seedref: no \"scale …: … arcs=…\" line, so its rates cannot be turned into times")
	}
	figs := make([]peerFigure, len(rates))
	for i, r := range rates {
		figs[i] = peerFigure{sub: names[i], seconds: float64(arcs) / r, arcs: arcs, g500Edges: float64(edges),
			statistic: "mean rate over the roots (seedref); time = arcs / rate"}
	}
	return figs, nil
}
