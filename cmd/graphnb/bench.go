package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/graphnb/graphnb/bench"
	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/plots"
)

const benchSynopsis = `bench ALGO FAMILY [flags]
       graphnb bench -spec SWEEP.json|SWEEP.yaml [flags]
       graphnb bench -list

Runs a TEPS sweep: every variant on every graph of FAMILY, from several
roots, each result validated; writes the table as JSON (always: -o, or
standard output), optionally CSV and a chart, and prints it as text.

ALGO:    bfs | sssp | mst | apsp | densebf
FAMILY:  rmat | ssca2 (with -scales), a template such as er:{n}:0.01
         (with -sizes) or rmat:{scale}:8 (with -scales), or one graph
         (a spec such as grid:64x64, or a file)
SWEEP:   JSON or YAML with the fields of the flags: {"algo": "sssp",
         "family": "rmat", "scales": [14,15,16], "variants":
         ["cpu/dijkstra"], "roots": 32}, or the YAML lines algo: sssp,
         family: rmat, scales: 14-16, variants: cpu/dijkstra, roots: 32;
         flags given on the command line override it.

PEERS:   -peer NAME=COMMAND (repeatable) runs another program after the
         sweep, once per graph, through sh -c with {scale}, {n}, {roots}
         and {file} (the graph as an ECL .egr file) substituted, and adds
         its figure as a row "peer: NAME". NAME starts with the output's
         kind (gapbs-bfs, gapbs-sssp, ecl-mst, seedref) or is NAME:KIND.
         A failing peer adds no row; the sweep's rows are still written.

Ctrl-C stops the sweep at the next run; what was measured is still written.

` + groupHelp

// benchFlags are the flags of "graphnb bench".
type benchFlags struct {
	scales, sizes, variants     string
	roots, reps, edgeFactor     int
	weights, name, device, spec string
	seed                        uint64
	permute, symmetrize         bool
	noValidate, quiet, list     bool
	out, csv, runsCSV, chart    string
	baseline, speedupChart      string
	from                        string
	peers                       []bench.Peer
	peerTimeout                 time.Duration
	group                       groupFlags
}

func (f *benchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.scales, "scales", "", "log2 vertex counts: 14, 10-16, 14-24:2 or 8,10,12")
	fs.StringVar(&f.sizes, "sizes", "", "values of {n} in a FAMILY template, same syntax as -scales")
	fs.StringVar(&f.variants, "variants", "", "comma-separated variant names (default: every variant of ALGO; see -list); with -from, the curves to keep (names or labels)")
	fs.IntVar(&f.roots, "roots", 0, "search roots per graph for bfs and sssp (0: 64, Graph500's count; the studies use 32)")
	fs.IntVar(&f.reps, "reps", 0, "runs per root (bfs, sssp; 0: 1) or per graph (mst, apsp; 0: 3)")
	fs.IntVar(&f.edgeFactor, "ef", 0, "R-MAT edge factor (0: 16)")
	fs.StringVar(&f.weights, "weights", "", "generated weights: uniform, int:MAX or none (default: none for bfs, uniform otherwise)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the generators and of the roots (0: 1)")
	fs.BoolVar(&f.permute, "permute", false, "relabel R-MAT vertices randomly, as Graph500 does (default: on for bfs and sssp on rmat, Graph500's rules; -permute=false keeps the generator's labels)")
	fs.BoolVar(&f.symmetrize, "symmetrize", false, "read a directed file as an undirected graph")
	fs.BoolVar(&f.noValidate, "no-validate", false, "skip validating each result with the independent checker")
	fs.StringVar(&f.name, "name", "", "title of the result table (default: ALGO on FAMILY)")
	fs.StringVar(&f.device, "device", "", "host, or a CUDA device number (default: the first GPU, else the host; GRAPHNB_DEVICE)")
	fs.StringVar(&f.spec, "spec", "", "read the sweep from a JSON or YAML file")
	fs.StringVar(&f.out, "o", "-", "write the JSON result table to this file (-: standard output)")
	fs.StringVar(&f.csv, "csv", "", "also write one CSV record per variant and graph to this file")
	fs.StringVar(&f.runsCSV, "runs-csv", "", "also write one CSV record per run to this file")
	fs.StringVar(&f.chart, "png", "", "also draw the chart (TEPS vs vertices; time vs n for apsp) to this file (.png, .svg or .pdf)")
	fs.StringVar(&f.baseline, "baseline", "", "also print the speedup of every variant over this one (a name or a label)")
	fs.StringVar(&f.speedupChart, "speedup-png", "", "with -baseline: draw the speedup chart to this file")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&f.list, "list", false, "list the variant names and exit")
	fs.Func("peer", "NAME=COMMAND or NAME:KIND=COMMAND: also run this peer program once per graph, after the sweep (repeatable; see PEERS above)", func(s string) error {
		p, err := bench.ParsePeer(s)
		if err == nil {
			f.peers = append(f.peers, p)
		}
		return err
	})
	fs.DurationVar(&f.peerTimeout, "peer-timeout", bench.DefaultPeerTimeout, "stop a peer program that runs longer than this, per graph")
	f.group.register(fs, "bench")
	fs.StringVar(&f.from, "from", "", "run nothing: reload these comma-separated result files (JSON written by -o), merged in order (a point of a later file replaces the same variant and graph of an earlier one), and print, chart and export them")
}

func cmdBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", benchSynopsis)
	var f benchFlags
	f.register(fs)
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if f.list {
		listVariants(stdout)
		return nil
	}
	if f.from != "" {
		if len(f.peers) > 0 {
			return usagef("bench: -peer runs with a sweep, not with -from (a reloaded file keeps the peers' rows it has)")
		}
		return f.replot(stdout, stderr)
	}
	sp, err := f.sweepSpec(fs, pos)
	if err != nil {
		return err
	}
	sweep, err := sp.Sweep()
	if err != nil {
		return usageError{err.Error()}
	}
	if !f.group.none() && len(sp.Variants) == 0 { // every variant that runs over a group
		if sweep.Variants, err = bench.GroupVariants(sweep.Algo); err != nil {
			return usageError{err.Error()}
		}
	}
	if err := sweep.Validate(); err != nil {
		return usageError{err.Error()}
	}
	if f.speedupChart != "" && f.baseline == "" {
		return usagef("bench: -speedup-png needs -baseline")
	}
	if f.baseline != "" { // refused now, not after the sweep has run
		algo := sweep.Algo
		if algo == "" && len(sweep.Variants) > 0 {
			algo = sweep.Variants[0].Algo
		}
		want := baselineLabel(algo, f.baseline)
		var labels []string
		for _, v := range sweep.Variants {
			labels = append(labels, v.Label)
		}
		if !slices.Contains(labels, want) {
			return usagef("bench: -baseline %q is not a variant of this sweep; use one of its names or labels: %s", f.baseline, strings.Join(labels, ", "))
		}
	}
	grp, closeGroup, done, err := f.group.start(f.device, args, stdout, stderr)
	if done || err != nil {
		return err
	}
	defer closeGroup()
	dev, err := f.openDevice()
	if err != nil {
		return err
	}
	if grp != nil {
		sweep.Group = grp
	}
	leader := f.group.leader() // the other ranks write nothing
	f.quiet = f.quiet || !leader

	var progress func(done, total int64)
	var bar *display.Progress
	if !f.quiet {
		bar = display.NewProgress(sweepName(sweep), 0)
		progress = bar.Callback()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	unbind := cancel.Bind(ctx)
	tab, runErr := sweep.Run(dev, progress)
	unbind()
	interrupted := errors.Is(runErr, cancel.ErrInterrupted)
	if interrupted {
		cancel.Clear()
	}
	if bar != nil {
		bar.Done()
	}
	if tab == nil { // the sweep was malformed (Validate caught it above)
		return usageError{runErr.Error()}
	}
	tab.Meta.Command = commandLine(args)
	if !leader {
		return runErr
	}
	var peerErr error
	if len(f.peers) > 0 && !interrupted {
		peerErr = f.runPeers(ctx, sweep, tab, stderr)
	}
	stop()
	if err := f.write(tab, stdout, stderr); err != nil {
		return err
	}
	where := "standard output"
	if f.out != "-" {
		where = f.out
	}
	if runErr != nil {
		return fmt.Errorf("%w (the runs measured before it are in %s)", runErr, where)
	}
	if peerErr != nil {
		return fmt.Errorf("%w\n(the sweep's rows and the other peers' are in %s)", peerErr, where)
	}
	return nil
}

