package session

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphnb/graphnb/display"
)

// The corpus: testdata/cells/*.txt, one scenario per file, each a
// sequence of cells run in one session with what each must produce.
//
//	# Comment lines before the first cell describe the scenario.
//	-- cell --                 a cell (-- cell interrupt=200ms -- cancels it after 200ms,
//	                           -- cell silent -- runs it silently)
//	x := 1
//	x + 1
//	-- result --               the execute_result's text/plain (none: no result)
//	2
//	-- mime --                 "type: substring" lines: the bundle has that MIME type
//	                           (with a mime section, the result section is optional)
//	text/html: <table          containing the substring
//	-- stdout --               what the cell printed (none: nothing); a line ending
//	                           in "..." matches as a prefix
//	-- stdout contains --      lines that what the cell printed contains
//	-- stderr --               lines the cell's standard error contains
//	-- error --                "ename: evalue" (none: no error); a value ending in
//	CompileError: undefined: y "..." matches as a prefix
//	-- traceback --            lines that the traceback contains, in order
//	-- async --                an error reported through AsyncError: "ename: evalue"
//	                           then lines its traceback contains
//
// Expected blocks are compared after trimming trailing blank lines.

type corpusCell struct {
	code      string
	line      int
	interrupt time.Duration
	silent    bool
	want      map[string][]string
}

func parseCorpus(t *testing.T, path string) []*corpusCell {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cells []*corpusCell
	var cur *corpusCell
	section := ""
	var buf []string
	flush := func() {
		for len(buf) > 0 && strings.TrimSpace(buf[len(buf)-1]) == "" {
			buf = buf[:len(buf)-1]
		}
		if cur == nil {
			buf = nil
			return
		}
		if section == "cell" {
			cur.code = strings.Join(buf, "\n")
		} else if section != "" {
			cur.want[section] = buf
		}
		buf = nil
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			flush()
			fields := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --"))
			section = fields[0]
			if section == "stdout" && len(fields) == 2 && fields[1] == "contains" {
				section = "stdout contains"
			}
			switch section {
			case "cell":
				cur = &corpusCell{line: i + 2, want: map[string][]string{}}
				cells = append(cells, cur)
				for _, opt := range fields[1:] {
					k, v, _ := strings.Cut(opt, "=")
					switch k {
					case "interrupt":
						d, err := time.ParseDuration(v)
						if err != nil {
							t.Fatalf("%s:%d: %v", path, i+1, err)
						}
						cur.interrupt = d
					case "silent":
						cur.silent = true
					default:
						t.Fatalf("%s:%d: unknown cell option %q", path, i+1, opt)
					}
				}
			case "result", "mime", "stdout", "stdout contains", "stderr", "error", "traceback", "async":
				if cur == nil {
					t.Fatalf("%s:%d: %s before the first cell", path, i+1, section)
				}
			default:
				t.Fatalf("%s:%d: unknown section %q", path, i+1, section)
			}
			continue
		}
		if cur == nil && (strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "") {
			continue
		}
		buf = append(buf, line)
	}
	flush()
	if len(cells) == 0 {
		t.Fatalf("%s: no cells", path)
	}
	return cells
}

// capture collects what is written to a pipe; sync returns what arrived
// since the last call.
type capture struct {
	w    *os.File
	mu   sync.Mutex
	buf  bytes.Buffer
	mark chan struct{}
}

const captureMark = "\x00mark\x00\n"

func newCapture(t *testing.T) *capture {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &capture{w: w, mark: make(chan struct{}, 1)}
	go func() {
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line == captureMark {
				c.mark <- struct{}{}
			} else if line != "" {
				c.mu.Lock()
				c.buf.WriteString(line)
				c.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { w.Close(); r.Close() })
	return c
}

func (c *capture) sync(t *testing.T) string {
	if _, err := io.WriteString(c.w, captureMark); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.mark:
	case <-time.After(10 * time.Second):
		t.Fatal("output capture stalled")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.buf.String()
	c.buf.Reset()
	return s
}

// corpusSession starts a session whose output goes to pipes; os.Stdout
// also points at the pipe for the test, so prints of compiled code are
// seen too.
func corpusSession(t *testing.T) (*Session, *capture, *capture) {
	out, errs := newCapture(t), newCapture(t)
	s, err := New(withGraphnb(Options{Stdout: out.w, Stderr: errs.w}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	old := os.Stdout
	os.Stdout = out.w
	t.Cleanup(func() { os.Stdout = old })
	return s, out, errs
}

func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/cells/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Errorf("the corpus has %d scenarios, want at least 30", len(files))
	}
	sort.Strings(files)
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) { runCorpus(t, path) })
	}
}

