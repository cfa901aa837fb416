package launch

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options say which rank processes Spawn starts.
type Options struct {
	// Ranks is the number of processes to start here, one per GPU.
	Ranks int
	// Devices are their CUDA ordinals, one per process (nil: 0..Ranks-1).
	Devices []int
	// Rendezvous is where they share the unique id: file:PATH or
	// tcp:HOST:PORT ("": a file in a new temporary folder, removed after;
	// a group over several hosts must name one every host reaches).
	Rendezvous string
	// RankBase is the rank of the first process started here and World
	// the size of the whole group (0: RankBase+Ranks); a group over
	// several hosts runs one launcher per host with the same World and
	// Rendezvous, each with its own RankBase.
	RankBase, World int
	// RunID is the run's token (GRAPHNB_RUN_ID); "": a random one for a
	// group on this host only. A group over several hosts gets none by
	// default (a tcp: rendezvous then works without; a file: one needs
	// the same token on every host, and a new one for every run).
	RunID string
	// Env are more variables (NAME=value) for every process.
	Env []string
	// Grace is how long the other processes may take to end on their own
	// after one failed (or after ctx ended, from an interrupt) before they
	// are killed (0: 5 s).
	Grace time.Duration
	// AllStdout keeps every process's standard output, its lines
	// prefixed "[rank k] ", not only the first process's.
	AllStdout bool
}

// DefaultGrace is Options.Grace's default.
const DefaultGrace = 5 * time.Second

// tailLines is how many of a failed process's last standard error lines
// Spawn's error quotes.
const tailLines = 12

// Spawn starts the command argv once per rank, each process with the
// environment contract of the package doc (and NCCL_NVLS_ENABLE=0), and
// waits for all of them. The first process's output goes to stdout and
// stderr unchanged; the others' standard error lines are prefixed
// "[rank k] " and their standard output dropped (see Options.AllStdout).
// It returns nil when every process exits with status 0. When one fails,
// the others are given Options.Grace to end, then killed, and the error
// names the first that failed, its exit status and its last lines of
// standard error. When ctx ends (Ctrl-C), every process is interrupted,
// then killed after the grace, and the error wraps ctx's.
func Spawn(ctx context.Context, o Options, argv []string, stdout, stderr io.Writer) error {
	o, cleanup, err := o.resolve()
	if err != nil {
		return err
	}
	defer cleanup()
	if len(argv) == 0 {
		return errors.New("launch: Spawn: no command to run")
	}
	var (
		out   = &sink{}
		procs = make([]*proc, o.Ranks)
		ended = make(chan int, o.Ranks)
	)
	env := childEnv(os.Environ(), o.Env)
	for i := range procs {
		rank := o.RankBase + i
		p := &proc{rank: rank, device: o.Devices[i], tail: &tail{}}
		p.cmd = exec.Command(argv[0], argv[1:]...)
		p.cmd.Env = append(env,
			EnvRank+"="+strconv.Itoa(rank),
			EnvRanks+"="+strconv.Itoa(o.World),
			EnvLocalRank+"="+strconv.Itoa(i),
			EnvDevice+"="+strconv.Itoa(o.Devices[i]),
			EnvRendezvous+"="+o.Rendezvous,
			EnvRunID+"="+o.RunID,
			"NCCL_NVLS_ENABLE=0")
		prefix := fmt.Sprintf("[rank %d] ", rank)
		p.stderr = &rankWriter{sink: out, dst: stderr, prefix: prefix, tail: p.tail}
		p.stdout = &rankWriter{sink: out}
		switch {
		case i == 0:
			p.stderr.prefix = ""
			p.stdout.dst = stdout
		case o.AllStdout:
			p.stdout.dst, p.stdout.prefix = stdout, prefix
		}
		p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
		if err := p.cmd.Start(); err != nil {
			for _, q := range procs[:i] {
				q.cmd.Process.Kill()
				q.cmd.Wait()
			}
			return fmt.Errorf("launch: starting rank %d (%s): %w", rank, argv[0], err)
		}
		procs[i] = p
		go func() {
			p.err = p.cmd.Wait()
			p.stdout.flush()
			p.stderr.flush()
			ended <- i
		}()
	}

	var (
		first   *proc // the first process that failed
		kill    <-chan time.Time
		stopped error // ctx's error, once it ended
		done    = ctx.Done()
	)
	signal := func(sig os.Signal) {
		for _, p := range procs {
			if !p.ended {
				p.stopped = true
				p.cmd.Process.Signal(sig)
			}
		}
	}
	for left := o.Ranks; left > 0; {
		select {
		case i := <-ended:
			left--
			p := procs[i]
			p.ended = true
			if p.err != nil && first == nil && stopped == nil && !p.stopped {
				first = p
				kill = time.After(o.Grace)
			}
		case <-done:
			done, stopped = nil, ctx.Err()
			signal(os.Interrupt)
			kill = time.After(o.Grace)
		case <-kill:
			kill = nil
			signal(os.Kill)
		}
	}
	switch {
	case stopped != nil:
		return fmt.Errorf("launch: stopped (%w); %s", stopped, summary(procs, nil))
	case first != nil:
		msg := fmt.Sprintf("launch: rank %d (GPU %d) failed: %v", first.rank, first.device, first.err)
		if others := summary(procs, first); others != "" {
			msg += "; " + others
		}
		if lines := first.tail.lines(); len(lines) > 0 {
			msg += fmt.Sprintf("\nits last lines on standard error:\n    %s", strings.Join(lines, "\n    "))
		}
		return errors.New(msg)
	}
	return nil
}