// runPeers runs the -peer programs over the sweep's graphs, adding their
// rows to tab; a line per command goes to log unless -quiet.
func (f *benchFlags) runPeers(ctx context.Context, sweep bench.Sweep, tab *bench.Table, log io.Writer) error {
	peers := slices.Clone(f.peers)
	for i := range peers {
		peers[i].Timeout = f.peerTimeout
	}
	if f.quiet {
		log = nil
	}
	return sweep.RunPeers(ctx, tab, peers, log)
}

// sweepSpec gathers the sweep from -spec, the positional arguments and
// the flags set on the command line (which win).
func (f *benchFlags) sweepSpec(fs *flag.FlagSet, pos []string) (bench.Spec, error) {
	var sp bench.Spec
	if f.spec != "" {
		var err error
		if sp, err = bench.ReadSpecFile(f.spec); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return sp, err
			}
			return sp, usageError{err.Error()}
		}
		if len(pos) != 0 && len(pos) != 2 {
			fs.Usage()
			return sp, usagef("bench: with -spec, give no ALGO FAMILY or both, not %d argument(s)", len(pos))
		}
	} else if err := wantArgs(fs, pos, "ALGO", "FAMILY"); err != nil {
		return sp, err
	}
	if len(pos) == 2 {
		sp.Algo, sp.Family = strings.ToLower(pos[0]), pos[1]
	}
	var err error
	fs.Visit(func(fl *flag.Flag) {
		if err != nil {
			return
		}
		switch fl.Name {
		case "scales":
			sp.Scales, err = bench.ParseScales(f.scales)
		case "sizes":
			sp.Sizes, err = bench.ParseScales(f.sizes)
		case "variants":
			sp.Variants = nil
			for _, v := range strings.Split(f.variants, ",") {
				if v = strings.TrimSpace(v); v != "" {
					sp.Variants = append(sp.Variants, v)
				}
			}
		case "roots":
			sp.Roots = f.roots
		case "reps":
			sp.Repetitions = f.reps
		case "ef":
			sp.EdgeFactor = f.edgeFactor
		case "weights":
			sp.Weights = f.weights
		case "seed":
			sp.Seed = f.seed
		case "permute":
			sp.Permute = &f.permute
		case "symmetrize":
			sp.Symmetrize = f.symmetrize
		case "no-validate":
			sp.NoValidate = f.noValidate
		case "name":
			sp.Name = f.name
		}
	})
	if err != nil {
		return sp, usageError{err.Error()}
	}
	if sp.Roots < 0 || sp.Repetitions < 0 {
		return sp, usagef("bench: -roots and -reps must not be negative")
	}
	return sp, nil
}

// openDevice resolves -device.
func (f *benchFlags) openDevice() (*gpu.Device, error) {
	switch d := strings.TrimSpace(f.device); d {
	case "":
		return gpu.Default(), nil
	case "host", "cpu":
		return gpu.Host(), nil
	default:
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return nil, usagef("bench: -device %q: use host or a CUDA device number (0, 1, …)", d)
		}
		return gpu.Open(n)
	}
}

