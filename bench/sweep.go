package bench

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/spec"
)

// Defaults of a Sweep's zero fields.
const (
	// DefaultRoots is Graph500's number of search roots. The studies'
	// figures use 32 (docs/studies.md, common ground); set Roots to match them.
	DefaultRoots = 64
	// DefaultEdgeFactor is the R-MAT edge factor of the studies (average
	// degree 32 once both arcs are stored).
	DefaultEdgeFactor = 16
	// DefaultUnrootedRepetitions is the number of runs per graph of an
	// unrooted algorithm when Repetitions is 0: enough for a min–max bar.
	DefaultUnrootedRepetitions = 3
)

// Version is the graphnb version recorded in result tables. The graphnb
// command sets it at start; otherwise it is read from the build
// information (module version and VCS revision), or "dev".
var Version = buildVersion()

func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += "+" + s.Value[:12]
		}
	}
	return v
}

// Sweep describes a measurement: every variant on every graph of a
// family, from several roots. The zero values of the optional fields
// give the defaults documented on each.
//
//	t, err := bench.Sweep{Algo: "sssp", Family: "rmat", Scales: bench.Scales(10, 14),
//		Variants: []bench.Variant{bench.SSSPDijkstra(), bench.SSSPDeltaStepping(0)},
//		Roots: 32}.Run(gpu.Default(), display.NewProgress("sweep", 0).Callback())
type Sweep struct {
	// Name titles the result table ("" → "ALGO on FAMILY").
	Name string
	// Algo is the algorithm ("bfs", "sssp", "mst", "apsp", …); "" takes
	// the variants' Algo. Every variant must compute it.
	Algo string
	// Variants are the curves to measure, each Label unique.
	Variants []Variant
	// Family names the graphs:
	//   - "rmat" or "ssca2": one graph per entry of Scales (R-MAT with
	//     EdgeFactor);
	//   - a graph/spec string with "{scale}" or "{n}" in it, such as
	//     "rmat:{scale}:8" or "er:{n}:0.01": one graph per entry of
	//     Scales or Sizes, substituted;
	//   - any other graph/spec string ("grid:64x64", "rome99.gr"): that
	//     one graph (Scales and Sizes must be empty).
	Family string
	// Scales are log2 vertex counts; Sizes are the values of "{n}".
	Scales []int
	Sizes  []int
	// EdgeFactor is R-MAT's edges per vertex (0 → 16).
	EdgeFactor int
	// Weights are the generated weights: "uniform" (in [0,1)),
	// "int:MAX" or "none" ("" → "none" for BFS, "uniform" otherwise).
	// Files keep their own.
	Weights string
	// Permute relabels R-MAT vertices randomly, as Graph500 does.
	Permute bool
	// Symmetrize reads a directed file as an undirected graph.
	Symmetrize bool
	// Roots is the number of search roots per graph for rooted
	// algorithms, drawn by graph.CSR.Roots among the vertices with an arc
	// (0 → DefaultRoots = 64, Graph500's count; the studies use 32).
	Roots int
	// Seed drives the generators and the choice of roots (0 → 1).
	Seed uint64
	// NoValidate skips the checkers. By default every run is validated
	// (outside the timed region) and a failed check stops the sweep.
	NoValidate bool
	// Repetitions is the number of runs per root for rooted algorithms
	// (0 → 1) and per graph for unrooted ones (0 → 3).
	Repetitions int
	// Group, when set, runs the sweep over a group of GPUs: each graph is
	// made split over the group (spec.Spec.MakeParts) and every variant
	// must have PrepareGroup. Run's dev is then ignored. With a group of
	// several processes, every process runs the same sweep.
	Group *gpu.Group
}

// point is one graph of a sweep; file marks a graph read from a file,
// which brings its own weights.
type point struct {
	scale int
	spec  string
	file  bool
}

// fileWeights describes the weights a file gave g, for Meta.Weights.
func fileWeights(g *graph.CSR) string {
	switch {
	case g.Weights64 != nil:
		return "from the file (float64)"
	case g.Weights != nil:
		return "from the file (float32)"
	}
	return "none (the file has none)"
}

// plan is a Sweep with its defaults filled in and its graphs listed.
type plan struct {
	Sweep
	rooted bool
	points []point
}

