package notebook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/graphnb/graphnb/capture"
	"github.com/graphnb/graphnb/comm"
	"github.com/graphnb/graphnb/display"
	"github.com/graphnb/graphnb/session"
)

// ExecOptions configure Execute. The zero value runs every code cell with
// no parameters and no time limit.
type ExecOptions struct {
	// Params override the values the cell tagged "parameters" sets (see
	// InjectParameters).
	Params []Param
	// CellTimeout bounds each cell; a cell still running then is
	// interrupted and fails with ename "Timeout". 0: no limit. (Execute's
	// context bounds the whole run.)
	CellTimeout time.Duration
	// AllowErrors runs every cell even when some fail, as nbconvert's
	// --allow-errors does: the errors are in the cells' outputs and
	// Execute returns nil (unless ctx ends, which stops the run).
	AllowErrors bool
	// Log, when set, gets one line as each cell starts and one as it ends.
	// os.Stdout and os.Stderr are taken to mean the terminal: while cells
	// run, the process's own fds 1 and 2 are captured into the notebook.
	Log io.Writer
	// Session configures the interpreter the cells run in, as the kernel's
	// (cmd/graphnb passes the same options to both: graphnb's packages
	// and magics). Its Stdout and Stderr are ignored: the cells print to
	// the captured fds 1 and 2.
	Session session.Options
}

// CellError is the cell that stopped a run: its position in the notebook
// (Index, 0-based; the message says "cell Index+1"), id, execution count
// and Jupyter error fields. The same error is in the cell's outputs.
type CellError struct {
	Index int
	ID    string
	Count int
	// EName and EValue are the error's name ("panic", "CompileError",
	// "Interrupted", "Timeout", …) and message.
	EName, EValue string
	// Err is the session's error.
	Err error
}

func (e *CellError) Error() string {
	where := fmt.Sprintf("cell %d (In [%d]", e.Index+1, e.Count)
	if e.ID != "" {
		where += ", id " + e.ID
	}
	where += ")"
	return fmt.Sprintf("%s: %s: %s", where, e.EName, firstLine(e.EValue))
}

func (e *CellError) Unwrap() error { return e.Err }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// KernelSpec returns the metadata.kernelspec Execute sets: the kernel
// "graphnb install" installs.
func KernelSpec() map[string]any {
	return map[string]any{"display_name": "Go (graphnb)", "language": "go", "name": "graphnb"}
}

// LanguageInfo returns the metadata.language_info Execute sets: what the
// kernel's kernel_info_reply announces, version being the Go version
// graphnb was built with.
func LanguageInfo() map[string]any { return session.LanguageInfo() }

// execMu makes runs one at a time: a run owns process-wide state (fds 1
// and 2, the display sink and renderer, the cancellation point).
var execMu sync.Mutex

