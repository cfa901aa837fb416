// Command gocorpus measures how much of the Go distribution's own test
// corpus graphnb runs correctly. It takes every $GOROOT/test/*.go whose
// first line is "// run" (a complete program that must exit 0), runs it
// with `go run` for the reference output, then with an engine — graphnb
// (a two-cell notebook: the program, then a call of main) or plain yaegi
// — and classifies each program as pass, refused, wrong, panic, crash or
// timeout. docs/conformance/README.md explains the method; ops/gocorpus.sh
// is the usual way to run it.
//
//	gocorpus [-engine graphnb|yaegi] [-graphnb bin/graphnb] [-rename-main]
//	         [-out DIR] [-cache DIR] [-timeout 60s] [-j N] [-run REGEXP]
//	         [-compare OTHER.json] [-check EXPECT.json [-allow FILE]]
//
// It writes DIR/results.json and DIR/results.md, and keeps each program's
// notebooks and outputs under DIR/_work/NAME for a closer look (the "_"
// keeps go vet ./... away from the copies of the programs).
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The classes of a program's result, in the order reports list them.
const (
	Pass    = "pass"    // same stdout and stderr as go run
	Refused = "refused" // the engine would not compile it, before any output
	Wrong   = "wrong"   // ran to completion with different output
	Panic   = "panic"   // failed at run time (go run did not)
	Crash   = "crash"   // the engine process died, or wrote no notebook
	Timeout = "timeout" // still running at the time limit
)

// classes lists the classes in report order.
var classes = []string{Pass, Refused, Wrong, Panic, Crash, Timeout}

// Engines.
const (
	engineGraphnb = "graphnb"
	engineYaegi   = "yaegi"
)

// config is the command line.
type config struct {
	engine     string
	graphnb    string
	yaegi      string
	renameMain bool
	out        string
	cache      string
	timeout    time.Duration
	jobs       int
	run        *regexp.Regexp
	compare    string
	check      string
	allow      string
	goroot     string

	goVersion   string
	allowErrors bool // graphnb exec accepts -allow-errors
}

func main() {
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "gocorpus: "+format+"\n", args...) }
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		log("%v", err)
		os.Exit(2)
	}
	ok, err := runCorpus(cfg, os.Stdout)
	if err != nil {
		log("%v", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

// parseFlags reads the command line into a config.
func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("gocorpus", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: gocorpus [flags]\n\nRuns $GOROOT/test's \"// run\" programs with go run and with an engine, and\nclassifies each: pass, refused, wrong, panic, crash, timeout.\n\nflags:\n")
		fs.PrintDefaults()
	}
	cfg := &config{}
	fs.StringVar(&cfg.engine, "engine", engineGraphnb, "the engine to measure: graphnb or yaegi")
	fs.StringVar(&cfg.graphnb, "graphnb", "bin/graphnb", "the graphnb binary (`PATH`)")
	fs.StringVar(&cfg.yaegi, "yaegi", "", "the yaegi binary (`PATH`); default: build github.com/traefik/yaegi/cmd/yaegi of the current module into -out")
	fs.BoolVar(&cfg.renameMain, "rename-main", false, "graphnb: rename the program's func main to gnbMain, so that only cell 2 runs it")
	fs.StringVar(&cfg.out, "out", "", "write results.json, results.md and _work/ to `DIR` (default out/gocorpus/ENGINE)")
	fs.StringVar(&cfg.cache, "cache", "out/gocorpus/cache", "keep go run's reference results in `DIR`")
	fs.DurationVar(&cfg.timeout, "timeout", 60*time.Second, "time limit per program and engine")
	fs.IntVar(&cfg.jobs, "j", runtime.NumCPU(), "run `N` programs at a time")
	run := fs.String("run", "", "only the programs whose name matches `REGEXP`")
	fs.StringVar(&cfg.compare, "compare", "", "add a column with the class of each program in `OTHER.json` (another run's results)")
	fs.StringVar(&cfg.check, "check", "", "exit 1 on any wrong, panic, crash or timeout not in -allow, or fewer passes than `EXPECT.json`")
	fs.StringVar(&cfg.allow, "allow", "", "with -check: `FILE` of programs allowed to fail, one \"name  reason\" a line, # comments")
	fs.StringVar(&cfg.goroot, "goroot", "", "the Go distribution whose test/ to run (`DIR`); default: go env GOROOT")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q: gocorpus takes flags only (-h lists them)", fs.Args())
	}
	if cfg.engine != engineGraphnb && cfg.engine != engineYaegi {
		return nil, fmt.Errorf("-engine %q: want graphnb or yaegi", cfg.engine)
	}
	if cfg.renameMain && cfg.engine != engineGraphnb {
		return nil, errors.New("-rename-main applies to -engine graphnb only")
	}
	if cfg.allow != "" && cfg.check == "" {
		return nil, errors.New("-allow is read by -check: give -check EXPECT.json too")
	}
	if cfg.timeout <= 0 || cfg.jobs < 1 {
		return nil, errors.New("-timeout and -j must be positive")
	}
	var err error
	if cfg.run, err = regexp.Compile(*run); err != nil {
		return nil, fmt.Errorf("-run: %v", err)
	}
	if cfg.out == "" {
		cfg.out = filepath.Join("out", "gocorpus", cfg.engine)
	}
	return cfg, nil
}