// Scales returns lo, lo+1, …, hi (nil when hi < lo).
func Scales(lo, hi int) []int {
	var s []int
	for k := lo; k <= hi; k++ {
		s = append(s, k)
	}
	return s
}

// ParseScales reads a list of whole numbers: "14" (one), "10-16" (a
// range), "14-24:2" (a range with a step), "8,10,12", or a comma list of
// those. It is how the command line and notebooks write Scales and Sizes.
func ParseScales(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		bad := func() error {
			return fmt.Errorf("bench: %q is not a list of whole numbers; write 14, 10-16, 14-24:2 or 8,10,12", s)
		}
		rng, stepText, hasStep := strings.Cut(part, ":")
		loText, hiText, isRange := strings.Cut(rng, "-")
		lo, err := strconv.Atoi(strings.TrimSpace(loText))
		if err != nil || lo < 0 {
			return nil, bad()
		}
		hi, step := lo, 1
		if isRange {
			if hi, err = strconv.Atoi(strings.TrimSpace(hiText)); err != nil {
				return nil, bad()
			}
			if hi < lo {
				return nil, fmt.Errorf("bench: %q: the range %d-%d runs backwards; write the smaller number first (%d-%d)", s, lo, hi, hi, lo)
			}
		}
		if hasStep {
			if step, err = strconv.Atoi(strings.TrimSpace(stepText)); err != nil || !isRange {
				return nil, bad()
			}
			if step < 1 {
				return nil, fmt.Errorf("bench: %q: the step %d must be at least 1 (%d-%d:2 takes every other value)", s, step, lo, hi)
			}
		}
		for k := lo; k <= hi; k += step {
			out = append(out, k)
		}
	}
	return out, nil
}

// Validate reports what is wrong with a malformed sweep (no variants,
// variants of different algorithms, a family without scales, unknown
// weights, …) without measuring anything: Run would return the same
// error before starting.
func (s Sweep) Validate() error {
	_, err := s.resolve()
	return err
}