// Execute runs the code cells of nb in order, in one session of the
// graphnb kernel's interpreter (session.New with opt.Session, which
// cmd/graphnb makes the kernel's options: the same packages and magics;
// the same display renderer and interrupt handling), and stores their
// outputs in nb as nbformat 4 outputs, as Jupyter's nbclient would:
//
//   - output written to fds 1 and 2 (interpreted code, compiled Go, C) is
//     captured as the kernel captures it and kept as stream outputs,
//     consecutive writes to one stream merged into one output, and a
//     line rewritten with \r kept in its final form; while the installed
//     display sink is a display.Streamer (a widgets.Output capturing a
//     callback), the text goes to it instead;
//   - explicit displays become display_data outputs; an update of a
//     display id replaces the data of every earlier output of that id, in
//     whichever cell it is; display.Clear clears the cell's outputs;
//   - the value of a cell's final expression is its execute_result;
//   - a failure is an error output (ename, evalue, traceback);
//   - the state of the Jupyter widgets the cells open (comms to
//     "jupyter.widget") is saved in the notebook's metadata, as nbclient
//     saves it (widgets.go); every comm is closed when the run ends.
//
// Before running, every code cell loses its outputs and execution count,
// and Params are injected (see InjectParameters; an error there wraps
// ErrParameter and nothing runs). Cells whose source is blank are skipped,
// as nbclient skips them. %doc and NAME? print their text into the cell's
// stdout (a notebook file has no pager). The first cell that fails stops
// the run: its error is in its outputs, later cells stay without outputs,
// and Execute returns a *CellError (with AllowErrors, every cell runs). A
// panic in a goroutine while a cell runs fails that cell, as in the
// kernel; one between cells is an error output of the cell that started
// the goroutine and fails nothing (nbconvert with the kernel does the
// same).
// Cancelling ctx interrupts the running cell (it fails with ename
// "Interrupted"); ExecOptions.CellTimeout bounds each cell. The notebook's
// metadata gets the graphnb kernelspec and language_info. nb is complete
// and ready to write whenever Execute returns, whatever the error.
//
// Execute owns process-wide state while it runs: it captures fds 1 and 2
// (on Linux; elsewhere output goes where it goes and only what the
// session shows reaches the notebook), installs the display sink, and
// drives the cancellation point of package cancel. One run at a time per
// process: concurrent calls wait for each other.
func Execute(ctx context.Context, nb *Notebook, opt ExecOptions) error {
	if err := nb.Validate(); err != nil {
		return err
	}
	if len(opt.Params) > 0 {
		if err := InjectParameters(nb, opt.Params); err != nil {
			return err
		}
	}
	for _, c := range nb.Cells {
		if c.Type == Code {
			c.Outputs = []*Output{}
			c.ExecutionCount = 0
		}
	}
	if nb.Metadata == nil {
		nb.Metadata = Metadata{}
	}
	_ = nb.Metadata.Set("kernelspec", KernelSpec())
	_ = nb.Metadata.Set("language_info", LanguageInfo())

	execMu.Lock()
	defer execMu.Unlock()

	r := &recorder{ids: map[string][]outRef{}}
	so := opt.Session
	so.Stdout, so.Stderr = nil, nil
	sess, err := session.New(so)
	if err != nil {
		return fmt.Errorf("notebook: starting the interpreter: %w", err)
	}
	defer sess.Close()

	// Capture first: r.cap is set before the sink makes r reachable from
	// other goroutines.
	logw := opt.Log
	r.cap, err = capture.Start(r.write)
	if err != nil {
		r.cap = nil
		if logw != nil {
			fmt.Fprintf(logw, "graphnb exec: output written to stdout/stderr is not captured: %v\n", err)
		}
	} else {
		switch logw {
		case io.Writer(os.Stdout):
			logw = r.cap.Stdout()
		case io.Writer(os.Stderr):
			logw = r.cap.Stderr()
		}
		defer func() {
			if err := r.cap.Stop(); err != nil && logw != nil {
				fmt.Fprintf(logw, "graphnb exec: restoring stdout/stderr: %v\n", err)
			}
		}()
	}
	prevSink := display.SetSink(r)
	defer display.SetSink(prevSink)
	prevFlusher := display.SetFlusher(r.sync)
	defer display.SetFlusher(prevFlusher)
	widgets := newWidgetRecorder()
	prevComm := comm.SetTransport(widgets)
	defer func() {
		comm.SetTransport(prevComm)
		widgets.store(nb)
		comm.CloseAll()
	}()
	defer r.finish(nb)

	total := 0
	for _, c := range nb.Cells {
		if c.Type == Code && strings.TrimSpace(c.Source) != "" {
			total++
		}
	}
	n := 0
	for i, c := range nb.Cells {
		if c.Type != Code || strings.TrimSpace(c.Source) == "" {
			continue
		}
		n++
		c.ExecutionCount = n
		if logw != nil {
			fmt.Fprintf(logw, "graphnb exec: [%d/%d] cell %d (In [%d]) …\n", n, total, i+1, n)
		}
		start := time.Now()
		r.begin(c)
		err := runCell(ctx, sess, c, n, opt.CellTimeout, r)
		if err != nil {
			ce := r.fail(i, c, err)
			if logw != nil {
				fmt.Fprintf(logw, "graphnb exec: [%d/%d] cell %d failed after %s: %s: %s\n", n, total, i+1, seconds(time.Since(start)), ce.EName, firstLine(ce.EValue))
			}
			if !opt.AllowErrors || ctx.Err() != nil {
				return ce
			}
			continue
		}
		if logw != nil {
			fmt.Fprintf(logw, "graphnb exec: [%d/%d] cell %d done in %s\n", n, total, i+1, seconds(time.Since(start)))
		}
	}
	r.sync()
	return nil
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// runCell runs one cell as the kernel's execute handler does, and stores
// its result (or error) in c.
func runCell(ctx context.Context, sess *session.Session, c *Cell, count int, timeout time.Duration, r *recorder) error {
	cellCtx, stop := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		cellCtx, stop = context.WithTimeout(ctx, timeout)
	}
	defer stop()
	cell := session.Cell{Count: count, AsyncError: func(err error) { r.async(c, count, err) }}
	bundle, err := sess.Execute(cellCtx, c.Source, cell) // clears the cancellation point, recovers a panic
	r.sync()
	if err != nil {
		ename, evalue, tb := errorFields(err)
		if ename == "Interrupted" && errors.Is(cellCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			ename = "Timeout"
			evalue = fmt.Sprintf("the cell did not finish within its time limit (%s) and was interrupted", timeout)
			tb = append([]string{ename + ": " + evalue}, tb[1:]...)
		}
		r.add(c, &Output{Type: Error, EName: ename, EValue: evalue, Traceback: tb})
		return &cellFailure{ename: ename, evalue: evalue, err: err}
	}
	if bundle != nil {
		r.add(c, &Output{Type: ExecuteResult, Data: MIMEBundle(bundle), Metadata: Metadata{}, ExecutionCount: count})
	}
	return nil
}

