package bench

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/card"
)

// FormatName identifies graphnb result files; Load accepts this format.
const FormatName = "graphnb-bench/1"

// Table is the result of a sweep: what was measured and where, one Row
// per variant and graph. It renders as HTML in a notebook and as text in
// a console, saves as JSON (WriteJSON, reloaded by Load) and CSV.
type Table struct {
	Meta Meta  `json:"meta"`
	Rows []Row `json:"rows"`
}

// Meta makes a result file self-describing: the sweep's parameters, the
// device and host it ran on and the software that measured it.
type Meta struct {
	// Name titles the table.
	Name string `json:"name"`
	// GraphnbVersion, GoVersion and Command (the command line, when a
	// command made the table) name the software.
	GraphnbVersion string `json:"graphnb_version"`
	GoVersion      string `json:"go_version"`
	Command        string `json:"command,omitempty"`
	// Started is when the sweep began (UTC); Elapsed its wall time,
	// graph generation and validation included.
	Started time.Time     `json:"started"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Device is the device's one-line name ("NVIDIA H100 80GB HBM3
	// (device 0)" or "host CPU (16 cores)"); DeviceInfo its description
	// (compute capability, SMs, memory, driver and NVRTC versions).
	Device     string   `json:"device"`
	DeviceInfo gpu.Info `json:"device_info"`
	// Ranks is the size of the group of GPUs the sweep ran over (0: one
	// device); Device is then rank 0's device in this process.
	Ranks int `json:"ranks,omitempty"`
	// Host describes the CPU the sweep ran on.
	Host Host `json:"host"`
	// Algo, Family, Scales, Sizes, EdgeFactor, Weights, Permute and Seed
	// describe the graphs (see Sweep).
	Algo       string `json:"algo"`
	Family     string `json:"family"`
	Scales     []int  `json:"scales,omitempty"`
	Sizes      []int  `json:"sizes,omitempty"`
	EdgeFactor int    `json:"edge_factor"`
	Weights    string `json:"weights"`
	Permute    bool   `json:"permute,omitempty"`
	Seed       uint64 `json:"seed"`
	// Roots is the number of roots asked for per graph (0 for unrooted
	// algorithms); Repetitions the runs per root (per graph when
	// unrooted); Validate whether every run was checked.
	Roots       int  `json:"roots"`
	Repetitions int  `json:"repetitions"`
	Validate    bool `json:"validate"`
	// Variants are the labels of the sweep's variants, in order.
	Variants []string `json:"variants"`
	// Stopped says why the sweep ended early ("" when it completed).
	Stopped string `json:"stopped,omitempty"`
	// Peers are the labels of the peer programs' rows ("peer: NAME",
	// Sweep.RunPeers), in order; PeerErrors the errors of the peers that
	// gave no figure.
	Peers      []string `json:"peers,omitempty"`
	PeerErrors []string `json:"peer_errors,omitempty"`
}

// Host describes the machine's CPU.
type Host struct {
	CPU         string `json:"cpu"`
	Cores       int    `json:"cores"`
	MemoryBytes int64  `json:"memory_bytes"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
}

// line describes the host in one line: "AMD EPYC, 2 cores, 23.5 GiB".
func (h Host) line() string {
	if h.CPU == "" {
		return ""
	}
	return fmt.Sprintf("%s, %d cores, %s", h.CPU, h.Cores, card.Bytes(h.MemoryBytes))
}