func runCorpus(t *testing.T, path string) {
	cells := parseCorpus(t, path)
	s, out, errs := corpusSession(t)
	type asyncErr struct {
		cell int
		err  error
	}
	async := make(chan asyncErr, 16)
	for i, c := range cells {
		where := fmt.Sprintf("%s:%d (cell %d)", path, c.line, i+1)
		// A cell that hangs fails after a minute instead of stalling the test.
		ctx, cancelCtx := context.WithTimeout(context.Background(), time.Minute)
		if c.interrupt > 0 {
			time.AfterFunc(c.interrupt, cancelCtx)
		}
		count := i + 1
		b, err := s.Execute(ctx, c.code, Cell{Count: count, Silent: c.silent, AsyncError: func(err error) {
			async <- asyncErr{count, err}
		}})
		cancelCtx()
		var gotAsync error
		if w := c.want["async"]; w != nil {
			select {
			case a := <-async:
				gotAsync = a.err
			case <-time.After(10 * time.Second):
			}
		}
		stdout, stderr := out.sync(t), errs.sync(t)
		checkCell(t, where, c, b, err, gotAsync, stdout, stderr)
	}
	select {
	case a := <-async:
		t.Errorf("%s: unexpected asynchronous error from cell %d: %v", path, a.cell, a.err)
	default:
	}
}

func checkCell(t *testing.T, where string, c *corpusCell, b display.Bundle, err, async error, stdout, stderr string) {
	t.Helper()
	// Result.
	if w, ok := c.want["result"]; ok {
		got, has := b["text/plain"]
		if !has {
			t.Errorf("%s: no result (error %v), want %q", where, err, strings.Join(w, "\n"))
		} else if got != strings.Join(w, "\n") {
			t.Errorf("%s: result %q, want %q", where, got, strings.Join(w, "\n"))
		}
	} else if b != nil && c.want["mime"] == nil {
		t.Errorf("%s: unexpected result %v", where, b)
	}
	for _, line := range c.want["mime"] {
		mime, sub, _ := strings.Cut(line, ":")
		got, ok := b[mime]
		if !ok {
			t.Errorf("%s: the result has no %s (it has %v)", where, mime, keys(b))
			continue
		}
		if s, isStr := got.(string); !isStr || !strings.Contains(s, strings.TrimSpace(sub)) {
			t.Errorf("%s: the result's %s = %.200v, want it to contain %q", where, mime, got, strings.TrimSpace(sub))
		}
	}
	// Output.
	if w, ok := c.want["stdout contains"]; ok {
		for _, line := range w {
			if !strings.Contains(stdout, line) {
				t.Errorf("%s: stdout\n%s\ndoes not contain %q", where, stdout, line)
			}
		}
	} else if !linesMatch(strings.TrimRight(stdout, "\n"), c.want["stdout"]) {
		t.Errorf("%s: stdout\n%s\nwant\n%s", where, stdout, strings.Join(c.want["stdout"], "\n"))
	}
	for _, line := range c.want["stderr"] {
		if !strings.Contains(stderr, line) {
			t.Errorf("%s: stderr %q does not contain %q", where, stderr, line)
		}
	}
	// Errors.
	checkError(t, where, "error", c.want["error"], c.want["traceback"], err)
	if w := c.want["async"]; w != nil {
		checkError(t, where, "async error", w[:1], w[1:], async)
	}
}

// linesMatch compares text with wanted lines; a wanted line ending in
// "..." matches as a prefix.
func linesMatch(text string, want []string) bool {
	if len(want) == 0 {
		return text == ""
	}
	got := strings.Split(text, "\n")
	if len(got) != len(want) {
		return false
	}
	for i, w := range want {
		if p, ok := strings.CutSuffix(w, "..."); ok {
			if !strings.HasPrefix(got[i], p) {
				return false
			}
		} else if got[i] != w {
			return false
		}
	}
	return true
}

func checkError(t *testing.T, where, what string, want, trace []string, err error) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("%s: unexpected %s: %v", where, what, describeErr(err))
		}
		return
	}
	if err == nil {
		t.Errorf("%s: no %s, want %s", where, what, want[0])
		return
	}
	e, ok := err.(*Error)
	if !ok {
		t.Errorf("%s: %s %T %v is not a *session.Error", where, what, err, err)
		return
	}
	got := e.EName() + ": " + e.EValue()
	w := want[0]
	if prefix, isPrefix := strings.CutSuffix(w, "..."); isPrefix {
		if !strings.HasPrefix(got, prefix) {
			t.Errorf("%s: %s %q, want prefix %q", where, what, got, prefix)
		}
	} else if got != w {
		t.Errorf("%s: %s %q, want %q", where, what, got, w)
	}
	tb := e.Traceback()
	k := 0
	for _, line := range trace {
		for k < len(tb) && !strings.Contains(tb[k], line) {
			k++
		}
		if k == len(tb) {
			t.Errorf("%s: the traceback\n%s\ndoes not contain (in order) %q", where, strings.Join(tb, "\n"), line)
			return
		}
		k++
	}
}

func describeErr(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Error() + "\n" + strings.Join(e.Traceback(), "\n")
	}
	return err.Error()
}

func keys(b display.Bundle) []string {
	var k []string
	for m := range b {
		k = append(k, m)
	}
	sort.Strings(k)
	return k
}