// cellFailure carries a cell's error fields from runCell.
type cellFailure struct {
	ename, evalue string
	err           error
}

func (f *cellFailure) Error() string { return f.ename + ": " + f.evalue }

// errorFields returns the Jupyter error fields of err (those of a
// *session.Error or anything with the same methods; else "Error").
func errorFields(err error) (ename, evalue string, tb []string) {
	var ce interface {
		EName() string
		EValue() string
		Traceback() []string
	}
	if errors.As(err, &ce) {
		ename, evalue, tb = ce.EName(), ce.EValue(), ce.Traceback()
	} else {
		ename, evalue = "Error", err.Error()
	}
	if len(tb) == 0 {
		tb = []string{ename + ": " + evalue}
	}
	return ename, evalue, tb
}

// outRef is an output shown under a display id, and its cell.
type outRef struct {
	cell *Cell
	out  *Output
}

// recorder turns what a running notebook shows into outputs: it is the
// capture callback and the display sink.
type recorder struct {
	cap *capture.Capture

	mu        sync.Mutex
	cur       *Cell // the cell output goes to (the last started)
	done      bool
	pending   capture.Interleaver // an incomplete UTF-8 sequence held back
	clearWait bool                // clear_output(wait) pending for cur
	ids       map[string][]outRef
}

var _ display.Sink = (*recorder)(nil)

// begin makes c the cell output goes to; what was written before goes to
// the previous cell.
func (r *recorder) begin(c *Cell) {
	r.sync()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushPending()
	r.cur = c
	r.clearWait = false
}

// sync makes sure every byte written to fds 1 and 2 so far is in the
// outputs.
func (r *recorder) sync() {
	if r.cap != nil {
		_ = r.cap.Sync() // a timeout leaves late output to the next sync
	}
	r.mu.Lock()
	r.flushPending()
	r.mu.Unlock()
}

// write receives captured output (capture.Func).
func (r *recorder) write(stream string, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending.Add(stream, data, r.appendText)
	r.pending.Flush(false, r.appendText)
}

// flushPending emits held-back bytes, the stream written last last.
func (r *recorder) flushPending() { r.pending.Flush(true, r.appendText) }