// Row is one variant on one graph: every run and their statistics.
type Row struct {
	// Variant is the variant's label.
	Variant string `json:"variant"`
	// Scale is log2 of the vertex count for scaled families (rmat,
	// ssca2, "{scale}" templates), 0 otherwise.
	Scale int `json:"scale"`
	// Graph is the graph/spec string that made the graph ("rmat:14:16").
	Graph string `json:"graph"`
	// Vertices and Arcs size the graph (Arcs: stored arcs, both
	// directions of an undirected edge).
	Vertices int   `json:"vertices"`
	Arcs     int64 `json:"arcs"`
	// GraphTime is the time to make the graph (generate or read it).
	GraphTime time.Duration `json:"graph_time_ns"`
	// GraphOnDevice reports that the graph was generated on the GPU (a
	// device generator: spec.MakeOnDevice) rather than on the host.
	GraphOnDevice bool `json:"graph_on_device,omitempty"`
	// PrepTime is the variant's preparation on this graph (conversion,
	// upload), excluded from the runs' times; DeviceBytes the device
	// memory it held (the larger of Runner.Bytes after Prepare and after
	// the last run).
	PrepTime    time.Duration `json:"prep_ns"`
	DeviceBytes int64         `json:"device_bytes"`
	// WallTime is the wall-clock time of the whole row: preparation,
	// runs, the work each Run does besides its timed part (downloads,
	// parents) and validation; CheckTime the validation's share.
	WallTime  time.Duration `json:"wall_ns,omitempty"`
	CheckTime time.Duration `json:"check_ns,omitempty"`
	// Checker is the checker that validated the runs: "device" (on the
	// GPU that holds the result) or "cpu"; empty when not validated.
	Checker string `json:"checker,omitempty"`
	// RunsTime is the wall-clock time of the Run calls; CopyTime its part
	// outside the runs' own times and per-run preparation: result
	// downloads and host-side bookkeeping. Table.WallTimes sums them.
	RunsTime time.Duration `json:"runs_ns,omitempty"`
	CopyTime time.Duration `json:"copy_ns,omitempty"`
	// Device and Host say where the row was measured (the sweep's device
	// and a line describing its host), so that a table merged from
	// several machines keeps each row's.
	Device string `json:"device,omitempty"`
	Host   string `json:"host,omitempty"`
	// Ran names what actually ran when it is not what Variant says: a GPU
	// variant measured on the host device runs CPU code, and Ran is its
	// results' Algorithm ("cpu Bellman-Ford (…)"). Tables and charts show
	// it beside the label (Table.Label).
	Ran string `json:"ran,omitempty"`
	// Peer, set on the rows of a peer program (Sweep.RunPeers), says
	// what ran and how its figure was read; Variant is then "peer: NAME".
	// Such a row has one run, at the peer's figure (PeerRun.Statistic),
	// with the extremes of the runs the peer printed.
	Peer *PeerRun `json:"peer,omitempty"`
	// Runs are the measurements in order.
	Runs []Run `json:"runs"`
	// Stats summarises Runs (ComputeStats).
	Stats
}

// Variants returns the variant labels in order of first appearance.
func (t *Table) Variants() []string {
	var out []string
	for _, r := range t.Rows {
		if !slices.Contains(out, r.Variant) {
			out = append(out, r.Variant)
		}
	}
	return out
}

// Filter returns a table with the same Meta and only the rows of the
// named variants (in their original order). Rows are shared, not copied.
func (t *Table) Filter(variants ...string) *Table {
	out := &Table{Meta: t.Meta}
	for _, r := range t.Rows {
		if slices.Contains(variants, r.Variant) {
			out.Rows = append(out.Rows, r)
		}
	}
	keep := func(v string) bool { return !slices.Contains(variants, v) }
	out.Meta.Variants = slices.DeleteFunc(slices.Clone(t.Meta.Variants), keep)
	out.Meta.Peers = slices.DeleteFunc(slices.Clone(t.Meta.Peers), keep)
	return out
}