// summary tells how the processes other than skip ended, when not all
// well: "rank 0 was stopped (signal: killed), rank 3 failed (exit status 1)".
func summary(procs []*proc, skip *proc) string {
	var parts []string
	for _, p := range procs {
		switch {
		case p == skip || p.err == nil:
		case p.stopped:
			parts = append(parts, fmt.Sprintf("rank %d was stopped (%v)", p.rank, p.err))
		default:
			parts = append(parts, fmt.Sprintf("rank %d failed (%v)", p.rank, p.err))
		}
	}
	if len(parts) == 0 && skip == nil {
		return "every rank had ended"
	}
	return strings.Join(parts, ", ")
}

// proc is one rank process.
type proc struct {
	rank, device   int
	cmd            *exec.Cmd
	stdout, stderr *rankWriter
	tail           *tail
	err            error // Wait's
	ended, stopped bool  // owned by Spawn's loop
}

// resolve checks the options and fills in the defaults; cleanup removes
// the temporary rendezvous folder.
func (o Options) resolve() (Options, func(), error) {
	nop := func() {}
	if o.World == 0 {
		if o.RankBase != 0 {
			return o, nop, fmt.Errorf("launch: a first rank of %d needs the size of the whole group (World)", o.RankBase)
		}
		o.World = o.Ranks
	}
	switch {
	case o.Ranks < 1:
		return o, nop, fmt.Errorf("launch: %d ranks: start at least one", o.Ranks)
	case o.RankBase < 0 || o.RankBase+o.Ranks > o.World:
		return o, nop, fmt.Errorf("launch: ranks %d..%d are not all in a group of %d (World)", o.RankBase, o.RankBase+o.Ranks-1, o.World)
	case o.Devices != nil && len(o.Devices) != o.Ranks:
		return o, nop, fmt.Errorf("launch: %d devices for %d ranks: give one per rank", len(o.Devices), o.Ranks)
	}
	if o.Devices == nil {
		for i := range o.Ranks {
			o.Devices = append(o.Devices, i)
		}
	}
	seen := map[int]bool{}
	for _, d := range o.Devices {
		if d < 0 || seen[d] {
			return o, nop, fmt.Errorf("launch: devices %v: want distinct CUDA ordinals (0, 1, …), one per rank", o.Devices)
		}
		seen[d] = true
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	several := o.World > o.Ranks
	if o.RunID == "" && !several {
		var b [12]byte
		rand.Read(b[:])
		o.RunID = hex.EncodeToString(b[:])
	}
	cleanup := nop
	if o.Rendezvous == "" {
		if several {
			return o, nop, errors.New("launch: a group over several hosts needs a rendezvous every host reaches: tcp:HOST:PORT with rank 0's host (or file:PATH on a shared file system)")
		}
		dir, err := os.MkdirTemp("", "graphnb-rendezvous-")
		if err != nil {
			return o, nop, fmt.Errorf("launch: a folder for the rendezvous: %w", err)
		}
		o.Rendezvous = "file:" + filepath.Join(dir, "id")
		cleanup = func() { os.RemoveAll(dir) }
	}
	rv, err := parseRendezvous(o.Rendezvous)
	if err != nil {
		return o, nop, fmt.Errorf("launch: %w", err)
	}
	if rv.kind == "file" && o.RunID == "" {
		cleanup()
		return o, nop, fmt.Errorf("launch: rendezvous %s over several hosts needs a run token, the same on every host (%s or Options.RunID); or use tcp:HOST:PORT", rv, EnvRunID)
	}
	return o, cleanup, nil
}

// childEnv is env without the contract's variables, with extra added.
func childEnv(env, extra []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case EnvRank, EnvRanks, EnvLocalRank, EnvDevice, EnvRendezvous, EnvRunID, "NCCL_NVLS_ENABLE":
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

// sink serialises the processes' writes to the launcher's outputs.
type sink struct{ mu sync.Mutex }

// rankWriter passes a process's output on: unchanged (prefix ""), or in
// whole lines, each prefixed; dst nil drops it. tail, if set, keeps the
// last lines.
type rankWriter struct {
	sink    *sink
	dst     io.Writer
	prefix  string
	tail    *tail
	partial []byte
}

// maxLine is how much of a line without an end is held before it is
// written anyway.
const maxLine = 64 << 10

func (w *rankWriter) Write(b []byte) (int, error) {
	if w.tail != nil {
		w.tail.add(b)
	}
	switch {
	case w.dst == nil:
	case w.prefix == "":
		w.sink.mu.Lock()
		w.dst.Write(b)
		w.sink.mu.Unlock()
	default:
		w.partial = append(w.partial, b...)
		for {
			i := bytes.IndexByte(w.partial, '\n')
			if i < 0 && len(w.partial) < maxLine {
				break
			}
			if i < 0 {
				i = len(w.partial) - 1
			}
			w.line(w.partial[:i+1])
			w.partial = w.partial[i+1:]
		}
	}
	return len(b), nil // a launcher's output that fails must not stop a rank
}

// line writes one prefixed line.
func (w *rankWriter) line(b []byte) {
	w.sink.mu.Lock()
	defer w.sink.mu.Unlock()
	io.WriteString(w.dst, w.prefix)
	w.dst.Write(b)
	if b[len(b)-1] != '\n' {
		io.WriteString(w.dst, "\n")
	}
}

// flush writes what is left of a last line without an end.
func (w *rankWriter) flush() {
	if len(w.partial) > 0 && w.dst != nil && w.prefix != "" {
		w.line(w.partial)
	}
	w.partial = nil
}

// tail keeps the last tailLines non-empty lines written (a carriage
// return, as progress bars write, also ends a line).
type tail struct {
	mu      sync.Mutex
	last    []string
	partial []byte
}

func (t *tail) add(b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range b {
		if c != '\n' && c != '\r' {
			if len(t.partial) < 1000 {
				t.partial = append(t.partial, c)
			}
			continue
		}
		if s := strings.TrimSpace(string(t.partial)); s != "" {
			t.last = append(t.last, s)
			if len(t.last) > tailLines {
				t.last = t.last[1:]
			}
		}
		t.partial = t.partial[:0]
	}
}

// lines are the last lines, the unfinished one included.
func (t *tail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.last...)
	if s := strings.TrimSpace(string(t.partial)); s != "" {
		out = append(out, s)
	}
	return out[max(0, len(out)-tailLines):]
}