// runCorpus runs the whole measurement and writes the reports; it reports
// false when -check finds a regression.
func runCorpus(cfg *config, stdout io.Writer) (bool, error) {
	var err error
	if cfg.goVersion, err = goEnv("GOVERSION"); err != nil {
		return false, err
	}
	if cfg.goroot == "" {
		if cfg.goroot, err = goEnv("GOROOT"); err != nil {
			return false, err
		}
	}
	// Read the files -compare, -check and -allow name first, so that a
	// typo fails at once rather than after the run.
	var other, expect *Results
	if cfg.compare != "" {
		if other, err = readResults(cfg.compare); err != nil {
			return false, fmt.Errorf("-compare: %v", err)
		}
	}
	if cfg.check != "" {
		if expect, err = readResults(cfg.check); err != nil {
			return false, fmt.Errorf("-check: %v", err)
		}
	}
	allow := map[string]string{}
	if cfg.allow != "" {
		if allow, err = readAllowlist(cfg.allow); err != nil {
			return false, fmt.Errorf("-allow: %v", err)
		}
	}
	// Engines run in each program's work directory: paths must not be
	// relative.
	if cfg.out, err = filepath.Abs(cfg.out); err != nil {
		return false, err
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return false, err
	}
	if err := prepareEngine(cfg); err != nil {
		return false, err
	}
	progs, excluded, err := selectPrograms(filepath.Join(cfg.goroot, "test"), cfg.run)
	if err != nil {
		return false, err
	}
	if len(progs) == 0 {
		return false, fmt.Errorf("no program of %s/test matches -run %q", cfg.goroot, cfg.run)
	}
	fmt.Fprintf(os.Stderr, "gocorpus: %d programs (%d excluded), engine %s, %d at a time\n", len(progs), len(excluded), label(cfg.engine, cfg.renameMain), cfg.jobs)

	records := make([]*Record, len(progs))
	var wg sync.WaitGroup
	next := make(chan int)
	var mu sync.Mutex
	done := 0
	for range cfg.jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				records[i] = measure(cfg, progs[i])
				mu.Lock()
				done++
				fmt.Fprintf(os.Stderr, "[%d/%d] %-24s %-8s %s\n", done, len(progs), progs[i].name, records[i].Class, records[i].Detail)
				mu.Unlock()
			}
		}()
	}
	for i := range progs {
		next <- i
	}
	close(next)
	wg.Wait()

	res := &Results{
		Engine:     cfg.engine,
		RenameMain: cfg.renameMain,
		GoVersion:  cfg.goVersion,
		Date:       time.Now().UTC().Format(time.RFC3339),
		Timeout:    cfg.timeout.String(),
		Counts:     map[string]int{},
	}
	if cfg.engine == engineGraphnb {
		res.AllowErrors = &cfg.allowErrors
	}
	// A program whose reference fails is no measure of the engine: it
	// joins the exclusions.
	res.Excluded = excluded
	for _, r := range records {
		if r.Class == "" {
			res.Excluded = append(res.Excluded, Exclusion{r.Name, r.Detail})
			continue
		}
		res.Programs = append(res.Programs, *r)
		res.Counts[r.Class]++
	}
	res.Total = len(res.Programs)
	sort.Slice(res.Excluded, func(i, j int) bool { return res.Excluded[i].Name < res.Excluded[j].Name })
	if err := writeResults(cfg.out, res, other); err != nil {
		return false, err
	}
	fmt.Fprintf(stdout, "%s: %s (%s)\n", label(res.Engine, res.RenameMain), countLine(res), filepath.Join(cfg.out, "results.md"))
	if expect == nil {
		return true, nil
	}
	problems := check(res, expect, allow, cfg.run)
	for _, p := range problems {
		fmt.Fprintf(stdout, "regression: %s\n", p)
	}
	if len(problems) == 0 {
		fmt.Fprintf(stdout, "check: no regression against %s\n", cfg.check)
	}
	return len(problems) == 0, nil
}