// Merge returns a table with t's Meta and the rows of t followed by those
// of o, e.g. CPU results beside GPU results measured in another sweep. A
// row of o for a variant and graph that t also has replaces t's row in
// place (a point measured again: more roots, a later run), so a chart
// never shows two points of one curve at one x. Meta.Variants lists both
// tables' variants.
func (t *Table) Merge(o *Table) *Table {
	out := &Table{Meta: t.Meta, Rows: t.placedRows()}
	for _, r := range o.placedRows() {
		i := slices.IndexFunc(out.Rows, func(q Row) bool { return q.Variant == r.Variant && q.Graph == r.Graph })
		if i >= 0 {
			out.Rows[i] = r
		} else {
			out.Rows = append(out.Rows, r)
		}
	}
	out.Meta.Variants = union(t.Meta.Variants, o.Meta.Variants)
	out.Meta.Peers = union(t.Meta.Peers, o.Meta.Peers)
	out.Meta.PeerErrors = union(t.Meta.PeerErrors, o.Meta.PeerErrors)
	// The metadata names a device only when every row ran there.
	var devices []string
	for _, r := range out.Rows {
		if !slices.Contains(devices, r.Device) {
			devices = append(devices, r.Device)
		}
	}
	if len(devices) > 1 {
		out.Meta.Device = "several (see each row): " + strings.Join(devices, "; ")
		out.Meta.DeviceInfo = gpu.Info{Ordinal: -1}
		out.Meta.Host = Host{}
	}
	return out
}

// union returns a's elements followed by those of b that a lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, v := range b {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// placedRows returns a copy of t's rows with Device and Host filled in
// from Meta where a row lacks them (tables written before rows recorded
// them).
func (t *Table) placedRows() []Row {
	rows := slices.Clone(t.Rows)
	for i := range rows {
		if rows[i].Device == "" {
			rows[i].Device = t.Meta.Device
		}
		if rows[i].Host == "" {
			rows[i].Host = t.Meta.Host.line()
		}
	}
	return rows
}

// Label is the name of a variant's curve and rows: the variant's label,
// followed by what actually ran when that is something else (a GPU
// variant measured on the host device: "cache off [ran: cpu Bellman-Ford
// (…)]"), so that no chart or table names code that did not run.
func (t *Table) Label(variant string) string {
	var ran []string
	for _, r := range t.Rows {
		if r.Variant == variant && r.Ran != "" && !slices.Contains(ran, r.Ran) {
			ran = append(ran, r.Ran)
		}
	}
	if len(ran) == 0 {
		return variant
	}
	return variant + " [ran: " + strings.Join(ran, "; ") + "]"
}

// fileFormat is the JSON document: a format tag, then the table.
type fileFormat struct {
	Format string `json:"format"`
	*Table
	// WallTimes is Table.WallTimes, written for readers of the file
	// (Load recomputes it from the rows).
	WallTimes WallTimes `json:"wall_times,omitempty"`
}

// WriteJSON writes the table as an indented JSON document (format
// FormatName) that Load reads back. Durations are whole nanoseconds
// (fields ending in _ns), rates per second.
func (t *Table) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(fileFormat{Format: FormatName, Table: t, WallTimes: t.WallTimes()}); err != nil {
		return fmt.Errorf("bench: writing JSON: %w", err)
	}
	return nil
}

// Load reads a table written by WriteJSON.
func Load(r io.Reader) (*Table, error) {
	t := &Table{}
	doc := fileFormat{Table: t}
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("bench: reading a result table: %w", err)
	}
	if doc.Format != FormatName {
		return nil, fmt.Errorf("bench: not a graphnb result table (format %q, want %q)", doc.Format, FormatName)
	}
	return t, nil
}

// LoadFile reads a table from a JSON file written by WriteJSON.
func LoadFile(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer f.Close()
	t, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return t, nil
}

// CSVHeader is the header row of WriteCSV: one record per variant and
// graph. Times are in seconds, rates per second.
var CSVHeader = []string{
	"algo", "variant", "scale", "graph", "vertices", "arcs", "runs", "validated_runs",
	"prep_s", "device_bytes", "mean_time_s", "min_time_s", "max_time_s", "mean_iterations",
	"mean_arcs_per_s", "min_arcs_per_s", "max_arcs_per_s", "stddev_arcs_per_s",
	"hmean_teps_graph500", "min_teps_graph500", "max_teps_graph500", "hstddev_teps_graph500",
	"hmean_arcs_per_s", "mean_teps_graph500", "stddev_teps_graph500",
	"device", "graph_time_s", "wall_s", "runs_s", "check_s", "copy_s", "host", "ran",
}

