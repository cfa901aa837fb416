package display

import (
	"fmt"
	"html"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ProgressInterval is the shortest time between two redraws of a
// Progress: at most 10 updates a second reach the notebook, however often
// the work reports. The final state (Done) is always drawn.
const ProgressInterval = 100 * time.Millisecond

// Progress is a progress bar for long work: an HTML bar updated in place
// in a notebook (update_display_data), a one-line bar redrawn with \r on
// standard error in a console. Set, Add and the Callback function may be
// called from any goroutine, as often as the work likes: they cost two
// atomic operations and a clock read, and redraws are rate-limited (see
// ProgressInterval); a change that arrives inside the interval is drawn at
// its end.
//
//	p := display.NewProgress("roots", 64)
//	defer p.Done()
//	for i := range 64 { run(i); p.Add(1) }
type Progress struct {
	label string
	id    string
	start time.Time
	now   func() time.Time
	after func(time.Duration, func()) // schedules the trailing redraw

	done, total atomic.Int64
	nextDue     atomic.Int64 // earliest next redraw, ns since start
	finished    atomic.Bool
	flushing    atomic.Bool // a trailing redraw is scheduled

	mu        sync.Mutex // serialises redraws, guards the fields below
	onSink    bool       // the sink has been sent the first display
	lineWidth int        // width of the last console line
}

// NewProgress creates a progress bar for total units of work (total ≤ 0:
// unknown, shown as a count without a bar) and shows it at 0.
func NewProgress(label string, total int64) *Progress {
	return newProgress(label, total, time.Now, func(d time.Duration, f func()) { time.AfterFunc(d, f) })
}

// newProgress is NewProgress with an injected clock and timer (tests).
func newProgress(label string, total int64, now func() time.Time, after func(time.Duration, func())) *Progress {
	p := &Progress{label: label, id: newID(), now: now, after: after}
	p.start = now()
	p.total.Store(total)
	p.mu.Lock()
	p.draw(p.start, false)
	p.mu.Unlock()
	p.nextDue.Store(int64(ProgressInterval))
	return p
}

// Set records that done units of work are complete.
func (p *Progress) Set(done int64) {
	p.done.Store(done)
	p.changed()
}

// Add records n more units of work as complete.
func (p *Progress) Add(n int64) {
	p.done.Add(n)
	p.changed()
}

// SetTotal changes the amount of work (≤ 0: unknown).
func (p *Progress) SetTotal(total int64) {
	p.total.Store(total)
	p.changed()
}

// Callback returns a function compiled code can call from any goroutine
// to report progress: done units out of total (a total ≤ 0 keeps the
// current one). It is how a long compiled call reports to a notebook
// without knowing about this package. The report that reaches the total
// ends the bar, as Done does: a sweep's last run turns it green with its
// duration, without a Done call the notebook cell cannot easily make.
func (p *Progress) Callback() func(done, total int64) {
	return func(done, total int64) {
		if total > 0 {
			p.total.Store(total)
		}
		p.Set(done)
		if t := p.total.Load(); t > 0 && done >= t {
			p.Done()
		}
	}
}

// Done draws the final state (always, whatever the rate limit) and ends
// the bar; later calls to Done, Set or Add change nothing on screen. A bar
// whose count is short of its total shows where the work stopped.
func (p *Progress) Done() {
	if p.finished.Swap(true) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(p.now(), true)
}

// String returns the bar's current text form, e.g.
// "sweep [########............] 42% 4.2k/10k ETA 3.1s".
func (p *Progress) String() string {
	return p.snapshot(p.now(), p.finished.Load()).text()
}

// HTML returns the bar's current HTML form.
func (p *Progress) HTML() string {
	return p.snapshot(p.now(), p.finished.Load()).html()
}

// changed redraws if the interval since the last redraw has passed, and
// otherwise makes sure a redraw happens when it has.
func (p *Progress) changed() {
	if p.finished.Load() {
		return
	}
	wait := p.untilDue()
	if wait <= 0 {
		p.mu.Lock()
		if wait = p.untilDue(); wait <= 0 && !p.finished.Load() {
			t := p.now()
			p.draw(t, false)
			p.nextDue.Store(int64(t.Sub(p.start) + ProgressInterval))
		}
		p.mu.Unlock()
	}
	if wait > 0 && p.flushing.CompareAndSwap(false, true) {
		p.after(wait, p.flush)
	}
}

// untilDue returns how long until the next redraw is allowed.
func (p *Progress) untilDue() time.Duration {
	return time.Duration(p.nextDue.Load()) - p.now().Sub(p.start)
}

// flush is the trailing redraw scheduled by changed; if another
// goroutine drew in the meantime, it waits for the next due time instead,
// so the last change is always drawn.
func (p *Progress) flush() {
	p.flushing.Store(false)
	p.changed()
}

// draw sends the state at time t to the sink or the console. p.mu is held.
func (p *Progress) draw(t time.Time, final bool) {
	s := p.snapshot(t, final)
	if sink := CurrentSink(); sink != nil {
		sink.Display(Bundle{"text/plain": s.text(), "text/html": s.html()}, nil, p.id, p.onSink)
		p.onSink = true
		return
	}
	line := s.text()
	pad := max(0, p.lineWidth-len([]rune(line)))
	p.lineWidth = len([]rune(line))
	end := ""
	if final {
		end = "\n"
	}
	fmt.Fprintf(consoleErr(), "\r%s%s%s", line, strings.Repeat(" ", pad), end)
}

// progressState is one moment of a Progress.
type progressState struct {
	label       string
	done, total int64
	elapsed     time.Duration
	final       bool
}

func (p *Progress) snapshot(t time.Time, final bool) progressState {
	return progressState{label: p.label, done: p.done.Load(), total: p.total.Load(),
		elapsed: t.Sub(p.start), final: final}
}

// fraction is done/total clamped to [0, 1]; ok is false for an unknown
// total.
func (s progressState) fraction() (f float64, ok bool) {
	if s.total <= 0 {
		return 0, false
	}
	return min(1, max(0, float64(s.done)/float64(s.total))), true
}

// eta estimates the time left from the mean rate so far; ok is false when
// there is nothing to estimate from.
func (s progressState) eta() (time.Duration, bool) {
	if s.total <= 0 || s.done <= 0 || s.done >= s.total || s.elapsed <= 0 {
		return 0, false
	}
	return time.Duration(float64(s.elapsed) * float64(s.total-s.done) / float64(s.done)), true
}

// status is the words after the numbers: the ETA while running, how long
// it took once done.
func (s progressState) status() string {
	switch {
	case !s.final:
		if eta, ok := s.eta(); ok {
			return "ETA " + formatDuration(eta)
		}
		return ""
	case s.total > 0 && s.done < s.total:
		return "stopped after " + formatDuration(s.elapsed)
	}
	return "in " + formatDuration(s.elapsed)
}

// text renders "label [#####...............] 25% 2.5k/10k ETA 3.0s".
func (s progressState) text() string {
	var parts []string
	if s.label != "" {
		parts = append(parts, s.label)
	}
	if f, ok := s.fraction(); ok {
		const width = 20
		n := int(f * width)
		parts = append(parts, "["+strings.Repeat("#", n)+strings.Repeat(".", width-n)+"]",
			fmt.Sprintf("%d%%", int(f*100)),
			formatCount(s.done)+"/"+formatCount(s.total))
	} else {
		parts = append(parts, formatCount(s.done))
		if !s.final {
			parts = append(parts, formatDuration(s.elapsed))
		}
	}
	if st := s.status(); st != "" {
		parts = append(parts, st)
	}
	return strings.Join(parts, " ")
}

// html renders the bar as styled divs (no script, no external asset).
func (s progressState) html() string {
	var b strings.Builder
	b.WriteString(`<div style="font-family:monospace;font-size:12px;line-height:18px">`)
	if s.label != "" {
		fmt.Fprintf(&b, `<span style="font-weight:bold">%s</span> `, html.EscapeString(s.label))
	}
	var info []string
	if f, ok := s.fraction(); ok {
		color := "#3b7dd8"
		switch {
		case s.final && s.done >= s.total:
			color = "#3a9a4a"
		case s.final:
			color = "#d08a2c"
		}
		fmt.Fprintf(&b, `<div style="display:inline-block;vertical-align:middle;width:240px;height:12px;background:#e4e4e4;border-radius:3px;overflow:hidden">`+
			`<div style="width:%.1f%%;height:12px;background:%s"></div></div> `, f*100, color)
		info = append(info, fmt.Sprintf("%d%%", int(f*100)), formatCount(s.done)+"/"+formatCount(s.total))
	} else {
		info = append(info, formatCount(s.done))
	}
	if !s.final {
		info = append(info, formatDuration(s.elapsed)+" elapsed")
		if s.elapsed > 0 && s.done > 0 {
			info = append(info, formatRate(float64(s.done)/s.elapsed.Seconds()))
		}
	}
	if st := s.status(); st != "" {
		info = append(info, st)
	}
	fmt.Fprintf(&b, `<span>%s</span></div>`, html.EscapeString(strings.Join(info, " · ")))
	return b.String()
}

// formatCount renders n exactly below 1000, else with 3 significant
// digits and a k/M/G/T suffix ("4.2k", "1.05M").
func formatCount(n int64) string {
	x := float64(n)
	if x < 0 {
		return "-" + formatCount(-n)
	}
	for _, p := range []struct {
		f float64
		s string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if x >= p.f*0.9995 { // 999,600 is "1M", not "1e+03k"
			return fmt.Sprintf("%.3g%s", x/p.f, p.s)
		}
	}
	return fmt.Sprintf("%d", n)
}

// formatRate renders a rate of units per second: "25/s", "1.05k/s",
// "0.83/s" below 10, and "1 per 12s" below 0.1, where "0/s" would hide that
// work is being done.
func formatRate(perSecond float64) string {
	switch {
	case perSecond >= 10:
		return formatCount(int64(perSecond)) + "/s"
	case perSecond >= 0.1:
		return fmt.Sprintf("%.2g/s", perSecond)
	case perSecond > 0:
		return "1 per " + formatDuration(time.Duration(float64(time.Second)/perSecond))
	}
	return "0/s"
}

// formatDuration renders d for a human: "0.4s", "12s", "3m05s", "1h02m".
func formatDuration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