// appendText adds stream text to the current cell, extending its last
// output when that is the same stream, or hands it to the installed
// display sink when that is a display.Streamer (a widgets.Output
// capturing a callback's output), as the kernel does.
func (r *recorder) appendText(stream string, b []byte) {
	if len(b) == 0 || r.cur == nil || r.done {
		return
	}
	if st, ok := display.CurrentSink().(display.Streamer); ok {
		st.Stream(stream, string(b))
		return
	}
	r.clearIfWaiting()
	c := r.cur
	if n := len(c.Outputs); n > 0 && c.Outputs[n-1].Type == Stream && c.Outputs[n-1].Name == stream {
		c.Outputs[n-1].Text += string(b)
		return
	}
	c.Outputs = append(c.Outputs, &Output{Type: Stream, Name: stream, Text: string(b)})
}

// add appends an output to c.
func (r *recorder) add(c *Cell, o *Output) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	if c == r.cur {
		r.clearIfWaiting()
	}
	c.Outputs = append(c.Outputs, o)
}

// Display implements display.Sink: a display_data output in the current
// cell, or, with update, new data for the outputs shown under displayID.
func (r *recorder) Display(data display.Bundle, metadata map[string]any, displayID string, update bool) {
	r.sync() // output printed before the display stays before it
	md := Metadata{}
	for k, v := range metadata {
		if err := md.Set(k, v); err != nil {
			fmt.Fprintf(os.Stderr, "graphnb: cannot display: %v\n", err)
			return
		}
	}
	if data == nil {
		data = display.Bundle{}
	}
	if _, err := marshalJSON(data); err != nil {
		fmt.Fprintf(os.Stderr, "graphnb: cannot display: %v\n", err)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	if displayID != "" {
		for _, ref := range r.ids[displayID] {
			ref.out.Data, ref.out.Metadata = MIMEBundle(data), md
		}
		if update {
			return
		}
	}
	if r.cur == nil {
		return
	}
	r.clearIfWaiting()
	o := &Output{Type: DisplayData, Data: MIMEBundle(data), Metadata: md}
	r.cur.Outputs = append(r.cur.Outputs, o)
	if displayID != "" {
		r.ids[displayID] = append(r.ids[displayID], outRef{r.cur, o})
	}
}

// ClearOutput implements display.Sink: the current cell's outputs are
// removed now, or with wait just before its next output.
func (r *recorder) ClearOutput(wait bool) {
	r.sync()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil || r.done {
		return
	}
	if wait {
		r.clearWait = true
		return
	}
	r.clearLocked()
}

func (r *recorder) clearIfWaiting() {
	if r.clearWait {
		r.clearWait = false
		r.clearLocked()
	}
}

func (r *recorder) clearLocked() {
	c := r.cur
	c.Outputs = []*Output{}
	for id, refs := range r.ids {
		kept := refs[:0]
		for _, ref := range refs {
			if ref.cell != c {
				kept = append(kept, ref)
			}
		}
		r.ids[id] = kept
	}
}

// async records a failure reported after a cell returned, in that cell.
func (r *recorder) async(c *Cell, count int, err error) {
	if err == nil {
		return
	}
	r.sync()
	ename, evalue, tb := errorFields(err)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	c.Outputs = append(c.Outputs, &Output{Type: Error, EName: ename, EValue: evalue, Traceback: tb})
}

// fail builds the error of the cell that stopped the run.
func (r *recorder) fail(i int, c *Cell, err error) *CellError {
	f := err.(*cellFailure)
	return &CellError{Index: i, ID: c.ID, Count: c.ExecutionCount, EName: f.ename, EValue: f.evalue, Err: f.err}
}

// finish stops recording (later output of goroutines is dropped) and
// settles the streams: a line rewritten with \r keeps its final text, as
// Jupyter shows it.
func (r *recorder) finish(nb *Notebook) {
	r.sync()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			if o.Type == Stream && strings.Contains(o.Text, "\r") {
				o.Text = crRE.ReplaceAllString(o.Text, "$1")
			}
		}
	}
}

// crRE matches the text of a line up to its last carriage return that
// more text follows on the same line (what that text overwrote), and the
// first character of that text, which the replacement keeps.
var crRE = regexp.MustCompile(`[^\n]*\r([^\n])`)