// WriteCSV writes one record per row under CSVHeader: the statistics in
// both conventions, plus the algorithm and device so that a file holds
// what is needed to read it. The runs themselves are in WriteRunsCSV and
// the JSON.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(CSVHeader)
	for _, r := range t.Rows {
		cw.Write([]string{
			t.Meta.Algo, r.Variant, strconv.Itoa(r.Scale), r.Graph, strconv.Itoa(r.Vertices),
			strconv.FormatInt(r.Arcs, 10), strconv.Itoa(r.NumRuns), strconv.Itoa(r.NumValidated),
			secs(r.PrepTime), strconv.FormatInt(r.DeviceBytes, 10),
			secs(r.MeanTime), secs(r.MinTime), secs(r.MaxTime), num(r.MeanIterations),
			num(r.MeanArcsPerSecond), num(r.MinArcsPerSecond), num(r.MaxArcsPerSecond), num(r.StdDevArcsPerSecond),
			num(r.HarmonicMeanTEPS), num(r.MinTEPS), num(r.MaxTEPS), num(r.HarmonicStdDevTEPS),
			num(r.HarmonicMeanArcsPerSecond), num(r.MeanTEPS), num(r.StdDevTEPS),
			cmp.Or(r.Device, t.Meta.Device), secs(r.GraphTime), secs(r.WallTime), secs(r.RunsTime),
			secs(r.CheckTime), secs(r.CopyTime), cmp.Or(r.Host, t.Meta.Host.line()), r.Ran,
		})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("bench: writing CSV: %w", err)
	}
	return nil
}

// RunsCSVHeader is the header row of WriteRunsCSV: one record per run.
var RunsCSVHeader = []string{
	"variant", "scale", "graph", "vertices", "arcs", "root", "rep", "time_s", "prep_s",
	"iterations", "arcs_per_s", "teps_graph500", "component_edges", "validated",
}

// WriteRunsCSV writes every run, one record each under RunsCSVHeader.
func (t *Table) WriteRunsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(RunsCSVHeader)
	for _, r := range t.Rows {
		for _, x := range r.Runs {
			cw.Write([]string{
				r.Variant, strconv.Itoa(r.Scale), r.Graph, strconv.Itoa(r.Vertices), strconv.FormatInt(r.Arcs, 10),
				strconv.Itoa(int(x.Root)), strconv.Itoa(x.Rep), secs(x.Time), secs(x.PrepTime),
				strconv.Itoa(x.Iterations), num(x.TEPS.ArcsPerSecond), num(x.TEPS.Graph500),
				strconv.FormatInt(x.ComponentEdges, 10), strconv.FormatBool(x.Validated),
			})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("bench: writing CSV: %w", err)
	}
	return nil
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'g', 9, 64) }
func num(x float64) string        { return strconv.FormatFloat(x, 'g', 6, 64) }

// timeOnly reports whether the table's algorithm is measured by time,
// not by rates (APSP).
func (t *Table) timeOnly() bool {
	for _, r := range t.Rows {
		if r.MeanArcsPerSecond > 0 {
			return false
		}
	}
	return len(t.Rows) > 0
}

// point names a row's graph for people: "2^14" for scaled families, the
// spec otherwise.
func (r Row) point() string {
	if r.Scale > 0 {
		return fmt.Sprintf("2^%d", r.Scale)
	}
	return r.Graph
}

// ms renders a duration in milliseconds with 3 significant digits.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/1e6, 'g', 3, 64)
}

// si renders a rate with an SI prefix and no trailing space.
func si(x float64) string { return strings.TrimSpace(graph.SI(x)) }