// resolve checks the sweep, fills in the defaults and lists its graphs.
// Every error it returns is the user's to fix.
func (s Sweep) resolve() (*plan, error) {
	if len(s.Variants) == 0 {
		return nil, fmt.Errorf("bench: the sweep has no variants; add some (e.g. bench.SSSPDijkstra()) or name them (bench.Lookup)")
	}
	labels := map[string]bool{}
	for i, v := range s.Variants {
		switch {
		case v.Label == "":
			return nil, fmt.Errorf("bench: variant %d has no label", i)
		case labels[v.Label]:
			return nil, fmt.Errorf("bench: two variants are labelled %q; labels name the curves and must differ", v.Label)
		case v.Prepare == nil && v.PrepareGroup == nil:
			return nil, fmt.Errorf("bench: variant %q has no Prepare function", v.Label)
		case v.PrepareGroup == nil && s.Group != nil:
			return nil, fmt.Errorf("bench: variant %q does not run over a group of GPUs; the group variants of %s are %v", v.Label, v.Algo, groupNames(v.Algo))
		}
		labels[v.Label] = true
		if s.Algo == "" {
			s.Algo = v.Algo
		}
		if v.Algo != s.Algo {
			return nil, fmt.Errorf("bench: variant %q computes %q but the sweep measures %q", v.Label, v.Algo, s.Algo)
		}
	}
	if s.Algo == "" {
		return nil, fmt.Errorf("bench: the sweep names no algorithm (set Algo or the variants' Algo)")
	}
	p := &plan{Sweep: s, rooted: Rooted(s.Algo)}
	if p.EdgeFactor == 0 {
		p.EdgeFactor = DefaultEdgeFactor
	}
	if p.Roots == 0 {
		p.Roots = DefaultRoots
	}
	if p.Seed == 0 {
		p.Seed = 1
	}
	if p.Repetitions == 0 {
		p.Repetitions = 1
		if !p.rooted {
			p.Repetitions = DefaultUnrootedRepetitions
		}
	}
	if p.Weights == "" {
		p.Weights = "uniform"
		if p.Algo == "bfs" {
			p.Weights = "none"
		}
	}
	switch {
	case p.EdgeFactor < 0:
		return nil, fmt.Errorf("bench: edge factor %d must be positive", p.EdgeFactor)
	case p.Roots < 0:
		return nil, fmt.Errorf("bench: %d roots: the count must be positive (0 means %d)", p.Roots, DefaultRoots)
	case p.Repetitions < 0:
		return nil, fmt.Errorf("bench: %d repetitions: the count must be positive (0 means the default)", p.Repetitions)
	}
	if err := p.options().Validate(); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	fam := strings.TrimSpace(p.Family)
	if p.Name == "" {
		p.Name = defaultName(p.Algo, fam)
	}
	sub := func(key string, values []int, what string) error {
		if len(values) == 0 {
			return fmt.Errorf("bench: family %q needs %s (none given)", fam, what)
		}
		for _, v := range values {
			sp := strings.ReplaceAll(fam, key, strconv.Itoa(v))
			scale := 0
			if key == "{scale}" {
				scale = v
			}
			p.points = append(p.points, point{scale: scale, spec: sp})
		}
		return nil
	}
	if lower := strings.ToLower(fam); (lower == "rmat" || lower == "ssca2") && len(p.Sizes) > 0 {
		return nil, fmt.Errorf("bench: family %q takes Scales, not Sizes", fam)
	}
	var err error
	switch lower := strings.ToLower(fam); {
	case fam == "":
		return nil, fmt.Errorf("bench: the sweep names no graph family; use rmat, ssca2, a spec such as er:{n}:0.01, or a file")
	case lower == "rmat":
		err = sub("{scale}", p.Scales, "Scales")
		for i := range p.points {
			p.points[i].spec = fmt.Sprintf("rmat:%d:%d", p.points[i].scale, p.EdgeFactor)
		}
	case lower == "ssca2":
		err = sub("{scale}", p.Scales, "Scales")
		for i := range p.points {
			p.points[i].spec = fmt.Sprintf("ssca2:%d", p.points[i].scale)
		}
	case strings.Contains(fam, "{scale}") && strings.Contains(fam, "{n}"):
		err = fmt.Errorf("bench: family %q uses both {scale} and {n}; use one", fam)
	case strings.Contains(fam, "{scale}"):
		if len(p.Sizes) > 0 {
			return nil, fmt.Errorf("bench: family %q takes Scales, not Sizes", fam)
		}
		err = sub("{scale}", p.Scales, "Scales")
	case strings.Contains(fam, "{n}"):
		if len(p.Scales) > 0 {
			return nil, fmt.Errorf("bench: family %q takes Sizes, not Scales", fam)
		}
		err = sub("{n}", p.Sizes, "Sizes")
	default:
		if len(p.Scales) > 0 || len(p.Sizes) > 0 {
			return nil, fmt.Errorf("bench: family %q is one graph; drop Scales and Sizes, or write a template such as rmat:{scale}:16", fam)
		}
		p.points = []point{{spec: fam}}
	}
	if err != nil {
		return nil, err
	}
	for i, pt := range p.points {
		sp, err := spec.Parse(pt.spec)
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		if sp.Kind == "rmat" || sp.Kind == "ssca2" {
			p.points[i].scale = sp.Scale
		}
		p.points[i].file = sp.Kind == "file"
	}
	return p, nil
}

func (p *plan) options() spec.Options {
	return spec.Options{Seed: p.Seed, Weights: p.Weights, PermuteVertices: p.Permute, Symmetrize: p.Symmetrize}
}