// goEnv returns `go env NAME`.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %v (is the go command on PATH?)", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// prepareEngine checks the engine binary, building yaegi when no -yaegi
// is given, and finds out whether graphnb exec knows -allow-errors.
func prepareEngine(cfg *config) error {
	switch cfg.engine {
	case engineYaegi:
		if cfg.yaegi == "" {
			cfg.yaegi = filepath.Join(cfg.out, "yaegi")
			cmd := exec.Command("go", "build", "-o", cfg.yaegi, "github.com/traefik/yaegi/cmd/yaegi")
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("building yaegi: %v\n%s\nrun gocorpus from the graphnb module's root (its go.mod declares the yaegi tool), or pass -yaegi PATH", err, out)
			}
		}
		abs, err := filepath.Abs(cfg.yaegi)
		if err != nil {
			return err
		}
		cfg.yaegi = abs
		return nil
	default:
		abs, err := filepath.Abs(cfg.graphnb)
		if err != nil {
			return err
		}
		cfg.graphnb = abs
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("%v: build it first (go build -o bin/graphnb ./cmd/graphnb) or pass -graphnb PATH", err)
		}
		cfg.allowErrors, err = acceptsAllowErrors(abs)
		return err
	}
}

// acceptsAllowErrors reports whether `graphnb exec` knows -allow-errors:
// asked for help with the flag in front, an exec that does not know it
// says "flag provided but not defined".
func acceptsAllowErrors(graphnb string) (bool, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(graphnb, "exec", "-allow-errors", "-h")
	cmd.Stderr = &stderr
	err := cmd.Run()
	if strings.Contains(stderr.String(), "flag provided but not defined: -allow-errors") {
		return false, nil
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return false, fmt.Errorf("%s exec -h: %v", graphnb, err)
	}
	return true, nil
}

// label names an engine in reports.
func label(engine string, renameMain bool) string {
	if renameMain {
		return engine + " -rename-main"
	}
	return engine
}

// --- the corpus ---

// program is one test program of the corpus.
type program struct {
	name string // base name, e.g. "append.go"
	src  []byte
}

// Exclusion is a "// run" program the corpus leaves out, and why.
type Exclusion struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// selectPrograms reads dir's "// run" programs whose name matches filter:
// those that can be run alone, and the others with the reason.
func selectPrograms(dir string, filter *regexp.Regexp) ([]program, []Exclusion, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("no *.go in %s: is -goroot a Go distribution with its test directory?", dir)
	}
	var progs []program
	var excluded []Exclusion
	for _, f := range files {
		name := filepath.Base(f)
		if !filter.MatchString(name) {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		first, _, _ := strings.Cut(string(src), "\n")
		if strings.TrimRight(first, "\r") != "// run" {
			continue
		}
		if reason := exclusionReason(src); reason != "" {
			excluded = append(excluded, Exclusion{name, reason})
			continue
		}
		progs = append(progs, program{name, src})
	}
	return progs, excluded, nil
}

// exclusionReason says why a program cannot be measured alone, or "":
// it has build constraints, runs commands (the go tool), reads files of
// its own directory, or imports packages outside the standard library.
func exclusionReason(src []byte) string {
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "package ") {
			break
		}
		if strings.HasPrefix(line, "//go:build") || strings.HasPrefix(line, "// +build") {
			return "build constraint: " + line
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "prog.go", src, parser.SkipObjectResolution)
	if err != nil {
		return "does not parse: " + err.Error()
	}
	if f.Name.Name != "main" {
		return "package " + f.Name.Name + ", not main"
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		switch {
		case path == "os/exec":
			return "runs commands (imports os/exec): needs the go tool"
		case strings.HasPrefix(path, "."):
			return "imports " + path + " from its own directory"
		case strings.Contains(strings.Split(path, "/")[0], "."):
			return "imports " + path + ", not in the standard library"
		}
	}
	reason := ""
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "os" && n.Sel.Name == "Getwd" {
				reason = "depends on its working directory (os.Getwd)"
			}
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && strings.HasSuffix(s, ".go") && !strings.ContainsAny(s, " \n") {
				reason = "names a Go file (" + s + ") of its directory"
			}
		}
		return reason == ""
	})
	return reason
}

// --- running ---