// columns returns the header and cells of the human-readable tables.
func (t *Table) columns() ([]string, [][]string) {
	timeOnly := t.timeOnly()
	head := []string{"variant", "graph", "vertices", "runs", "mean ms", "min–max ms", "iters"}
	if !timeOnly {
		head = append(head, "arcs/s mean", "arcs/s min–max", "arcs/s sd",
			"G500 TEPS hmean", "G500 min–max", "G500 hsd")
	}
	head = append(head, "prep ms", "device mem")
	devices := false
	for _, r := range t.Rows {
		devices = devices || r.Device != t.Rows[0].Device
	}
	if devices {
		head = append(head, "device")
	}
	var rows [][]string
	for _, r := range t.Rows {
		runs := validatedText(r.Stats, r.Checker)
		if r.Peer != nil { // the runs the peer printed, not validated by graphnb
			runs = strconv.Itoa(max(1, len(r.Peer.RunSeconds))) + " peer"
		}
		c := []string{t.Label(r.Variant), r.point(), card.Count(int64(r.Vertices)), runs,
			ms(r.MeanTime), ms(r.MinTime) + "–" + ms(r.MaxTime), count(r.MeanIterations)}
		if !timeOnly {
			c = append(c, si(r.MeanArcsPerSecond), si(r.MinArcsPerSecond)+"–"+si(r.MaxArcsPerSecond), si(r.StdDevArcsPerSecond),
				si(r.HarmonicMeanTEPS), si(r.MinTEPS)+"–"+si(r.MaxTEPS), si(r.HarmonicStdDevTEPS))
		}
		mem := "–"
		if r.DeviceBytes > 0 {
			mem = card.Bytes(r.DeviceBytes)
		}
		c = append(c, ms(r.PrepTime), mem)
		if devices {
			c = append(c, r.Device)
		}
		rows = append(rows, c)
	}
	return head, rows
}

// count renders a mean count: 3 significant digits, whole numbers from
// 100 on.
func count(x float64) string {
	if x >= 100 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// writeAligned writes a text table: the first column left-aligned, the
// others right-aligned.
func writeAligned(w io.Writer, head []string, rows [][]string) {
	width := utf8.RuneCountInString(head[0])
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(r[0]))
	}
	pad := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, pad(head[0])+"\t"+strings.Join(head[1:], "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, pad(r[0])+"\t"+strings.Join(r[1:], "\t")+"\t")
	}
	tw.Flush()
}

// validatedText is the run count, with a ✓ when every run was validated,
// followed by the checker when known ("8 ✓ device", "8 ✓ cpu").
func validatedText(s Stats, checker string) string {
	if s.NumRuns > 0 && s.NumValidated == s.NumRuns {
		return strings.TrimSpace(strconv.Itoa(s.NumRuns) + " ✓ " + checker)
	}
	return strconv.Itoa(s.NumRuns)
}

// summary is the one-paragraph description of Meta the renderings share.
func (m Meta) summary() [][2]string {
	var rows [][2]string
	rows = append(rows, [2]string{"device", m.Device})
	if m.DeviceInfo.Ordinal >= 0 && m.DeviceInfo.DriverVersion != "" {
		rows = append(rows, [2]string{"driver", fmt.Sprintf("CUDA %s, NVRTC %s, %s, %d SMs, %s",
			m.DeviceInfo.DriverVersion, m.DeviceInfo.NVRTCVersion, m.DeviceInfo.Arch, m.DeviceInfo.SMs,
			card.Bytes(m.DeviceInfo.TotalMemory))})
	}
	if m.Host.CPU != "" {
		rows = append(rows, [2]string{"host", m.Host.line()})
	}
	g := m.Family
	if len(m.Scales) > 0 {
		g += fmt.Sprintf(", scales %s", intList(m.Scales))
	}
	if len(m.Sizes) > 0 {
		g += fmt.Sprintf(", sizes %s", intList(m.Sizes))
	}
	if strings.EqualFold(m.Family, "rmat") {
		g += fmt.Sprintf(", edge factor %d", m.EdgeFactor)
	}
	g += fmt.Sprintf(", weights %s, seed %d", m.Weights, m.Seed)
	switch {
	case m.Permute:
		g += ", permuted"
	case Graph500Convention(m.Algo, m.Family):
		g += ", unpermuted (the generator's labels; Graph500 permutes them)"
	}
	rows = append(rows, [2]string{"graphs", g})
	runs := fmt.Sprintf("%d repetition(s) per graph", m.Repetitions)
	if m.Roots > 0 {
		runs = fmt.Sprintf("%d roots per graph", m.Roots)
		if m.Repetitions > 1 {
			runs += fmt.Sprintf(" × %d repetitions", m.Repetitions)
		}
	}
	if m.Validate {
		runs += ", every result validated"
	} else {
		runs += ", not validated"
	}
	rows = append(rows, [2]string{"runs", runs})
	rows = append(rows, [2]string{"measured", fmt.Sprintf("%s in %s by graphnb %s (%s)",
		m.Started.Format("2006-01-02 15:04 MST"), m.Elapsed.Round(time.Millisecond), m.GraphnbVersion, m.GoVersion)})
	if m.Stopped != "" {
		rows = append(rows, [2]string{"stopped early", m.Stopped})
	}
	for _, e := range m.PeerErrors { // the first line: the output's tail is in the file
		first, _, _ := strings.Cut(e, "\n")
		rows = append(rows, [2]string{"peer failed", first})
	}
	return rows
}