// Run measures the sweep on dev (nil: gpu.Default()) and returns the
// table. progress, when not nil, is called with (0, total) at the start
// and after every run with the runs done and the runs expected (the total
// shrinks when a graph has fewer usable roots than asked); pass
// display.NewProgress("sweep", 0).Callback() for a progress bar.
//
// For each graph, in order: the graph is made (generated or read) once;
// the roots are drawn; then each variant in turn is prepared, run from
// every root (Repetitions times each), validated after every run unless
// NoValidate, and closed. Run polls cancel.Check before every run.
//
// It returns an error without measuring anything for a malformed sweep.
// Once measuring has begun, an error — a graph that cannot be made, a
// variant that fails to prepare or run, a result that fails validation
// (naming variant, graph and root), or an interrupt (errors.Is(err,
// cancel.ErrInterrupted)) — stops the sweep, and Run returns the table of
// what was measured so far together with the error; Meta.Stopped says
// why.
func (s Sweep) Run(dev *gpu.Device, progress func(done, total int64)) (*Table, error) {
	p, err := s.resolve()
	if err != nil {
		return nil, err
	}
	if s.Group != nil {
		dev = s.Group.Devices()[0]
	}
	for _, v := range p.Variants {
		if v.Prepare == nil && s.Group == nil {
			return nil, fmt.Errorf("bench: variant %q runs only over a group of GPUs: set Sweep.Group (graphnb bench -gpus N or -ranks N)", v.Label)
		}
	}
	if dev == nil {
		dev = gpu.Default()
	}
	if progress == nil {
		progress = func(int64, int64) {}
	}
	t := &Table{Meta: p.meta(dev)}
	if s.Group != nil {
		t.Meta.Ranks = s.Group.Size()
		t.Meta.Device = s.Group.String()
	}
	started := time.Now()
	perVariant := int64(p.Repetitions)
	if p.rooted {
		perVariant *= int64(p.Roots)
	}
	nv := int64(len(p.Variants))
	total := int64(len(p.points)) * nv * perVariant
	var done int64
	progress(0, total)

	err = func() (err error) {
		// graphnb's functions without an error result (Roots,
		// ComponentEdges, …) panic when interrupted.
		defer cancel.Recover(&err)
		for _, pt := range p.points {
			// One point at a time: its graph (on the device, possibly) is
			// freed before the next is made.
			if err := func() error {
				if err := cancel.Check(); err != nil {
					return fmt.Errorf("bench: before %s: %w", pt.spec, err)
				}
				t0 := time.Now()
				g, err := p.makeGraph(dev, pt)
				if err != nil {
					return fmt.Errorf("bench: making graph %s: %w", pt.spec, err)
				}
				defer g.close()
				graphTime := time.Since(t0)
				if pt.file {
					t.Meta.Weights = fileWeights(g.host)
				}
				roots := []int32{-1}
				if p.rooted {
					if roots, err = g.roots(p.Roots, p.Seed); err != nil {
						return fmt.Errorf("bench: choosing roots of %s: %w", pt.spec, err)
					}
					if len(roots) == 0 {
						return fmt.Errorf("bench: graph %s has no vertex with an arc to start from", pt.spec)
					}
					if short := int64(p.Roots - len(roots)); short > 0 {
						total -= short * nv * int64(p.Repetitions)
						progress(done, total)
					}
				}
				for _, v := range p.Variants {
					row := Row{Variant: v.Label, Scale: pt.scale, Graph: pt.spec, Vertices: g.n,
						Arcs: g.arcs, GraphTime: graphTime, GraphOnDevice: g.dev != nil || (g.parts != nil && !g.parts.Group.IsHost()), Device: t.Meta.Device, Host: t.Meta.Host.line()}
					hostCopy, err := p.measure(dev, g, v, roots, &row, func() {
						done++
						progress(done, total)
					})
					row.Stats = ComputeStats(row.Runs)
					row.CopyTime = row.RunsTime
					for _, x := range row.Runs {
						row.CopyTime -= x.Time + x.PrepTime
					}
					row.CopyTime = max(0, row.CopyTime) + hostCopy
					if len(row.Runs) > 0 || err == nil {
						t.Rows = append(t.Rows, row)
					}
					if err != nil {
						return err
					}
				}
				return nil
			}(); err != nil {
				return err
			}
		}
		return nil
	}()
	t.Meta.Elapsed = time.Since(started)
	if err != nil {
		t.Meta.Stopped = err.Error()
	}
	return t, err
}

// makeGraph makes the point's graph: on dev when it is a GPU, the
// generator has a device form and a variant can take a resident graph
// (PrepareResident), else on the host.
func (p *plan) makeGraph(dev *gpu.Device, pt point) (*pointGraph, error) {
	if p.Group != nil {
		sp, err := spec.Parse(pt.spec)
		if err != nil {
			return nil, err
		}
		pg, err := sp.MakeParts(p.Group, p.options())
		if err != nil {
			return nil, err
		}
		return &pointGraph{parts: pg, n: pg.N, arcs: pg.Arcs}, nil
	}
	resident := false
	for _, v := range p.Variants {
		resident = resident || v.PrepareResident != nil
	}
	if resident && !dev.IsHost() && !pt.file {
		sp, err := spec.Parse(pt.spec)
		if err != nil {
			return nil, err
		}
		dg, ok, err := sp.MakeOnDevice(dev, p.options())
		if err != nil {
			return nil, err
		}
		if ok {
			return &pointGraph{dev: dg, n: dg.N, arcs: dg.Arcs}, nil
		}
	}
	h, err := spec.Load(pt.spec, p.options())
	if err != nil {
		return nil, err
	}
	return &pointGraph{host: h, n: h.NumVertices(), arcs: h.NumArcs()}, nil
}