// outcome is what one run of a program did.
type outcome struct {
	Stdout   string  `json:"stdout"`
	Stderr   string  `json:"stderr"`
	Exit     int     `json:"exit"`             // exit status; -1 when killed by a signal
	Signal   string  `json:"signal,omitempty"` // the signal that ended it
	TimedOut bool    `json:"timed_out,omitempty"`
	Seconds  float64 `json:"seconds"`
}

// failed reports whether the run did not end with status 0.
func (o *outcome) failed() bool { return o.Exit != 0 || o.Signal != "" || o.TimedOut }

// runCommand runs argv in dir with no input, killing its whole process
// group after timeout.
func runCommand(dir string, timeout time.Duration, argv ...string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	o := outcome{Stdout: stdout.String(), Stderr: stderr.String(), Seconds: time.Since(start).Seconds()}
	o.TimedOut = ctx.Err() != nil
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		o.Exit = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			o.Signal = ws.Signal().String()
		}
	default:
		o.Exit, o.Stderr = -1, o.Stderr+"\ngocorpus: "+err.Error()
	}
	return o
}

// exitStatusRE is the line go run adds to standard error when the program
// exits with a non-zero status.
var exitStatusRE = regexp.MustCompile(`(?m)^exit status (\d+)\n\z`)

// reference returns go run's result for p, from the cache when it has it.
func reference(cfg *config, p program) (outcome, error) {
	sum := sha256.Sum256(p.src)
	path := filepath.Join(cfg.cache, cfg.goVersion, strings.TrimSuffix(p.name, ".go")+"-"+hex.EncodeToString(sum[:8])+".json")
	var o outcome
	if data, err := os.ReadFile(path); err == nil && json.Unmarshal(data, &o) == nil {
		return o, nil
	}
	dir, err := os.MkdirTemp("", "gocorpus-ref-")
	if err != nil {
		return o, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, p.name)
	if err := os.WriteFile(file, p.src, 0o644); err != nil {
		return o, err
	}
	// A directory without go.mod: the file is compiled with the
	// toolchain's own language version, as Go's test runner does.
	o = runCommand(dir, cfg.timeout, "go", "run", file)
	if m := exitStatusRE.FindStringSubmatchIndex(o.Stderr); o.Exit == 1 && m != nil {
		o.Exit, _ = strconv.Atoi(o.Stderr[m[2]:m[3]])
		o.Stderr = o.Stderr[:m[0]]
	}
	if o.TimedOut {
		return o, nil // not cached: a slow moment should not stick
	}
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return o, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return o, err
	}
	return o, os.WriteFile(path, data, 0o644)
}

// Record is the result of one program.
type Record struct {
	Name       string  `json:"name"`
	Class      string  `json:"class"`
	Detail     string  `json:"detail"`
	RefSeconds float64 `json:"ref_seconds"` // go run, compilation included
	Seconds    float64 `json:"seconds"`     // the engine, start-up included
}

// measure runs p with go run and the engine and classifies the result. A
// record without a class means the reference itself failed.
func measure(cfg *config, p program) *Record {
	r := &Record{Name: p.name}
	ref, err := reference(cfg, p)
	if err != nil {
		r.Detail = "reference: " + err.Error()
		return r
	}
	r.RefSeconds = round(ref.Seconds)
	if ref.failed() {
		r.Detail = "go run failed: " + failureLine(ref)
		return r
	}
	work := filepath.Join(cfg.out, "_work", strings.TrimSuffix(p.name, ".go"))
	if err := os.RemoveAll(work); err == nil {
		err = os.MkdirAll(work, 0o755)
	}
	if err != nil {
		r.Class, r.Detail = Crash, "gocorpus: "+err.Error()
		return r
	}
	var got engineRun
	if cfg.engine == engineYaegi {
		got, err = runYaegi(cfg, p, work)
	} else {
		got, err = runGraphnb(cfg, p, work)
	}
	if err != nil {
		r.Class, r.Detail = Crash, "gocorpus: "+err.Error()
		return r
	}
	r.Seconds = round(got.Seconds)
	r.Class, r.Detail = classify(cfg.engine, ref, got)
	// Messages may name the work directory; the report should not depend
	// on where it was.
	r.Detail = strings.ReplaceAll(r.Detail, work, "$WORK")
	return r
}

func round(s float64) float64 { return float64(int64(s*100+0.5)) / 100 }

// failureLine describes how a run failed, in one line.
func failureLine(o outcome) string {
	switch {
	case o.TimedOut:
		return fmt.Sprintf("still running after %.0f s", o.Seconds)
	case o.Signal != "":
		return "killed by " + o.Signal + ": " + keyLine(o.Stderr)
	}
	return fmt.Sprintf("exit status %d: %s", o.Exit, keyLine(o.Stderr))
}