// write saves the table where the flags say and prints it: the text
// table (and speedups) go to standard output, or to standard error when
// the JSON goes to standard output.
func (f *benchFlags) write(tab *bench.Table, stdout, stderr io.Writer) error {
	text := stdout
	if f.out == "-" {
		text = stderr
		if err := tab.WriteJSON(stdout); err != nil {
			return err
		}
	} else if err := writeFile(f.out, tab.WriteJSON); err != nil {
		return err
	}
	if f.csv != "" {
		if err := writeFile(f.csv, tab.WriteCSV); err != nil {
			return err
		}
	}
	if f.runsCSV != "" {
		if err := writeFile(f.runsCSV, tab.WriteRunsCSV); err != nil {
			return err
		}
	}
	if f.chart != "" && len(tab.Rows) > 0 {
		c := plots.TEPS(tab)
		if tab.Meta.Algo == "apsp" {
			c = plots.TimeVsN(tab)
		}
		if err := c.Save(f.chart); err != nil {
			return fmt.Errorf("bench: chart: %w", err)
		}
	}
	fmt.Fprint(text, tab.String())
	if f.baseline != "" {
		st := tab.Speedup(baselineLabel(tab.Meta.Algo, f.baseline))
		fmt.Fprint(text, "\n"+st.String())
		if f.speedupChart != "" && st.Err == nil && len(st.Rows) > 0 {
			if err := plots.Speedup(st).Save(f.speedupChart); err != nil {
				return fmt.Errorf("bench: speedup chart: %w", err)
			}
		}
	}
	return nil
}

// replot reloads the -from result files, merges them and writes them
// as a fresh sweep would (text table, -png, -csv, -baseline, -o).
func (f *benchFlags) replot(stdout, stderr io.Writer) error {
	var tab *bench.Table
	for _, path := range strings.Split(f.from, ",") {
		t, err := bench.LoadFile(strings.TrimSpace(path))
		if err != nil {
			return fmt.Errorf("bench: -from: %w", err)
		}
		if tab == nil {
			tab = t
			continue
		}
		if t.Meta.Algo != tab.Meta.Algo {
			return usagef("bench: -from: %s holds %s results, the first file %s ones: merge files of one algorithm", path, t.Meta.Algo, tab.Meta.Algo)
		}
		tab = tab.Merge(t)
	}
	if f.name != "" {
		tab.Meta.Name = f.name
	}
	if f.variants != "" { // keep these curves (registry names or labels)
		var labels []string
		for _, v := range strings.Split(f.variants, ",") {
			if v = strings.TrimSpace(v); v != "" {
				labels = append(labels, baselineLabel(tab.Meta.Algo, v))
			}
		}
		kept := tab.Filter(labels...)
		if len(kept.Rows) == 0 {
			return usagef("bench: -from with -variants %s: no row of those variants (the files hold %s)", f.variants, strings.Join(tab.Variants(), ", "))
		}
		tab = kept
	}
	if f.out == "-" && f.chart+f.csv+f.speedupChart != "" {
		f.out = os.DevNull // outputs were asked for: do not echo the JSON
	}
	return f.write(tab, stdout, stderr)
}

// baselineLabel turns a registry name into its variant's label; anything
// else is taken as a label.
func baselineLabel(algo, name string) string {
	if v, err := bench.Lookup(algo, name); err == nil {
		return v.Label
	}
	return name
}

// writeFile creates path and fills it with write.
func writeFile(path string, write func(io.Writer) error) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// listVariants prints every registered variant: its name (what -variants
// takes), its label (what tables and charts show) and what it is.
func listVariants(w io.Writer) {
	nameWidth, labelWidth := 0, 0
	for _, e := range bench.Entries("") {
		nameWidth = max(nameWidth, len(e.Name))
		labelWidth = max(labelWidth, utf8.RuneCountInString(e.New().Label))
	}
	fmt.Fprintf(w, "  %-*s  %-*s  %s\n", nameWidth, "NAME (-variants)", labelWidth, "LABEL (tables, charts)", "WHAT")
	for _, algo := range bench.Algos() {
		fmt.Fprintf(w, "%s\n", algo)
		for _, e := range bench.Entries(algo) {
			label := e.New().Label
			fmt.Fprintf(w, "  %-*s  %s%*s  %s\n", nameWidth, e.Name, label, labelWidth-utf8.RuneCountInString(label), "", e.Doc)
		}
	}
}

func sweepName(s bench.Sweep) string {
	if s.Name != "" {
		return s.Name
	}
	return s.Algo + " sweep"
}

// commandLine renders the arguments as a shell would need them.
func commandLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'\\$*?{}&|;<>()") {
			a = strconv.Quote(a)
		}
		q[i] = a
	}
	return strings.TrimSpace("graphnb bench " + strings.Join(q, " "))
}