// measure prepares v on g, runs it from every root and closes it,
// appending the runs to row. hostCopy is the time spent copying a
// device-made graph to the host for a variant that needed it there.
func (p *plan) measure(dev *gpu.Device, g *pointGraph, v Variant, roots []int32, row *Row, ran func()) (hostCopy time.Duration, err error) {
	where := func(root int32, rep int) string {
		s := fmt.Sprintf("%s on %s", v.Label, row.Graph)
		if root >= 0 {
			s += fmt.Sprintf(", root %d", root)
		}
		if p.Repetitions > 1 || root < 0 {
			s += fmt.Sprintf(", repetition %d", rep+1)
		}
		return s
	}
	if err := cancel.Check(); err != nil {
		return hostCopy, fmt.Errorf("bench: before preparing %s on %s: %w", v.Label, row.Graph, err)
	}
	start := time.Now()
	defer func() { row.WallTime = time.Since(start) }()
	var r Runner
	switch {
	case g.parts != nil:
		r, err = v.PrepareGroup(g.parts)
	case g.dev != nil && v.PrepareResident != nil:
		r, err = v.PrepareResident(g.dev)
	default:
		var h *graph.CSR
		if h, hostCopy, err = g.hostCSR(); err != nil {
			return 0, fmt.Errorf("bench: copying graph %s to the host for %s: %w", row.Graph, v.Label, err)
		}
		r, err = v.Prepare(dev, h)
	}
	if err != nil {
		return hostCopy, fmt.Errorf("bench: preparing %s on %s: %w", v.Label, row.Graph, err)
	}
	if r == nil {
		return hostCopy, fmt.Errorf("bench: preparing %s on %s: Prepare returned no Runner", v.Label, row.Graph)
	}
	defer func() {
		row.DeviceBytes = max(row.DeviceBytes, r.Bytes()) // buffers a run may have added
		if s, ok := r.(standIn); ok {
			row.Ran = s.standIn()
		}
		if cerr := r.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("bench: closing %s on %s: %w", v.Label, row.Graph, cerr)
		}
	}()
	row.PrepTime, row.DeviceBytes = r.PrepTime(), r.Bytes()
	checker, canCheck := r.(Checker)
	if !p.NoValidate && !canCheck {
		return hostCopy, fmt.Errorf("bench: variant %q cannot validate its results (its Runner has no Check method); set NoValidate to measure it anyway", v.Label)
	}
	if !p.NoValidate {
		row.Checker = "cpu"
		if n, ok := r.(CheckerNamer); ok {
			row.Checker = n.CheckerName()
		}
	}
	// Results a BatchChecker holds: row.Runs[held:] are not validated
	// yet. Whatever stops the loop, they are validated before it
	// returns: a run that fails is dropped from the row with the runs
	// after it; after an interrupt they stay, marked not validated.
	batch, _ := checker.(BatchChecker)
	if p.NoValidate || batch == nil || batch.BatchSize() < 2 {
		batch = nil
	}
	held := 0
	checkHeld := func() error {
		if held == len(row.Runs) {
			return nil
		}
		t0 := time.Now()
		errs := batch.CheckKept()
		row.CheckTime += time.Since(t0)
		first := held
		for i := first; i < len(row.Runs); i++ {
			err := errors.New("the checker returned no answer for it")
			if i-first < len(errs) {
				err = errs[i-first]
			}
			if errors.Is(err, cancel.ErrInterrupted) {
				return fmt.Errorf("bench: %s: validating: %w", where(row.Runs[i].Root, row.Runs[i].Rep), err)
			}
			if err != nil {
				x := row.Runs[i]
				row.Runs = row.Runs[:held]
				return fmt.Errorf("bench: %s: the result failed validation: %w", where(x.Root, x.Rep), err)
			}
			row.Runs[i].Validated = true
			held++
		}
		return nil
	}
	defer func() {
		if batch == nil || cancel.Check() != nil {
			return
		}
		if cerr := checkHeld(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	for _, root := range roots {
		for rep := 0; rep < p.Repetitions; rep++ {
			if err := cancel.Check(); err != nil {
				return hostCopy, fmt.Errorf("bench: %s: %w", where(root, rep), err)
			}
			t0 := time.Now()
			run, err := r.Run(root)
			row.RunsTime += time.Since(t0)
			if err != nil {
				return hostCopy, fmt.Errorf("bench: %s: %w", where(root, rep), err)
			}
			run.Root, run.Rep, run.Validated = root, rep, false
			switch {
			case batch != nil:
				batch.Keep()
				row.Runs = append(row.Runs, run)
				if len(row.Runs)-held >= batch.BatchSize() {
					if err := checkHeld(); err != nil {
						return hostCopy, err
					}
				}
			case !p.NoValidate:
				t0 := time.Now()
				err := checker.Check()
				row.CheckTime += time.Since(t0)
				if err != nil {
					return hostCopy, fmt.Errorf("bench: %s: the result failed validation: %w", where(root, rep), err)
				}
				run.Validated = true
				row.Runs = append(row.Runs, run)
			default:
				row.Runs = append(row.Runs, run)
			}
			ran()
		}
	}
	return hostCopy, nil
}

// meta describes the sweep and the machine at its start.
func (p *plan) meta(dev *gpu.Device) Meta {
	m := Meta{
		Name:           p.Name,
		GraphnbVersion: Version,
		GoVersion:      runtime.Version(),
		Started:        time.Now().UTC().Truncate(time.Second),
		Device:         dev.String(),
		Algo:           p.Algo,
		Family:         strings.TrimSpace(p.Family),
		Scales:         p.Scales,
		Sizes:          p.Sizes,
		EdgeFactor:     p.EdgeFactor,
		Weights:        p.Weights,
		Permute:        p.Permute,
		Seed:           p.Seed,
		Roots:          p.Roots,
		Repetitions:    p.Repetitions,
		Validate:       !p.NoValidate,
	}
	if !p.rooted {
		m.Roots = 0
	}
	for _, v := range p.Variants {
		m.Variants = append(m.Variants, v.Label)
	}
	if in, err := dev.Info(); err == nil || in.Name != "" {
		m.DeviceInfo = in
	}
	if h, err := gpu.Host().Info(); err == nil {
		m.Host = Host{CPU: h.Name, Cores: h.SMs, MemoryBytes: h.TotalMemory, OS: runtime.GOOS, Arch: runtime.GOARCH}
	}
	return m
}

// defaultName titles a sweep: "SSSP on R-MAT", "MST on SSCA#2", "APSP
// on Erdős–Rényi G(n, 0.01)" — never the family's template syntax.
func defaultName(algo, family string) string {
	switch algo {
	case "bfs", "sssp", "mst", "apsp":
		algo = strings.ToUpper(algo)
	}
	return algo + " on " + familyName(family)
}

// familyName names a graph family for people: "R-MAT", "R-MAT (edge
// factor 8)", "Erdős–Rényi G(n, 0.01)", "grids n×n", a file's name.
func familyName(family string) string {
	switch strings.ToLower(family) {
	case "rmat":
		return "R-MAT"
	case "ssca2":
		return "SSCA#2"
	}
	if !strings.Contains(family, "{") {
		return family
	}
	plain := strings.NewReplacer("{scale}", "2^scale", "{n}", "n").Replace(family)
	kind, rest, _ := strings.Cut(plain, ":")
	args := strings.Split(rest, ":")
	switch strings.ToLower(kind) {
	case "rmat":
		if len(args) == 2 {
			return "R-MAT (edge factor " + args[1] + ")"
		}
		return "R-MAT"
	case "ssca2":
		return "SSCA#2"
	case "er":
		if len(args) == 2 {
			return "Erdős–Rényi G(" + args[0] + ", " + args[1] + ")"
		}
	case "grid":
		return "grids " + strings.ReplaceAll(rest, "x", "×")
	case "path", "star":
		return kind + "s of " + rest + " vertices"
	case "complete":
		return "complete graphs of " + rest + " vertices"
	}
	return plain
}