// keyLine picks the telling line of an error text: the first that starts
// a Go panic or fatal error, else the first non-blank one.
func keyLine(s string) string {
	lines := strings.Split(s, "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return clip(l)
		}
	}
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return clip(l)
		}
	}
	return "(no message)"
}

// clip shortens s to one line of at most 160 bytes.
func clip(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// engineRun is what an engine did with a program: the program's output
// and how the engine ended.
type engineRun struct {
	outcome
	// Graphnb only:
	Notebook bool   // the executed notebook was written
	EName    string // the first error output's ename ("" if none)
	EValue   string // and its evalue
	Before   bool   // the program wrote output before that error
	// CellTimedOut: a cell failed with ename "Timeout" (perhaps after
	// other errors, e.g. panics in goroutines).
	CellTimedOut bool
}

// runYaegi runs p with `yaegi run`.
func runYaegi(cfg *config, p program, work string) (engineRun, error) {
	if err := os.WriteFile(filepath.Join(work, p.name), p.src, 0o644); err != nil {
		return engineRun{}, err
	}
	o := runCommand(work, cfg.timeout, cfg.yaegi, "run", p.name)
	return engineRun{outcome: o}, saveOutputs(work, o)
}

// saveOutputs keeps an engine's raw output in its work directory.
func saveOutputs(work string, o outcome) error {
	if err := os.WriteFile(filepath.Join(work, "stdout"), []byte(o.Stdout), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(work, "stderr"), []byte(o.Stderr), 0o644)
}

// graceTime is how long graphnb gets, beyond -timeout, to interrupt a
// cell itself and write the notebook before it is killed.
const graceTime = 15 * time.Second

// runGraphnb runs p as a two-cell notebook with graphnb exec.
func runGraphnb(cfg *config, p program, work string) (engineRun, error) {
	nb, err := buildNotebook(p.src, cfg.renameMain)
	if err != nil {
		return engineRun{}, err
	}
	in, out := filepath.Join(work, "in.ipynb"), filepath.Join(work, "out.ipynb")
	if err := os.WriteFile(in, nb, 0o644); err != nil {
		return engineRun{}, err
	}
	argv := []string{cfg.graphnb, "exec"}
	if cfg.allowErrors {
		argv = append(argv, "-allow-errors")
	}
	argv = append(argv, "-timeout", cfg.timeout.String(), "-o", out, in)
	proc := runCommand(work, cfg.timeout+graceTime, argv...)
	if err := saveOutputs(work, proc); err != nil {
		return engineRun{}, err
	}
	got := engineRun{outcome: proc}
	got.Stdout, got.Stderr = "", ""
	data, err := os.ReadFile(out)
	if err != nil {
		// The process's own output says why; classify reports it.
		got.Stderr = proc.Stderr
		return got, nil
	}
	got.Notebook = true
	if err := readOutputs(data, &got); err != nil {
		return engineRun{}, fmt.Errorf("reading %s: %v", out, err)
	}
	return got, nil
}

// --- notebooks ---

// nbCell is a code cell of nbformat 4.5, as written.
type nbCell struct {
	CellType       string          `json:"cell_type"`
	ExecutionCount *int            `json:"execution_count"`
	ID             string          `json:"id"`
	Metadata       struct{}        `json:"metadata"`
	Outputs        []nbOutput      `json:"outputs"`
	Source         json.RawMessage `json:"source"` // a string, or a list of lines
}

// nbOutput is an output of a code cell, with the fields gocorpus reads.
type nbOutput struct {
	OutputType string          `json:"output_type"`
	Name       string          `json:"name,omitempty"` // stream: stdout or stderr
	Text       json.RawMessage `json:"text,omitempty"` // stream: a string, or a list of them
	EName      string          `json:"ename,omitempty"`
	EValue     string          `json:"evalue,omitempty"`
	Traceback  []string        `json:"traceback,omitempty"`
}

// nbFile is a notebook file.
type nbFile struct {
	Cells         []nbCell       `json:"cells"`
	Metadata      map[string]any `json:"metadata"`
	NBFormat      int            `json:"nbformat"`
	NBFormatMinor int            `json:"nbformat_minor"`
}

// buildNotebook returns the notebook that runs src: cell 1 is the program
// without its package clause (an empty line in its place, so that line
// numbers stay those of the file), cell 2 calls main. With renameMain,
// func main becomes gnbMain in cell 1, and cell 2 calls that.
func buildNotebook(src []byte, renameMain bool) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "prog.go", src, 0)
	if err != nil {
		return nil, err
	}
	file := fset.File(f.Package)
	type edit struct {
		start, end int
		text       string
	}
	// The package clause: from "package" to the end of the name; the
	// line's break stays.
	edits := []edit{{file.Offset(f.Package), file.Offset(f.Name.End()), ""}}
	call := "main()"
	if renameMain {
		call = "gnbMain()"
		obj := f.Scope.Lookup("main")
		if obj == nil || obj.Kind != ast.Fun {
			return nil, errors.New("the program has no func main to rename")
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Obj == obj {
				edits = append(edits, edit{file.Offset(id.Pos()), file.Offset(id.End()), "gnbMain"})
			}
			return true
		})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	code := slices.Clone(src)
	for _, e := range edits {
		code = slices.Concat(code[:e.start], []byte(e.text), code[e.end:])
	}
	nb := nbFile{
		Cells: []nbCell{codeCell("c1", string(code)), codeCell("c2", call)},
		Metadata: map[string]any{
			"kernelspec": map[string]string{"name": "graphnb", "display_name": "Go (graphnb)", "language": "go"},
		},
		NBFormat:      4,
		NBFormatMinor: 5,
	}
	return json.MarshalIndent(nb, "", " ")
}