// peerLines describes each peer row: what ran, where, and which figure
// of its output the row shows.
func (t *Table) peerLines() [][2]string {
	var out [][2]string
	for _, r := range t.Rows {
		if p := r.Peer; p != nil {
			out = append(out, [2]string{r.Variant + " on " + r.point(),
				fmt.Sprintf("%s (%s; %s)", p.Command, p.Device, p.Statistic)})
		}
	}
	return out
}

func intList(x []int) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.Itoa(v)
	}
	if len(s) > 6 {
		return s[0] + "…" + s[len(s)-1]
	}
	return strings.Join(s, ",")
}

// legend explains the conventions under both renderings.
func (t *Table) legend() string {
	if t.timeOnly() {
		return "Times exclude preparation (prep) and validation. ✓ device: validated on the GPU that holds the result; ✓ cpu: by the CPU checker."
	}
	return "arcs/s: stored arcs / time, arithmetic mean (the studies' TEPS); " +
		"G500 TEPS: component edges / time, harmonic mean and Graph500's harmonic standard deviation. " +
		"Times exclude preparation (prep) and validation. ✓ device: validated on the GPU that holds the result; ✓ cpu: by the CPU checker."
}

// String renders the table for a console: the description, then one
// aligned line per row.
func (t *Table) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", t.Meta.Name)
	for _, kv := range t.Meta.summary() {
		fmt.Fprintf(&b, "  %-13s %s\n", kv[0], kv[1])
	}
	head, rows := t.columns()
	writeAligned(&b, head, rows)
	b.WriteString(t.legend())
	b.WriteString("\n")
	if peers := t.peerLines(); len(peers) > 0 {
		b.WriteString("Peers, measured in the same call (one row each, at the figure named):\n")
		for _, kv := range peers {
			fmt.Fprintf(&b, "  %s: %s\n", kv[0], kv[1])
		}
	}
	b.WriteString("\n")
	b.WriteString(t.WallTimes().String())
	return b.String()
}

// HTML renders the table for a notebook: a card with the description and
// a table with units, both rate conventions labelled.
func (t *Table) HTML() string {
	c := card.New(t.Meta.Name)
	for _, kv := range t.Meta.summary() {
		c.Row(kv[0], kv[1])
	}
	head, rows := t.columns()
	c.Table("", head, rows)
	c.RawHTML(`<div style="margin-top:4px;color:#57606a">` + html.EscapeString(t.legend()) + `</div>`)
	if peers := t.peerLines(); len(peers) > 0 {
		var rows [][]string
		for _, kv := range peers {
			rows = append(rows, kv[:])
		}
		c.Table("Peers, measured in the same call", []string{"row", "command (where; figure)"}, rows)
	}
	if w := t.WallTimes(); len(w) > 0 {
		head, rows := w.columns()
		c.Table("Where the wall time went", head, rows)
		c.RawHTML(`<div style="margin-top:4px;color:#57606a">` + html.EscapeString(wallLegend) + `</div>`)
	}
	return c.HTML()
}