// codeCell returns an unexecuted code cell.
func codeCell(id, source string) nbCell {
	s, _ := json.Marshal(source)
	return nbCell{CellType: "code", ID: id, Outputs: []nbOutput{}, Source: s}
}

// readOutputs gathers an executed notebook's outputs into got: the stdout
// and stderr streams of all cells, in order, and the first error.
func readOutputs(data []byte, got *engineRun) error {
	var nb nbFile
	if err := json.Unmarshal(data, &nb); err != nil {
		return err
	}
	var stdout, stderr strings.Builder
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			switch o.OutputType {
			case "stream":
				text, err := joinText(o.Text)
				if err != nil {
					return err
				}
				if o.Name == "stderr" {
					stderr.WriteString(text)
				} else {
					stdout.WriteString(text)
				}
			case "error":
				if o.EName == "Timeout" {
					got.CellTimedOut = true
				}
				if got.EName == "" {
					got.EName, got.EValue = o.EName, o.EValue
					got.Before = stdout.Len() > 0 || programOutput(stderr.String())
				}
			}
		}
	}
	got.Stdout, got.Stderr = stdout.String(), stderr.String()
	return nil
}

// logLineRE matches a line of the standard logger's default format,
// which yaegi uses for some internal errors ("2006/01/02 15:04:05 nil
// type"); such a line comes from the interpreter, not the program.
var logLineRE = regexp.MustCompile(`^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d `)

// programOutput reports whether stderr has a line that is not one of the
// interpreter's log lines.
func programOutput(stderr string) bool {
	for _, l := range strings.Split(stderr, "\n") {
		if l != "" && !logLineRE.MatchString(l) {
			return true
		}
	}
	return false
}

// joinText reads a multiline nbformat string: a string or a list of them.
func joinText(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []string
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	return strings.Join(parts, ""), nil
}

// --- classification ---

// runtimeENames are graphnb's error names for a failure at run time; any
// other name is a refusal to compile the cell.
var runtimeENames = map[string]bool{"panic": true, "RuntimeError": true, "Interrupted": true, "Timeout": true}

// yaegiCompileRE matches the message `yaegi run` ends with when it could
// not compile the program: "run: FILE:LINE:COL: message" or an import
// error, with no panic. A run-time failure prints "FILE:L:C: panic: ..."
// first.
var yaegiCompileRE = regexp.MustCompile(`^run: (?:\S+\.go:\d+:\d+: |import )`)

// classify compares an engine's run of a program with the reference
// (which succeeded), and returns the class and a one-line detail.
func classify(engine string, ref outcome, got engineRun) (class, detail string) {
	if got.TimedOut {
		return Timeout, fmt.Sprintf("killed after %.0f s", got.Seconds)
	}
	if got.CellTimedOut {
		detail = "Timeout: the cell did not finish in time"
		if got.EName != "Timeout" {
			detail += "; first error: " + got.EName + ": " + got.EValue
		}
		return Timeout, clip(detail)
	}
	if got.Signal != "" {
		return Crash, "killed by " + got.Signal + ": " + keyLine(got.Stderr)
	}
	if got.Exit != 0 && got.Exit != 1 {
		return Crash, fmt.Sprintf("exit status %d: %s", got.Exit, keyLine(got.Stderr))
	}
	if engine == engineGraphnb {
		switch {
		case !got.Notebook:
			return Crash, fmt.Sprintf("no notebook written (exit status %d): %s", got.Exit, keyLine(got.Stderr))
		case got.EName == "panic" && got.EValue == "os.Exit(0)":
			// The program's normal end (see exitZero): compare its output.
		case got.EName != "":
			msg := clip(got.EName + ": " + got.EValue)
			if !runtimeENames[got.EName] && !got.Before {
				return Refused, msg
			}
			return Panic, msg
		case got.Exit != 0:
			return Crash, fmt.Sprintf("exit status %d with no error in the notebook", got.Exit)
		}
	} else if got.Exit != 0 {
		if before, ok := yaegiExitZero(got.Stderr); ok {
			got.Stderr = before
		} else {
			first, _, _ := strings.Cut(got.Stderr, "\n")
			if got.Stdout == "" && yaegiCompileRE.MatchString(first) && !strings.Contains(first, "panic") {
				return Refused, clip(strings.TrimPrefix(first, "run: "))
			}
			return Panic, yaegiPanicLine(got.Stderr)
		}
	}
	if d := firstDifference("stdout", ref.Stdout, got.Stdout); d != "" {
		return Wrong, d
	}
	if d := firstDifference("stderr", ref.Stderr, got.Stderr); d != "" {
		return Wrong, d
	}
	return Pass, ""
}

// yaegiExitZero reports whether yaegi failed only because the program
// called os.Exit(0), which yaegi turns into a panic "os.Exit(0)" (as
// graphnb does: an interpreter must not end its host process); it returns
// the standard error written before yaegi's report of that panic. Both
// engines' os.Exit(0) counts as the program's normal end.
func yaegiExitZero(stderr string) (before string, ok bool) {
	i := strings.LastIndex(stderr, "\nrun: os.Exit(0)\n")
	if i < 0 {
		return "", false
	}
	j := strings.LastIndex(stderr[:i], "\n") + 1
	if !strings.Contains(stderr[j:i], ": panic: ") {
		return "", false
	}
	return stderr[:j], true
}

// yaegiPanicLine picks the message of a yaegi run-time failure: the
// "run: " line that follows "FILE:L:C: panic: ...", else keyLine's pick.
func yaegiPanicLine(stderr string) string {
	lines := strings.Split(stderr, "\n")
	for i, l := range lines {
		if strings.Contains(l, ": panic: ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "run: ") {
			return clip(strings.TrimPrefix(lines[i+1], "run: ") + " (at " + strings.Split(l, ": panic")[0] + ")")
		}
	}
	return keyLine(stderr)
}

// firstDifference describes the first line where got differs from want,
// or returns "" when they are equal.
func firstDifference(stream, want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	for i := 0; ; i++ {
		if i >= len(w) || i >= len(g) || w[i] != g[i] {
			return clip(fmt.Sprintf("%s line %d: want %s, got %s", stream, i+1, lineAt(w, i), lineAt(g, i)))
		}
	}
}

// lineAt quotes line i of lines, or says it is missing.
func lineAt(lines []string, i int) string {
	if i >= len(lines) || lines[i] == "" {
		return "end of output"
	}
	l := lines[i]
	if len(l) > 60 {
		l = l[:60] + "…"
	}
	return strconv.Quote(l)
}

// --- reports ---

// Results is the content of results.json.
type Results struct {
	Engine      string         `json:"engine"`
	RenameMain  bool           `json:"rename_main,omitempty"`
	AllowErrors *bool          `json:"allow_errors,omitempty"` // graphnb exec took -allow-errors
	GoVersion   string         `json:"go_version"`
	Date        string         `json:"date"`
	Timeout     string         `json:"timeout"`
	Total       int            `json:"total"`
	Counts      map[string]int `json:"counts"`
	Excluded    []Exclusion    `json:"excluded"`
	Programs    []Record       `json:"programs"`
}

// readResults reads a results.json.
func readResults(path string) (*Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %v (want a results.json written by gocorpus)", path, err)
	}
	return &r, nil
}

// countLine is the counts in one line: "56 pass, 32 refused, … of 128".
func countLine(r *Results) string {
	var parts []string
	for _, c := range classes {
		parts = append(parts, fmt.Sprintf("%d %s", r.Counts[c], c))
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" of %d", r.Total)
}

// writeResults writes results.json and results.md into dir; other, if not
// nil, is another run to show beside this one.
func writeResults(dir string, r *Results, other *Results) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.md"), markdown(r, other), 0o644)
}

// markdown renders r as a Markdown report, with other's classes beside.
func markdown(r *Results, other *Results) []byte {
	var b bytes.Buffer
	name := label(r.Engine, r.RenameMain)
	fmt.Fprintf(&b, "# Go test corpus: %s\n\n", name)
	fmt.Fprintf(&b, "The `// run` programs of %s's `test` directory, run with `go run` and with %s (time limit %s), %s. ", r.GoVersion, name, r.Timeout, r.Date)
	fmt.Fprintf(&b, "%d programs; %d excluded (listed at the end). Method: docs/conformance/README.md.\n\n", r.Total, len(r.Excluded))
	otherClass := map[string]string{}
	otherName := ""
	if other != nil {
		otherName = label(other.Engine, other.RenameMain)
		for _, p := range other.Programs {
			otherClass[p.Name] = p.Class
		}
		fmt.Fprintf(&b, "| class | %s | %s |\n|---|--:|--:|\n", name, otherName)
		for _, c := range classes {
			fmt.Fprintf(&b, "| %s | %d | %d |\n", c, r.Counts[c], other.Counts[c])
		}
		fmt.Fprintf(&b, "| total | %d | %d |\n\n", r.Total, other.Total)
		fmt.Fprintf(&b, "| program | %s | %s | detail |\n|---|---|---|---|\n", name, otherName)
	} else {
		fmt.Fprintf(&b, "| class | count |\n|---|--:|\n")
		for _, c := range classes {
			fmt.Fprintf(&b, "| %s | %d |\n", c, r.Counts[c])
		}
		fmt.Fprintf(&b, "| total | %d |\n\n", r.Total)
		fmt.Fprintf(&b, "| program | class | detail |\n|---|---|---|\n")
	}
	for _, p := range r.Programs {
		if other != nil {
			oc := otherClass[p.Name]
			if oc == "" {
				oc = "–"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", p.Name, p.Class, oc, mdCell(p.Detail))
		} else {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", p.Name, p.Class, mdCell(p.Detail))
		}
	}
	fmt.Fprintf(&b, "\n## Excluded\n\n| program | reason |\n|---|---|\n")
	for _, e := range r.Excluded {
		fmt.Fprintf(&b, "| %s | %s |\n", e.Name, mdCell(e.Reason))
	}
	return b.Bytes()
}

// mdCell makes s safe inside a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "`", "'")
}

// readAllowlist reads a file of "name  reason" lines; # starts a comment.
func readAllowlist(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	allow := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		name, reason, _ := strings.Cut(strings.TrimSpace(line), " ")
		if name == "" {
			continue
		}
		if reason = strings.TrimSpace(reason); reason == "" {
			return nil, fmt.Errorf("%s:%d: %s has no reason: write \"%s  why it may fail\"", path, n, name, name)
		}
		allow[name] = reason
	}
	return allow, sc.Err()
}

// check lists the regressions of r: programs that are wrong, panic, crash
// or time out without an allowlist entry, and, when r passes fewer of the
// programs -run selects than expect does, those expect passed and r does
// not.
func check(r, expect *Results, allow map[string]string, filter *regexp.Regexp) []string {
	var problems []string
	passed := map[string]bool{}
	for _, p := range r.Programs {
		switch p.Class {
		case Pass:
			passed[p.Name] = true
		case Wrong, Panic, Crash, Timeout:
			if _, ok := allow[p.Name]; !ok {
				problems = append(problems, fmt.Sprintf("%s: %s: %s", p.Name, p.Class, p.Detail))
			}
		}
	}
	floor := expect.Counts[Pass]
	if filter.String() != "" && len(expect.Programs) > 0 {
		floor = 0
		for _, p := range expect.Programs {
			if p.Class == Pass && filter.MatchString(p.Name) {
				floor++
			}
		}
	}
	if len(passed) < floor {
		problems = append(problems, fmt.Sprintf("%d programs pass, fewer than the %d of the expectation", len(passed), floor))
		classOf := map[string]Record{}
		for _, p := range r.Programs {
			classOf[p.Name] = p
		}
		for _, p := range expect.Programs {
			if p.Class == Pass && filter.MatchString(p.Name) && !passed[p.Name] {
				now := classOf[p.Name]
				if now.Class == "" {
					now.Class, now.Detail = "not run", "excluded or missing in this run"
				}
				problems = append(problems, fmt.Sprintf("%s: passed before, now %s: %s", p.Name, now.Class, now.Detail))
			}
		}
	}
	return problems
}
